"""The WebSocket of a live match's watchers: ``/ws/matches/<id>/``.

Query: ``after`` (the last log row the board has, default 0), ``frames`` (``0`` leaves the
flicks' frames out), ``lang`` (the page's language; default the site's). The server speaks,
the watcher listens: each message is one feed answer (``matches.watching``); what a watcher
sends is ignored. Closed with 4400 for a malformed query, 4404 when there is no such match,
4408 when a push waited 10 s to be taken (the board opens it again and catches up).
No session is read: what is pushed is what any spectator may see, and a player's board
animates from it as a spectator's does (its own feed adds nothing the board uses).
"""
from __future__ import annotations

from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation

from matches import selectors, watching


def _language(code: str) -> str:
    try:
        return translation.get_supported_language_variant(code) if code else settings.LANGUAGE_CODE
    except LookupError:
        return settings.LANGUAGE_CODE


class WatchConsumer(AsyncWebsocketConsumer):
    seat: watching.Seat | None = None

    async def connect(self) -> None:
        await self.accept()
        query = {k: v[-1] for k, v in parse_qs(self.scope.get("query_string", b"").decode("latin-1")).items()}
        after = selectors.after_of(query.get("after"))
        if after is None:
            await self.close(code=4400)  # a log row's number: 0 to 2**31 - 1, in ASCII digits
            return
        self.match_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.seat = watching.Seat(self, after=after, frames=query.get("frames", "1") not in ("0", "false"),
                                  language=_language(query.get("lang", "")))
        await watching.hub().join(self.seat, self.match_id)

    async def disconnect(self, code) -> None:
        if self.seat is not None:
            await watching.hub().leave(self.seat, self.match_id)
            self.seat = None

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """A watcher has nothing to say: ignored."""

    async def push(self, text: str) -> None:
        await self.send(text_data=text)
