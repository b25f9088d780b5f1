"""The best next-placed, pure: the first knockout round drawn before the groups, the allocation of
the qualifiers to its slots (UEFA's published table, else the stated rule), and their ranking
across the groups."""
from __future__ import annotations

import itertools

import pytest

from leagues.rules import best_thirds as bt
from leagues.rules.pairings import group_letter
from leagues.rules.standings import MatchLine

# UEFA EURO 2020/2024: the groups whose thirds qualify -> the thirds meeting 1B, 1C, 1E, 1F
# (Regulations 2018-20 and 2022-24, art. 20.03), written out once more from the source.
UEFA = """
ABCD 3A 3D 3B 3C
ABCE 3A 3E 3B 3C
ABCF 3A 3F 3B 3C
ABDE 3D 3E 3A 3B
ABDF 3D 3F 3A 3B
ABEF 3E 3F 3B 3A
ACDE 3E 3D 3C 3A
ACDF 3F 3D 3C 3A
ACEF 3E 3F 3C 3A
ADEF 3E 3F 3D 3A
BCDE 3E 3D 3B 3C
BCDF 3F 3D 3C 3B
BCEF 3F 3E 3C 3B
BDEF 3F 3E 3D 3B
CDEF 3F 3E 3D 3C
"""


def first_round(plan: bt.Layout, allocation: dict[int, int], qualified: list[int]) -> list[tuple]:
    """The first round as (group, place) pairs once the next-placed are known."""
    def side(s):
        if isinstance(s, bt.NextSlot):
            return (qualified[allocation[s.slot]], plan.place)
        return None if s is None else (s.group, s.place)
    return [(side(h), side(a)) for h, a in plan.pairs]


def same_group_meetings(pairs) -> list:
    return [(h, a) for h, a in pairs if h and a and h[0] == a[0]]


@pytest.mark.parametrize("combination", UEFA.split("\n")[1:-1])
def test_six_groups_two_and_four_thirds_follow_uefas_table(combination):
    groups, *thirds = combination.split()
    plan = bt.layout(6, 2, 4)
    assert plan.published
    qualified = [ord(g) - ord("A") for g in groups]
    allocation = bt.allocate(plan, qualified)
    winners = {}
    for home, away in plan.pairs:
        if isinstance(away, bt.NextSlot):
            winners[group_letter(home.group)] = "3" + group_letter(qualified[allocation[away.slot]])
    assert [winners[w] for w in "BCEF"] == thirds
    assert same_group_meetings(first_round(plan, allocation, qualified)) == []


def test_the_uefa_bracket_is_euro_2024s_round_of_16():
    labels = [bt.pairing_label(p, bt.layout(6, 2, 4)) for p in bt.layout(6, 2, 4).pairs]
    assert labels == ["C1 v 3rd of D/E/F", "A2 v B2", "E1 v 3rd of A/B/C/D", "D1 v F2",
                      "D2 v E2", "F1 v 3rd of A/B/C", "B1 v 3rd of A/D/E/F", "A1 v C2"]


@pytest.mark.parametrize("groups,qualifiers,best,size", [
    (3, 2, 2, 8), (5, 2, 6, 16), (5, 2, 5, 16), (4, 3, 4, 16), (3, 1, 2, 8), (5, 1, 3, 8), (12, 2, 8, 32),
    (2, 3, 0, 8), (3, 2, 0, 8), (8, 3, 8, 32),
])
def test_no_first_round_meets_two_of_one_group_whoever_qualifies(groups, qualifiers, best, size):
    plan = bt.layout(groups, qualifiers, best)
    assert len(plan.pairs) * 2 == size
    sides = [s for pair in plan.pairs for s in pair if s is not None]
    assert len(sides) == groups * qualifiers + best  # the rest are byes, to the top seeds
    full, rest = divmod(best, groups)
    options = [list(range(groups)) * full + list(c) for c in itertools.combinations(range(groups), rest)]
    for qualified in options[:200]:
        for order in list(itertools.permutations(qualified))[:24]:
            allocation = bt.allocate(plan, list(order))
            assert sorted(allocation.values()) == list(range(best))
            assert same_group_meetings(first_round(plan, allocation, list(order))) == []


def test_three_groups_of_two_and_two_thirds_meet_winners_of_other_groups():
    plan = bt.layout(3, 2, 2)
    assert [bt.pairing_label(p, plan) for p in plan.pairs] == [
        "A1 v 3rd of B/C", "C2 v B2", "B1 v 3rd of A/C", "C1 v A2"]
    # slot 1 (seed 7) meets B1, slot 2 (seed 8) A1: the best third takes slot 1 ...
    assert bt.allocate(plan, [0, 2]) == {1: 0, 2: 1}
    # ... unless it is B's: then it meets A1, and the other third B1
    assert bt.allocate(plan, [1, 2]) == {1: 1, 2: 0}


