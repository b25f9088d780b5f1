"""Routes of the API (mounted at ``/api/``)."""
from django.urls import include, path
from rest_framework.routers import DefaultRouter

import config.converters  # noqa: F401  (registers <id:...>)

from . import auth, organiser_tools, views, year

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
router.register("ranking-tiers", year.TierViewSet, basename="ranking-tier")
router.register("sign-ups", year.SignUpViewSet, basename="sign-up")

app_name = "api"
urlpatterns = [
    path("auth/token/", auth.ObtainTokenView.as_view(), name="token"),
    path("ratings/", year.RatingListView.as_view(), name="ratings"),
    path("ratings/<id:player_id>/", year.RatingHistoryView.as_view(), name="rating-history"),
    path("ranking/", year.RankingView.as_view(), name="ranking"),
    path("competitions/<str:slug>/registration/", year.RegistrationView.as_view(), name="registration"),
    path("competitions/<str:slug>/import-results/", organiser_tools.ImportResultsView.as_view(),
         name="import-results"),
    path("competitions/<str:slug>/entrants/bulk/", organiser_tools.BulkEntrantsView.as_view(),
         name="entrants-bulk"),
    path("competitions/<str:slug>/copy/", organiser_tools.CopyCompetitionView.as_view(), name="competition-copy"),
    path("ranking/scale/", year.ScaleView.as_view(), name="ranking-scale"),
    path("ranking/history/<id:player_id>/", year.RankHistoryView.as_view(), name="rank-history"),
    path("", include(router.urls)),
]
