"""``/api/matches/``: online play (see ``matches.api.views``)."""
from django.urls import path

from matches.api import views

app_name = "matches_api"

urlpatterns = [
    path("practice/", views.PracticeCreate.as_view(), name="practice"),
    path("<int:match_id>/", views.MatchDetail.as_view(), name="detail"),
    path("<int:match_id>/actions/", views.MatchActions.as_view(), name="actions"),
    path("<int:match_id>/check-in/", views.MatchCheckIn.as_view(), name="check-in"),
]
