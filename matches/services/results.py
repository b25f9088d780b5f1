"""Recording the result of a table match and adjudicating it (COMPETITIONS.md §4).

``result_record`` stores what the organiser saw at the table and, after the transaction
commits, enqueues ``matches.tasks.adjudicate_match``. ``match_adjudicate`` (what the task
calls) writes the official result, moves a knockout winner on, and enqueues the standings.
"""
from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from leagues.models import Competition, Fixture
from leagues.services.fixtures import bracket_advance
from matches.models import Match, Result
from matches.official import Official, Recorded, ResultError, Rules, official_result

logger = logging.getLogger(__name__)


def rules_for(*, fixture: Fixture) -> Rules:
    competition: Competition = fixture.competition
    return Rules(
        knockout=fixture.is_knockout,
        extra_time=competition.extra_time,
        shootout=competition.shootout,
        shootout_kicks=competition.shootout_kicks,
        walkover_score=(competition.walkover_goals_for, competition.walkover_goals_against),
    )


def match_for_fixture(*, fixture: Fixture) -> Match:
    """The fixture's match, created on first use with the competition's rule set and
    parameters frozen into it."""
    match, _ = Match.objects.get_or_create(
        fixture=fixture,
        defaults={
            "rule_set": fixture.competition.rule_set,
            "rule_params": dict(fixture.competition.rule_params),
        },
    )
    return match


def result_record(
    *,
    fixture: Fixture,
    home_goals: int,
    away_goals: int,
    outcome: str = "played",
    outcome_side: str = "",
    home_et_goals: int = 0,
    away_et_goals: int = 0,
    home_shootout: int | None = None,
    away_shootout: int | None = None,
    home_discipline: int = 0,
    away_discipline: int = 0,
    recorded_by=None,
    now: datetime | None = None,
    adjudicate: bool = True,
) -> Result:
    """Records the result of ``fixture`` as played at the table (or a walkover or a
    disqualification); a second call corrects it.

    The official result is written by ``adjudicate_match`` once this transaction commits
    (``adjudicate=False`` leaves that to the caller). Raises ``ResultError`` (a user error,
    naming the field) when the result cannot be official or the fixture takes no result.
    """
    now = now or timezone.now()
    if min(home_discipline, away_discipline) < 0:
        raise ResultError("home_discipline" if home_discipline < 0 else "away_discipline", "cannot be negative")
    with transaction.atomic():
        fixture = (
            Fixture.objects.select_for_update(of=("self",))
            .select_related("competition", "round__stage")
            .get(pk=fixture.pk)
        )
        if fixture.home_id is None or fixture.away_id is None:
            raise ResultError("fixture", "this fixture does not have both its entrants yet")
        if fixture.status not in Fixture.OPEN | {Fixture.Status.PLAYED, Fixture.Status.WALKOVER}:
            raise ResultError("fixture", f"a {fixture.get_status_display().lower()} fixture takes no result")
        recorded = Recorded(
            home_goals=home_goals, away_goals=away_goals, outcome=outcome, outcome_side=outcome_side or "",
            home_et_goals=home_et_goals, away_et_goals=away_et_goals,
            home_shootout=home_shootout, away_shootout=away_shootout,
        )
        official_result(recorded, rules_for(fixture=fixture))  # validates; raises ResultError

        match = Match.objects.select_for_update().get(pk=match_for_fixture(fixture=fixture).pk)
        if match.status != Match.Status.FINISHED:
            match.set_status(Match.Status.FINISHED, by=recorded_by, now=now)
        result, _ = Result.objects.update_or_create(
            match=match,
            defaults={
                "outcome": outcome, "outcome_side": outcome_side or "",
                "table_home_goals": home_goals, "table_away_goals": away_goals,
                "home_et_goals": home_et_goals, "away_et_goals": away_et_goals,
                "home_shootout": home_shootout, "away_shootout": away_shootout,
                "home_discipline": home_discipline, "away_discipline": away_discipline,
                "recorded_by": recorded_by, "recorded_at": now,
                "home_goals": None, "away_goals": None, "winner_side": "", "winner": None,
                "adjudicated_at": None,
            },
        )
        if adjudicate:
            from matches.tasks import adjudicate_match

            adjudicate_match.delay_on_commit(match.pk)
    return result


def match_adjudicate(*, match_id: int, now: datetime | None = None, enqueue_standings: bool = True) -> Result | None:
    """Writes the official result of a finished match, moves a knockout winner on, and
    enqueues the standings after commit. Returns ``None`` when there is nothing to do (the
    match is already adjudicated, or has no result): running it twice is harmless.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Match.Status.FINISHED or match.fixture_id is None:
            return None
        result = Result.objects.select_for_update().filter(match=match).first()
        if result is None:
            logger.error("match %s is finished without a result", match_id)
            return None
        fixture = (
            Fixture.objects.select_for_update(of=("self",))
            .select_related("competition", "round__stage", "home", "away")
            .get(pk=match.fixture_id)
        )
        official: Official = official_result(
            Recorded(
                home_goals=result.table_home_goals, away_goals=result.table_away_goals,
                outcome=result.outcome, outcome_side=result.outcome_side,
                home_et_goals=result.home_et_goals, away_et_goals=result.away_et_goals,
                home_shootout=result.home_shootout, away_shootout=result.away_shootout,
            ),
            rules_for(fixture=fixture),
        )
        result.home_goals, result.away_goals = official.home_goals, official.away_goals
        result.winner_side = official.winner_side
        result.winner = fixture.entrant(official.winner_side) if official.winner_side else None
        result.adjudicated_at = now
        result.save()
        match.set_status(Match.Status.ADJUDICATED, now=now)

        status = Fixture.Status.WALKOVER if result.outcome == "walkover" else Fixture.Status.PLAYED
        if fixture.status != status:
            fixture.set_status(status, by=result.recorded_by, now=now)
        if fixture.is_knockout and official.winner_side:
            loser_side = "away" if official.winner_side == "home" else "home"
            bracket_advance(fixture=fixture, winner=result.winner, loser=fixture.entrant(loser_side))
        if enqueue_standings:
            from leagues.tasks import recompute_standings

            recompute_standings.delay_on_commit(fixture.competition_id)
    return result
