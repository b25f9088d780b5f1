"""The names the site gives rounds and knockout fixtures, in the reader's language.

The fixture generator stores them in English ("Round 3", "Round of 16", "Quarter-finals",
"Semi-finals", "Final", "Third-place match", the placement matches' "Match for 5th place" and
"Semi-final for 5th-8th place", and the stages "League", "Groups", "Knockout"; a season's
"Season 2026-27"), and a
match played for a fixture keeps its title in English too ("Liga Botonera, Round 5"; a practice
is "Practice"). They are data (the API, the imports and the exports read them as stored); a page
shows them through ``shown(name)`` and ``title_shown(title)``, which translate the ones the site
made and leave a name an organiser typed as it is.
"""
from __future__ import annotations

import re

from django.contrib.humanize.templatetags.humanize import ordinal
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

PRACTICE = gettext_noop("Practice")  # a practice match's stored title

_ROUND = re.compile(r"^Round (\d+)$")
_SEASON = re.compile(r"^Season (\d{4}(?:[-/]\d{2,4})?)$")  # the demo's and the admin's "Season 2026-27"
_ROUND_OF = re.compile(r"^Round of (\d+)$")
# the placement matches' labels (``leagues.rules.bracket_layout.band_label``)
_MATCH_FOR = re.compile(r"^Match for (\d+)(?:st|nd|rd|th) place$")
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
    }


def shown(name: object) -> str:
    """``name`` (a str, or a round: its ``str``) in the active language when the site made it;
    any other name unchanged. ``None`` and "" give ""."""
    if name is None:
        return ""
    text = str(name)
    fixed = _fixed().get(text)
    if fixed is not None:
        return fixed
    if match := _ROUND.match(text):
        return _("Round %(number)s") % {"number": match.group(1)}
    if match := _ROUND_OF.match(text):
        return _("Round of %(entrants)s") % {"entrants": match.group(1)}
    if match := _SEASON.match(text):
        return _("Season %(years)s") % {"years": match.group(1)}
    return _placement_shown(text) or text


def title_shown(title: str) -> str:
    """A match's stored title in the active language: "Practice", and the round after the last
    comma of "COMPETITION, ROUND" (the competition's name is an organiser's, kept as it is)."""
    if not title:
        return ""
    if title == PRACTICE:
        return _(PRACTICE)
    head, comma, tail = title.rpartition(", ")
    return f"{head}{comma}{shown(tail)}" if comma else shown(title)
