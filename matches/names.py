"""The names the site gives rounds and knockout fixtures, in the reader's language.

The fixture generator stores them in English ("Round 3", "Round of 16", "Quarter-finals",
"Semi-finals", "Final", "Third-place match", the placement matches' "Match for 5th place" and
"Semi-final for 5th-8th place", a best third-placed slot "B1 v 3rd of A/D/E/F", a double
elimination's "Winners' bracket round 2", "Losers' bracket round 3", "Grand final", "Grand final
(reset)", and the stages "League", "Groups", "Knockout", "Winners' bracket", "Losers' bracket"; a
season's "Season 2026-27"), and a
match played for a fixture keeps its title in English too ("Liga Botonera, Round 5"; a game of a
team tie "Interclub, Round 2, Table 3"; a practice is "Practice"). They are data (the API, the imports and the exports read them as stored); a page
shows them through ``shown(name)`` and ``title_shown(title)``, which translate the ones the site
made and leave a name an organiser typed as it is.
"""
from __future__ import annotations

import functools
import re

from django.contrib.humanize.templatetags.humanize import ordinal
from django.utils.translation import get_language, gettext_noop, pgettext
from django.utils.translation import gettext as _

PRACTICE = gettext_noop("Practice")  # a practice match's stored title

_ROUND = re.compile(r"^Round (\d+)$")
_TABLE = re.compile(r"^Table (\d+)$")  # a team tie's game: its table in the tie
_SEASON = re.compile(r"^Season (\d{4}(?:[-/]\d{2,4})?)$")  # the demo's and the admin's "Season 2026-27"
_ROUND_OF = re.compile(r"^Round of (\d+)$")
# the placement matches' labels (``leagues.rules.bracket_layout.band_label``)
_MATCH_FOR = re.compile(r"^Match for (\d+)(?:st|nd|rd|th) place$")
# a double elimination's rounds (``leagues.rules.double_elimination.round_name``)
_BRACKET_ROUND = re.compile(r"^(Winners'|Losers') bracket round (\d+)$")
_BAND_FOR = re.compile(r"^(Semi-final|Quarter-final|Round of (\d+)) for (\d+)(?:st|nd|rd|th)-(\d+)(?:st|nd|rd|th) place$")


def _placement_shown(text: str) -> str | None:
    """A placement match's label in the active language: "Match for 5th place", "Semi-final
    for 5th-8th place" (the ordinals are Django's, ``django.contrib.humanize``)."""
    if match := _MATCH_FOR.match(text):
        return _("Match for %(place)s place") % {"place": ordinal(int(match.group(1)))}
    if match := _BAND_FOR.match(text):
        places = {"first": ordinal(int(match.group(3))), "last": ordinal(int(match.group(4)))}
        if match.group(1) == "Semi-final":
            return _("Semi-final for %(first)s-%(last)s place") % places
        if match.group(1) == "Quarter-final":
            return _("Quarter-final for %(first)s-%(last)s place") % places
        return _("Round of %(entrants)s for %(first)s-%(last)s place") % {**places, "entrants": match.group(2)}
    return None


# a best next-placed slot in a first knockout round's label (``leagues.rules.best_thirds.side_label``):
# "3rd of A/D/E/F", "3rd-4th of B/C/D/E", "3rd #2"
_NEXT_SIDE = re.compile(r"^(\d+)(?:st|nd|rd|th)(?:-(\d+)(?:st|nd|rd|th))? (?:of ([A-Z0-9/]+)|#(\d+))$")


def _next_side_shown(text: str) -> str | None:
    match = _NEXT_SIDE.match(text)
    if match is None:
        return None
    first, last, groups, slot = match.groups()
    places = ordinal(int(first)) if last is None else _("%(first)s-%(last)s") % {
        "first": ordinal(int(first)), "last": ordinal(int(last))}
    if groups:
        return _("%(places)s of %(groups)s") % {"places": places, "groups": groups}
    return _("%(places)s #%(slot)s") % {"places": places, "slot": slot}


def _label_shown(text: str) -> str | None:
    """A first knockout round's label after groups with a best next-placed slot: "B1 v 3rd of
    A/D/E/F" in the active language (the group places "B1" stay as they are)."""
    sides = text.split(" v ")
    if len(sides) > 2 or not any(_NEXT_SIDE.match(side) for side in sides):
        return None
    shown_sides = [_next_side_shown(side) or side for side in sides]
    if len(shown_sides) == 1:  # a bye
        return shown_sides[0]
    return _("%(home)s v %(away)s") % {"home": shown_sides[0], "away": shown_sides[1]}


def _fixed() -> dict[str, str]:
    return {
        "League": pgettext("stage", "League"),
        "Groups": pgettext("stage", "Groups"),
        "Knockout": pgettext("stage", "Knockout"),
        "Round of 16": _("Round of 16"),
        "Quarter-finals": _("Quarter-finals"),
        "Semi-finals": _("Semi-finals"),
        "Final": _("Final"),
        "Third-place match": _("Third-place match"),
        "Winners' bracket": _("Winners' bracket"),
        "Losers' bracket": _("Losers' bracket"),
        "Grand final": _("Grand final"),
        "Grand final (reset)": _("Grand final (reset)"),
    }


def shown(name: object) -> str:
    """``name`` (a str, or a round: its ``str``) in the active language when the site made it;
    any other name unchanged. ``None`` and "" give "". Kept per language and name (a page of a
    bracket shows each round's name and label many times, and a placement label's ordinals
    cost a score of lookups each)."""
    if name is None:
        return ""
    return _shown_in(get_language(), str(name))


@functools.lru_cache(maxsize=4096)
def _shown_in(language: str | None, text: str) -> str:
    fixed = _fixed().get(text)
    if fixed is not None:
        return fixed
    if match := _ROUND.match(text):
        return _("Round %(number)s") % {"number": match.group(1)}
    if match := _ROUND_OF.match(text):
        return _("Round of %(entrants)s") % {"entrants": match.group(1)}
    if match := _BRACKET_ROUND.match(text):
        if match.group(1) == "Winners'":
            return _("Winners' bracket round %(number)s") % {"number": match.group(2)}
        return _("Losers' bracket round %(number)s") % {"number": match.group(2)}
    if match := _SEASON.match(text):
        return _("Season %(years)s") % {"years": match.group(1)}
    return _placement_shown(text) or _label_shown(text) or text


def title_shown(title: str) -> str:
    """A match's stored title in the active language: "Practice", and the round after the last
    comma of "COMPETITION, ROUND" (the competition's name is an organiser's, kept as it is), and
    of "COMPETITION, ROUND, Table N" for a team tie's game."""
    if not title:
        return ""
    if title == PRACTICE:
        return _(PRACTICE)
    head, comma, tail = title.rpartition(", ")
    if comma and (table := _TABLE.match(tail)):
        return f"{title_shown(head)}{comma}{_('Table %(n)s') % {'n': table.group(1)}}"
    return f"{head}{comma}{shown(tail)}" if comma else shown(title)
