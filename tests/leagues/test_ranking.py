"""The pure ranking (COMPETITIONS.md §5): each criterion, each preset, h2h and its re-application."""
import pytest

from leagues.rules.standings import CRITERIA, PRESETS, MatchLine, Points, lots_ticket, rank


def L(home, away, hg, ag, hd=0, ad=0):  # noqa: N802 - reads like a result line
    return MatchLine(home, away, hg, ag, hd, ad)


def order(ranking):
    return [row.name for row in ranking.rows]


def names(*ids):
    return {e: e for e in ids}


def test_registry_holds_exactly_the_keys_of_the_spec_each_with_a_name_and_an_abbreviation():
    assert set(CRITERIA) == {
        "points", "wins", "goal_difference", "goals_for", "goals_against", "h2h_points",
        "h2h_goal_difference", "h2h_goals_for", "h2h_reapply", "discipline", "lots",
        "buchholz", "buchholz_cut1", "median_buchholz", "sonneborn_berger", "progressive",
        "game_points",  # team standings: the games' points of a competition's ties
    }
    for key, c in CRITERIA.items():
        assert c.key == key and c.name and c.abbr


def test_presets_are_the_spec_lists():
    assert PRESETS == {
        "fistf": ("h2h_points", "h2h_goal_difference", "h2h_goals_for", "goal_difference", "goals_for", "lots"),
        "fifa_2018": ("goal_difference", "goals_for", "h2h_points", "h2h_goal_difference", "h2h_goals_for",
                      "discipline", "lots"),
        "fifa_2026": ("h2h_points", "h2h_goal_difference", "h2h_goals_for", "h2h_reapply", "goal_difference",
                      "goals_for", "discipline", "lots"),
        "uefa_euro": ("h2h_points", "h2h_goal_difference", "h2h_goals_for", "h2h_reapply", "goal_difference",
                      "goals_for", "discipline", "lots"),
        "fide_swiss": ("buchholz_cut1", "buchholz", "sonneborn_berger", "progressive", "wins", "lots"),
        "teams": ("game_points", "goal_difference", "goals_for", "h2h_points", "h2h_goal_difference",
                  "h2h_goals_for", "lots"),
        "teams_h2h": ("h2h_points", "h2h_goal_difference", "h2h_goals_for", "game_points", "goal_difference",
                      "goals_for", "lots"),
    }


def test_points_come_from_the_competitions_scheme():
    lines = [L("A", "B", 1, 0), L("B", "C", 1, 1), L("C", "A", 0, 0)]
    rows = {r.name: r for r in rank(lines, ["points"], entrants=names("A", "B", "C"), points=Points(2, 1, 0)).rows}
    assert (rows["A"].points, rows["B"].points, rows["C"].points) == (3, 1, 2)
    assert (rows["A"].won, rows["A"].drawn, rows["A"].lost, rows["A"].played) == (1, 1, 0, 2)


