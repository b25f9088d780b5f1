"""The derived state of a competition: its standings and its bracket, from the official results.

``standings_recompute(competition_id=...)`` is what ``leagues.tasks.recompute_standings`` (and
the organiser's repair button) calls. Under the competition's row lock it loads every official
result, ranks each table with ``leagues.rules.standings``, stores the rows, fills the knockout slots
with ``leagues.services.bracket`` (group qualifiers included), and records the version of the
results it read (``Competition.derived_version``). Nothing is incremented: every recomputation
starts from all the official results. ``competition_tables`` is the ranking without storing it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connections, router, transaction
from django.db.models import F
from django.utils import timezone

from leagues.models import Competition, Fixture, Group, Outcome, Side, Stage, Standing
from leagues.rules import standings
from leagues.services import best_thirds, bracket, ties
from leagues.services.bulk import rows_insert
from leagues.services.locks import lock_competition


@dataclass
class Table:
    group: Group | None
    entrants: dict[int, str]
    lines: list[standings.MatchLine]
    ranked: standings.Ranking | None = None


def excluded_entrants(*, competition: Competition) -> set[int]:
    """Entrants struck out of the standings: those withdrawn under the ``annul`` policy."""
    if competition.withdrawal_policy != Competition.WithdrawalPolicy.ANNUL:
        return set()
    return set(competition.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))


def standing_tables(*, competition: Competition, only_groups: set[int] | None = None) -> list[Table]:
    """The tables of the competition's league and group stages, with their official results;
    with ``only_groups`` (group ids), those groups' tables alone.

    Linear in the competition's size (in the groups' size with ``only_groups``), whatever its
    shape: a handful of queries (stages, groups, the entrants and the group memberships, then
    one of the fixtures joined to their results, only the columns the ranking reads), grouped
    by table in one pass."""
    excluded = excluded_entrants(competition=competition)
    stages = list(competition.stages.exclude(kind=Stage.Kind.KNOCKOUT).order_by("order"))
    if not stages:
        return []
    groups = Group.objects.filter(stage__in=stages)
    memberships = Group.entrants.through.objects.filter(group__stage__in=stages)
    fixtures = Fixture.objects.filter(competition=competition, round__stage__in=stages, status__in=Fixture.DONE)
    entrants = competition.entrants.all()
    if only_groups is not None:
        groups, memberships = groups.filter(pk__in=only_groups), memberships.filter(group__in=only_groups)
        fixtures, entrants = fixtures.filter(group__in=only_groups), entrants.filter(groups__in=only_groups)
    names = dict(entrants.values_list("pk", "name"))
    everyone = {pk: name for pk, name in sorted(names.items(), key=lambda item: item[1]) if pk not in excluded}
    groups_of: dict[int, list[Group]] = {stage.pk: [] for stage in stages}
    for group in groups.order_by("name", "pk"):
        groups_of[group.stage_id].append(group)
    members: dict[int, list[int]] = {}
    for group_id, entrant_id in memberships.values_list("group_id", "entrant_id"):
        members.setdefault(group_id, []).append(entrant_id)

    # the tables in the stored order: stage by stage, groups by name; (stage, group) -> table
    tables: list[Table] = []
    table_of: dict[tuple[int, int | None], Table] = {}
    for stage in stages:
        if groups_of[stage.pk] or only_groups is not None:
            for group in groups_of[stage.pk]:
                entrants = {pk: names[pk] for pk in sorted(members.get(group.pk, ()), key=lambda pk: names[pk])
                            if pk not in excluded}
                table_of[(stage.pk, group.pk)] = Table(group=group, entrants=entrants, lines=[])
                tables.append(table_of[(stage.pk, group.pk)])
        else:
            table_of[(stage.pk, None)] = Table(group=None, entrants=dict(everyone), lines=[])
            tables.append(table_of[(stage.pk, None)])

    fixtures = (
        fixtures.order_by("pk")
        .values_list("pk", "round__stage_id", "round__number", "group_id", "status", "home_id", "away_id", "result__id",
                     "result__home_goals", "result__away_goals", "result__home_discipline",
                     "result__away_discipline", "result__outcome", "result__outcome_side")
        .iterator(chunk_size=2000)  # a season's results pass through, a chunk in memory at a time
    )
    # a team tie: won on its games' game points, its goals those of its games (COMPETITIONS.md §10)
    game_points = ties.tie_game_points(competition=competition) if competition.is_team else {}
    for (fixture_id, stage_id, round_number, group_id, status, home, away, result_id, home_goals, away_goals,
         home_discipline, away_discipline, outcome, outcome_side) in fixtures:
        # a stage without groups has one table, whatever a fixture's group says
        table = table_of.get((stage_id, group_id)) or table_of.get((stage_id, None))
        if table is None or home in excluded or away in excluded:
            continue
        if status == Fixture.Status.BYE:
            if home in table.entrants:
                table.lines.append(standings.MatchLine(home=home, away=None, round=round_number))
        elif result_id is not None:
            table.lines.append(standings.MatchLine(
                home=home, away=away, home_goals=home_goals, away_goals=away_goals,
                home_discipline=home_discipline, away_discipline=away_discipline,
                double_loss=outcome == Outcome.WALKOVER and outcome_side == Side.BOTH, round=round_number,
                **_game_points_of(game_points, fixture_id, competition),
            ))
    return tables


def _game_points_of(game_points: dict, tie_id: int, competition: Competition) -> dict:
    if not competition.is_team:
        return {}
    home, away = game_points.get(tie_id, (0, 0))
    return {"home_game_points": home, "away_game_points": away}


def competition_points(competition: Competition) -> standings.Points:
    """A win's, draw's, loss's and bye's points: a team competition's ``tie_points``."""
    if competition.is_team:
        win, draw, loss = competition.tie_points
        return standings.Points(win=win, draw=draw, loss=loss, bye=competition.bye_value)
    return standings.Points(
        win=competition.points_win, draw=competition.points_draw,
        loss=competition.points_loss, bye=competition.bye_value,  # a Swiss: its bye_points
    )


