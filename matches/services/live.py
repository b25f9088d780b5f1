"""Word to the web processes that a match moved, for the watchers they push to.

Every save of a match (a move, a deadline applied, a check-in, full time, an official result)
publishes the match's id on Redis once the transaction has committed (``announce_on_commit``,
connected to ``Match``'s ``post_save`` in ``MatchesConfig.ready``); every web process is
subscribed once to all matches of its database (``matches.watching``) and wakes the watchers'
room of that match, which reads what changed from the database: one message per move however
many processes and watchers there are, so that web processes on several machines serve one
match.

The message says only which match: what changed is read from the database, so a lost message
(Redis restarting) is caught up by the room's own look every ``LIVE_CHECK_SECONDS``. Without
Redis (``REDIS_URL`` unset: the embedded set-up) nothing is published: the rooms look every
``LIVE_POLL_SECONDS``. A publication that fails is logged and never fails the write.
"""
from __future__ import annotations

import functools
import logging

import redis
from django.conf import settings
from django.db import connection, transaction

logger = logging.getLogger(__name__)


def channel_prefix() -> str:
    """The Redis channels' prefix: ``botonera:<database name>:match:``, so that two sites (or a
    test run) sharing one Redis never wake each other's rooms."""
    return f"botonera:{connection.settings_dict['NAME']}:match:"


def channel(match_id: int) -> str:
    return f"{channel_prefix()}{match_id}"


@functools.cache
def _client(url: str) -> redis.Redis:
    timeout = float(getattr(settings, "CACHE_TIMEOUT", 0.5))
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def publish(name: str) -> bool:
    """Publishes an empty message on the Redis channel ``name`` (nothing without ``REDIS_URL``).
    Never raises: False (and logged by the caller's words) when Redis could not be told."""
    if not settings.REDIS_URL:
        return True
    try:
        _client(settings.REDIS_URL).publish(name, b"")
    except (redis.RedisError, OSError) as exc:
        logger.warning("%s: could not be published (%s)", name, exc)
        return False
    return True


def announce(match_id: int) -> None:
    """Publishes ``match_id`` on its channel (nothing without ``REDIS_URL``). Never raises: a
    Redis that is down costs the watchers at most ``LIVE_CHECK_SECONDS``."""
    if not publish(channel(match_id)):
        logger.warning("match %s: its watchers look again within %s s", match_id, settings.LIVE_CHECK_SECONDS)


def announce_on_commit(match_id: int) -> None:
    """``announce`` once the current transaction commits (at once outside one)."""
    if settings.REDIS_URL:
        transaction.on_commit(functools.partial(announce, match_id))


def match_saved(sender, instance, **kwargs) -> None:
    """``post_save`` receiver of ``Match``."""
    announce_on_commit(instance.pk)
