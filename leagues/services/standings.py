"""Loads a competition's results, ranks them with ``leagues.ranking``, stores the rows (§5).

Nothing is incremented: every recomputation starts from all the official results.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from leagues import ranking, scheduling
from leagues.models import Competition, Entrant, Fixture, Group, Stage, Standing
from leagues.services.fixtures import bracket_advance


@dataclass
class Table:
    group: Group | None
    entrants: dict[int, str]
    lines: list[ranking.MatchLine]


def excluded_entrants(*, competition: Competition) -> set[int]:
    """Entrants struck out of the standings: those withdrawn under the ``annul`` policy."""
    if competition.withdrawal_policy != Competition.WithdrawalPolicy.ANNUL:
        return set()
    return set(competition.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))


def standing_tables(*, competition: Competition) -> list[Table]:
    """The tables of the competition's league and group stages, with their official results."""
    from matches.models import Result

    excluded = excluded_entrants(competition=competition)
    results = {
        r.match.fixture_id: r
        for r in Result.objects.filter(
            match__fixture__competition=competition, adjudicated_at__isnull=False
        ).select_related("match")
    }
    tables = []
    for stage in competition.stages.exclude(kind=Stage.Kind.KNOCKOUT).order_by("order"):
        fixtures = list(stage.competition.fixtures.filter(round__stage=stage).order_by("pk"))
        groups = list(stage.groups.order_by("name").prefetch_related("entrants"))
        scopes: list[tuple[Group | None, list[Entrant]]]
        if groups:
            scopes = [(g, list(g.entrants.all())) for g in groups]
        else:
            scopes = [(None, list(competition.entrants.all()))]
        for group, members in scopes:
            entrants = {e.pk: e.name for e in sorted(members, key=lambda e: e.name) if e.pk not in excluded}
            lines = []
            for f in fixtures:
                if (f.group_id if group else None) != (group.pk if group else None):
                    continue
                if f.home_id in excluded or f.away_id in excluded:
                    continue
                if f.status == Fixture.Status.BYE and f.home_id in entrants:
                    lines.append(ranking.MatchLine(home=f.home_id, away=None))
                elif f.status in (Fixture.Status.PLAYED, Fixture.Status.WALKOVER) and f.pk in results:
                    r = results[f.pk]
                    lines.append(ranking.MatchLine(
                        home=f.home_id, away=f.away_id, home_goals=r.home_goals, away_goals=r.away_goals,
                        home_discipline=r.home_discipline, away_discipline=r.away_discipline,
                    ))
            tables.append(Table(group=group, entrants=entrants, lines=lines))
    return tables


def _fingerprint(competition: Competition, tables: list[Table]) -> str:
    payload = {
        "criteria": competition.criteria,
        "points": [competition.points_win, competition.points_draw, competition.points_loss, competition.points_bye],
        "seed": competition.lots_seed,
        "tables": [
            [t.group.pk if t.group else None, sorted(t.entrants.items()),
             [[ln.home, ln.away, ln.home_goals, ln.away_goals, ln.home_discipline, ln.away_discipline]
              for ln in t.lines]]
            for t in tables
        ],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def standings_recompute(*, competition_id: int, now: datetime | None = None) -> bool:
    """Recomputes and stores every table of the competition from all its official results.

    Lots drawn are recorded on the competition and kept from then on. Returns False (and
    writes nothing) when the stored rows already come from the same results. When the group
    stage is complete, fills the knockout slots from the tables.
    """
    now = now or timezone.now()
    with transaction.atomic():
        competition = Competition.objects.select_for_update().filter(pk=competition_id).first()
        if competition is None:
            return False
        tables = standing_tables(competition=competition)
        fingerprint = _fingerprint(competition, tables)
        if fingerprint == competition.standings_fingerprint:
            return False
        points = ranking.Points(
            win=competition.points_win, draw=competition.points_draw,
            loss=competition.points_loss, bye=competition.points_bye,
        )
        lots = {int(k): v for k, v in competition.lots_drawn.items()}
        rows: list[Standing] = []
        for table in tables:
            ranked = ranking.rank(
                table.lines, competition.criteria, entrants=table.entrants, points=points,
                seed=competition.lots_seed, lots=lots,
            )
            lots.update(ranked.lots_drawn)
            rows += [
                Standing(
                    competition=competition, group=table.group, entrant_id=row.entrant,
                    position=row.position, played=row.played, won=row.won, drawn=row.drawn,
                    lost=row.lost, goals_for=row.goals_for, goals_against=row.goals_against,
                    goal_difference=row.goal_difference, points=row.points,
                    discipline=row.discipline, tiebreak=row.tiebreak,
                    tiebreak_criterion=row.tiebreak_criterion, computed_at=now,
                )
                for row in ranked.rows
            ]
        Standing.objects.filter(competition=competition).delete()
        Standing.objects.bulk_create(rows)
        competition.lots_drawn = {str(k): v for k, v in lots.items()}
        competition.standings_fingerprint = fingerprint
        competition.save(update_fields=["lots_drawn", "standings_fingerprint", "updated_at"])
        knockout_fill_from_groups(competition=competition)
    return True


def knockout_fill_from_groups(*, competition: Competition) -> bool:
    """Once every group fixture is decided, puts the qualifiers into the first knockout round
    by the crossover (A1-B2, B1-A2, ...). Returns True when it filled the slots."""
    groups_stage = competition.stages.filter(kind=Stage.Kind.GROUPS).first()
    knockout = competition.stages.filter(kind=Stage.Kind.KNOCKOUT, order__gt=getattr(groups_stage, "order", 0)).first()
    if groups_stage is None or knockout is None:
        return False
    if competition.fixtures.filter(round__stage=groups_stage, status__in=Fixture.OPEN).exists():
        return False
    first_round = list(
        competition.fixtures.filter(round__stage=knockout, round__number=1).order_by("position")
    )
    if any(f.home_id or f.away_id for f in first_round):
        return False
    groups = list(groups_stage.groups.order_by("name"))
    placed = {
        (s.group_id, s.position): s.entrant
        for s in Standing.objects.filter(competition=competition, group__in=groups).select_related("entrant")
    }
    pairs = scheduling.crossover(len(groups), competition.qualifiers_per_group)
    for fixture, ((a, pa), (b, pb)) in zip(first_round, pairs, strict=True):
        fixture.home = placed.get((groups[a].pk, pa))
        fixture.away = placed.get((groups[b].pk, pb))
        fixture.save(update_fields=["home", "away"])
    # A qualifier that has no opponent (a tiny group) goes through.
    for fixture in first_round:
        if (fixture.home is None) != (fixture.away is None):
            fixture.home, fixture.away = fixture.home or fixture.away, None
            fixture.save(update_fields=["home", "away"])
            fixture.set_status(Fixture.Status.BYE)
            bracket_advance(fixture=fixture, winner=fixture.home, loser=None)
    return True
