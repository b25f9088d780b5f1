"""WebSocket routes of ``matches`` (``config.asgi``): the watchers of a live match."""
from django.urls import path

from matches.consumers import WatchConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:pk>/", WatchConsumer.as_asgi()),
]
