"""The one lock order of every write, and the marker of what the derived state was computed from.

Every write path takes its row locks in this order, and only in this order, so that two writes
never wait for each other in a circle (a deadlock):

    competition -> entrant -> fixture (by id) -> match -> result

A write that changes what the standings or the bracket are computed from (an official result,
a withdrawal, a fixture's entrants) calls ``results_changed`` in its transaction: it bumps
``Competition.results_version`` and sends the recomputation after commit (a broker that is
down is logged; the sweeper finds the competition by ``derived_version < results_version``),
tells the competition's hall screens after commit (``leagues.services.hall_signal``) and, for
a competition that calls its hall tables itself (``auto_call``), sends the auto-caller.

``retry_conflicts`` runs a write again when the database reports a deadlock or a serialization
failure that remains (or SQLite's "database is locked"), then turns the last one into a 409.
"""
from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from celery import current_app
from django.db import OperationalError, connection
from django.db.models import F

from leagues.models import Competition
from leagues.services import hall_signal

logger = logging.getLogger(__name__)
T = TypeVar("T")

RETRIES = 4


class Busy(Exception):
    """A write that kept meeting another one (a 409 for the client: try again)."""

    code = "busy"

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def lock_competition(competition_id: int) -> Competition | None:
    """The competition, its row locked for the rest of the transaction (the first lock)."""
    return Competition.objects.select_for_update().filter(pk=competition_id).first()


# beyond this many groups pending, a recomputation ranks every table (as cheap by then)
MOST_PENDING_GROUPS = 200


def results_changed(competition_id: int, *, group_id: int | None = None) -> None:
    """Marks the derived state of the competition stale and sends its recomputation after
    commit; the hall screens of the competition are told after commit too (a result leaves its
    table, joins the last results and moves the standings). The caller holds the competition's
    lock, in a transaction.

    ``group_id``: the change touched that group's table alone (a result of one of its
    fixtures, the groups still being played), so the recomputation may rank that table alone
    (``Competition.pending_groups``); ``None``: anything may have changed, every table is ranked."""
    competitions = Competition.objects.filter(pk=competition_id)
    pending = None
    if group_id is not None:
        state = competitions.values("derived_version", "results_version", "pending_groups").first()
        if state is not None and state["derived_version"] >= state["results_version"]:
            pending = [group_id]  # nothing was pending: this group alone
        elif state is not None and state["pending_groups"] is not None:
            pending = sorted({*state["pending_groups"], group_id})
            if len(pending) > MOST_PENDING_GROUPS:
                pending = None
    competitions.update(results_version=F("results_version") + 1, pending_groups=pending)
    current_app.tasks["leagues.tasks.recompute_standings"].enqueue_on_commit(competition_id=competition_id)
    hall_signal.announce_on_commit(competition_id)
    if Competition.objects.filter(pk=competition_id, auto_call=True, tables__gt=0).exists():
        # a table may have freed, or a fixture got its entrants: the auto-caller looks (COMPETITIONS.md §12)
        current_app.tasks["leagues.tasks.hall_auto_call"].enqueue_on_commit(competition_id=competition_id)


def is_transient(exc: OperationalError) -> bool:
    """Whether ``exc`` is a write that met another one (a deadlock, a serialization failure, a lock
    not granted in time; SQLite's \"database is locked\"): worth another try, never a bug."""
    text = str(exc).lower()
    cause = getattr(exc, "__cause__", None)
    sqlstate = getattr(cause, "sqlstate", None) or getattr(getattr(cause, "diag", None), "sqlstate", None)
    return sqlstate in ("40P01", "40001", "55P03") or "deadlock" in text or "database is locked" in text


def retry_conflicts(func: Callable[..., T]) -> Callable[..., T]:
    """Runs ``func`` (which opens its own transaction) again, up to ``RETRIES`` times, when the
    database answers with a deadlock or a lock it could not get; then raises ``Busy``. Inside a
    caller's transaction it runs once: a transaction that met a deadlock is over."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if connection.in_atomic_block:  # inside a caller's transaction: the caller retries
            return func(*args, **kwargs)
        for attempt in range(RETRIES + 1):
            try:
                return func(*args, **kwargs)
            except OperationalError as exc:
                if not is_transient(exc):
                    raise
                logger.info("%s met another write (%s); attempt %s", func.__name__, exc, attempt + 1)
                if attempt == RETRIES:
                    raise Busy("another change of the same data was being saved; try again") from exc
                time.sleep(random.uniform(0.01, 0.05) * (2 ** attempt))
        raise AssertionError("unreachable")

    return wrapper
