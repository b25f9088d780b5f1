"""``/api/matches/``: online play (see ``matches.api.views``)."""
from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from matches.api import views

app_name = "matches_api"

urlpatterns = [
    path("practice/", views.PracticeCreate.as_view(), name="practice"),
    path("<id:match_id>/", views.MatchDetail.as_view(), name="detail"),
    path("<id:match_id>/actions/", views.MatchActions.as_view(), name="actions"),
    path("<id:match_id>/check-in/", views.MatchCheckIn.as_view(), name="check-in"),
]
