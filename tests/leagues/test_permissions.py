"""The permission matrix: every write endpoint of the API and every organiser page, for an
anonymous visitor, a player, the organiser of this competition, the organiser of another
competition, and a federation administrator."""
from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture
from leagues.permissions import can_manage_competition, managed_competitions

from .site_world import ACTORS, build_world

pytestmark = pytest.mark.django_db

ALLOW = {"anonymous": False, "player": False, "organiser": True, "other_organiser": False, "federation_admin": True}
CREATE = {"anonymous": False, "player": False, "organiser": True, "other_organiser": True, "federation_admin": True}


def _result_body():
    return {"home_goals": 2, "away_goals": 1}


# name -> (needs fixtures drawn, method, url(world), body(world), success status, who may)
API_WRITES = {
    "competition-create": (False, "post", lambda w: "/api/competitions/",
                           lambda w: {"name": "Copa Nova", "format": "knockout"}, 201, CREATE),
    "competition-update": (False, "put", lambda w: f"/api/competitions/{w.competition.slug}/",
                           lambda w: {"name": "Liga Renamed", "slug": w.competition.slug, "format": "league"}, 200, ALLOW),
    "competition-partial-update": (False, "patch", lambda w: f"/api/competitions/{w.competition.slug}/",
                                   lambda w: {"half_minutes": 20}, 200, ALLOW),
    "generate-fixtures": (False, "post", lambda w: f"/api/competitions/{w.competition.slug}/generate-fixtures/",
                          lambda w: {}, 201, ALLOW),
    "recompute-standings": (True, "post", lambda w: f"/api/competitions/{w.competition.slug}/recompute-standings/",
                            lambda w: {}, 200, ALLOW),
    "entrant-create": (False, "post", lambda w: "/api/entrants/",
                       lambda w: {"competition": w.competition.slug, "name": "Newcomer"}, 201, ALLOW),
    "entrant-update": (False, "put", lambda w: f"/api/entrants/{w.entrants()[0].pk}/",
                       lambda w: {"competition": w.competition.slug, "name": "Renamed", "seed": 1}, 200, ALLOW),
    "entrant-partial-update": (False, "patch", lambda w: f"/api/entrants/{w.entrants()[0].pk}/",
                               lambda w: {"seed": 9}, 200, ALLOW),
    "entrant-destroy": (False, "delete", lambda w: f"/api/entrants/{w.entrants()[-1].pk}/",
                        lambda w: None, 204, ALLOW),
    "entrant-withdraw": (True, "post", lambda w: f"/api/entrants/{w.entrants()[-1].pk}/withdraw/",
                         lambda w: {}, 200, ALLOW),
    # a fixture the player does not play in: theirs takes a report (test_result_reports.py)
    "fixture-result": (True, "post", lambda w: f"/api/fixtures/{_not_theirs(w).pk}/result/",
                       lambda w: _result_body(), 200, ALLOW),
}


def _not_theirs(world):
    return (world.competition.fixtures.filter(status="scheduled")
            .exclude(home__player=world.players[0]).exclude(away__player=world.players[0]).order_by("pk").first())


def api_client(world, actor: str) -> APIClient:
    client = APIClient()
    token = world.token(actor)
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("endpoint", list(API_WRITES))
def test_api_write_permission_matrix(endpoint, actor):
    world = build_world()
    drawn, method, url, body, success, who = API_WRITES[endpoint]
    if drawn:
        world.draw()
    response = getattr(api_client(world, actor), method)(url(world), body(world), format="json")
    if who[actor]:
        assert response.status_code == success, response.content
    elif actor == "anonymous":
        assert response.status_code == 401, response.content
        assert response["WWW-Authenticate"].startswith("Token")
    else:
        assert response.status_code == 403, response.content


