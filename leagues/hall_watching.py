"""The hall screens' sockets told that their competition's day moved (COMPETITIONS.md §12).

A hall screen opens ``/ws/competitions/<slug>/hall/`` (``leagues.consumers``). One ``Hub`` per
web process (per event loop) keeps the sockets open on it by competition, and, while any is
open, one pattern subscription to Redis for all the competitions of its database
(``leagues.services.hall_signal``: a call, a call withdrawn, a result, published after
commit). Each message sends the competition's screens a small ``{"hall": "changed"}``; the
screen then fetches its parts itself (``leagues.views.hall``), so nothing is read here. When
the subscription comes back after Redis was away, every screen is told (what was missed);
the screens also look every ``LOOK_SECONDS`` on their own. Without ``REDIS_URL`` (the embedded
set-up) nothing would ever be said: the consumer closes with 4501 and the screen polls.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from typing import Any

import redis
from django.conf import settings
from redis import asyncio as aioredis

from leagues.services import hall_signal
from matches.watching import channel_id

logger = logging.getLogger(__name__)

CHANGED = json.dumps({"hall": "changed"})
PUSH_TIMEOUT_S = 10.0  # a screen that has not taken a word by then is closed (it reconnects)


async def _tell(consumer: Any) -> None:
    try:
        await asyncio.wait_for(consumer.push(CHANGED), PUSH_TIMEOUT_S)
    except TimeoutError:
        with contextlib.suppress(Exception):
            await consumer.close(code=4408)
    except Exception:  # the socket went away: its disconnect removes it
        logger.debug("a hall screen's socket refused a word")


class Hub:
    """This process's hall screens by competition id, and its subscription to Redis."""

    def __init__(self) -> None:
        self.screens: dict[int, set[Any]] = {}
        self.listener: asyncio.Task | None = None
        self.subscribed = False

    def join(self, consumer: Any, competition_id: int) -> None:
        self.screens.setdefault(competition_id, set()).add(consumer)
        if self.listener is None or self.listener.done():
            self.listener = asyncio.get_running_loop().create_task(self.listen())

    def leave(self, consumer: Any, competition_id: int) -> None:
        screens = self.screens.get(competition_id)
        if screens is None:
            return
        screens.discard(consumer)
        if not screens:
            del self.screens[competition_id]
        if not self.screens and self.listener is not None:  # the subscription ends with the last screen
            listener, self.listener, self.subscribed = self.listener, None, False
            listener.cancel()

    async def tell(self, competition_id: int) -> None:
        """Says to every screen of ``competition_id`` in this process that its day moved."""
        await asyncio.gather(*(_tell(c) for c in list(self.screens.get(competition_id, ()))))

    async def tell_all(self) -> None:
        await asyncio.gather(*(_tell(c) for screens in list(self.screens.values()) for c in list(screens)))

    async def listen(self) -> None:
        """Tells the screens of each competition announced on Redis; reconnects every second
        while Redis is away (the screens look by themselves meanwhile, and are all told on return)."""
        prefix = hall_signal.channel_prefix()
        lost = False
        while self.screens:
            client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, health_check_interval=10)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(f"{prefix}*")
                    async for message in pubsub.listen():
                        if message.get("type") == "psubscribe":
                            self.subscribed = True
                            if lost:
                                lost = False
                                await self.tell_all()  # what was missed while Redis was away
                            continue
                        if message.get("type") != "pmessage":
                            continue
                        competition_id = channel_id(message["channel"], prefix)
                        if competition_id is not None:
                            await self.tell(competition_id)
            except (redis.RedisError, OSError) as exc:
                if asyncio.current_task().cancelling():  # stopped (the last screen left) while it failed
                    raise asyncio.CancelledError from exc
                if self.subscribed:
                    logger.warning("the hall screens' subscription to Redis was lost (%s)", exc)
                self.subscribed, lost = False, True
                await asyncio.sleep(1)
            finally:
                self.subscribed = False
                with contextlib.suppress(Exception):
                    await client.aclose()


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop (one per web process; a test's loop gets its own)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found