def competition_tables(*, competition: Competition, only_groups: set[int] | None = None) -> tuple[list[Table], dict]:
    """Every table ranked (``Table.ranked``; with ``only_groups``, those groups' tables), and
    the lots drawn while ranking them (entrant id -> ticket, the ones already recorded included)."""
    points = competition_points(competition)
    lots = {int(k): v for k, v in competition.lots_drawn.items()}
    criteria = competition.criteria
    tables = standing_tables(competition=competition, only_groups=only_groups)
    for table in tables:
        # the table's own tickets only: a copy of every ticket per table would be quadratic
        table.ranked = standings.rank(
            table.lines, criteria, entrants=table.entrants, points=points,
            seed=competition.lots_seed, lots={e: lots[e] for e in table.entrants if e in lots},
        )
        lots.update(table.ranked.lots_drawn)
    return tables, lots


@dataclass
class GroupPlaces:
    """Who holds each group place that fills the knockout: ``qualifiers`` (the withdrawn passed
    over), ``before_withdrawals`` (the withdrawn counted: what a played fixture may hold), and
    ``shared`` (places the criteria could not separate: left pending for the organisers)."""

    qualifiers: dict[tuple[str, int], object]
    before_withdrawals: dict[tuple[str, int], object]
    shared: list[tuple[str, int]]


def group_places(*, competition: Competition, tables: list[Table]) -> GroupPlaces:
    """(group name, place) -> the entrant there, once every group fixture is decided (empty
    before: the places are still pending), and the slots of the best next-placed (("#3", 1) ->
    the entrant, ``leagues.services.best_thirds``). A withdrawn entrant never qualifies: the places go
    to the next in the table; a place nobody holds is ``bracket.NOBODY``; a place shared with an
    entrant the criteria could not separate stays pending (the organisers decide, e.g. with lots)."""
    places = GroupPlaces({}, {}, [])
    groups_stage = competition.stages.filter(kind=Stage.Kind.GROUPS).first()
    if groups_stage is None:
        return places
    if competition.fixtures.filter(round__stage=groups_stage, status__in=Fixture.OPEN).exists():
        return places
    withdrawn = set(competition.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))
    wanted = max(competition.qualifiers_per_group, 2)
    for table in tables:
        if table.group is None or table.group.stage_id != groups_stage.pk:
            continue
        name = table.group.name
        for target, rows in ((places.before_withdrawals, table.ranked.rows),
                             (places.qualifiers, [r for r in table.ranked.rows if r.entrant not in withdrawn])):
            for place in range(1, wanted + 1):
                row = rows[place - 1] if place <= len(rows) else None
                if row is None:
                    target[(name, place)] = bracket.NOBODY
                elif row.shared and _shared_across(rows, place):
                    if target is places.qualifiers:
                        places.shared.append((name, place))
                else:
                    target[(name, place)] = row.entrant
    # the best next-placed (leagues.services.best_thirds): their slots wait while the cut is shared
    for target, passed_over in ((places.before_withdrawals, frozenset()), (places.qualifiers, withdrawn)):
        slots = best_thirds.next_placed_slots(competition=competition, tables=tables, passed_over=passed_over)
        if slots is not None:
            target.update(slots)
    return places


def _shared_across(rows: list, place: int) -> bool:
    """Whether the row at ``place`` (1-based) shares its position with a row that would not
    take the same place: then who takes which place is not decided."""
    row = rows[place - 1]
    level = [r for r in rows if r.position == row.position]
    return len(level) > 1


