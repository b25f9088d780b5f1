"""Final placings of a finished competition, and the federation ranking over them (no ORM).

A **placing** is a band ``place`` to ``place_to`` (equal unless shared):

- a league (or a group) ranks by its standings: the position, shared when the criteria could
  not separate two entrants (``2=``);
- a knockout ranks by how far an entrant went: the final's winner 1st, its loser 2nd; the
  third-place match decides 3rd and 4th (without one, both losing semi-finalists share 3rd-4th);
  a loser of the round before the semi-finals shares 5th-8th, the round before 9th-16th, and
  so on, unless placement matches decide those places too; entrants knocked out in the groups
  before the bracket share the places after it.

The **ranking** (``rank``) adds, for each player, the points of their placings in the window
(``Scale``: by default 1st 100, 2nd 70, 3rd-4th 50, 5th-8th 30, 9th-16th 15, any other
finisher 5), each multiplied by its competition's tier factor; equal points share a rank.
"""
from __future__ import annotations

import calendar
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from leagues.rules.i18n import gettext as _
from leagues.rules.i18n import ngettext, pgettext


@dataclass(frozen=True)
class Band:
    place: int
    place_to: int

    @property
    def shared(self) -> bool:
        return self.place_to > self.place


@dataclass(frozen=True)
class KnockoutGame:
    """A knockout fixture as decided: its round (1 the first), whether it is the third-place
    match, its two entrants (``None`` an empty slot), and its ``winner`` (``None``: not decided,
    a bye's or nobody's, e.g. a double no-show). ``band``: the places it plays for, (first,
    last), for a placement match (``leagues.rules.bracket_layout.band_of_label``); ``None``:
    from its round (a round of the main bracket) or, for the third-place match, 3rd-4th."""

    round: int
    third_place: bool
    home: Hashable | None
    away: Hashable | None
    winner: Hashable | None
    decided: bool
    band: tuple[int, int] | None = None


def _band_played_for(game: KnockoutGame, rounds: int) -> tuple[int, int]:
    if game.band is not None:
        return game.band
    if game.third_place:
        return (3, 4)
    return (1, 2 ** (rounds - game.round + 1))


def _narrower(new: Band, old: Band | None) -> bool:
    """Whether ``new`` says more than ``old``: within it (a later round of its band), or higher."""
    return old is None or (old.place <= new.place and new.place_to <= old.place_to) or new.place < old.place


def knockout_places(games: Sequence[KnockoutGame], *, rounds: int, withdrawn: Iterable[Hashable] = (),
                    others: Iterable[Hashable] = ()) -> dict[Hashable, Band]:
    """Each entrant's band in a knockout of ``rounds`` rounds (the final is round ``rounds``),
    from the last fixture it played in. A fixture plays for a band (a quarter-final of 8 for
    1st-8th): its winner goes on in the upper half, its loser in the lower half (out, sharing
    it, unless placement matches play it out); the last fixture of a band (the final, the
    third-place match, the match for 5th place) places its winner first and its loser last.
    A double no-show sends both into the lower half, shared (in the last fixture of a band, the
    band is shared; in the final both are 2nd: nobody is champion). Alone in the last fixture of
    its band (cancelled: nobody came from the other side), an entrant takes the higher place.
    An entrant whose fixture is still to be decided holds its band. ``others`` (e.g. knocked
    out in the groups) share the places after the bracket; ``withdrawn`` entrants are placed
    nowhere."""
    withdrawn = set(withdrawn)
    places: dict[Hashable, Band] = {}
    bracket_size = 2 ** rounds

    def place(entrant: Hashable, band: Band) -> None:
        if _narrower(band, places.get(entrant)):
            places[entrant] = band

    for game in sorted(games, key=lambda g: (g.round, _band_played_for(g, rounds))):
        first, last = _band_played_for(game, rounds)
        entrants = [e for e in (game.home, game.away) if e is not None]
        half = (last - first + 1) // 2
        upper = Band(first, first + half - 1) if half > 1 else Band(first, first)
        lower = Band(first + half, last) if half > 1 else Band(last, last)
        if game.winner is not None:
            for entrant in entrants:
                place(entrant, upper if entrant == game.winner else lower)
        elif len(entrants) == 1:
            place(entrants[0], upper if game.decided and half == 1 else Band(first, last))
        elif game.decided and half > 1:
            for entrant in entrants:
                place(entrant, lower)
        elif game.decided and first == 1:
            for entrant in entrants:
                place(entrant, Band(2, 2))
        else:
            for entrant in entrants:
                place(entrant, Band(first, last))
    rest = [e for e in others if e not in places]
    if rest:
        start = max(bracket_size, max((b.place_to for b in places.values()), default=0)) + 1
        for entrant in rest:
            places[entrant] = Band(start, start + len(rest) - 1)
    return {e: b for e, b in places.items() if e not in withdrawn}


