"""The ASGI application: the site's HTTP (Django's views, as under WSGI) and the
WebSockets of live matches' watchers (``matches.routing``) and of the hall screens
(``leagues.routing``), from one server:
``gunicorn config.asgi:application -k uvicorn_worker.UvicornWorker`` (Procfile), and
``manage.py runserver`` (daphne's) in development. A WebSocket from another site's page is
refused (its ``Origin`` must be one of ``ALLOWED_HOSTS``), and one beyond
``LIVE_MAX_SOCKETS_PER_ADDRESS`` from one address first of all (``config.socket_limit``)."""
import os

from django.core.asgi import get_asgi_application

from config.boot import BOOT_ERROR, settings_or_exit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
settings_or_exit(exit_code=BOOT_ERROR)  # a wrong setting: one line on stderr, and gunicorn stops
django_application = get_asgi_application()  # sets Django up: the routes below import models

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from config.socket_limit import SocketsPerAddress  # noqa: E402
from leagues.routing import websocket_urlpatterns as hall_sockets  # noqa: E402
from matches.routing import websocket_urlpatterns  # noqa: E402


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any other WebSocket path (``/ws/matches/abc/``, an id out of range): refused before it
    opens (the server answers 403), as an unknown page is a 404, never a 500."""

    async def connect(self) -> None:
        await self.close()


application = ProtocolTypeRouter({
    "http": django_application,
    "websocket": SocketsPerAddress(AllowedHostsOriginValidator(
        URLRouter([*websocket_urlpatterns, *hall_sockets, re_path(r"", NoSuchSocket.as_asgi())]))),
})
