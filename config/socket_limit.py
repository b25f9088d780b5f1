"""At most ``LIVE_MAX_SOCKETS_PER_ADDRESS`` open WebSockets per client address, in each live
process (``config.asgi`` wraps the watchers' routes in ``SocketsPerAddress``).

The address is ``config.lockout.client_address``'s (the connection's, or behind
``TRUSTED_PROXY_COUNT`` proxies the one ``X-Forwarded-For`` gives). A handshake beyond the cap
is refused before the route, the consumer or the database see it: ``429`` with a sentence where
the server offers ASGI's ``websocket.http.response`` extension (uvicorn does), else a close
before accepting, which the server answers ``403`` (daphne). A board refused so polls the feed
and tries the socket again later (``static/js/board/transport.js``).

The count is this process's own, in memory: a socket counts from its handshake until its
consumer ends, however it ends (closed by either side, the connection lost, the server
stopping). A socket with no address (a Unix socket with no forwarded address) is not counted:
nothing tells its clients apart.
"""
from __future__ import annotations

import logging
from collections import Counter

from django.conf import settings
from django.utils.translation import gettext as _

from config.lockout import forwarded_address

logger = logging.getLogger(__name__)


def scope_address(scope: dict) -> str | None:
    """The client's address of an ASGI connection's ``scope``, by ``client_address``'s rule
    (several ``X-Forwarded-For`` headers are read as one, comma-joined, as Django does)."""
    client = scope.get("client")
    remote = str(client[0]) if client else None
    forwarded = [value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"x-forwarded-for"]
    return forwarded_address(remote, ",".join(forwarded) if forwarded else None)


class SocketsPerAddress:
    """ASGI middleware for WebSocket scopes: counts each address's open sockets and refuses one
    beyond ``LIVE_MAX_SOCKETS_PER_ADDRESS`` (read on each handshake)."""

    def __init__(self, inner):
        self.inner = inner
        self.open: Counter[str] = Counter()
        self.refusing: set[str] = set()  # addresses at the cap, logged once until a slot frees

    async def __call__(self, scope, receive, send):
        address = scope_address(scope)
        if address is None:
            return await self.inner(scope, receive, send)
        limit = settings.LIVE_MAX_SOCKETS_PER_ADDRESS
        if self.open[address] >= limit:
            if address not in self.refusing:
                self.refusing.add(address)
                logger.warning("%s holds %d WebSockets (LIVE_MAX_SOCKETS_PER_ADDRESS): more are refused",
                               address, self.open[address])
            return await refuse(scope, receive, send, limit=limit)
        self.open[address] += 1
        try:
            return await self.inner(scope, receive, send)
        finally:
            self.open[address] -= 1
            if self.open[address] <= 0:
                del self.open[address]
            self.refusing.discard(address)  # a slot is free


async def refuse(scope, receive, send, *, limit: int) -> None:
    """Answers the handshake waiting on ``receive`` with 429 (or a close before accepting)."""
    if (await receive())["type"] != "websocket.connect":
        return  # gone before its handshake was read
    if "websocket.http.response" not in (scope.get("extensions") or {}):
        await send({"type": "websocket.close"})
        return
    body = _("Too many open connections to live matches from your address (at most %(limit)d). "
             "Close some, or try again later.") % {"limit": limit}
    data = body.encode()
    await send({"type": "websocket.http.response.start", "status": 429,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(data)).encode())]})
    await send({"type": "websocket.http.response.body", "body": data})
