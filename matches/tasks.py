"""Celery entry points of ``matches``: thin, named, idempotent, taking ids."""
from __future__ import annotations

from celery import shared_task

from matches.services.adjudication import adjudicate


@shared_task(name="matches.tasks.adjudicate_match")
def adjudicate_match(match_id: int) -> bool:
    """Writes the official result of a finished match (then bracket, then standings).

    Returns False when the match was already adjudicated (a redelivered message)."""
    return adjudicate(match_id=match_id) is not None


@shared_task(name="matches.tasks.tick_matches", ignore_result=True)
def tick_matches() -> int:
    """Applies the passed deadlines of online matches (beat, every few seconds)."""
    from matches.services.deadlines import tick_due

    return tick_due()
