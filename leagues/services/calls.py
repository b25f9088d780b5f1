"""Calling fixtures to the hall's numbered tables (COMPETITIONS.md §12).

``fixture_call`` sends a fixture to a table, ``fixture_uncall`` withdraws its call; both work in
one transaction with the competition locked first (``leagues.services.locks``), so two
organisers calling the same table (or the same player) at once are ordered: the second is
refused. The database holds one open fixture per table (``fixture_one_open_call_per_hall_table``)
behind that check.

Refusals (nothing is saved):

- ``ResultError`` on ``hall_table`` (400): not a table of the competition (1..``tables``);
- ``ResultConflict`` (409) ``table_busy``: another open fixture is at that table (``fixture``);
  ``not_ready``: the fixture is not open, is online, is a team tie (its games are called) or
  does not have both its sides (a game: both players); ``entrant_busy``: one of its people is
  at another table now (``fixture``, ``hall_table``); ``resting``: one of its people finished
  a game less than ``min_rest_minutes`` ago (``until``, ISO 8601); ``not_called`` (uncall):
  the fixture is at no table.

A call keeps its table after the result (the exports say where a game was played); a result
struck back to scheduled leaves its table (``Fixture.set_status``). Each call and withdrawal is
in the fixture's history (``called``/``uncalled``, before and after with the table), tells the
players and the table's referee (``call_notices``) and wakes the hall screens on commit.

``auto_call`` fills the free tables of a competition with ``auto_call`` on from its ready
fixtures (``leagues.selectors.calls``): the worker runs it after each change of results or
call (``leagues.tasks.hall_auto_call``, sent on commit) and the sweeper for every such
competition, so a lost message costs at most one sweep.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues.models import Competition, Fixture, FixtureChange
from leagues.rules.calls import assign
from leagues.rules.official import ResultError
from leagues.selectors.calls import (
    at_tables,
    candidates,
    hall_day,
    people_of,
    resting_until,
    table_label,
)
from leagues.services import call_notices
from leagues.services.hall_signal import announce_on_commit
from leagues.services.history import change_record, fixture_state
from leagues.services.locks import lock_competition, retry_conflicts
from leagues.services.results import ResultConflict, lock_fixture

HALL_SETTINGS = frozenset({"tables", "table_names", "min_rest_minutes", "auto_call"})


def _state(fixture: Fixture) -> dict[str, Any]:
    return {**fixture_state(fixture, result=None), "hall_table": fixture.hall_table,
            "called_at": fixture.called_at.isoformat() if fixture.called_at else None}


def _who(fixture: Fixture, person) -> str:
    kind, pk = person
    if kind == "player":
        player = fixture.home_player if fixture.home_player_id == pk else fixture.away_player
        return player.full_name if player is not None else "?"
    entrant = fixture.home if fixture.home_id == pk else fixture.away
    return entrant.name if entrant is not None else "?"


def _check_table(competition: Competition, hall_table) -> int:
    if competition.tables <= 0:
        raise ResultError("hall_table", _("this competition has no hall tables: set how many tables its hall has first"))
    if isinstance(hall_table, bool) or not isinstance(hall_table, int) or not 1 <= hall_table <= competition.tables:
        raise ResultError("hall_table", _("give a table from 1 to %(tables)d") % {"tables": competition.tables})
    return hall_table


def _check_ready(fixture: Fixture) -> None:
    """Raises ``ResultConflict`` ("not_ready") for a fixture that cannot be called now."""
    if fixture.status not in Fixture.OPEN:
        raise ResultConflict("not_ready", _("a %(status)s fixture is not called to a table")
                             % {"status": fixture.get_status_display().lower()})
    if fixture.competition.is_team and fixture.tie_id is None:
        raise ResultConflict("not_ready", _("a team tie is played over several tables: call each of its games"))
    if fixture.home_id is None or fixture.away_id is None:
        raise ResultConflict("not_ready", _("this fixture does not have both its entrants yet"))
    if fixture.tie_id is not None and (fixture.home_player_id is None or fixture.away_player_id is None):
        raise ResultConflict("not_ready", _("this game does not have both its players yet: the line-ups are not in"))
    if fixture.is_online:
        raise ResultConflict("not_ready", _("this fixture is played online, not at a hall table"))


def _check_free(competition: Competition, fixture: Fixture, table: int, called: list[Fixture]) -> None:
    """Raises ``ResultConflict``: ``table_busy`` (another fixture at ``table``) or
    ``entrant_busy`` (one of the fixture's people at another table)."""
    mine = people_of(fixture)
    for other in called:
        if other.pk == fixture.pk:
            continue
        if other.hall_table == table:
            raise ResultConflict("table_busy", _("table %(table)s is taken by %(fixture)s: withdraw that call first, "
                                                 "or wait for its result") % {
                "table": table_label(competition, table), "fixture": str(other)}, fixture=other.pk,
                hall_table=table)
        shared = mine & people_of(other)
        if shared:
            raise ResultConflict("entrant_busy", _("%(name)s is playing at table %(table)s now: %(fixture)s") % {
                "name": _who(fixture, sorted(shared)[0]), "table": table_label(competition, other.hall_table),
                "fixture": str(other)}, fixture=other.pk, hall_table=other.hall_table)


def _check_rested(competition: Competition, fixture: Fixture, now: datetime) -> None:
    resting = resting_until(competition=competition, people=people_of(fixture), now=now)
    if not resting:
        return
    person, until = max(resting.items(), key=lambda item: item[1])
    raise ResultConflict("resting", _(
        "%(name)s finished a game less than %(minutes)d minutes ago: they may be called from %(time)s")
        % {"name": _who(fixture, person), "minutes": competition.min_rest_minutes,
           "time": date_format(timezone.localtime(until, competition.zone), "H:i")},
        until=until.isoformat(), minutes=competition.min_rest_minutes)


def _call(competition: Competition, fixture: Fixture, table: int, *, by, now: datetime) -> None:
    """Writes the call (the caller holds the locks and made the checks)."""
    before = _state(fixture)
    fixture.hall_table, fixture.called_at = table, now
    fixture.save(update_fields=["hall_table", "called_at"])
    change_record(fixture=fixture, kind=FixtureChange.Kind.CALLED, before=before, after=_state(fixture), by=by, now=now)
    call_notices.fixture_called(fixture=fixture, table=table)
    announce_on_commit(competition.pk)


@retry_conflicts
def fixture_call(*, fixture: Fixture, hall_table: int, by=None, now: datetime | None = None) -> Fixture:
    """Calls ``fixture`` to table ``hall_table`` of its competition's hall (from another table:
    moves it). Calling it again to the table it is at changes nothing. Returns the fixture.
    Raises ``ResultError`` / ``ResultConflict`` as the module says."""
    now = now or timezone.now()
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        table = _check_table(competition, hall_table)
        _check_ready(fixture)
        if fixture.hall_table == table:
            return fixture  # sent twice (a retry, two clicks): it is there already
        _check_free(competition, fixture, table, at_tables(competition=competition))
        _check_rested(competition, fixture, now)
        _call(competition, fixture, table, by=by, now=now)
    return fixture


@retry_conflicts
def fixture_uncall(*, fixture: Fixture, by=None, reason: str = "", now: datetime | None = None) -> Fixture:
    """Withdraws the call of ``fixture``: its table is free, the fixture waits for another call
    (behind the others: ``leagues.selectors.calls``). Raises ``ResultConflict`` ("not_called")
    for a fixture at no table or no longer open. With ``auto_call`` on, the freed table takes
    the next ready fixture after commit."""
    now = now or timezone.now()
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        if fixture.hall_table is None or fixture.status not in Fixture.OPEN:
            raise ResultConflict("not_called", _("this fixture is not called to a table"))
        table = fixture.hall_table
        before = _state(fixture)
        fixture.hall_table = fixture.called_at = None
        fixture.save(update_fields=["hall_table", "called_at"])
        change_record(fixture=fixture, kind=FixtureChange.Kind.UNCALLED, before=before, after=_state(fixture),
                      by=by, reason=reason, now=now)
        call_notices.call_withdrawn(fixture=fixture, table=table, reason=reason)
        announce_on_commit(competition.pk)
        auto_call_on_commit(competition)
    return fixture


def auto_call_on_commit(competition: Competition) -> None:
    """Sends the auto-caller of ``competition`` after commit (when it has ``auto_call`` and tables)."""
    if competition.auto_call and competition.tables > 0:
        current_app.tasks["leagues.tasks.hall_auto_call"].enqueue_on_commit(competition_id=competition.pk)


def hall_settings_changed(*, competition: Competition) -> None:
    """After a change of the hall's settings (in its transaction): the hall screens wake and
    the auto-caller looks, on commit."""
    announce_on_commit(competition.pk)
    auto_call_on_commit(competition)


def calls_beyond(*, competition: Competition, tables: int) -> list[int]:
    """The tables above ``tables`` that hold an open call (a hall cannot shrink under them)."""
    return sorted(Fixture.with_games.filter(competition=competition, hall_table__gt=tables, status__in=Fixture.OPEN)
                  .values_list("hall_table", flat=True))


@retry_conflicts
def auto_call(*, competition_id: int, now: datetime | None = None) -> list[tuple[int, int]]:
    """Sends the ready fixtures of the competition to its free tables, lowest table first (none
    when ``auto_call`` is off or it has no tables). Returns the ``(fixture id, table)`` calls
    made; an empty list when there was nothing to do. Idempotent: derived from the database."""
    return _fill(competition_id, by=None, now=now or timezone.now(), only_auto=True)


@retry_conflicts
def free_tables_fill(*, competition: Competition, by=None, now: datetime | None = None) -> list[tuple[int, int]]:
    """An organiser's "call the next to every free table": what the auto-caller does, once,
    whether ``auto_call`` is on or not. Returns the ``(fixture id, table)`` calls made."""
    return _fill(competition.pk, by=by, now=now or timezone.now(), only_auto=False)


def _fill(competition_id: int, *, by, now: datetime, only_auto: bool) -> list[tuple[int, int]]:
    with transaction.atomic():
        competition = lock_competition(competition_id)
        if competition is None or competition.tables <= 0 or (only_auto and not competition.auto_call):
            return []
        day = hall_day(competition=competition, now=now)
        pairs = assign(candidates(day), day.free)
        for fixture_id, table in pairs:
            fixture = Fixture.with_games.select_for_update(of=("self",)).select_related(
                "home", "away", "home_player", "away_player").get(pk=fixture_id)
            fixture.competition = competition
            if fixture.hall_table is None and fixture.status == Fixture.Status.SCHEDULED:
                _call(competition, fixture, table, by=by, now=now)
        return pairs


def auto_calls_due(*, now: datetime | None = None, limit: int = 200) -> int:
    """The sweeper's pass: ``auto_call`` for every competition with ``auto_call`` on, tables and
    open fixtures. Returns how many calls were made."""
    now = now or timezone.now()
    ids = (Competition.objects.filter(auto_call=True, tables__gt=0, fixtures__status=Fixture.Status.SCHEDULED)
           .values_list("pk", flat=True).distinct()[:limit])
    return sum(len(auto_call(competition_id=pk, now=now)) for pk in list(ids))
