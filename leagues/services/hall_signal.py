"""Word to the hall screens that a competition's tournament day moved: a call, a call
withdrawn, a result (COMPETITIONS.md §12).

Each such write publishes the competition's id on Redis once its transaction has committed
(``announce_on_commit``); the hall screen's socket wakes on it and reads what changed from the
database, so that a lost message (Redis restarting) costs at most the screen's own next look.
Without Redis (``REDIS_URL`` unset: the embedded set-up) nothing is published and the screens
poll. A publication that fails is logged and never fails the write.
"""
from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.db import connection, transaction

from matches.services import live

logger = logging.getLogger(__name__)


def channel_prefix() -> str:
    """``botonera:<database name>:hall:``: two sites (or a test run) sharing one Redis never
    wake each other's screens."""
    return f"botonera:{connection.settings_dict['NAME']}:hall:"


def channel(competition_id: int) -> str:
    return f"{channel_prefix()}{competition_id}"


def announce(competition_id: int) -> None:
    """Publishes ``competition_id`` on its hall channel (``matches.services.live.publish``:
    nothing without ``REDIS_URL``). Never raises: the screens look again on their own."""
    if not live.publish(channel(competition_id)):
        logger.warning("competition %s: its hall screens look again on their own", competition_id)


def announce_on_commit(competition_id: int) -> None:
    """``announce`` once the current transaction commits (at once outside one)."""
    if settings.REDIS_URL:
        transaction.on_commit(functools.partial(announce, competition_id))