def test_byes_go_to_the_top_seeds_and_the_groups_crossover_stays():
    assert [bt.pairing_label(p, bt.layout(3, 2, 0)) for p in bt.layout(3, 2, 0).pairs] == [
        "A1", "C2 v B2", "B1", "C1 v A2"]
    assert [bt.pairing_label(p, bt.layout(4, 2, 0)) for p in bt.layout(4, 2, 0).pairs] == [
        "A1 v B2", "C1 v D2", "B1 v A2", "D1 v C2"]


@pytest.mark.parametrize("groups,qualifiers,best", [(1, 1, 0), (2, 2, 1), (4, 0, 2), (0, 2, 0)])
def test_impossible_settings_are_refused(groups, qualifiers, best):
    with pytest.raises(ValueError):
        bt.layout(groups, qualifiers, best)
    assert bt.settings_errors(groups, qualifiers, best)


def test_more_next_placed_than_the_entrants_give_is_refused():
    assert bt.settings_errors(3, 2, 2, entrants=9) is None  # groups of 3: a third each
    assert bt.settings_errors(3, 2, 3, entrants=8) is not None  # groups of 3, 3, 2
    assert bt.settings_errors(3, 2, 3) is None  # the entrants not known yet


def test_codes_round_trip():
    assert bt.parse_code("A1") == ("A", 1) and bt.parse_code("B12") == ("B", 12)
    assert bt.parse_code("3#2") == ("#3", 2)


def group(name, ranked, results):
    lines = [MatchLine(home=h, away=a, home_goals=hg, away_goals=ag) for h, a, hg, ag in results]
    return bt.GroupResults(name=name, ranked=[(e, e) for e in ranked], lines=lines)


def test_thirds_are_ranked_on_comparable_criteria_only():
    a = group("A", ["a1", "a2", "a3"], [("a1", "a3", 1, 0), ("a2", "a3", 1, 1), ("a1", "a2", 0, 0)])
    b = group("B", ["b1", "b2", "b3"], [("b1", "b3", 2, 0), ("b2", "b3", 1, 1), ("b1", "b2", 1, 0)])
    c = group("C", ["c1", "c2", "c3"], [("c1", "c3", 1, 1), ("c2", "c3", 0, 1), ("c1", "c2", 3, 0)])
    ranking = bt.next_placed_ranking([a, b, c], 3, ["points", "h2h_points", "goal_difference", "goals_for"], best=2)
    assert ranking.criteria == ("points", "goal_difference", "goals_for")
    assert [(r.entrant, r.points, r.qualifies) for r in ranking.rows] == [
        ("c3", 4, True), ("a3", 1, True), ("b3", 1, False)]
    assert ranking.rows[1].tiebreak == "level on 1 point with b3; ahead on goal difference, -1 against -2"
    assert ranking.left_out_below is None and ranking.decided


def test_in_unequal_groups_results_against_the_last_of_the_larger_are_left_out():
    a = group("A", ["a1", "a2", "a3", "a4"], [("a3", "a4", 5, 0), ("a1", "a3", 1, 0), ("a2", "a3", 1, 0)])
    b = group("B", ["b1", "b2", "b3"], [("b1", "b3", 1, 0), ("b2", "b3", 0, 0)])
    ranking = bt.next_placed_ranking([a, b], 3, ["points", "goal_difference"], best=1)
    a3 = next(r for r in ranking.rows if r.entrant == "a3")
    assert (a3.played, a3.points, a3.goals_for) == (2, 0, 0)  # the 5-0 against a4 left out
    assert ranking.left_out_below == 3
    assert [r.entrant for r in ranking.rows if r.qualifies] == ["b3"]


def test_a_shared_cut_is_not_decided_and_a_spill_ranks_the_place_after():
    a = group("A", ["a1", "a2", "a3"], [("a1", "a3", 1, 0)])
    b = group("B", ["b1", "b2", "b3"], [("b1", "b3", 1, 0)])
    assert not bt.next_placed_ranking([a, b], 3, ["points"], best=1).decided
    spill = bt.next_placed_ranking([a, b], 2, ["points", "lots"], best=3, seed=7)
    assert [r.place for r in spill.rows] == [2, 2, 3, 3]
    assert [r.qualifies for r in spill.rows] == [True, True, True, False] and spill.decided
