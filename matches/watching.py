"""Live matches pushed to their watchers over WebSockets.

A board opens ``/ws/matches/<id>/?after=N&frames=1&lang=xx`` (``matches.consumers``) and gets,
each time the match changes, the same JSON a spectator's poll of ``/matches/<id>/feed/?after=N``
gets: the match and the log rows it lacks. The JSON short poll stays as the fallback.

One ``Hub`` per web process (per event loop) keeps a ``Room`` per match watched from the process.
A room reads the match's head (``selectors.feed_head``: one light query, no state, no log) when
it is told the match moved, and sends every watcher that lacks the new version its answer,
built once per position, frames flag and language (``selectors.spectators_body``, cached, so a
second process finds it built): the database does the same work for one watcher or a thousand.

Told how (``matches.services.live``): with ``REDIS_URL`` the hub is subscribed to its database's
matches (one pattern subscription per process) and wakes the room at once; the room also looks
every ``LIVE_CHECK_SECONDS`` (5) and after the subscription comes back, so a message lost while
Redis restarts costs seconds, not the match. Without Redis (the embedded set-up: one process,
moves made by it or by ``manage.py run_clock`` beside it) the room looks every
``LIVE_POLL_SECONDS`` (0.5).

Watching drives nothing: no deadline is applied and no computer's move is played here (beat's
``matches.tasks.tick_matches`` and ``play_computer_moves`` do it, or ``run_clock``).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import redis
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone, translation
from redis import asyncio as aioredis

from matches import selectors
from matches.services import live, spectating

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class Seat:
    """One watcher: its consumer (``push(text)``, ``close(code)``), the last row it has
    (``after``), whether it wants the flicks' frames, its language, and the match's version it
    was last sent (``None``: nothing yet)."""

    consumer: Any
    after: int
    frames: bool = True
    language: str = settings.LANGUAGE_CODE
    version: tuple | None = field(default=None)


def _body(head: selectors.FeedHead, *, after: int, frames: bool, language: str, now) -> str | None:
    with translation.override(language):
        body = selectors.spectators_body(head, after=after, frames=frames, now=now)
    return None if body is None else selectors.with_server_now(body, now)


_head = database_sync_to_async(selectors.feed_head)
_mark = database_sync_to_async(spectating.mark_watched)
_answer = database_sync_to_async(_body)


class Room:
    """The watchers of one match in this process, and the task that pushes to them."""

    def __init__(self, hub: Hub, match_id: int):
        self.hub, self.match_id = hub, match_id
        self.seats: set[Seat] = set()
        self.wake = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        while self.seats:
            self.wake.clear()
            try:
                await self.push()
            except Exception:  # the database away, a bug: logged; the room looks again
                logger.exception("match %s: the watchers' room could not read the match", self.match_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.hub.interval())

    async def push(self) -> None:
        """Sends every seat that lacks the match's current version its answer."""
        now = timezone.now()
        head = await _head(self.match_id, now=now)
        if head is None:  # no such match (or deleted): nothing to watch
            seats, self.seats = list(self.seats), set()
            self.hub.forget(self)
            for seat in seats:
                await _close(seat, 4404)
            return
        if head.wants_mark(now):
            await _mark(self.match_id, now=now)
        waiting: dict[tuple, list[Seat]] = defaultdict(list)
        for seat in self.seats:
            if seat.version != head.version:
                waiting[(seat.after, seat.frames, seat.language)].append(seat)
        sends = []
        for (after, frames, language), seats in waiting.items():
            text = await _answer(head, after=after, frames=frames, language=language, now=now)
            if text is None:
                continue
            for seat in seats:
                seat.after, seat.version = max(seat.after, head.seq), head.version
                sends.append(_send(seat, text))
        # all at once: a watcher that does not read (a stalled phone) holds nobody else up
        await asyncio.gather(*sends)


PUSH_TIMEOUT_S = 10.0  # a watcher that has not taken a push by then is closed (it reconnects, catches up)


async def _send(seat: Seat, text: str) -> None:
    try:
        await asyncio.wait_for(seat.consumer.push(text), PUSH_TIMEOUT_S)
    except TimeoutError:
        await _close(seat, 4408)
    except Exception:  # the socket went away: its disconnect removes the seat
        logger.debug("a watcher's socket refused a push")


async def _close(seat: Seat, code: int) -> None:
    with contextlib.suppress(Exception):
        await seat.consumer.close(code=code)


class Hub:
    """This process's rooms, and its subscription to Redis (when there is one)."""

    def __init__(self) -> None:
        self.rooms: dict[int, Room] = {}
        self.listener: asyncio.Task | None = None
        self.subscribed = False

    def interval(self) -> float:
        """Seconds a room waits for word before it looks by itself."""
        return settings.LIVE_CHECK_SECONDS if self.subscribed else settings.LIVE_POLL_SECONDS

    async def join(self, seat: Seat, match_id: int) -> None:
        room = self.rooms.get(match_id)
        if room is None:
            room = self.rooms[match_id] = Room(self, match_id)
        room.seats.add(seat)
        room.wake.set()
        if room.task is None or room.task.done():
            room.task = asyncio.get_running_loop().create_task(room.run())
        if settings.REDIS_URL and (self.listener is None or self.listener.done()):
            self.listener = asyncio.get_running_loop().create_task(self.listen())

    async def leave(self, seat: Seat, match_id: int) -> None:
        room = self.rooms.get(match_id)
        if room is None:
            return
        room.seats.discard(seat)
        if room.seats:
            return
        self.forget(room)
        room.wake.set()  # its task ends
        if room.task is not None and room.task is not asyncio.current_task():
            await asyncio.gather(room.task, return_exceptions=True)

    def forget(self, room: Room) -> None:
        """Removes ``room``; the subscription ends with the last one."""
        if self.rooms.get(room.match_id) is room:
            del self.rooms[room.match_id]
        if not self.rooms and self.listener is not None:
            listener, self.listener, self.subscribed = self.listener, None, False
            listener.cancel()

    async def listen(self) -> None:
        """Wakes the room of each match announced on Redis; reconnects every second while
        Redis is away (the rooms look by themselves meanwhile, and all at once on return)."""
        prefix = live.channel_prefix()
        while self.rooms:
            client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2,
                                             health_check_interval=10)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(f"{prefix}*")
                    self.subscribed = True
                    self._wake_all()  # what was missed while away
                    async for message in pubsub.listen():
                        if message.get("type") != "pmessage":
                            continue
                        room = self.rooms.get(channel_id(message["channel"], prefix))
                        if room is not None:
                            room.wake.set()
            except (redis.RedisError, OSError) as exc:
                if asyncio.current_task().cancelling():  # stopped (the last room went) while it failed
                    raise asyncio.CancelledError from exc
                if self.subscribed:
                    logger.warning("the watchers' subscription to Redis was lost (%s); rooms look every %s s",
                                   exc, settings.LIVE_POLL_SECONDS)
                    self.subscribed = False
                    self._wake_all()  # each room looks now, then every LIVE_POLL_SECONDS
                await asyncio.sleep(1)
            finally:
                self.subscribed = False
                with contextlib.suppress(Exception):
                    await client.aclose()

    def _wake_all(self) -> None:
        for room in self.rooms.values():
            room.wake.set()


def channel_id(channel: bytes | str, prefix: str) -> int | None:
    """The id a Redis channel ``prefix<id>`` names (a match's, a competition's hall), or ``None``."""
    name = channel.decode() if isinstance(channel, bytes) else channel
    try:
        return int(name[len(prefix):])
    except ValueError:
        return None


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop (one per web process; a test's loop gets its own)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found
