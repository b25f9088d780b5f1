"""The WebSocket of a competition's hall screens: ``/ws/competitions/<slug>/hall/``.

The server speaks, the screen listens: each message is ``{"hall": "changed"}`` when the day
moved (``leagues.hall_watching``), and the screen fetches its parts; what a screen sends is
ignored. Closed with 4404 when there is no such competition, 4501 when this server has no
Redis to hear of changes (the embedded set-up: the screen polls), 4408 when a word waited 10 s
to be taken. No session is read: the hall screen is public.
"""
from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from leagues import hall_watching
from leagues.models import Competition


def _competition_id(slug: str) -> int | None:
    return Competition.objects.filter(slug=slug).values_list("pk", flat=True).first()


_find = database_sync_to_async(_competition_id)


class HallConsumer(AsyncWebsocketConsumer):
    competition_id: int | None = None

    async def connect(self) -> None:
        competition_id = await _find(self.scope["url_route"]["kwargs"]["slug"]) if settings.REDIS_URL else None
        await self.accept()
        if not settings.REDIS_URL:
            await self.close(code=4501)
            return
        if competition_id is None:
            await self.close(code=4404)
            return
        # joined as soon as the screen hears it is open (nothing awaited between): a change
        # committed after the screen's first look reaches it
        self.competition_id = competition_id
        hall_watching.hub().join(self, competition_id)

    async def disconnect(self, code) -> None:
        if self.competition_id is not None:
            hall_watching.hub().leave(self, self.competition_id)
            self.competition_id = None

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """A screen has nothing to say: ignored."""

    async def push(self, text: str) -> None:
        await self.send(text_data=text)
