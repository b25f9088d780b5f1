"""Celery entry points of ``leagues``: thin, named, idempotent, taking ids."""
from __future__ import annotations

from celery import shared_task

from leagues.services.standings import standings_recompute


@shared_task(name="leagues.tasks.recompute_standings")
def recompute_standings(competition_id: int) -> bool:
    """Recomputes a competition's stored standings from all its results.

    Returns False when the stored rows were already computed from the same results."""
    return standings_recompute(competition_id=competition_id)
