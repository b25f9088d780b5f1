"""A competition copied for its next edition (API and the organiser's button): the same settings
and organisers, optionally the same entrants (not the withdrawn), new dates, none of its results."""
from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest
from django.contrib.auth.models import Permission
from django.forms.models import model_to_dict
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, Result, Season, Stage
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from tests.leagues.factories import ClubFactory, UserFactory

pytestmark = pytest.mark.django_db
SAME = ("format", "double_round_robin", "points_win", "points_draw", "points_loss", "tiebreak_preset",
        "tiebreak_criteria", "halves", "half_minutes", "extra_time", "shootout", "walkover_goals_for",
        "withdrawal_policy", "venue", "time_zone", "kickoff_time", "days_between_rounds", "rated", "rule_set")


@pytest.fixture
def played(django_capture_on_commit_callbacks):
    club = ClubFactory(name="Mesa Verde")
    competition = Competition.objects.create(
        name="Liga 2026", slug="liga-2026", time_zone="America/Sao_Paulo", kickoff_time=time(19, 30),
        first_date=date(2026, 3, 7), points_win=2, double_round_robin=True, tiebreak_preset="fifa_2018",
        days_between_rounds=14)
    organiser = UserFactory(username="org")
    organiser.user_permissions.add(Permission.objects.get(codename="add_competition"))
    competition.organisers.add(organiser)
    for i in range(1, 5):
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i, club=club if i == 1 else None)
    fixtures_generate(competition=competition)
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=competition.fixtures.order_by("pk").first(), home_goals=2, away_goals=1)
    Entrant.objects.filter(competition=competition, name="E4").update(withdrawn_at=datetime(2026, 4, 1, tzinfo=UTC))
    Season.objects.create(name="2027", slug="s2027", start_date=date(2027, 1, 1), end_date=date(2027, 12, 31))
    api = APIClient()
    api.force_authenticate(organiser)
    return competition, organiser, api


def test_the_copy_has_the_settings_and_entrants_new_dates_and_no_results(played):
    competition, organiser, api = played
    response = api.post("/api/competitions/liga-2026/copy/", {"slug": "liga-2027", "name": "Liga 2027",
                                                               "first_date": "2027-03-06", "entrants": True},
                        format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["slug"] == "liga-2027" and response.json()["first_date"] == "2027-03-06"
    copy = Competition.objects.get(slug="liga-2027")
    original = model_to_dict(competition, fields=SAME)
    assert model_to_dict(copy, fields=SAME) == original
    assert copy.season.slug == "s2027" and list(copy.organisers.all()) == [organiser]
    assert [(e.name, e.seed, e.club_id) for e in copy.entrants.order_by("seed")] == [
        (e.name, e.seed, e.club_id) for e in competition.entrants.filter(withdrawn_at=None).order_by("seed")]
    assert not Fixture.objects.filter(competition=copy).exists()
    assert not Stage.objects.filter(competition=copy).exists()
    assert not Result.objects.filter(fixture__competition=copy).exists()
    assert copy.lots_drawn == {} and copy.results_version == Competition.objects.create(name="N", slug="n").results_version
    # the original is as it was
    assert Result.objects.filter(fixture__competition=competition).count() == 1
    assert competition.entrants.count() == 4


def test_without_entrants_a_made_slug_and_the_refusals(played):
    competition, organiser, api = played
    response = api.post("/api/competitions/liga-2026/copy/", {"name": "Liga 2027", "first_date": "2027-03-06"},
                        format="json")
    assert response.status_code == 201 and response.json()["slug"] == "liga-2027"
    assert not Entrant.objects.filter(competition__slug="liga-2027").exists()
    taken = api.post("/api/competitions/liga-2026/copy/", {"name": "Liga", "slug": "liga-2027"}, format="json")
    assert taken.status_code == 400 and "slug" in taken.json()
    assert api.post("/api/competitions/liga-2026/copy/", {}, format="json").status_code == 400
    stranger = APIClient()
    stranger.force_authenticate(UserFactory(username="stranger"))
    assert stranger.post("/api/competitions/liga-2026/copy/", {"name": "X"}, format="json").status_code == 403


def test_the_organisers_button(played):
    competition, organiser, _api = played
    site = Client()
    site.force_login(organiser)
    assert 'href="/manage/liga-2026/copy/"' in site.get("/manage/liga-2026/").content.decode()
    response = site.post("/manage/liga-2026/copy/", {"name": "Liga 2027", "slug": "", "first_date": "2027-03-06",
                                                     "entrants": "on"})
    assert response.status_code == 302 and response["Location"] == "/manage/liga-2027/"
    assert Competition.objects.get(slug="liga-2027").entrants.count() == 3
