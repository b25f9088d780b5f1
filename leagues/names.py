"""The names the site gives stages, rounds and knockout fixtures, in the reader's language.

The fixture generator stores them in English (``leagues.services.fixtures``,
``leagues.rules.pairings.knockout_round_names``): "League", "Groups", "Knockout", "Round 3",
"Round of 16", "Quarter-finals", "Semi-finals", "Final", "Third-place match", and the placement
matches' "Match for 5th place", "Semi-final for 5th-8th place". They are data
(the API, the imports and the exports read them as stored); a page shows them through
``shown(name)`` (``matches.names``: a match's title carries them too), which translates the ones
the site made and leaves a name an organiser typed as it is.
"""
from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from leagues.rules.standings import CRITERIA, VIRTUAL_OPPONENT_NOTE
from matches.names import shown

__all__ = ["criterion_shown", "reason_shown", "shown", "tiebreak_shown"]

# The reasons the site itself gives a change of a fixture, stored in English (msgids) in its
# history and results, and shown in the reader's language by ``reason_shown``.
BRACKET_FOLLOWS = gettext_noop("The bracket follows the results.")
NOBODY_CHECKED_IN = gettext_noop("Neither player checked in by the end of the check-in window.")
CASCADE_CHANGED = gettext_noop("A correction of an earlier round changed its entrants.")
DEMO_PLAYABLE = gettext_noop("The demo: playable now.")
WITHDREW = gettext_noop("%(entrant)s withdrew.")
IMPORT_LINE = gettext_noop("import, line %(line)s")
_REASONS = (BRACKET_FOLLOWS, NOBODY_CHECKED_IN, CASCADE_CHANGED, DEMO_PLAYABLE)
_WITHDREW = re.compile(r"^(?P<entrant>.+) withdrew\.$")
_IMPORT_LINE = re.compile(r"^import, line (?P<line>\d+)$")


def reason_shown(reason) -> str:
    """A stored reason of a fixture's change or result in the active language: one the site gave
    (``BRACKET_FOLLOWS``..., kept as its English msgid, also in rows written before) translated;
    one a person typed unchanged."""
    text = str(reason or "")
    if text in _REASONS:
        return _(text)
    if match := _WITHDREW.match(text):
        return _(WITHDREW) % {"entrant": match["entrant"]}
    if match := _IMPORT_LINE.match(text):
        return _(IMPORT_LINE) % {"line": match["line"]}
    return text

def _criteria() -> dict[str, str]:
    """Each tie-break criterion's name (``leagues.rules.standings.CRITERIA``, where the names are
    written once), by its key, in the active language."""
    return {key: _(criterion.name) for key, criterion in CRITERIA.items()}


def criterion_shown(criterion) -> str:
    """A tie-break criterion's name (a ``Criterion``, or its key) in the active language."""
    key = getattr(criterion, "key", criterion)
    return _criteria().get(str(key), getattr(criterion, "name", str(criterion)))


_TIEBREAK = re.compile(
    r"^level on (?P<points>-?\d+) points? with (?P<other>.+?); (?:(?P<none>not separated by the criteria)"
    r"|(?P<lots>ahead on the drawing of lots)|ahead on (?P<criterion>[A-Za-z0-9 -]+?), (?P<mine>\S+) against "
    r"(?P<theirs>\S+?)(?P<virtual>, " + re.escape(VIRTUAL_OPPONENT_NOTE) + r")?)$"
)


def tiebreak_shown(note: str) -> str:
    """The note a standings row keeps on why it stands above the next row level on points
    (``leagues.rules.standings``: "level on 6 points with Ana (Club); ahead on goal difference, +3
    against +2"), in the active language; a note of another shape unchanged."""
    match = _TIEBREAK.match(note or "")
    if match is None:
        return note or ""
    points = int(match["points"])
    values = {"other": match["other"], "points": points}
    if match["none"]:
        return ngettext("level on %(points)s point with %(other)s; not separated by the criteria",
                        "level on %(points)s points with %(other)s; not separated by the criteria",
                        points) % values
    if match["lots"]:
        return ngettext("level on %(points)s point with %(other)s; ahead on the drawing of lots",
                        "level on %(points)s points with %(other)s; ahead on the drawing of lots",
                        points) % values
    key = next((c.key for c in CRITERIA.values() if c.name == match["criterion"]), match["criterion"])
    values.update(criterion=criterion_shown(key), mine=match["mine"], theirs=match["theirs"])
    if match["virtual"]:  # FIDE's virtual opponent (leagues.rules.standings)
        return ngettext("level on %(points)s point with %(other)s; ahead on %(criterion)s, %(mine)s against "
                        "%(theirs)s, a bye counted as an opponent on the entrant's own points",
                        "level on %(points)s points with %(other)s; ahead on %(criterion)s, %(mine)s against "
                        "%(theirs)s, a bye counted as an opponent on the entrant's own points",
                        points) % values
    return ngettext("level on %(points)s point with %(other)s; ahead on %(criterion)s, %(mine)s against %(theirs)s",
                    "level on %(points)s points with %(other)s; ahead on %(criterion)s, %(mine)s against %(theirs)s",
                    points) % values
