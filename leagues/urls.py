"""The site's pages: fans read, organisers run their competitions."""
from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)
from leagues.views import calendars, embeds, exports, fixtures, pages, year

app_name = "site"
urlpatterns = [
    path("", pages.home, name="home"),
    path("competitions/", pages.competition_list, name="competitions"),
    path("competitions/<slug:slug>/", pages.competition_detail, name="competition"),
    path("competitions/<slug:slug>/calendar.ics", calendars.competition_calendar, name="competition-calendar"),
    path("competitions/<slug:slug>/export/<str:what>.<str:fmt>", exports.competition_export,
         name="competition-export"),
    path("competitions/<slug:slug>/rounds/<id:round_id>/print/", exports.round_print, name="round-print"),
    path("embed/competitions/<slug:slug>/standings/", embeds.embed_standings, name="embed-standings"),
    path("embed/competitions/<slug:slug>/fixtures/", embeds.embed_fixtures, name="embed-fixtures"),
    path("clubs/", pages.club_list, name="clubs"),
    path("clubs/<slug:slug>/", pages.club_detail, name="club"),
    path("clubs/<slug:slug>/calendar.ics", calendars.club_calendar, name="club-calendar"),
    path("players/", pages.player_list, name="players"),
    path("players/<id:pk>/", pages.player_detail, name="player"),
    path("players/<id:pk>/calendar.ics", calendars.player_calendar, name="player-calendar"),
    path("ranking/", year.ranking_page, name="ranking"),
    path("ratings/", year.ratings_page, name="ratings"),
    path("competitions/<slug:slug>/sign-up/", year.sign_up_view, name="sign-up"),
    path("competitions/<slug:slug>/sign-ups/<id:pk>/withdraw/", year.sign_up_withdraw_view,
         name="sign-up-withdraw"),
    path("fixtures/<id:pk>/", fixtures.fixture_detail, name="fixture"),
    path("fixtures/<id:pk>/check-in/", fixtures.fixture_check_in, name="fixture-check-in"),
    path("fixtures/<id:pk>/lineup/", fixtures.fixture_lineup, name="fixture-lineup"),
    # Organisers
    path("manage/", pages.manage_index, name="manage"),
    path("manage/new/", pages.competition_create, name="competition-create"),
    path("manage/<slug:slug>/", pages.manage_competition, name="manage-competition"),
    path("manage/<slug:slug>/settings/", pages.competition_edit, name="competition-edit"),
    path("manage/<slug:slug>/generate/", pages.generate_fixtures, name="generate-fixtures"),
    path("manage/<slug:slug>/recompute/", pages.recompute, name="recompute-standings"),
    path("manage/<slug:slug>/reschedule-round/", fixtures.round_reschedule_view, name="reschedule-round"),
    path("manage/<slug:slug>/entrants/<id:entrant_id>/withdraw/", pages.withdraw_entrant, name="withdraw-entrant"),
    path("manage/<slug:slug>/entrants/<id:entrant_id>/remove/", pages.remove_entrant, name="remove-entrant"),
    path("manage/<slug:slug>/registration/", year.registration_view, name="registration"),
    path("manage/<slug:slug>/sign-ups/<id:pk>/decide/", year.sign_up_decide_view, name="sign-up-decide"),
    path("manage/fixtures/<id:pk>/result/", fixtures.record_result, name="record-result"),
    path("manage/fixtures/<id:pk>/decision/", fixtures.fixture_decision, name="fixture-decision"),
    path("manage/fixtures/<id:pk>/annul-match/", fixtures.fixture_annul_match, name="fixture-annul-match"),
    path("manage/fixtures/<id:pk>/reschedule/", fixtures.fixture_reschedule_view, name="fixture-reschedule"),
]