def table_places(rows: Sequence[tuple[Hashable, int, bool]]) -> dict[Hashable, Band]:
    """Bands from a standings table: rows of (entrant, position, shared) in table order; the
    rows that share a position share the band of as many places."""
    by_position: dict[int, list[Hashable]] = defaultdict(list)
    for entrant, position, _shared in rows:
        by_position[position].append(entrant)
    return {e: Band(position, position + len(group) - 1)
            for position, group in by_position.items() for e in group}


# --- The federation ranking ---------------------------------------------------------------------


@dataclass(frozen=True)
class Scale:
    first: int = 100
    second: int = 70
    third_fourth: int = 50
    fifth_eighth: int = 30
    ninth_sixteenth: int = 15
    other: int = 5

    def points(self, place: int) -> int:
        """The points of a placing whose band starts at ``place``."""
        if place == 1:
            return self.first
        if place == 2:
            return self.second
        if place <= 4:
            return self.third_fourth
        if place <= 8:
            return self.fifth_eighth
        if place <= 16:
            return self.ninth_sixteenth
        return self.other


@dataclass(frozen=True)
class Finish:
    """A player's placing in a finished competition, as the ranking reads it."""

    player: Hashable
    competition: Hashable
    competition_name: str
    band: Band
    finished_on: date
    factor: Decimal = Decimal(1)


@dataclass
class RankingRow:
    rank: int
    shared: bool
    player: Hashable
    points: Decimal
    finishes: list[tuple[Finish, Decimal]] = field(default_factory=list)

    @property
    def explanation(self) -> str:
        """'from 3 competitions: 1st in Taça (100), 3rd-4th in Liga (50), ...'."""
        parts = [_("%(place)s in %(competition)s (%(points)s)") % {
            "place": ordinal_band(finish.band), "competition": finish.competition_name,
            "points": format_points(points)} for finish, points in self.finishes]
        count = len(self.finishes)
        return ngettext("from %(count)d competition: %(list)s", "from %(count)d competitions: %(list)s",
                        count) % {"count": count, "list": ", ".join(parts)}


def ordinal(n: int) -> str:
    """The place ``n`` in the active language: English 1st, 2nd, 3rd, 4th, 11th, 21st; Spanish
    1.º; Portuguese and Italian 1º (the catalogues' "ordinal" entries)."""
    if 10 <= n % 100 <= 20:
        text = pgettext("ordinal: 11th to 20th", "%(number)dth")
    elif n % 10 == 1:
        text = pgettext("ordinal: ending in 1", "%(number)dst")
    elif n % 10 == 2:
        text = pgettext("ordinal: ending in 2", "%(number)dnd")
    elif n % 10 == 3:
        text = pgettext("ordinal: ending in 3", "%(number)drd")
    else:
        text = pgettext("ordinal: any other", "%(number)dth")
    return text % {"number": n}


def ordinal_band(band: Band) -> str:
    """A placing in the active language: "1st", "3rd-4th" (es "3.º-4.º", pt-BR and it "3º-4º")."""
    if not band.shared:
        return ordinal(band.place)
    return pgettext("a band of places", "%(first)s-%(last)s") % {
        "first": ordinal(band.place), "last": ordinal(band.place_to)}


def format_points(points: Decimal) -> str:
    return f"{points.normalize():f}" if points != points.to_integral() else str(int(points))


def window_start(at: date, months: int) -> date:
    """The day ``months`` calendar months before ``at`` (clamped to the month's last day): the
    window is the days after it up to ``at``."""
    year, month = divmod(at.year * 12 + at.month - 1 - months, 12)
    month += 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, min(at.day, last))


def rank(finishes: Iterable[Finish], *, at: date, scale: Scale = Scale(), window_months: int = 12) -> list[RankingRow]:
    """The ranking on ``at``: every player with a placing finished after ``at`` minus the window
    and not after ``at``, by points (the players' ids break no tie: equal points share a rank,
    listed by id). Each row keeps its finishes, most points first."""
    since = window_start(at, window_months)
    rows: dict[Hashable, RankingRow] = {}
    for finish in finishes:
        if not since < finish.finished_on <= at:
            continue
        points = Decimal(scale.points(finish.band.place)) * Decimal(finish.factor)
        row = rows.setdefault(finish.player, RankingRow(rank=0, shared=False, player=finish.player,
                                                        points=Decimal(0)))
        row.points += points
        row.finishes.append((finish, points))
    ordered = sorted(rows.values(), key=lambda r: (-r.points, repr(r.player)))
    for index, row in enumerate(ordered):
        row.finishes.sort(key=lambda item: (-item[1], item[0].finished_on, item[0].competition_name))
        if index and row.points == ordered[index - 1].points:
            row.rank = ordered[index - 1].rank
            row.shared = ordered[index - 1].shared = True
        else:
            row.rank = index + 1
    return ordered
