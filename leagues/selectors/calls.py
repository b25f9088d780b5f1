"""Reads of a tournament day in a hall (COMPETITIONS.md §12): what plays at each table now, the
fixtures ready to be called, those waiting for a player's rest, and the free tables.

A fixture is **ready** when it is scheduled (not postponed), played at a table (not online), not
called, both its sides are known (in a team competition: a game with its two players, the tie's
line-ups in) and none of its people is at a table now or inside the competition's
``min_rest_minutes`` of the end of their last game. Its **people** are its two entrants (in a
team competition, a game's two players: a team plays its tie's games on several tables at once).
A game's end is its result's ``recorded_at`` (else the fixture's ``status_changed_at``); a walkover
or a bye is no game and asks no rest.

Ready fixtures come in the order of the draw (stage, round, position; a tie's games by table),
except that a fixture whose call was withdrawn goes after the others (the latest withdrawn last),
so that the auto-caller does not send it straight back to the table it was taken from.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import F, Max, Q, QuerySet
from django.db.models.functions import Coalesce

from leagues.models import Competition, Fixture, FixtureChange, Venue
from leagues.rules.calls import Candidate, rest_until


@dataclass
class HallTable:
    """One numbered table: its ``number`` (1..tables), its ``name`` ("" when unnamed) and the
    fixture called to it and not yet over (``None``: free)."""

    number: int
    name: str
    fixture: Fixture | None = None

    @property
    def label(self) -> str:
        return f"{self.number} · {self.name}" if self.name else str(self.number)


@dataclass
class HallDay:
    """The day as it stands: ``tables`` (every table, in order), ``ready`` (fixtures to call, in
    order), ``resting`` (``(fixture, until)``: ready but for a rest, until a UTC moment) and
    ``free`` (the numbers of the free tables, ascending)."""

    competition: Competition
    tables: list[HallTable] = field(default_factory=list)
    ready: list[Fixture] = field(default_factory=list)
    resting: list[tuple[Fixture, datetime]] = field(default_factory=list)

    @property
    def free(self) -> list[int]:
        return [table.number for table in self.tables if table.fixture is None]


def people_of(fixture: Fixture, *, team: bool | None = None) -> frozenset[Hashable]:
    """The people a fixture occupies: ``("entrant", id)`` of its sides, or in a team
    competition's game ``("player", id)`` of its two players. Unknown sides are left out."""
    team = fixture.tie_id is not None if team is None else team
    if team:
        return frozenset(("player", pk) for pk in (fixture.home_player_id, fixture.away_player_id) if pk)
    return frozenset(("entrant", pk) for pk in (fixture.home_id, fixture.away_id) if pk)


def table_name(competition: Competition, number: int) -> str:
    """The name the organisers gave table ``number`` ("" when none)."""
    names = competition.table_names if isinstance(competition.table_names, list) else []
    return str(names[number - 1]) if 0 < number <= len(names) and names[number - 1] else ""


def table_label(competition: Competition, number: int | None) -> str:
    """"5" or "5 · Centre table" ("" for no table)."""
    if number is None:
        return ""
    name = table_name(competition, number)
    return f"{number} · {name}" if name else str(number)


def _callable(competition: Competition) -> QuerySet[Fixture]:
    """The fixtures of ``competition`` that are called to tables: its singles, or a team
    competition's games."""
    rows = Fixture.with_games.filter(competition=competition)
    return rows.filter(tie__isnull=False) if competition.is_team else rows.filter(tie__isnull=True)


def _at_a_table() -> Q:
    return ~Q(venue=Venue.ONLINE) & (~Q(venue="") | ~Q(competition__venue=Venue.ONLINE))


def at_tables(*, competition: Competition) -> list[Fixture]:
    """The open fixtures called to a table, by table."""
    return list(Fixture.with_games.filter(competition=competition, hall_table__isnull=False, status__in=Fixture.OPEN)
                .select_related("home", "away", "home_player", "away_player", "round__stage", "group")
                .order_by("hall_table"))


def last_game_ends(*, competition: Competition, since: datetime) -> dict[Hashable, datetime]:
    """person -> the end of their last game in ``competition`` that ended after ``since``."""
    ends: dict[Hashable, datetime] = {}
    rows = (_callable(competition).filter(status=Fixture.Status.PLAYED)
            .annotate(ended=Coalesce("result__recorded_at", "status_changed_at")).filter(ended__gte=since)
            .only("home_id", "away_id", "home_player_id", "away_player_id", "tie_id"))
    for row in rows:
        for person in people_of(row, team=competition.is_team):
            if row.ended is not None and (person not in ends or ends[person] < row.ended):
                ends[person] = row.ended
    return ends


def resting_until(*, competition: Competition, people: frozenset[Hashable], now: datetime) -> dict[Hashable, datetime]:
    """person -> until when they rest (only those resting at ``now``)."""
    if competition.min_rest_minutes <= 0 or not people:
        return {}
    since = now - timedelta(minutes=competition.min_rest_minutes)
    ends = last_game_ends(competition=competition, since=since)
    resting = {}
    for person in people:
        until = rest_until(ends.get(person), competition.min_rest_minutes)
        if until is not None and until > now:
            resting[person] = until
    return resting


def waiting_fixtures(*, competition: Competition) -> list[Fixture]:
    """The fixtures that could be called but for their people: scheduled, at a table, not
    called, both sides known; in the order of the ready list (see the module)."""
    rows = _callable(competition).filter(_at_a_table(), status=Fixture.Status.SCHEDULED, hall_table__isnull=True,
                                         home__isnull=False, away__isnull=False)
    if competition.is_team:
        rows = rows.filter(home_player__isnull=False, away_player__isnull=False, tie__status__in=Fixture.OPEN)
        order = ["round__stage__order", "round__number", "tie__position", "table", "pk"]
    else:
        order = ["round__stage__order", "round__number", "group__name", "position", "pk"]
    rows = rows.annotate(withdrawn_at=Max("changes__at", filter=Q(changes__kind=FixtureChange.Kind.UNCALLED)))
    return list(rows.select_related("home", "away", "home_player", "away_player", "round__stage", "group", "tie")
                .order_by(F("withdrawn_at").asc(nulls_first=True), *order))


def candidates(day: HallDay) -> list[Candidate]:
    """The ready fixtures as the pure ``assign`` takes them."""
    team = day.competition.is_team
    return [Candidate(fixture.pk, people_of(fixture, team=team)) for fixture in day.ready]


def hall_day(*, competition: Competition, now: datetime) -> HallDay:
    """The tables, the ready fixtures, the resting ones and the free tables of ``competition``
    at ``now`` (an empty day for a competition without tables)."""
    day = HallDay(competition=competition)
    if competition.tables <= 0:
        return day
    called = {fixture.hall_table: fixture for fixture in at_tables(competition=competition)}
    day.tables = [HallTable(number, table_name(competition, number), called.get(number))
                  for number in range(1, competition.tables + 1)]
    team = competition.is_team
    busy: set[Hashable] = set()
    for fixture in called.values():
        busy |= people_of(fixture, team=team)
    waiting = waiting_fixtures(competition=competition)
    people: set[Hashable] = set()
    for fixture in waiting:
        people |= people_of(fixture, team=team)
    resting = resting_until(competition=competition, people=frozenset(people), now=now)
    for fixture in waiting:
        mine = people_of(fixture, team=team)
        if mine & busy:
            continue
        rests = [resting[p] for p in mine if p in resting]
        if rests:
            day.resting.append((fixture, max(rests)))
        else:
            day.ready.append(fixture)
    return day