def standings_recompute(*, competition_id: int, now: datetime | None = None, force: bool = False) -> bool:
    """Recomputes and stores every table and the bracket of the competition from all its
    official results. Lots drawn are recorded on the competition and kept from then on.

    When the changes since the last recomputation were confined to some groups' tables
    (``Competition.pending_groups``, ``leagues.services.locks.results_changed``) and the groups
    are still being played (no group place fills the knockout yet), those tables alone are
    ranked again, each from all its own official results: the others, and the bracket, are what
    they were. ``force`` (the organiser's repair button) ranks everything.

    Returns False (and writes nothing) when the stored standings and bracket were already
    computed from the current results (``derived_version``), unless ``force``."""
    now = now or timezone.now()
    with transaction.atomic():
        competition = lock_competition(competition_id)
        if competition is None:
            return False
        if not force and competition.derived_version >= competition.results_version:
            return False
        only = None if force else _confined_to(competition)
        tables, lots = competition_tables(competition=competition, only_groups=only)
        _store_rows(competition, tables, now=now, only_groups=only)
        if only is None:
            places = group_places(competition=competition, tables=tables)
            competition.derived_conflicts = bracket.bracket_sync(
                competition=competition, qualifiers=places.qualifiers,
                before_withdrawals=places.before_withdrawals, now=now)
        competition.lots_drawn = {str(k): v for k, v in lots.items()}
        competition.derived_version = competition.results_version
        competition.pending_groups = []
        competition.save(update_fields=["lots_drawn", "derived_version", "derived_conflicts", "pending_groups",
                                        "updated_at"])
    return True


def _confined_to(competition: Competition) -> set[int] | None:
    """The groups whose tables alone need ranking again, or ``None`` (all of them, and the
    bracket): when nothing says the changes were confined, or when the groups stage is over (its
    places fill the knockout, the best next-placed are compared across the groups)."""
    if not competition.pending_groups:
        return None
    groups_stage = competition.stages.filter(kind=Stage.Kind.GROUPS).first()
    if groups_stage is not None and competition.stages.filter(kind=Stage.Kind.KNOCKOUT).exists() and not (
            competition.fixtures.filter(round__stage=groups_stage, status__in=Fixture.OPEN).exists()):
        return None
    return set(competition.pending_groups)


# the stored columns of a row, after its entrant: what a recomputation compares
STANDING_COLUMNS = (
    "entrant_id", "group_id", "position", "played", "won", "drawn", "lost", "goals_for",
    "goals_against", "goal_difference", "points", "discipline", "tiebreak", "tiebreak_criterion", "shared",
    "game_points", "computed_at",
)


def _store_rows(competition: Competition, tables: list[Table], *, now: datetime,
                only_groups: set[int] | None = None) -> None:
    """Stores the ranked tables: the rows that changed (or appeared) are written with
    ``computed_at`` ``now``, the ones gone are deleted, the others are left as they are (their
    ``computed_at`` says when they last changed; the latest of a table is when it did). A
    recomputation after a correction writes the few rows it moved, not the whole season's.
    With ``only_groups``, the rows of those groups alone are compared (``tables`` holds theirs)."""
    ranked = {
        row.entrant: (table.group.pk if table.group else None, row.position, row.played, row.won, row.drawn,
                      row.lost, row.goals_for, row.goals_against, row.goal_difference, row.points,
                      row.discipline, row.tiebreak, row.tiebreak_criterion, row.shared, row.game_points)
        for table in tables for row in table.ranked.rows
    }
    stored = Standing.objects.filter(competition=competition)
    if only_groups is not None:
        stored = stored.filter(group__in=only_groups)
    stored = stored.order_by().values_list("pk", "entrant_id", *STANDING_COLUMNS[1:-1])
    stale = []
    for pk, entrant, *values in stored:
        if ranked.get(entrant) == tuple(values):
            del ranked[entrant]  # stored as it is
        else:
            stale.append(pk)
    for start in range(0, len(stale), 500):
        Standing.objects.filter(pk__in=stale[start:start + 500]).delete()
    stamp = connections[router.db_for_write(Standing)].ops.adapt_datetimefield_value(now)
    rows_insert(Standing, ("competition_id", "entrant_id", *STANDING_COLUMNS[1:-1], "computed_at"),
            [(competition.pk, entrant, *values, stamp) for entrant, values in ranked.items()])


def stale_competitions(*, limit: int = 500) -> list[int]:
    """Ids of the competitions whose stored standings or bracket are older than their results
    (what the sweeper re-sends)."""
    return list(Competition.objects.filter(derived_version__lt=F("results_version"))
                .order_by("updated_at").values_list("pk", flat=True)[:limit])
