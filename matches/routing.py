"""WebSocket routes of ``matches`` (``config.asgi``): the watchers of a live match."""
from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from matches.consumers import WatchConsumer

websocket_urlpatterns = [
    path("ws/matches/<id:pk>/", WatchConsumer.as_asgi()),
]