@pytest.mark.parametrize("endpoint", ["competition-partial-update", "entrant-partial-update", "fixture-result"])
def test_a_refused_write_changes_nothing(endpoint):
    world = build_world()
    drawn, method, url, body, _, _ = API_WRITES[endpoint]
    world.draw()
    before = (Competition.objects.get(pk=world.competition.pk).half_minutes,
              list(Entrant.objects.values_list("seed", flat=True)),
              list(Fixture.objects.values_list("status", flat=True)))
    response = getattr(api_client(world, "other_organiser"), method)(url(world), body(world), format="json")
    assert response.status_code == 403
    after = (Competition.objects.get(pk=world.competition.pk).half_minutes,
             list(Entrant.objects.values_list("seed", flat=True)),
             list(Fixture.objects.values_list("status", flat=True)))
    assert before == after


def test_the_creator_of_a_competition_becomes_its_organiser():
    world = build_world()
    response = api_client(world, "other_organiser").post("/api/competitions/", {"name": "Copa"}, format="json")
    assert response.status_code == 201
    competition = Competition.objects.get(slug=response.json()["slug"])
    assert list(competition.organisers.all()) == [world.users["other_organiser"]]
    assert response.json()["can_edit"] is True


def test_an_entrant_for_someone_elses_competition_is_refused_even_with_a_valid_body():
    world = build_world()
    response = api_client(world, "organiser").post(
        "/api/entrants/", {"competition": world.other_competition.slug, "name": "Sneaky"}, format="json")
    assert response.status_code == 403
    assert not Entrant.objects.filter(name="Sneaky").exists()


def test_reads_are_open_to_everyone():
    world = build_world()
    world.draw()
    client = APIClient()
    for url in ("/api/competitions/", "/api/competitions/liga/", "/api/competitions/liga/standings/",
                "/api/competitions/taca/bracket/", "/api/entrants/", "/api/fixtures/", "/api/rounds/",
                "/api/results/", "/api/standings/", "/api/clubs/", "/api/players/", "/api/seasons/"):
        assert client.get(url).status_code == 200, url


def test_rules_in_one_place():
    world = build_world()
    assert can_manage_competition(world.users["organiser"], world.competition)
    assert not can_manage_competition(world.users["other_organiser"], world.competition)
    assert can_manage_competition(world.users["federation_admin"], world.other_competition)
    assert set(managed_competitions(world.users["federation_admin"])) == {world.competition, world.other_competition}
    assert list(managed_competitions(world.users["player"])) == []


