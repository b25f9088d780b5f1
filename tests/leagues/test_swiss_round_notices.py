"""The players of a Swiss are told each round's fixture as it is paired, round 1 as every
competition's draw and each later round on its own (``leagues.services.notices``), through the
API's generate-fixtures on PostgreSQL."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture
from leagues.notifications.models import Kind, Notification
from tests.leagues.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _organiser() -> APIClient:
    user = get_user_model().objects.create_user(username="swiss-told", password="pw-swiss-1")
    user.user_permissions.add(Permission.objects.get(codename="add_competition", content_type__app_label="leagues"))
    client = APIClient()
    client.force_authenticate(user)
    return client


def _play_open_round(client: APIClient, competition: Competition) -> None:
    for fixture in competition.fixtures.filter(status=Fixture.Status.SCHEDULED):
        response = client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": 1, "away_goals": 0},
                               format="json")
        assert response.status_code == 200, response.content


def test_each_paired_round_tells_its_players_their_fixture_once():
    client = _organiser()
    made = client.post("/api/competitions/", {"name": "Open Avisos", "slug": "open-avisos", "format": "swiss",
                                              "rounds": 3, "first_date": "2027-02-06"}, format="json")
    assert made.status_code == 201, made.content
    competition = Competition.objects.get(slug="open-avisos")
    users = []
    for i in range(1, 6):
        user = UserFactory(username=f"swiss-player-{i}", email=f"p{i}@example.org")
        Entrant.objects.create(competition=competition, name=f"P{i}", seed=i,
                               player=PlayerFactory(first_name=f"P{i}", last_name="Told", user=user))
        users.append(user)

    def told(number=None):
        subjects = Notification.objects.filter(kind=Kind.FIXTURE_SCHEDULED).values_list("user__username", "subject")
        return sorted(subjects) if number is None else sorted(s for s in subjects if f"Round {number} " in s[1])

    for number in (1, 2, 3):
        assert client.post(f"/api/competitions/{competition.slug}/generate-fixtures/", {},
                           format="json").status_code == 201
        playing = {u.username for u in users
                   if competition.fixtures.filter(round__number=number, status=Fixture.Status.SCHEDULED)
                   .filter(home__player__user=u).exists()
                   or competition.fixtures.filter(round__number=number, away__player__user=u).exists()}
        assert len(playing) == 4  # five entrants: two boards and the bye, who is told nothing
        if number == 1:
            assert {name for name, _s in told()} == playing
            assert {s for _n, s in told()} == {"Your fixtures in Open Avisos"}
        else:
            assert [name for name, _s in told(number)] == sorted(playing)
            mine = Notification.objects.get(user__username=sorted(playing)[0], subject__startswith=f"Round {number} ")
            assert mine.subject == f"Round {number} of Open Avisos: your fixture"
            assert mine.body.startswith(f"Round {number} of Open Avisos is paired. Yours:\n- Round {number}: ")
            assert mine.body.count("\n- ") == 1  # this round's fixture only, not the ones played
        _play_open_round(client, competition)
    assert Notification.objects.filter(kind=Kind.FIXTURE_SCHEDULED).count() == 12  # 4 a round, once each