# Each criterion on a small case: X and Y level on points, the criterion puts X first.
CASES = {
    # X: W L (3 pts); Y: D D D (3 pts)
    "wins": [L("X", "P", 1, 0), L("X", "Q", 0, 1), L("Y", "P", 0, 0), L("Y", "Q", 0, 0), L("Y", "R", 0, 0)],
    "goal_difference": [L("X", "P", 3, 0), L("Y", "Q", 1, 0)],
    "goals_for": [L("X", "P", 3, 2), L("Y", "Q", 2, 1)],
    "goals_against": [L("X", "P", 1, 0), L("Y", "Q", 1, 0), L("X", "R", 0, 1), L("Y", "R", 1, 2)],
    "h2h_points": [L("X", "Y", 1, 0), L("Y", "P", 1, 0)],
    "h2h_goal_difference": [L("X", "Y", 2, 0), L("Y", "X", 1, 0)],
    # X, Y, P all level on points and h2h goal difference; X scored most among them.
    "h2h_goals_for": [L("Y", "X", 3, 2), L("X", "P", 2, 1), L("P", "Y", 1, 0)],
    "discipline": [L("X", "Y", 1, 1, 1, 2)],
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_each_criterion_decides_on_its_own(key):
    lines = CASES[key]
    entrants = names(*sorted({e for ln in lines for e in (ln.home, ln.away)}))
    result = rank(lines, ["points", key], entrants=entrants)
    rows = {r.name: r for r in result.rows}
    assert rows["X"].points == rows["Y"].points
    assert rows["X"].position < rows["Y"].position
    assert rows["X"].tiebreak_criterion == key if rows["Y"].position == rows["X"].position + 1 else True
    # Reversed, the criterion alone is what orders them: swap the two names.
    swapped = [MatchLine(*(("Y" if v == "X" else "X" if v == "Y" else v) for v in (ln.home, ln.away)),
                         ln.home_goals, ln.away_goals, ln.home_discipline, ln.away_discipline) for ln in lines]
    rows = {r.name: r for r in rank(swapped, ["points", key], entrants=entrants).rows}
    assert rows["Y"].position < rows["X"].position


def test_lots_are_reproducible_from_the_seed_and_kept_once_drawn():
    entrants = names("A", "B", "C", "D")
    first = rank([], ["points", "lots"], entrants=entrants, seed=42)
    again = rank([], ["points", "lots"], entrants=entrants, seed=42)
    assert order(first) == order(again)
    assert first.lots_drawn == {e: lots_ticket(42, e) for e in entrants}
    # Recorded tickets are kept, whatever the seed says now.
    recorded = {"A": 4, "B": 3, "C": 2, "D": 1}
    assert order(rank([], ["points", "lots"], entrants=entrants, seed=7, lots=recorded)) == ["D", "C", "B", "A"]
    assert rank([], ["points", "lots"], entrants=entrants, seed=7, lots=recorded).lots_drawn == {}
    row = rank([], ["points", "lots"], entrants=entrants, lots=recorded).rows[0]
    assert row.tiebreak == "level on 0 points with C; ahead on the drawing of lots"


def test_without_tie_break_the_tiebreak_is_empty():
    result = rank([L("A", "B", 2, 0)], PRESETS["fistf"], entrants=names("A", "B"))
    assert [r.tiebreak for r in result.rows] == ["", ""]


# FIFA World Cup 2018, group H: Japan above Senegal on fair-play points (4 against 6).
GROUP_H = [
    L("Colombia", "Japan", 1, 2, 2, 1), L("Poland", "Senegal", 1, 2, 1, 2),
    L("Japan", "Senegal", 2, 2, 2, 3), L("Poland", "Colombia", 0, 3, 1, 0),
    L("Japan", "Poland", 0, 1, 1, 1), L("Senegal", "Colombia", 0, 1, 1, 2),
]


def test_fifa_2018_group_h_japan_ahead_of_senegal_on_discipline():
    result = rank(GROUP_H, PRESETS["fifa_2018"], entrants=names("Colombia", "Japan", "Senegal", "Poland"))
    assert order(result) == ["Colombia", "Japan", "Senegal", "Poland"]
    japan = result.rows[1]
    assert (japan.points, japan.goals_for, japan.goals_against, japan.discipline) == (4, 4, 4, 4)
    assert japan.tiebreak == "level on 4 points with Senegal; ahead on discipline, -4 against -6"
    assert japan.tiebreak_criterion == "discipline"
    assert result.rows[0].tiebreak == ""


# A three-way tie decided by head-to-head among the three: A beat B and C, B beat C; C has
# the best goal difference overall from its wins over D and E.
THREE_WAY = [
    L("A", "B", 1, 0), L("A", "C", 1, 0), L("B", "C", 1, 0),
    L("D", "A", 1, 0), L("E", "A", 1, 0), L("B", "D", 1, 0),
    L("C", "D", 5, 0), L("C", "E", 5, 0),
]


def test_three_way_tie_decided_by_head_to_head_among_the_three():
    entrants = names("A", "B", "C", "D", "E")
    fistf = rank(THREE_WAY, PRESETS["fistf"], entrants=entrants)
    assert order(fistf)[:3] == ["A", "B", "C"]
    assert {r.points for r in fistf.rows[:3]} == {6}
    assert fistf.rows[0].tiebreak == "level on 6 points with B; ahead on head-to-head points, 6 against 3"
    assert fistf.rows[1].tiebreak == "level on 6 points with C; ahead on head-to-head points, 3 against 0"
    # Goal difference first (FIFA 2018) puts C on top instead.
    assert order(rank(THREE_WAY, PRESETS["fifa_2018"], entrants=entrants))[0] == "C"


# A 1-0 B, B 2-1 C, C 1-0 A: level on h2h points and goal difference among the three; A has
# fewer h2h goals; B and C stay level, and only their own match (B won) separates them.
# Overall, C has the better goal difference (5-0 over D against B's 1-0).
REAPPLY = [
    L("A", "B", 1, 0), L("B", "C", 2, 1), L("C", "A", 1, 0),
    L("A", "D", 1, 0), L("B", "D", 1, 0), L("C", "D", 5, 0),
]


@pytest.mark.parametrize("preset", ["uefa_euro", "fifa_2026"])
def test_reapplying_head_to_head_to_the_remaining_pair_decides(preset):
    result = rank(REAPPLY, PRESETS[preset], entrants=names("A", "B", "C", "D"))
    assert order(result) == ["B", "C", "A", "D"]
    assert result.rows[0].tiebreak == "level on 6 points with C; ahead on head-to-head points, 3 against 0"
    assert result.rows[1].tiebreak == "level on 6 points with A; ahead on head-to-head goals scored, 2 against 1"


def test_without_reapplying_the_pair_goes_on_to_goal_difference():
    result = rank(REAPPLY, PRESETS["fistf"], entrants=names("A", "B", "C", "D"))
    assert order(result) == ["C", "B", "A", "D"]
    assert result.rows[0].tiebreak_criterion == "goal_difference"


def test_head_to_head_after_goal_difference_looks_only_at_those_still_level():
    # FIFA 2018: A, B, C level on points; A has the best goal difference; B and C are level on
    # goal difference and goals, and their own match decides.
    lines = [
        L("A", "B", 0, 1), L("B", "C", 0, 1), L("C", "A", 0, 1),
        L("A", "D", 3, 0), L("B", "D", 1, 0), L("C", "D", 1, 0),
    ]
    result = rank(lines, PRESETS["fifa_2018"], entrants=names("A", "B", "C", "D"))
    assert order(result) == ["A", "C", "B", "D"]
    assert result.rows[1].tiebreak_criterion == "h2h_points"


def test_byes_give_the_competitions_bye_points_and_are_not_played():
    lines = [MatchLine("A", None), L("B", "C", 1, 0)]
    rows = {r.name: r for r in rank(lines, ["points"], entrants=names("A", "B", "C"), points=Points(bye=3)).rows}
    assert (rows["A"].points, rows["A"].played) == (3, 0)
    rows = {r.name: r for r in rank(lines, ["points"], entrants=names("A", "B", "C")).rows}
    assert rows["A"].points == 0


def test_unknown_criterion_is_refused():
    with pytest.raises(ValueError):
        rank([], ["points", "goal_average"], entrants=names("A"))


def test_entrants_the_criteria_cannot_separate_share_a_place():
    # A and B level on everything a custom list without lots looks at: they share 2nd ("2=")
    lines = [L("A", "C", 1, 0), L("B", "C", 1, 0), L("A", "B", 1, 1), L("D", "C", 3, 0), L("D", "A", 1, 0),
             L("D", "B", 1, 0)]
    ranked = rank(lines, ["points", "goal_difference"], entrants=names("A", "B", "C", "D"))
    assert [(r.name, r.position, r.shared) for r in ranked.rows] == [
        ("D", 1, False), ("A", 2, True), ("B", 2, True), ("C", 4, False)]
    assert "not separated" in ranked.rows[1].tiebreak
    with_lots = rank(lines, ["points", "goal_difference", "lots"], entrants=names("A", "B", "C", "D"), seed=1)
    assert [r.position for r in with_lots.rows] == [1, 2, 3, 4] and not any(r.shared for r in with_lots.rows)


def test_a_double_no_show_is_played_and_lost_by_both_for_no_points():
    ranked = rank([MatchLine("A", "B", 0, 0, double_loss=True)], ["points"], entrants=names("A", "B"),
                  points=Points(win=3, draw=1, loss=1))
    assert {(r.name, r.played, r.lost, r.drawn, r.points) for r in ranked.rows} == {
        ("A", 1, 1, 0, 0), ("B", 1, 1, 0, 0)}
