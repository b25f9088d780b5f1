"""WebSocket routes of ``leagues`` (``config.asgi``): the hall screens of a competition."""
from django.urls import path

from leagues.consumers import HallConsumer

websocket_urlpatterns = [
    path("ws/competitions/<slug:slug>/hall/", HallConsumer.as_asgi()),
]
