"""Celery entry points of ``matches``: thin, named, idempotent, taking ids."""
from __future__ import annotations

from celery import shared_task

from matches.services.results import match_adjudicate


@shared_task(name="matches.tasks.adjudicate_match")
def adjudicate_match(match_id: int) -> bool:
    """Writes the official result of a finished match (then bracket, then standings).

    Returns False when the match was already adjudicated (a redelivered message)."""
    return match_adjudicate(match_id=match_id) is not None
