"""The fixtures of a knockout bracket and where each one's winner and loser go (no ORM).

``layout(size, third_place=..., placement=...)`` lays out a bracket of ``size`` slots (a power of
two; byes fill the slots nobody holds). Every fixture plays for a band of places: a first-round
fixture of 8 for 1st-8th, a semi-final for 1st-4th, the final for 1st-2nd. Its winner goes on to
the upper half of that band and its loser to the lower half:

- a plain knockout keeps only the band from 1st (the loser of a round goes out, sharing the
  lower half: 5th-8th for a quarter-final), with the third-place match (3rd-4th) if asked for;
- with **placement matches** every band is played out, so every place is decided: for 8, the
  quarter-finals, semi-finals, final, third-place match, two semi-finals for 5th-8th, the match
  for 5th place and the match for 7th place (12 fixtures; for ``size`` 2^R, R x 2^(R-1)).

Round ``r`` holds every fixture that is an entrant's ``r``-th game, so all rounds end together;
within a round the fixtures are ordered by their band (the final, then the third-place match,
then the match for 5th place, ...). The labels are stored in English, like the round names
(``leagues.rules.pairings.knockout_round_names``), and shown translated (``matches.names``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from leagues.rules.i18n import gettext as _

FINAL = "Final"
THIRD_PLACE = "Third-place match"
HOME, AWAY = "home", "away"


@dataclass(frozen=True)
class Place:
    """Where a fixture's winner or loser goes: the fixture at (``round``, ``position``), ``slot``."""

    round: int
    position: int
    slot: str


@dataclass(frozen=True)
class LaidOut:
    """One fixture of the layout: its ``round`` (1 the first) and ``position`` in it, the band
    of places it plays for (``first`` to ``last``), its ``label`` ("" for the main bracket's
    rounds before the final) and where its winner and loser go (``None``: nowhere, they are
    placed)."""

    round: int
    position: int
    first: int
    last: int
    label: str
    winner_to: Place | None
    loser_to: Place | None


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 21st (English: the stored labels are English)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def band_label(first: int, entrants: int) -> str:
    """The label of a fixture of a band from ``first`` with ``entrants`` in it (a power of two):
    "Final", "Third-place match", "Match for 5th place", "Semi-final for 5th-8th place",
    "Quarter-final for 9th-16th place", "Round of 16 for 17th-32nd place"; "" for a round of
    the main bracket before the final (its round's name says it)."""
    if entrants == 2:
        return {1: FINAL, 3: THIRD_PLACE}.get(first, f"Match for {ordinal(first)} place")
    if first == 1:
        return ""
    stage = {4: "Semi-final", 8: "Quarter-final"}.get(entrants, f"Round of {entrants}")
    return f"{stage} for {ordinal(first)}-{ordinal(first + entrants - 1)} place"


_MATCH_FOR = re.compile(r"^Match for (\d+)(?:st|nd|rd|th) place$")
_BAND_FOR = re.compile(r"^(?:Semi-final|Quarter-final|Round of \d+) for (\d+)(?:st|nd|rd|th)-(\d+)(?:st|nd|rd|th) place$")


def band_of_label(label: str) -> tuple[int, int] | None:
    """The band of places (first, last) a placement fixture's stored label names ("Match for 5th
    place": (5, 6); "Semi-final for 5th-8th place": (5, 8); the third-place match (3, 4)), or
    ``None`` for a label of the main bracket or an organiser's own."""
    if label == THIRD_PLACE:
        return (3, 4)
    if match := _MATCH_FOR.match(label or ""):
        first = int(match.group(1))
        return (first, first + 1)
    if match := _BAND_FOR.match(label or ""):
        return (int(match.group(1)), int(match.group(2)))
    return None


def layout(size: int, *, third_place: bool = False, placement: bool = False) -> list[LaidOut]:
    """Every fixture of a bracket of ``size`` slots, round by round, position by position (see
    the module). ``placement`` plays every band out (the third-place match with it, whatever
    ``third_place`` says); ``third_place`` alone adds only the match for 3rd and 4th (from 4
    slots up). Raises ``ValueError`` unless ``size`` is a power of two of at least 2."""
    if size < 2 or size & (size - 1):
        raise ValueError(_("a bracket size is a power of two, not %(size)s") % {"size": size})

    def kept(first: int, entrants: int) -> bool:
        return placement or first == 1 or (third_place and first == 3 and entrants == 2)

    # (round, first place of the band, index within the band's round) for every fixture
    bands: list[tuple[int, int, int, int]] = []  # (round, first, entrants, index)

    def band(first: int, entrants: int, round_number: int) -> None:
        if entrants < 2 or not kept(first, entrants):
            return
        bands.extend((round_number, first, entrants, i) for i in range(entrants // 2))
        band(first, entrants // 2, round_number + 1)
        band(first + entrants // 2, entrants // 2, round_number + 1)

    band(1, size, 1)
    bands.sort(key=lambda b: (b[0], b[1], b[3]))
    positions: dict[tuple[int, int, int], int] = {}
    counts: dict[int, int] = {}
    for round_number, first, _entrants, index in bands:
        positions[(round_number, first, index)] = counts.get(round_number, 0)
        counts[round_number] = counts.get(round_number, 0) + 1

    def to(round_number: int, first: int, index: int) -> Place | None:
        position = positions.get((round_number + 1, first, index // 2))
        return None if position is None else Place(round_number + 1, position, HOME if index % 2 == 0 else AWAY)

    out = []
    for round_number, first, entrants, index in bands:
        half = entrants // 2
        out.append(LaidOut(
            round=round_number, position=positions[(round_number, first, index)], first=first,
            last=first + entrants - 1, label=band_label(first, entrants),
            winner_to=to(round_number, first, index) if half >= 2 else None,
            loser_to=to(round_number, first + half, index) if half >= 2 else None,
        ))
    return out
