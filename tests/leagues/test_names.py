"""The names and notes the site makes in English are shown in the reader's language
(``leagues.names``): the generated round, stage and label names, the criteria, and the
standings' tie-break notes, whose every shape ``leagues.rules.standings`` writes is recognised."""
from __future__ import annotations

from datetime import date

import pytest
from django.utils import translation

from leagues import names
from leagues.rules.bracket_layout import layout
from leagues.rules.pairings import knockout_round_names
from leagues.rules.standings import CRITERIA, MatchLine, rank
from leagues.views.year import month_label
from matches.names import PRACTICE, title_shown
from tests.i18n.catalogues import entries


def _notes(results, criteria):
    ranking = rank(results, criteria, entrants={1: "Ana (Club; A)", 2: "Bea", 3: "Caio"}, seed=7)
    return [row.tiebreak for row in ranking.rows if row.tiebreak]


@pytest.mark.parametrize(("results", "criteria"), [
    # level on points, separated by goal difference
    ([MatchLine(1, 2, 3, 0), MatchLine(2, 3, 1, 0), MatchLine(3, 1, 1, 0)], ["points", "goal_difference"]),
    # level on everything: the drawing of lots
    ([MatchLine(1, 2, 1, 1), MatchLine(2, 3, 1, 1), MatchLine(3, 1, 1, 1)], ["points", "lots"]),
    # level, and a custom list without lots cannot separate them
    ([MatchLine(1, 2, 1, 1), MatchLine(2, 3, 1, 1), MatchLine(3, 1, 1, 1)], ["points", "goals_for"]),
    # one point each: the singular
    ([MatchLine(1, 2, 0, 0), MatchLine(3, None)], ["points", "goal_difference"]),
])
def test_every_tiebreak_note_the_ranking_writes_is_recognised(results, criteria):
    notes = _notes(results, criteria)
    assert notes
    for note in notes:
        assert names._TIEBREAK.match(note), note
        with translation.override("en"):
            assert names.tiebreak_shown(note) == note  # English: the same words, rebuilt


def test_a_note_of_another_shape_and_a_typed_name_are_left_as_they_are():
    assert names.tiebreak_shown("decided by the federation") == "decided by the federation"
    assert names.tiebreak_shown("") == ""
    assert names.shown("Jornada 3") == "Jornada 3"
    assert names.shown(None) == ""


def test_the_generated_names_and_criteria_are_rebuilt_in_english_and_are_msgids():
    generated = ["League", "Groups", "Knockout", "Round 3", "Third-place match", *knockout_round_names(5)]
    with translation.override("en"):
        assert [names.shown(n) for n in generated] == generated
        assert {names.criterion_shown(c) for c in CRITERIA.values()} == {c.name for c in CRITERIA.values()}
    msgids = {e.msgid for e in entries("es")}
    assert {"Round %(number)s", "Round of %(entrants)s", "Quarter-finals", "Semi-finals", "Final"} <= msgids
    assert {c.name for c in CRITERIA.values()} <= msgids


def test_the_round_of_16_has_its_own_name_where_the_languages_have_one():
    """"Round of 16" is a name of its own (octavos de final, oitavas de final, ottavi di finale),
    not "Round of %(entrants)s" with 16 in it; "Round of 32" keeps the pattern."""
    msgids = {e.msgid for e in entries("es")}
    assert "Round of 16" in msgids
    with translation.override("es"):
        assert names.shown("Round of 16") == "Octavos de final"
        assert names.shown("Round of 32") == translation.gettext("Round of %(entrants)s") % {"entrants": 32}


def test_a_match_title_is_shown_in_the_readers_language():
    """A match keeps the title it was set up with ("Liga Botonera, Round 5"; "Practice"); the
    board and the lists show the round and the practice in the reader's language, and the
    competition's own name as the organiser typed it."""
    with translation.override("es"):
        assert title_shown("Liga Botonera 2026-27, Round 5") == "Liga Botonera 2026-27, Jornada 5"
        assert title_shown("Copa, Round 1, Semi-finals") == "Copa, Round 1, Semifinales"
        assert title_shown(PRACTICE) == translation.gettext(PRACTICE) != PRACTICE
        assert title_shown("Amistoso") == "Amistoso" and title_shown("") == ""
    with translation.override("en"):
        assert title_shown("Liga, Round 5") == "Liga, Round 5"


def test_the_charts_months_are_in_the_readers_language():
    with translation.override("es"):
        assert month_label(date(2026, 12, 1)) == "Dic 2026"
    with translation.override("pt-br"):
        assert month_label(date(2026, 5, 1)) == "Mai 2026"
    with translation.override("en"):
        assert month_label(date(2026, 12, 1)) == "Dec 2026"


def test_the_placement_matches_names_are_rebuilt_in_english_and_translated_in_each_language():
    labels = {f.label for f in layout(64, placement=True) if f.label}
    assert {"Match for 5th place", "Match for 63rd place", "Semi-final for 5th-8th place",
            "Quarter-final for 9th-16th place", "Round of 32 for 33rd-64th place"} <= labels
    with translation.override("en"):
        assert {names.shown(label) for label in labels} == labels
    for language in ("es", "pt-br", "it"):
        with translation.override(language):
            assert not {names.shown(label) for label in labels} & (labels - {"Final"}), language  # "Final" in es, pt
