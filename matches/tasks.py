"""Celery entry points of ``matches``: thin, named, idempotent, taking ids.

Deadlocks and lost database connections are retried with back-off (below the broker's
visibility timeout); a task that finds its work done returns quietly.
"""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from matches.services import adjudication, deadlines, spectating

RETRY = {"autoretry_for": (OperationalError, InterfaceError), "retry_backoff": 1, "retry_backoff_max": 30,
         "retry_jitter": True, "max_retries": 8}


@shared_task(name="matches.tasks.adjudicate_match", **RETRY)
def adjudicate_match(match_id: int) -> bool:
    """Replays and checks a finished match's log and stores what it gives; its owner's task
    then makes the official result. Returns False when there was nothing to do."""
    return adjudication.match_adjudicate(match_id=match_id) is not None


@shared_task(name="matches.tasks.tick_matches", ignore_result=True, **RETRY)
def tick_matches() -> int:
    """Applies the passed deadlines of online matches (beat, every few seconds)."""
    return deadlines.tick_due()


@shared_task(name="matches.tasks.play_computer_moves", ignore_result=True, **RETRY)
def play_computer_moves() -> int:
    """Plays the due move of every watched computer-against-computer match (beat, every
    second). Returns how many moved."""
    return spectating.play_due()


@shared_task(name="matches.tasks.sweep", ignore_result=True, **RETRY)
def sweep() -> int:
    """Re-sends the adjudication of every match whose log waits for it (beat): the net under a
    broker that was down or a worker that died. Returns how many were sent."""
    ids = adjudication.pending()
    for match_id in ids:
        adjudicate_match.enqueue(match_id=match_id)
    return len(ids)
