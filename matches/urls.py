"""Pages of online play: the board, its feed and replay, the fixture's page, practice, the rules."""
from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from matches import views

app_name = "play"
urlpatterns = [
    path("matches/<id:pk>/", views.board, name="board"),
    path("matches/<id:pk>/feed/", views.feed, name="feed"),
    path("matches/<id:pk>/replay.json", views.replay, name="replay"),
    path("play/", views.play, name="play"),
    path("play/practice/", views.practice_start, name="practice"),
    path("rules/", views.rules, name="rules"),
]
