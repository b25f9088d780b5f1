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

import redis
from django.conf import settings
from django.db import connection, transaction

logger = logging.getLogger(__name__)


def channel_prefix() -> str:
    """``botonera:<database name>:hall:``: two sites (or a test run) sharing one Redis never
    wake each other's screens."""
    return f"botonera:{connection.settings_dict['NAME']}:hall:"


def channel(competition_id: int) -> str:
    return f"{channel_prefix()}{competition_id}"


@functools.cache
def _client(url: str) -> redis.Redis:
    timeout = float(getattr(settings, "CACHE_TIMEOUT", 0.5))
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def announce(competition_id: int) -> None:
    """Publishes ``competition_id`` on its hall channel (nothing without ``REDIS_URL``). Never
    raises."""
    if not settings.REDIS_URL:
        return
    try:
        _client(settings.REDIS_URL).publish(channel(competition_id), b"")
    except (redis.RedisError, OSError) as exc:
        logger.warning("competition %s: its hall screens could not be told of a change (%s); they look "
                       "again on their own", competition_id, exc)


def announce_on_commit(competition_id: int) -> None:
    """``announce`` once the current transaction commits (at once outside one)."""
    if settings.REDIS_URL:
        transaction.on_commit(functools.partial(announce, competition_id))
