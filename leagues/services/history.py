"""The history of a fixture: one entry per accepted change (who, when, before, after, reason).

``fixture_state(fixture)`` is what an entry keeps of a fixture: its entrants, kick-off, status,
online match and official result, as JSON. ``change_record(...)`` writes one entry; the
services call it in the transaction of the change they make.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from leagues.models import Fixture, FixtureChange, Result


def result_state(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "source": result.source, "outcome": result.outcome, "outcome_side": result.outcome_side,
        "home_goals": result.home_goals, "away_goals": result.away_goals,
        "table_home_goals": result.table_home_goals, "table_away_goals": result.table_away_goals,
        "home_et_goals": result.home_et_goals, "away_et_goals": result.away_et_goals,
        "home_shootout": result.home_shootout, "away_shootout": result.away_shootout,
        "home_discipline": result.home_discipline, "away_discipline": result.away_discipline,
        "winner_side": result.winner_side, "text": str(result), "match": result.match_id,
        "reason": result.reason,
    }


def fixture_state(fixture: Fixture, *, result: Result | None | bool = True) -> dict[str, Any]:
    """A JSON picture of ``fixture``; ``result`` is its result (``True``: read it)."""
    if result is True:
        result = Result.objects.filter(fixture_id=fixture.pk).first()
    return {
        "home": fixture.home.name if fixture.home_id else None, "home_id": fixture.home_id,
        "away": fixture.away.name if fixture.away_id else None, "away_id": fixture.away_id,
        "kickoff_at": fixture.kickoff_at.isoformat() if fixture.kickoff_at else None,
        "status": fixture.status, "match": fixture.match_id, "result": result_state(result or None),
    }


def change_record(
    *, fixture: Fixture, kind: str, before: dict[str, Any], after: dict[str, Any], by=None,
    reason: str = "", now: datetime | None = None,
) -> FixtureChange:
    """Writes one history entry of ``fixture`` (``kind``: a ``FixtureChange.Kind``)."""
    return FixtureChange.objects.create(
        fixture=fixture, kind=kind, at=now or timezone.now(), by=by if getattr(by, "pk", None) else None,
        reason=reason or "", before=before, after=after,
    )