def test_session_writes_need_the_csrf_token():
    world = build_world()
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.users["organiser"])
    response = client.patch("/api/competitions/liga/", {"half_minutes": 20}, format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
    page = Client(enforce_csrf_checks=True)
    page.force_login(world.users["organiser"])
    assert page.post("/manage/liga/generate/").status_code == 403
    assert not world.competition.fixtures.exists()


def test_token_is_obtained_with_username_and_password():
    world = build_world()
    user = world.users["organiser"]
    user.set_password("s3cret-Password")
    user.save()
    client = APIClient()
    response = client.post("/api/auth/token/", {"username": "organiser", "password": "s3cret-Password"}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert token != world.token("organiser")  # a new token each time (only digests are kept)
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert me.patch("/api/competitions/liga/", {"half_minutes": 20}, format="json").status_code == 200
    bad = client.post("/api/auth/token/", {"username": "organiser", "password": "nope"}, format="json")
    assert bad.status_code == 400


# --- Organiser pages ---------------------------------------------------------------------------

PAGE_WRITES = {
    # name -> (needs fixtures drawn, method, url(world), data(world), success status, who may)
    "manage-index": (False, "get", lambda w: "/manage/", lambda w: None, 200, None),
    "competition-create-form": (False, "get", lambda w: "/manage/new/", lambda w: None, 200, CREATE),
    "competition-create": (False, "post", lambda w: "/manage/new/", lambda w: _competition_form("Copa Nova"), 302, CREATE),
    "manage-competition": (False, "get", lambda w: "/manage/liga/", lambda w: None, 200, ALLOW),
    "entrant-add": (False, "post", lambda w: "/manage/liga/", lambda w: {"name": "Newcomer"}, 302, ALLOW),
    "competition-edit": (False, "post", lambda w: "/manage/liga/settings/",
                         lambda w: _competition_form("Liga", slug="liga"), 302, ALLOW),
    "generate": (False, "post", lambda w: "/manage/liga/generate/", lambda w: {}, 302, ALLOW),
    "recompute": (True, "post", lambda w: "/manage/liga/recompute/", lambda w: {}, 302, ALLOW),
    "withdraw": (True, "post", lambda w: f"/manage/liga/entrants/{w.entrants()[-1].pk}/withdraw/", lambda w: {"confirm": "1"}, 302,
                 ALLOW),
    "remove": (False, "post", lambda w: f"/manage/liga/entrants/{w.entrants()[-1].pk}/remove/", lambda w: {}, 302, ALLOW),
    "record-result": (True, "post",
                      lambda w: f"/manage/fixtures/{w.competition.fixtures.filter(status='scheduled').first().pk}/result/",
                      lambda w: {"outcome": "played", "home_goals": 1, "away_goals": 0}, 302, ALLOW),
}


def _competition_form(name: str, slug: str = "") -> dict:
    return {
        "name": name, "slug": slug, "format": "league", "group_count": 2, "qualifiers_per_group": 2,
        "halves": 2, "half_minutes": 25, "extra_time": "on", "extra_time_minutes": 5, "shootout": "on",
        "shootout_kicks": 5, "points_win": 3, "points_draw": 1, "points_loss": 0, "tiebreak_preset": "fistf",
        "walkover_goals_for": 2, "walkover_goals_against": 0, "withdrawal_policy": "annul",
        "rule_set": "one_touch", "days_between_rounds": 7,
    }


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("page", list(PAGE_WRITES))
def test_organiser_page_permission_matrix(page, actor):
    world = build_world()
    drawn, method, url, data, success, who = PAGE_WRITES[page]
    if drawn:
        world.draw()
    client = Client()
    if actor != "anonymous":
        client.force_login(world.users[actor])
    target = url(world)
    response = client.get(target) if method == "get" else client.post(target, data(world))
    if actor == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    elif who is None or who[actor]:
        assert response.status_code == success, response.content.decode()[:2000]
    else:
        assert response.status_code == 403


# --- The admin ------------------------------------------------------------------------------------


def _staff_organiser(world):
    from django.contrib.auth.models import Permission

    user = world.users["organiser"]
    user.is_staff = True
    user.save()
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="leagues"))
    return user


def test_admin_shows_an_organiser_only_their_competitions_and_runs_the_actions():
    world = build_world()
    client = Client()
    client.force_login(_staff_organiser(world))
    listing = client.get("/admin/leagues/competition/").content.decode()
    assert f"/admin/leagues/competition/{world.competition.pk}/change/" in listing
    assert f"/admin/leagues/competition/{world.other_competition.pk}/change/" not in listing
    assert client.get(f"/admin/leagues/competition/{world.other_competition.pk}/change/").status_code == 302
    assert client.get(f"/admin/leagues/competition/{world.competition.pk}/change/").status_code == 200
    response = client.post("/admin/leagues/competition/", {
        "action": "generate_fixtures", "_selected_action": [world.competition.pk]}, follow=True)
    assert response.status_code == 200 and world.competition.fixtures.count() == 6
    response = client.post("/admin/leagues/competition/", {
        "action": "recompute_standings", "_selected_action": [world.competition.pk]}, follow=True)
    assert world.competition.standings.count() == 4
    entrant = world.entrants()[-1]
    client.post("/admin/leagues/entrant/", {"action": "withdraw", "_selected_action": [entrant.pk]}, follow=True)
    entrant.refresh_from_db()
    assert entrant.withdrawn
    from leagues.services.fixtures import fixtures_generate

    theirs = fixtures_generate(competition=world.other_competition)[0]
    fixtures = client.get("/admin/leagues/fixture/").content.decode()
    assert f"/admin/leagues/fixture/{theirs.pk}/change/" not in fixtures
    assert f"/admin/leagues/fixture/{world.competition.fixtures.first().pk}/change/" in fixtures
    assert client.get("/admin/leagues/entrant/?q=T1").content.decode().count("/change/") == 0
