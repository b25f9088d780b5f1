"""The site's pages: fans read, organisers run their competitions."""
from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)

from . import calendar_views, embed_views, export_views, fixture_views, views, year_views

app_name = "site"
urlpatterns = [
    path("", views.home, name="home"),
    path("competitions/", views.competition_list, name="competitions"),
    path("competitions/<slug:slug>/", views.competition_detail, name="competition"),
    path("competitions/<slug:slug>/calendar.ics", calendar_views.competition_calendar, name="competition-calendar"),
    path("competitions/<slug:slug>/export/<str:what>.<str:fmt>", export_views.competition_export,
         name="competition-export"),
    path("competitions/<slug:slug>/rounds/<id:round_id>/print/", export_views.round_print, name="round-print"),
    path("embed/competitions/<slug:slug>/standings/", embed_views.embed_standings, name="embed-standings"),
    path("embed/competitions/<slug:slug>/fixtures/", embed_views.embed_fixtures, name="embed-fixtures"),
    path("clubs/", views.club_list, name="clubs"),
    path("clubs/<slug:slug>/", views.club_detail, name="club"),
    path("clubs/<slug:slug>/calendar.ics", calendar_views.club_calendar, name="club-calendar"),
    path("players/", views.player_list, name="players"),
    path("players/<id:pk>/", views.player_detail, name="player"),
    path("players/<id:pk>/calendar.ics", calendar_views.player_calendar, name="player-calendar"),
    path("ranking/", year_views.ranking_page, name="ranking"),
    path("ratings/", year_views.ratings_page, name="ratings"),
    path("competitions/<slug:slug>/sign-up/", year_views.sign_up_view, name="sign-up"),
    path("competitions/<slug:slug>/sign-ups/<id:pk>/withdraw/", year_views.sign_up_withdraw_view,
         name="sign-up-withdraw"),
    path("fixtures/<id:pk>/", fixture_views.fixture_detail, name="fixture"),
    path("fixtures/<id:pk>/check-in/", fixture_views.fixture_check_in, name="fixture-check-in"),
    # Organisers
    path("manage/", views.manage_index, name="manage"),
    path("manage/new/", views.competition_create, name="competition-create"),
    path("manage/<slug:slug>/", views.manage_competition, name="manage-competition"),
    path("manage/<slug:slug>/settings/", views.competition_edit, name="competition-edit"),
    path("manage/<slug:slug>/generate/", views.generate_fixtures, name="generate-fixtures"),
    path("manage/<slug:slug>/recompute/", views.recompute, name="recompute-standings"),
    path("manage/<slug:slug>/reschedule-round/", fixture_views.round_reschedule_view, name="reschedule-round"),
    path("manage/<slug:slug>/entrants/<id:entrant_id>/withdraw/", views.withdraw_entrant, name="withdraw-entrant"),
    path("manage/<slug:slug>/entrants/<id:entrant_id>/remove/", views.remove_entrant, name="remove-entrant"),
    path("manage/<slug:slug>/registration/", year_views.registration_view, name="registration"),
    path("manage/<slug:slug>/sign-ups/<id:pk>/decide/", year_views.sign_up_decide_view, name="sign-up-decide"),
    path("manage/fixtures/<id:pk>/result/", fixture_views.record_result, name="record-result"),
    path("manage/fixtures/<id:pk>/decision/", fixture_views.fixture_decision, name="fixture-decision"),
    path("manage/fixtures/<id:pk>/annul-match/", fixture_views.fixture_annul_match, name="fixture-annul-match"),
    path("manage/fixtures/<id:pk>/reschedule/", fixture_views.fixture_reschedule_view, name="fixture-reschedule"),
]
