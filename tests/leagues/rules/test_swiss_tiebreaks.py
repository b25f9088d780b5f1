"""The Swiss tie-break criteria of the standings registry (FIDE Handbook C.07), on an open of five
computed by hand, byes counted by FIDE's virtual opponent (the entrant's own points).

Round 1: A beat B, C drew with D, E had the bye. Round 2: A beat C, B beat E, D had the bye.
Round 3: B drew with C, E beat D, A had the bye. Byes count as wins (3 points).
Points: A 9, E 6, B 4, D 4, C 2. Opponents' points (a bye: the entrant's own):
A: B 4, C 2, bye 9; E: bye 6, B 4, D 4; B: A 9, E 6, C 2; D: C 2, bye 4, E 6; C: D 4, A 9, B 4.
"""
import pytest
from django.utils import translation

from leagues.names import tiebreak_shown
from leagues.rules.standings import PRESETS, MatchLine, Points, rank

OPEN = [
    MatchLine("A", "B", 1, 0, round=1), MatchLine("C", "D", 0, 0, round=1), MatchLine("E", None, round=1),
    MatchLine("A", "C", 2, 1, round=2), MatchLine("E", "B", 0, 1, round=2), MatchLine("D", None, round=2),
    MatchLine("B", "C", 1, 1, round=3), MatchLine("D", "E", 1, 2, round=3), MatchLine("A", None, round=3),
]
ENTRANTS = {e: e for e in "ABCDE"}
POINTS = Points(win=3, draw=1, loss=0, bye=3)

# by hand, from the docstring's table
EXPECTED = {
    "buchholz": {"A": 15, "E": 14, "B": 17, "D": 12, "C": 17},
    "buchholz_cut1": {"A": 13, "E": 10, "B": 15, "D": 10, "C": 13},
    "median_buchholz": {"A": 4, "E": 4, "B": 6, "D": 4, "C": 4},
    # beaten: all their points; drawn with: half; the bye (won): the entrant's own points
    "sonneborn_berger": {"A": 15, "E": 10, "B": 7, "D": 5, "C": 4},
    # running scores after rounds 1, 2, 3 summed: A 3+6+9, E 3+3+6, B 0+3+4, D 1+4+4, C 1+1+2
    "progressive": {"A": 18, "E": 12, "B": 7, "D": 9, "C": 4},
}


def ranked(criteria, lines=OPEN, points=POINTS, entrants=ENTRANTS):
    return rank(lines, ["points", *criteria], entrants=entrants, points=points)


def row(ranking, entrant):
    return next(r for r in ranking.rows if r.entrant == entrant)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_each_swiss_criterion_gives_the_hand_computed_value(key):
    # B and D are level on 4 points: the criterion orders them and the sentence gives both values
    b, d = EXPECTED[key]["B"], EXPECTED[key]["D"]
    result = ranked([key])
    assert [r.entrant for r in result.rows[:2]] == ["A", "E"]
    above, below = ("B", "D") if b > d else ("D", "B")
    assert [r.entrant for r in result.rows[2:4]] == [above, below]
    assert row(result, above).tiebreak_criterion == key
    assert f", {max(b, d)} against {min(b, d)}" in row(result, above).tiebreak


def test_a_bye_counts_as_an_opponent_on_the_entrants_own_points_and_the_sentence_says_so():
    result = ranked(["buchholz_cut1"])
    assert row(result, "B").tiebreak == (
        "level on 4 points with D; ahead on Buchholz cut 1, 15 against 10, "
        "a bye counted as an opponent on the entrant's own points")
    with translation.override("es"):
        shown = tiebreak_shown(row(result, "B").tiebreak)
    assert "Buchholz" in shown and "15" in shown and "exento" in shown


def test_the_progressive_score_says_nothing_of_byes():
    assert row(ranked(["progressive"]), "D").tiebreak == (
        "level on 4 points with B; ahead on progressive score, 9 against 7")


def test_no_bye_no_note():
    # P beat Q, R beat S; then P drew with R, Q beat S: P and R level on 4, P's opponents 3 + 4
    lines = [MatchLine("P", "Q", 1, 0, round=1), MatchLine("R", "S", 1, 0, round=1),
             MatchLine("P", "R", 0, 0, round=2), MatchLine("Q", "S", 1, 0, round=2)]
    result = ranked(["buchholz"], lines=lines, entrants={e: e for e in "PQRS"})
    assert row(result, "P").tiebreak == "level on 4 points with R; ahead on Buchholz, 7 against 4"


def test_sonneborn_berger_keeps_its_halves():
    # Y 7 points (drew with X, beat Z and W), X 2 (drew with Y and W), W 2 (lost to Y, drew
    # with X and Z), Z 1: X has 7/2 + 2/2 = 4.5, W 2/2 + 1/2 = 1.5
    lines = [MatchLine("X", "Y", 0, 0), MatchLine("Y", "Z", 1, 0), MatchLine("Y", "W", 1, 0),
             MatchLine("X", "W", 0, 0), MatchLine("Z", "W", 0, 0)]
    result = ranked(["sonneborn_berger"], lines=lines, entrants={e: e for e in "XYZW"})
    assert row(result, "X").tiebreak == "level on 2 points with W; ahead on Sonneborn-Berger, 4.5 against 1.5"


def test_the_fide_swiss_preset():
    assert PRESETS["fide_swiss"] == ("buchholz_cut1", "buchholz", "sonneborn_berger", "progressive", "wins", "lots")
    result = ranked(PRESETS["fide_swiss"])
    assert [r.entrant for r in result.rows] == ["A", "E", "B", "D", "C"]
    assert row(result, "B").tiebreak_criterion == "buchholz_cut1"


def test_a_double_no_show_is_a_virtual_opponent_for_both():
    # K and L both failed to show; then K beat M and L beat N, M drew with N: K's Buchholz is
    # its own 3 (the virtual opponent) + M's 1, L's its own 3 + N's 1: level
    lines = [MatchLine("K", "L", 0, 0, double_loss=True), MatchLine("K", "M", 1, 0), MatchLine("L", "N", 1, 0),
             MatchLine("M", "N", 0, 0)]
    result = ranked(["buchholz"], lines=lines, entrants={e: e for e in "KLMN"})
    assert [(r.entrant, r.points) for r in result.rows[:2]] == [("K", 3), ("L", 3)]
    assert result.rows[0].shared and result.rows[1].shared  # 3 + 1 each: not separated
