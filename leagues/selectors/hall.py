"""The reads of the hall screen (``/competitions/<slug>/hall/``, COMPETITIONS.md §12): what plays
at each hall table now, the next fixtures to call, the last official results, and the standings
or the bracket; no writes. A handful of queries whatever the size of the day
(``tests/leagues/test_hall_screen.py`` counts them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from leagues.models import Competition, Fixture, Stage
from leagues.selectors import knockout_rounds
from leagues.selectors.pages import (
    LIST_DEFERRED,
    bracket_split,
    double_elimination_brackets,
    fixtures_qs,
    tables_with_qualifiers,
)

NEXT_CALLS = 8  # the ready fixtures the screen lists
LAST_RESULTS = 8  # the official results it lists


@dataclass
class HallTable:
    """One numbered table of the hall: ``number`` (1..), its ``name`` ("" unnamed), the fixture
    called to it and still open (``None``: free), and the minutes since the call. A team
    game at a table carries its ``tie``; a tie at a table its games so far (``games_played``
    of ``games_total``)."""

    number: int
    name: str = ""
    fixture: Fixture | None = None
    minutes: int | None = None
    games_played: int = 0
    games_total: int = 0


@dataclass
class HallScreen:
    """What the screen shows: ``tables`` (one ``HallTable`` per hall table, and any table a
    fixture is called to beyond them), ``next_calls`` (open fixtures with both entrants known
    and at no table, the current round first: ``NEXT_CALLS`` at most, each marked ``busy``
    when one of its entrants is at a table now, the ready ones (not busy) first; a tie with a game at a table is under way, not
    next), ``results`` (the last official results, the
    latest first), and either ``standings`` (the stored tables, qualifiers marked) or the
    bracket (``bracket`` columns and ``bracket_extra`` for a single-elimination knockout,
    ``brackets`` for a double elimination)."""

    competition: Competition
    tables: list[HallTable] = field(default_factory=list)
    next_calls: list[Fixture] = field(default_factory=list)
    results: list[Fixture] = field(default_factory=list)
    standings: list[dict] = field(default_factory=list)
    bracket: list[dict] = field(default_factory=list)
    bracket_extra: list[dict] = field(default_factory=list)
    brackets: list[dict] = field(default_factory=list)

    @property
    def shows_bracket(self) -> bool:
        return bool(self.bracket or self.brackets)


def table_name(competition: Competition, number: int) -> str:
    """The name the organiser gave hall table ``number`` (1..), or ""."""
    names = competition.table_names if isinstance(competition.table_names, list) else []
    name = names[number - 1] if 0 < number <= len(names) else ""
    return name.strip() if isinstance(name, str) else ""


def _at_tables(competition: Competition) -> list[Fixture]:
    """The open fixtures called to a hall table: singles, ties, and the games of a tie."""
    return list(
        Fixture.with_games.filter(competition=competition, hall_table__isnull=False, status__in=Fixture.OPEN)
        .select_related("round__stage", "group", "home__club", "away__club", "home__player", "away__player",
                        "home_player", "away_player", "tie__round__stage", "tie__group", "tie__home", "tie__away")
        .defer(*LIST_DEFERRED).order_by("hall_table"))


def _tables(competition: Competition, now: datetime) -> list[HallTable]:
    called = _at_tables(competition)
    count = max([competition.tables, *(f.hall_table for f in called)])
    tables = [HallTable(number=n, name=table_name(competition, n)) for n in range(1, count + 1)]
    ties = []
    for fixture in called:
        fixture.competition = competition
        table = tables[fixture.hall_table - 1]
        table.fixture = fixture
        if fixture.called_at is not None:
            table.minutes = max(0, int((now - fixture.called_at).total_seconds() // 60))
        if fixture.is_tie:
            ties.append(table)
    if ties:  # how far each tie at a table has come: its games with an official result
        games = Fixture.with_games.filter(tie__in=[t.fixture.pk for t in ties]).values_list("tie_id", "status")
        for table in ties:
            statuses = [status for tie_id, status in games if tie_id == table.fixture.pk]
            table.games_total = len(statuses)
            table.games_played = sum(status in Fixture.RESULTED for status in statuses)
    return tables


def _next_calls(competition: Competition, busy: set[int], under_way: set[int]) -> list[Fixture]:
    fixtures = list(
        fixtures_qs().filter(competition=competition, status__in=Fixture.OPEN, hall_table__isnull=True,
                             home__isnull=False, away__isnull=False)
        .exclude(pk__in=under_way).defer(*LIST_DEFERRED)
        .order_by("round__stage__order", "round__number", "group__name", "position")[:3 * NEXT_CALLS])
    for fixture in fixtures:
        fixture.competition = competition
        fixture.busy = fixture.home_id in busy or fixture.away_id in busy
    # the ready ones first, in their order: they are the ones a free table takes next
    return sorted(fixtures, key=lambda f: f.busy)[:NEXT_CALLS]


def _results(competition: Competition) -> list[Fixture]:
    fixtures = list(
        fixtures_qs().filter(competition=competition, status__in=Fixture.RESULTED, result__isnull=False)
        .defer(*LIST_DEFERRED)
        .order_by("-status_changed_at", "-pk")[:LAST_RESULTS])
    for fixture in fixtures:
        fixture.competition = competition
    return fixtures


def _bracket_time(competition: Competition) -> bool:
    """Whether the screen shows the bracket rather than the standings: a knockout or a double
    elimination always; groups then knockout once no group fixture is left to play."""
    if competition.format in (Competition.Format.KNOCKOUT, Competition.Format.DOUBLE_ELIMINATION):
        return True
    if competition.format != Competition.Format.GROUPS_KNOCKOUT:
        return False
    return (Fixture.objects.filter(competition=competition, round__stage__kind=Stage.Kind.KNOCKOUT).exists()
            and not Fixture.objects.filter(competition=competition, status__in=Fixture.OPEN)
            .exclude(round__stage__kind=Stage.Kind.KNOCKOUT).exists())


def hall_screen(*, competition: Competition, now: datetime) -> HallScreen:
    """The hall screen of ``competition`` at ``now`` (``HallScreen``). Reads only."""
    screen = HallScreen(competition=competition, tables=_tables(competition, now))
    busy = {entrant for t in screen.tables if t.fixture for entrant in (t.fixture.home_id, t.fixture.away_id)}
    ties_under_way = {t.fixture.tie_id for t in screen.tables if t.fixture and t.fixture.tie_id}  # a game at a table
    screen.next_calls = _next_calls(competition, busy, ties_under_way)
    screen.results = _results(competition)
    if _bracket_time(competition):
        rounds = knockout_rounds(competition=competition, fixtures_qs=fixtures_qs().defer(*LIST_DEFERRED))
        if competition.format == Competition.Format.DOUBLE_ELIMINATION:
            screen.brackets = double_elimination_brackets(rounds)
        else:
            screen.bracket, screen.bracket_extra = bracket_split(rounds)
    if not screen.shows_bracket:
        screen.standings = tables_with_qualifiers(competition)
    return screen
