"""Routes of the API (mounted at ``/api/``)."""
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from . import auth, views

router = DefaultRouter()
router.register("clubs", views.ClubViewSet, basename="club")
router.register("players", views.PlayerViewSet, basename="player")
router.register("seasons", views.SeasonViewSet, basename="season")
router.register("competitions", views.CompetitionViewSet, basename="competition")
router.register("entrants", views.EntrantViewSet, basename="entrant")
router.register("rounds", views.RoundViewSet, basename="round")
router.register("fixtures", views.FixtureViewSet, basename="fixture")
router.register("results", views.ResultViewSet, basename="result")
router.register("standings", views.StandingViewSet, basename="standing")

app_name = "api"
urlpatterns = [
    path("auth/token/", auth.ObtainTokenView.as_view(), name="token"),
    path("", include(router.urls)),
]
