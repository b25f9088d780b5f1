"""Who fills each knockout slot, as a pure function of the results (COMPETITIONS.md §2, §4).

``derive(fixtures, withdrawn=..., qualifiers=...)`` walks a knockout stage round by round and
says, for every fixture, who its two entrants are and whether it is to be played, a bye or
cancelled. No ORM: ``leagues.services.bracket`` loads the stage, calls it, and writes the
differences. A slot is filled from its source:

- ``Fixed``: the entrant the draw put there (a first round), or nobody (a bye);
- ``Winner``/``Loser`` of an earlier fixture (the loser feeds the third-place match, or the
  placement matches for the places below: ``leagues.rules.bracket_layout``);
- ``Qualifier``: the entrant at a place of a group ("A1"), once every group fixture is decided.

The rules, for a fixture that is not started (no result, no online match begun):

- a withdrawn entrant never fills a slot: its slot is empty (``NOBODY``); an entrant already
  beaten is never reinstated; a bye it had before withdrawing stays (it may have played on);
- one entrant and an empty slot: a bye, the entrant goes through; for a fixture for the places
  below the final's (``feeds_losers``) that is the last of its band (the third-place match, the
  match for 5th place) it is cancelled instead, and its entrant takes the higher place;
- two empty slots: cancelled, nobody goes through;
- a slot still waiting for an earlier fixture (``PENDING``): the fixture waits.

A fixture with a result, or whose online match has begun, is never changed: when what it would
now hold differs from what it holds (another entrant, or one still to be decided), that is a
``conflict`` for the organisers. A result whose
``winner`` is ``None`` with ``double_loss`` (a double no-show) sends nobody on.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


NOBODY = _Marker("NOBODY")  # the slot is empty for good (a bye, a withdrawal, a double no-show)
PENDING = _Marker("PENDING")  # the slot waits for an earlier fixture or the groups

SCHEDULED, BYE, CANCELLED = "scheduled", "bye", "cancelled"


@dataclass(frozen=True)
class Fixed:
    entrant: Hashable | None  # None: a bye slot of the draw


@dataclass(frozen=True)
class Winner:
    fixture: Hashable


@dataclass(frozen=True)
class Loser:
    fixture: Hashable


@dataclass(frozen=True)
class Qualifier:
    group: str
    place: int


Source = Fixed | Winner | Loser | Qualifier


@dataclass(frozen=True)
class Decided:
    """A fixture's official result: its ``winner`` (an entrant, or ``None`` for a double
    no-show) and ``loser`` (``None`` when there is none)."""

    winner: Hashable | None
    loser: Hashable | None


@dataclass(frozen=True)
class KnockoutFixture:
    """One fixture of the stage as stored: its sources, its entrants, its state.

    ``order`` sorts the fixtures so that every fixture comes after those that feed it (round
    number, then position). ``started``: its online match has begun (checked in or later)."""

    id: Hashable
    order: tuple
    home_source: Source
    away_source: Source
    home: Hashable | None
    away: Hashable | None
    status: str
    result: Decided | None = None
    started: bool = False
    feeds_losers: bool = False  # plays for places below the final's: the third-place match, ...
    winner_goes_on: bool = False  # its winner has a next fixture (a semi-final for 5th-8th)


@dataclass(frozen=True)
class Slotting:
    """What a fixture should hold: entrants (``None``: empty) and its status (``SCHEDULED``,
    ``BYE`` or ``CANCELLED``), or ``None`` for a fixture that is decided or started."""

    home: Hashable | None
    away: Hashable | None
    status: str | None


@dataclass
class Derivation:
    slots: dict[Hashable, Slotting] = field(default_factory=dict)
    # fixtures decided or started whose entrants the results would now change:
    # id -> (what it holds, what it would hold)
    conflicts: dict[Hashable, tuple[tuple, tuple]] = field(default_factory=dict)

    def changes(self, fixtures: Sequence[KnockoutFixture]) -> dict[Hashable, Slotting]:
        """The fixtures (not decided, not started) whose stored entrants or status differ."""
        out = {}
        for f in fixtures:
            slot = self.slots.get(f.id)
            if slot is None or slot.status is None:
                continue
            if (f.home, f.away) != (slot.home, slot.away) or _status_differs(f.status, slot.status):
                out[f.id] = slot
        return out


def _status_differs(stored: str, derived: str) -> bool:
    if derived == SCHEDULED:
        return stored in (BYE, CANCELLED)  # a postponed fixture stays postponed
    return stored != derived


def derive(
    fixtures: Sequence[KnockoutFixture],
    *,
    withdrawn: frozenset | set = frozenset(),
    qualifiers: Mapping[tuple[str, int], object] | None = None,
    places_before_withdrawals: Mapping[tuple[str, int], object] | None = None,
) -> Derivation:
    """Fills every slot of the stage from its source (see the module's rules).

    ``qualifiers`` maps (group name, place) to the entrant there once the groups are decided
    (``NOBODY`` for a place nobody holds), the withdrawn passed over; a place missing from it is
    ``PENDING``. ``places_before_withdrawals`` is the same with the withdrawn counted: a decided
    fixture that holds either is no conflict (a withdrawal never changes a played fixture).
    """
    qualifiers = qualifiers or {}
    places_before_withdrawals = places_before_withdrawals or {}
    by_id = {f.id: f for f in fixtures}
    goes_on: dict[Hashable, tuple[object, object]] = {}  # id -> (winner, loser)
    out = Derivation()

    def resolve(source: Source, open_fixture: bool, holds: Hashable | None = None, bye_done: bool = False) -> object:
        if isinstance(source, Fixed):
            who = NOBODY if source.entrant is None else source.entrant
            return who  # the draw's entrants stay; a withdrawal there is a walkover, not a gap
        if isinstance(source, Qualifier):
            key = (source.group, source.place)
            who = qualifiers.get(key, PENDING)
            if not open_fixture and holds is not None and holds == places_before_withdrawals.get(key):
                return holds
        else:
            feeder = by_id.get(source.fixture)
            if feeder is None:
                return NOBODY
            winner, loser = goes_on.get(feeder.id, (PENDING, PENDING))
            who = winner if isinstance(source, Winner) else loser
        if open_fixture and who not in (NOBODY, PENDING) and who in withdrawn and not (bye_done and who == holds):
            return NOBODY  # a bye it had before withdrawing stays: it may have played on since
        return who

    for f in sorted(fixtures, key=lambda f: f.order):
        open_fixture = f.result is None and not f.started
        bye_done = f.status == BYE
        home = resolve(f.home_source, open_fixture, f.home, bye_done)
        away = resolve(f.away_source, open_fixture, f.away, bye_done)
        if not open_fixture:
            would = (_entrant(home), _entrant(away))
            if would != (f.home, f.away):
                out.conflicts[f.id] = ((f.home, f.away), would)
            out.slots[f.id] = Slotting(f.home, f.away, None)
            if f.result is not None:
                goes_on[f.id] = (f.result.winner if f.result.winner is not None else NOBODY,
                                 f.result.loser if f.result.loser is not None else NOBODY)
            else:
                goes_on[f.id] = (PENDING, PENDING)
            continue
        if PENDING in (home, away):
            status = SCHEDULED
            goes_on[f.id] = (PENDING, PENDING)
        elif home is NOBODY and away is NOBODY:
            status = CANCELLED
            goes_on[f.id] = (NOBODY, NOBODY)
        elif home is NOBODY or away is NOBODY:
            present = away if home is NOBODY else home
            ends_here = f.feeds_losers and not f.winner_goes_on
            status = CANCELLED if ends_here else BYE
            goes_on[f.id] = (NOBODY, NOBODY) if ends_here else (present, NOBODY)
        else:
            status = SCHEDULED
            goes_on[f.id] = (PENDING, PENDING)
        out.slots[f.id] = Slotting(_entrant(home), _entrant(away), status)
    return out


def _entrant(who: object) -> Hashable | None:
    return None if who is NOBODY or who is PENDING else who
