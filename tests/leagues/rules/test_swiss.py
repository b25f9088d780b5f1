"""The Swiss pairing engine (``leagues.rules.swiss``): hand cases from the Dutch system, and a
property-based test over random opens holding every round to the absolute rules.

The property test checks with its own code, not the engine's: who met, the colour sequences,
the byes, and for a field of at most ten active entrants an exhaustive search of the round
(the only case where ``NoLegalPairing`` is accepted, and where the bye must be the lowest
eligible entrant the search finds). Bounded like ``tests/test_hostile_input.py``.
"""
from __future__ import annotations

import math

import networkx as nx
import pytest
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leagues.rules.swiss import Game, NoLegalPairing, pair_round

BOUNDED = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WIN, DRAW = 3, 1


@pytest.fixture(autouse=True)
def in_english():
    """The messages read in English, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


def play(round_no, pairs, results):
    """Games of a round from (home, away) pairs and "h"/"d"/"a" results."""
    points = {"h": (WIN, 0), "d": (DRAW, DRAW), "a": (0, WIN)}
    return [Game(round_no, h, a, *points[r]) for (h, a), r in zip(pairs, results, strict=True)]


# --- hand cases ---------------------------------------------------------------------------

def test_round_one_pairs_the_top_half_against_the_bottom_half():
    got = pair_round(list(range(1, 9)), [], round_no=1, rounds=5, bye_points=WIN)
    assert got.pairs == [(1, 5), (6, 2), (3, 7), (8, 4)]  # C.04.3 E.5: odd pairing numbers home
    assert got.bye is None


def test_round_one_of_an_odd_field_gives_the_bye_to_the_last_seed():
    got = pair_round(list(range(1, 10)), [], round_no=1, rounds=5, bye_points=WIN)
    assert got.bye == 9
    assert got.pairs == [(1, 5), (6, 2), (3, 7), (8, 4)]


def test_the_bye_goes_to_the_lowest_ranked_of_the_lowest_score_group():
    games = [*play(1, [(1, 5), (6, 2), (3, 7), (8, 4)], "hahh"), Game(1, 9, None)]
    got = pair_round(list(range(1, 10)), games, round_no=2, rounds=5, bye_points=WIN)
    # 1, 2, 3, 8 won and 9 had the bye (3 points): 4, 5, 6, 7 are the lowest group
    assert got.bye == 7


def test_no_second_bye_while_another_entrant_has_none():
    # a bye worth nothing leaves 9 in the lowest group, the lowest ranked of it
    games = [*play(1, [(1, 5), (6, 2), (3, 7), (8, 4)], "hahh"), Game(1, 9, None)]
    got = pair_round(list(range(1, 10)), games, round_no=2, rounds=5, bye_points=0)
    assert got.bye == 7
    assert any(9 in pair for pair in got.pairs)


def test_colours_alternate_and_outweigh_the_half_order():
    # round 1: 1, 2, 3, 4 won; 1 and 3 were home, 2 and 4 away
    games = play(1, [(1, 5), (6, 2), (3, 7), (8, 4)], "haha")
    got = pair_round(list(range(1, 9)), games, round_no=2, rounds=5, bye_points=WIN)
    # S1 against S2 would be 1-3 and 2-4, both pairs wanting the same colour: exchanged
    assert got.pairs == [(4, 1), (2, 3), (5, 8), (7, 6)]


def test_an_odd_score_group_floats_its_lowest_down_against_the_first_it_may_meet():
    # 1, 2 and 6 won: the top group is odd; 6 (its lowest) floats down; it met 3, and 4
    # wants home as 6 does, so it meets 5
    games = play(1, [(1, 4), (5, 2), (3, 6)], "haa")
    got = pair_round(list(range(1, 7)), games, round_no=2, rounds=3, bye_points=WIN)
    assert got.pairs == [(2, 1), (6, 5), (4, 3)]


def test_a_group_that_cannot_pair_floats_one_group_down_not_to_the_bottom():
    # after two rounds (3-1-0): 1 and 7 lead with 4 points and have met; 2, 4, 6, 8 have 2;
    # 3 and 5 have 1 and have met. Fewest pairs across groups alone would send the leaders to 3
    # and 5 (two pairs, 3 points apart); the Dutch order (C.04.3 C.5, C.6: group by group from
    # the top) floats each group into the next one: four pairs, each 1 or 2 points apart
    games = (play(1, [(1, 5), (6, 2), (3, 7), (8, 4)], "hdad")
             + play(2, [(7, 1), (2, 8), (4, 6), (5, 3)], "dddd"))
    got = pair_round(list(range(1, 9)), games, round_no=3, rounds=5, bye_points=WIN)
    assert all({2, 4, 6, 8} & set(pair) for pair in got.pairs), got.pairs


def test_a_round_not_paired_is_no_bye_and_scores_its_points():
    # 5 was absent in round 1 (a round asked off, no points): not the pairing's bye, so it is
    # still the one to rest in round 2, the lowest ranked of the lowest group
    games = [*play(1, [(1, 3), (2, 4)], "hh"), Game(1, 5, None, 0, allocated=False)]
    assert pair_round([1, 2, 3, 4, 5], games, round_no=2, rounds=3, bye_points=WIN).bye == 5
    # given a draw's point for it, 5 leaves the lowest group, and 4 rests
    games[-1] = Game(1, 5, None, DRAW, allocated=False)
    assert pair_round([1, 2, 3, 4, 5], games, round_no=2, rounds=3, bye_points=WIN).bye == 4


def test_a_walkover_counts_its_points_and_the_meeting_but_gives_no_colour():
    # round 1: 1 won at home by walkover (3 did not come), 2 won a game at home
    games = [Game(1, 1, 3, WIN, 0, played=False), Game(1, 2, 4, WIN, 0)]
    got = pair_round([1, 2, 3, 4], games, round_no=2, rounds=3, bye_points=WIN)
    # 1 has no colour to alternate, 2 wants away (C.04.3 E.1): 1 is home; 3 met 1, so 3 meets 4
    assert got.pairs == [(1, 2), (3, 4)] or got.pairs == [(1, 2), (4, 3)]


def test_no_legal_pairing_names_the_rematch_rule():
    games = play(1, [(1, 2), (3, 4)], "hh") + play(2, [(1, 3), (4, 2)], "hh") + play(3, [(4, 1), (2, 3)], "hh")
    with pytest.raises(NoLegalPairing) as raised:
        pair_round([1, 2, 3, 4], games, round_no=4, rounds=4, bye_points=WIN)
    assert raised.value.rule == "rematch"
    assert "no two entrants meet twice" in str(raised.value)


def test_no_legal_pairing_names_the_colour_rule():
    # 1 and 2 were home twice running, and have not met
    games = play(1, [(1, 3), (2, 4)], "hh") + play(2, [(1, 4), (2, 3)], "hh")
    with pytest.raises(NoLegalPairing) as raised:
        pair_round([1, 2, 3, 4], games, round_no=3, rounds=4, bye_points=WIN)
    assert raised.value.rule == "colours"


def topscorers_home_twice():
    """1 and 2 won three games, the last two at home, against 3, 4 and a withdrawn entrant
    each: in round 4 they can only meet each other, and 3 only 4."""
    return (play(1, [(4, 1), (3, 2), (5, 7), (6, 8)], "aadd") + play(2, [(1, 3), (2, 4), (8, 5), (7, 6)], "hhdd")
            + play(3, [(1, 5), (2, 6), (3, 7), (4, 8)], "hhhh"))


def test_the_last_rounds_topscorers_meet_past_the_colour_rule():
    got = pair_round(list(range(1, 9)), topscorers_home_twice(), round_no=4, rounds=4, bye_points=WIN,
                     withdrawn={5, 6, 7, 8})
    # C.04.3 C.3: topscorers (9 of 9 points) of the same absolute preference may meet in the
    # last round; E.4 gives the higher ranked its colour
    assert got.pairs == [(2, 1), (4, 3)]


def test_before_the_last_round_topscorers_keep_the_colour_rule():
    with pytest.raises(NoLegalPairing) as raised:
        pair_round(list(range(1, 9)), topscorers_home_twice(), round_no=4, rounds=5, bye_points=WIN,
                   withdrawn={5, 6, 7, 8})
    assert raised.value.rule == "colours"


def test_no_legal_pairing_when_the_homes_would_pass_the_aways_by_three():
    # 1: home, home, away, home (two more homes); 2: home, away, home, home (the same, and
    # two homes running): both must play away, so they cannot meet
    games = [Game(1, 1, 3), Game(1, 2, 4), Game(2, 1, 4), Game(2, 3, 2),
             Game(3, 5, 1), Game(3, 2, 6), Game(4, 1, 6), Game(4, 2, 5)]
    with pytest.raises(NoLegalPairing) as raised:
        pair_round([1, 2, 3, 4, 5, 6], games, round_no=5, rounds=5, bye_points=WIN, withdrawn={3, 4, 5, 6})
    assert raised.value.rule == "colours"


def test_withdrawn_entrants_are_not_paired_and_a_late_entrant_is_at_zero():
    games = play(1, [(1, 3), (4, 2)], "hh")
    got = pair_round([1, 2, 3, 4, 5], games, round_no=2, rounds=3, bye_points=WIN, withdrawn={1})
    # 4 (3 points) floats down to the highest of the rest it has not met, 3; 5 starts at zero
    assert got.pairs == [(3, 4), (2, 5)]
    assert got.bye is None


def test_a_game_naming_an_unknown_entrant_is_refused():
    with pytest.raises(ValueError, match="not in the competition"):
        pair_round([1, 2], [Game(1, 1, 7, 3, 0)], round_no=2, rounds=2, bye_points=WIN)


# --- the absolute rules, checked independently ----------------------------------------------

class Record:
    """What the test knows of an open: scores, met pairs, colour sequences, byes."""

    def __init__(self):
        self.topscorers: set = set()  # the last round's (C.04.3 A.7, C.3): past the colour rule
        self.score: dict = {}
        self.met: set = set()
        self.colours: dict = {}
        self.byes: dict = {}

    def join(self, e):
        self.score.setdefault(e, 0)
        self.colours.setdefault(e, [])
        self.byes.setdefault(e, 0)

    def may_take(self, e, colour):
        seq = self.colours[e] + [colour]
        return seq[-3:] != [colour] * 3 and abs(seq.count("H") - seq.count("A")) <= 2

    def may_meet(self, a, b):
        if frozenset((a, b)) in self.met:
            return False
        return bool(self.topscorers & {a, b}) or (self.may_take(a, "H") and self.may_take(b, "A")) or (
            self.may_take(a, "A") and self.may_take(b, "H"))

    def bye_eligible(self, active):
        fresh = [e for e in active if not self.byes[e]]
        return fresh or list(active)


def perfect(record, players):
    """Exhaustive: can ``players`` (even count) all be paired under the absolute rules?"""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(record.may_meet(first, other) and perfect(record, [p for p in rest if p != other])
               for other in rest)


def feasible_byes(record, active):
    """The entrants who may rest with the others then paired (all of them: ``[None]`` when even)."""
    if len(active) % 2 == 0:
        return [None] if perfect(record, active) else []
    return [e for e in record.bye_eligible(active) if perfect(record, [p for p in active if p != e])]


def pairable_without(record, active, bye):
    graph = nx.Graph()
    rest = [p for p in active if p != bye]
    graph.add_nodes_from(rest)
    graph.add_edges_from((a, b) for i, a in enumerate(rest) for b in rest[i + 1:] if record.may_meet(a, b))
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(rest)


@st.composite
def opens(draw):
    n = draw(st.integers(5, 10) | st.integers(11, 64))  # half of them small enough to search
    rounds = draw(st.integers(1, int(math.log2(n)) + 2))
    return n, rounds, draw(st.randoms(use_true_random=False)), draw(st.sampled_from([WIN, DRAW]))


@BOUNDED
@given(opens())
def test_every_round_of_a_random_open_keeps_the_absolute_rules(open_):
    n, rounds, rng, bye_points = open_
    entrants = list(range(n))
    withdrawn: set = set()
    record = Record()
    for e in entrants:
        record.join(e)
    games: list[Game] = []
    for round_no in range(1, rounds + 1):
        if round_no > 1:
            if rng.random() < 0.3:  # a late entrant, at the end of the seeding
                entrants.append(len(entrants))
                record.join(entrants[-1])
            if rng.random() < 0.3:
                withdrawn.add(rng.choice(entrants))
        active = [e for e in entrants if e not in withdrawn]
        if round_no == rounds > 1:
            record.topscorers = {e for e in active if record.score[e] > WIN * (round_no - 1) / 2}
        try:
            got = pair_round(entrants, games, round_no=round_no, rounds=rounds, bye_points=bye_points,
                             win_points=WIN, withdrawn=withdrawn)
        except NoLegalPairing:
            assert len(active) <= 10, f"no pairing claimed for {len(active)} active entrants"
            assert not feasible_byes(record, active), "the exhaustive search pairs the round"
            return
        paired = [e for pair in got.pairs for e in pair]
        assert sorted(paired + ([got.bye] if got.bye is not None else [])) == sorted(active)
        assert (got.bye is None) == (len(active) % 2 == 0)
        for home, away in got.pairs:
            assert frozenset((home, away)) not in record.met, "a rematch"
            if not record.topscorers & {home, away}:
                assert record.may_take(home, "H") and record.may_take(away, "A"), "a colour rule broken"
        if got.bye is not None:
            assert got.bye in record.bye_eligible(active), "a second bye while another has none"
        key = {e: (record.score[e], -entrants.index(e)) for e in active}
        if len(active) <= 10:
            feasible = feasible_byes(record, active)
            assert feasible, "paired a round the exhaustive search cannot pair"
            if got.bye is not None:
                assert got.bye == min(feasible, key=key.get), "the bye is not the lowest eligible"
        elif got.bye is not None:
            for e in record.bye_eligible(active):
                if key[e] < key[got.bye]:
                    assert not pairable_without(record, active, e), "a lower entrant could rest"
        results = [rng.choice("hhdaa") for _ in got.pairs]
        played = play(round_no, got.pairs, results)
        if got.bye is not None:
            played.append(Game(round_no, got.bye, None))
            record.byes[got.bye] += 1
            record.score[got.bye] += bye_points
        for game in played:
            if game.away is not None:
                record.met.add(frozenset((game.home, game.away)))
                record.colours[game.home].append("H")
                record.colours[game.away].append("A")
                record.score[game.home] += game.home_points
                record.score[game.away] += game.away_points
        games.extend(played)
