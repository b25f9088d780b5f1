"""Celery entry points of ``leagues``: thin, named, idempotent, taking ids.

Deadlocks and lost database connections are retried with back-off (below the broker's
visibility timeout); a task that finds its work done returns quietly. ``sweep`` (beat) finds
every piece of pending work from the database and sends it again, so nothing is lost when the
broker was down or a worker died.
"""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from leagues.services import (
    calls,
    notices,
    online,
    ratings,
    report_notices,
    reports,
    results,
    standings,
    teams,
)

RETRY = {"autoretry_for": (OperationalError, InterfaceError), "retry_backoff": 1, "retry_backoff_max": 30,
         "retry_jitter": True, "max_retries": 8}


@shared_task(name="leagues.tasks.recompute_standings", **RETRY)
def recompute_standings(competition_id: int) -> bool:
    """Recomputes a competition's stored standings and bracket from all its official results.

    Returns False when they were already computed from the current results. Then sends the
    ratings' recomputation (which returns at once when they are current)."""
    done = standings.standings_recompute(competition_id=competition_id)
    recompute_ratings.enqueue()
    return done


@shared_task(name="leagues.tasks.recompute_ratings", **RETRY)
def recompute_ratings() -> bool:
    """Recomputes every player's rating history and every finished competition's placings from
    all the official results. False: they were current already."""
    return ratings.ratings_recompute()


@shared_task(name="leagues.tasks.result_from_match", **RETRY)
def result_from_match(match_id: int) -> bool:
    """Makes the adjudicated log of a fixture's online match its official result (sent by
    ``matches`` by this name, ``settings.MATCHES_ON_ADJUDICATED``). False: nothing to do."""
    return results.result_from_match(match_id=match_id) is not None


@shared_task(name="leagues.tasks.hall_auto_call", **RETRY)
def hall_auto_call(competition_id: int) -> int:
    """Sends the competition's ready fixtures to its free hall tables when it has ``auto_call``
    on (after a result or a call withdrawn). Returns how many were called (0: nothing to do)."""
    return len(calls.auto_call(competition_id=competition_id))


@shared_task(name="leagues.tasks.sweep", ignore_result=True, **RETRY)
def sweep() -> dict[str, int]:
    """Finds the pending work of ``leagues`` in the database and sends it again (beat): stale
    standings and brackets, adjudicated online matches not yet official, the double
    no-shows whose check-in has closed (recorded here), the players' reports nobody answered in
    time (made official here), ratings older than the results, the check-in windows opened,
    kick-offs passed, overdue fixtures and waiting sign-ups that players and organisers are to be
    told of (here), and the empty tables of team ties past their line-up deadline (walkovers,
    here), and the free hall tables of the competitions that call them themselves (here).
    Returns what it found."""
    stale = standings.stale_competitions()
    for competition_id in stale:
        recompute_standings.enqueue(competition_id=competition_id)
    awaiting = results.fixtures_awaiting_official()
    for match_id in awaiting:
        result_from_match.enqueue(match_id=match_id)
    no_shows = online.no_shows_record()
    reported = reports.reports_due()
    lineup_walkovers = teams.lineups_sweep()
    told = (notices.checkin_open_due() + notices.walkover_warnings_due() + report_notices.overdue_reminders_due()
            + report_notices.sign_ups_waiting_due())
    auto_called = calls.auto_calls_due()
    ratings_stale = ratings.ratings_stale()
    if ratings_stale:
        recompute_ratings.enqueue()
    return {"stale": len(stale), "awaiting": len(awaiting), "no_shows": no_shows, "ratings": int(ratings_stale),
            "reported": reported, "told": told, "lineup_walkovers": lineup_walkovers,
            "auto_called": auto_called}
