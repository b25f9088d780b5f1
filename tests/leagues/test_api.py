"""The API: the filters of every list endpoint, pagination, mass-assignment attempts, bad
input on every write endpoint (a 400 naming the field), and the OpenAPI schema."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Q
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, Season
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute

from .factories import ClubFactory
from .site_world import build_world

pytestmark = pytest.mark.django_db


def client_for(world, actor="organiser") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {world.token(actor)}")
    return client


def results(response) -> list:
    assert response.status_code == 200, response.content
    return response.json()["results"]


@pytest.fixture
def played(django_capture_on_commit_callbacks):
    """The league drawn, two fixtures of round 1 played (official), the standings computed."""
    world = build_world()
    world.draw()
    first = list(world.competition.fixtures.filter(round__number=1).order_by("position"))
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=first[0], home_goals=2, away_goals=1)
        result_record(fixture=first[1], home_goals=0, away_goals=0, outcome="walkover", outcome_side="home")
    standings_recompute(competition_id=world.competition.pk)
    world.played = first
    return world


# --- Filters of every list endpoint --------------------------------------------------------------


def test_clubs_filter_by_city_and_search():
    build_world()
    client = APIClient()
    assert [c["slug"] for c in results(client.get("/api/clubs/?city=porto"))] == ["mesa-verde"]
    assert [c["slug"] for c in results(client.get("/api/clubs/?search=flick"))] == ["flick-united"]
    assert results(client.get("/api/clubs/"))[0]["members"] == 2


def test_players_filter_by_current_club_and_search():
    world = build_world()
    client = APIClient()
    mesa = results(client.get("/api/players/?club=mesa-verde"))
    assert {p["id"] for p in mesa} == {world.players[0].pk, world.players[2].pk}
    assert all(p["club"]["slug"] == "mesa-verde" for p in mesa)
    assert [p["id"] for p in results(client.get("/api/players/?search=Silva1"))] == [world.players[1].pk]
    detail = client.get(f"/api/players/{world.players[0].pk}/").json()
    assert detail["memberships"][0]["club"]["slug"] == "mesa-verde"


def test_seasons_filter_by_current():
    build_world()
    Season.objects.create(name="Old", slug="old", start_date="2020-01-01", end_date="2020-12-31")
    client = APIClient()
    assert [s["slug"] for s in results(client.get("/api/seasons/?is_current=true"))] == ["2026-27"]
    assert len(results(client.get("/api/seasons/"))) == 2


def test_competitions_filter_by_season_format_status_organiser_club_and_editable(played):
    world = played
    client = client_for(world, "organiser")
    slugs = lambda url: sorted(c["slug"] for c in results(client.get(url)))  # noqa: E731
    assert slugs("/api/competitions/?season=2026-27") == ["liga"]
    assert slugs("/api/competitions/?competition_format=knockout") == ["taca"]
    assert slugs("/api/competitions/?status=in_progress") == ["liga"]
    assert slugs("/api/competitions/?status=draft") == ["taca"]
    assert slugs("/api/competitions/?status=finished") == []
    assert slugs("/api/competitions/?organiser=other_organiser") == ["taca"]
    assert slugs("/api/competitions/?club=mesa-verde") == ["liga"]
    assert slugs("/api/competitions/?editable=true") == ["liga"]
    assert slugs("/api/competitions/?editable=false") == ["taca"]
    assert slugs("/api/competitions/") == ["liga", "taca"]  # reads stay open
    admin = client_for(world, "federation_admin")
    assert len(results(admin.get("/api/competitions/?editable=true"))) == 2
    assert results(APIClient().get("/api/competitions/?editable=true")) == []
    by_slug = {c["slug"]: c for c in results(client.get("/api/competitions/"))}
    assert by_slug["liga"]["can_edit"] and not by_slug["taca"]["can_edit"]


def test_entrants_filter(played):
    world = played
    client = client_for(world, "other_organiser")
    assert len(results(client.get("/api/entrants/?competition=liga"))) == 4
    assert len(results(client.get("/api/entrants/?club=flick-united"))) == 2
    assert [e["name"] for e in results(client.get(f"/api/entrants/?player={world.players[0].pk}"))] == [
        world.players[0].full_name]
    assert {e["competition"] for e in results(client.get("/api/entrants/?editable=true"))} == {"taca"}
    Entrant.objects.filter(competition=world.competition, seed=4).update(withdrawn_at="2026-10-01T10:00Z")
    assert [e["seed"] for e in results(client.get("/api/entrants/?competition=liga&withdrawn=true"))] == [4]
    assert len(results(client.get("/api/entrants/?competition=liga&withdrawn=false"))) == 3


def test_rounds_filter(played):
    client = APIClient()
    rounds = results(client.get("/api/rounds/?competition=liga"))
    assert [r["number"] for r in rounds] == [1, 2, 3]
    assert all(r["fixture_count"] == 2 for r in rounds)
    assert results(client.get("/api/rounds/?competition=taca")) == []
    assert len(results(client.get("/api/rounds/?competition=liga&number=2"))) == 1
    assert len(results(client.get("/api/rounds/?kind=knockout"))) == 0


def test_fixtures_filter(played):
    world = played
    client = client_for(world, "organiser")
    ids = lambda url: {f["id"] for f in results(client.get(url))}  # noqa: E731
    liga = set(world.competition.fixtures.values_list("pk", flat=True))
    assert ids("/api/fixtures/?competition=liga") == liga
    assert len(ids("/api/fixtures/?competition=liga&round=1")) == 2
    assert ids("/api/fixtures/?status=played") == {world.played[0].pk}
    assert ids("/api/fixtures/?status=played&status=walkover") == {f.pk for f in world.played}
    assert len(ids("/api/fixtures/?competition=liga&open=true")) == 4
    first = world.entrants()[0]
    assert len(ids(f"/api/fixtures/?entrant={first.pk}")) == 3
    assert len(ids(f"/api/fixtures/?player={world.players[0].pk}")) == 3
    mesa = set(world.competition.fixtures.filter(
        Q(home__club__slug="mesa-verde") | Q(away__club__slug="mesa-verde")).values_list("pk", flat=True))
    assert ids("/api/fixtures/?club=mesa-verde") == mesa and len(mesa) == 5
    assert ids("/api/fixtures/?editable=true") == liga
    assert ids("/api/fixtures/?date_from=2026-09-08&date_to=2026-09-08") == set(
        world.competition.fixtures.filter(round__number=2).values_list("pk", flat=True))
    result = client.get(f"/api/fixtures/{world.played[0].pk}/").json()["result"]
    assert result["official"] and (result["home_goals"], result["away_goals"]) == (2, 1)


def test_results_filter(played):
    client = APIClient()
    assert len(results(client.get("/api/results/?competition=liga"))) == 2
    assert len(results(client.get("/api/results/?outcome=walkover"))) == 1
    assert len(results(client.get("/api/results/?official=true"))) == 2
    assert results(client.get("/api/results/?competition=taca")) == []
    walkover = results(client.get("/api/results/?outcome=walkover"))[0]
    assert (walkover["home_goals"], walkover["away_goals"]) == (0, 2)
    assert len(results(client.get("/api/results/?club=flick-united"))) == 2


def test_standings_rows_filter_and_the_standings_table(played):
    client = APIClient()
    rows = results(client.get("/api/standings/?competition=liga"))
    assert [r["position"] for r in rows] == [1, 2, 3, 4]
    assert results(client.get("/api/standings/?competition=taca")) == []
    assert len(results(client.get("/api/standings/?club=mesa-verde"))) == 2
    table = client.get("/api/competitions/liga/standings/").json()
    assert table["competition"] == "liga" and table["tables"][0]["group"] is None
    assert table["criteria"][0]["key"] == "points"
    assert {"tiebreak", "tiebreak_criterion", "goal_difference"} <= set(table["tables"][0]["rows"][0])
    explained = [r for r in table["tables"][0]["rows"] if r["tiebreak"]]
    assert explained and all(r["tiebreak"].startswith("level on") for r in explained)


def test_bracket_of_a_knockout(played):
    world = played
    from leagues.services.fixtures import fixtures_generate

    fixtures_generate(competition=world.other_competition)
    bracket = APIClient().get("/api/competitions/taca/bracket/").json()
    assert [r["name"] for r in bracket["rounds"]] == ["Semi-finals", "Final"]
    assert [len(r["fixtures"]) for r in bracket["rounds"]] == [2, 1]
    assert bracket["rounds"][0]["fixtures"][0]["home"]["name"] == "T1"
    assert APIClient().get("/api/competitions/liga/bracket/").json()["rounds"] == []


def test_pagination_is_50_a_page():
    for i in range(55):
        ClubFactory(name=f"Club {i:02d}", slug=f"c-{i:02d}")
    page = APIClient().get("/api/clubs/").json()
    assert page["count"] == 55 and len(page["results"]) == 50 and page["next"]
    assert len(APIClient().get("/api/clubs/?page=2").json()["results"]) == 5


# --- Mass assignment ------------------------------------------------------------------------------


def test_competition_read_only_fields_cannot_be_mass_assigned():
    world = build_world()
    client = client_for(world, "organiser")
    response = client.post("/api/competitions/", {
        "name": "Copa", "lots_seed": 1, "organisers": ["player"], "status": "finished",
        "created_at": "2000-01-01T00:00:00Z", "entrant_count": 99, "can_edit": False, "criteria": ["lots"],
    }, format="json")
    assert response.status_code == 201, response.content
    competition = Competition.objects.get(slug=response.json()["slug"])
    assert competition.lots_seed != 1
    assert list(competition.organisers.values_list("username", flat=True)) == ["organiser"]
    assert competition.created_at.year != 2000
    assert response.json()["status"] == "draft"
    # An organiser cannot hand the competition to someone else...
    client.patch(f"/api/competitions/{competition.slug}/", {"organisers": ["other_organiser"]}, format="json")
    assert list(competition.organisers.values_list("username", flat=True)) == ["organiser"]
    # ... a federation administrator can.
    admin = client_for(world, "federation_admin")
    response = admin.patch(f"/api/competitions/{competition.slug}/", {"organisers": ["other_organiser"]}, format="json")
    assert response.status_code == 200 and response.json()["organisers"] == ["other_organiser"]


def test_the_fide_swiss_preset_orders_the_swiss_criteria():
    client = client_for(build_world(), "organiser")
    response = client.post("/api/competitions/", {"name": "Open", "tiebreak_preset": "fide_swiss"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["criteria"] == ["points", "buchholz_cut1", "buchholz", "sonneborn_berger", "progressive",
                                           "wins", "lots"]


def test_format_is_fixed_once_the_fixtures_are_drawn():
    world = build_world()
    world.draw()
    response = client_for(world).patch("/api/competitions/liga/", {"format": "knockout", "name": "Liga 2"}, format="json")
    assert response.status_code == 200
    world.competition.refresh_from_db()
    assert world.competition.format == "league" and world.competition.name == "Liga 2"


def test_entrant_withdrawal_and_competition_cannot_be_mass_assigned():
    world = build_world()
    entrant = world.entrants()[0]
    response = client_for(world).patch(f"/api/entrants/{entrant.pk}/", {
        "withdrawn_at": "2026-01-01T00:00:00Z", "competition": "taca", "name": "Renamed"}, format="json")
    assert response.status_code == 200
    entrant.refresh_from_db()
    assert entrant.withdrawn_at is None and entrant.competition == world.competition and entrant.name == "Renamed"


def test_fixture_status_and_official_score_cannot_be_written(django_capture_on_commit_callbacks):
    world = build_world()
    world.draw()
    fixture = world.competition.fixtures.filter(status="scheduled").first()
    client = client_for(world)
    assert client.patch(f"/api/fixtures/{fixture.pk}/", {"status": "played"}, format="json").status_code == 405
    assert client.put(f"/api/fixtures/{fixture.pk}/", {"status": "played"}, format="json").status_code == 405
    assert client.delete(f"/api/fixtures/{fixture.pk}/").status_code == 405
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/fixtures/{fixture.pk}/result/", {
            "home_goals": 1, "away_goals": 0, "winner_side": "away", "status": "cancelled",
            "adjudicated_at": "2000-01-01T00:00:00Z", "table_home_goals": 9}, format="json")
    assert response.status_code == 200, response.content
    fixture.refresh_from_db()
    result = fixture.result
    assert fixture.status == "played"
    assert (result.home_goals, result.away_goals, result.winner_side, result.table_home_goals) == (1, 0, "home", 1)
    assert result.adjudicated_at.year != 2000
    assert client.post("/api/standings/", {}, format="json").status_code == 405
    assert client.post("/api/results/", {}, format="json").status_code == 405
    assert client.delete("/api/competitions/liga/").status_code == 405


# --- Bad input: 400 naming the field, never a 500 ----------------------------------------------------

BAD_COMPETITION = [
    ({}, "name"),
    ({"name": "X", "format": "chess_olympiad"}, "format"),
    ({"name": "X", "format": "swiss", "rounds": 0}, "rounds"),
    ({"name": "X", "format": "swiss", "bye_points": "half"}, "bye_points"),
    ({"name": "X", "points_win": 1, "points_draw": 2}, "points_draw"),
    ({"name": "X", "walkover_goals_for": 0, "walkover_goals_against": 0}, "walkover_goals_for"),
    ({"name": "X", "tiebreak_preset": "custom", "tiebreak_criteria": ["nonsense"]}, "tiebreak_criteria"),
    ({"name": "X", "tiebreak_preset": "custom"}, "tiebreak_criteria"),
    ({"name": "X", "tiebreak_preset": "custom", "tiebreak_criteria": ["goal_difference", "goal_difference"]},
     "tiebreak_criteria"),
    ({"name": "X", "slug": "liga"}, "slug"),
    ({"name": "X", "slug": "not a slug!"}, "slug"),
    ({"name": "X", "season": "no-such-season"}, "season"),
    ({"name": "X", "halves": 0}, "halves"),
    ({"name": "X", "half_minutes": -5}, "half_minutes"),
    ({"name": "X", "qualifiers_per_group": 0}, "qualifiers_per_group"),
    ({"name": "X", "rule_params": [1, 2]}, "rule_params"),
    ({"name": "X", "first_date": "yesterday"}, "first_date"),
    ({"name": "X" * 300}, "name"),
    # match settings the referee would refuse at check-in
    ({"name": "X", "halves": 3}, "halves"),
    ({"name": "X", "halves": 10**9}, "halves"),
    ({"name": "X", "half_minutes": 0}, "half_minutes"),
    ({"name": "X", "half_minutes": 91}, "half_minutes"),
    ({"name": "X", "extra_time_minutes": 31}, "extra_time_minutes"),
    ({"name": "X", "shootout_kicks": 11}, "shootout_kicks"),
    ({"name": "X", "points_win": 11}, "points_win"),
    ({"name": "X", "points_bye": 11}, "points_bye"),
    ({"name": "X", "days_between_rounds": 0}, "days_between_rounds"),
    ({"name": "X", "days_between_rounds": 366}, "days_between_rounds"),
    ({"name": "X", "first_date": "9999-12-31"}, "first_date"),
    ({"name": "X", "rule_params": {"turn_seconds": "abc"}}, "rule_params"),
    ({"name": "X", "rule_params": {"foo": 1}}, "rule_params"),
    ({"name": "X", "rule_params": {"halves": 3}}, "rule_params"),
    ({"name": "X", "rule_params": {"turn_seconds": 10**400}}, "rule_params"),
    ({"name": "X", "rule_set": "mbs", "rule_params": {"violent_foul_speed_mm_s": -1}}, "rule_params"),
]


@pytest.mark.parametrize("body,field", BAD_COMPETITION)
def test_bad_competition_create_is_a_400_naming_the_field(body, field):
    world = build_world()
    response = client_for(world).post("/api/competitions/", body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content


@pytest.mark.parametrize("body,field", BAD_COMPETITION[1:])
def test_bad_competition_update_is_a_400_naming_the_field(body, field):
    world = build_world()
    body = {k: v for k, v in body.items() if k != "name"} or body
    response = client_for(world).patch("/api/competitions/liga/", body, format="json")
    if field == "slug" and body.get("slug") == "liga":
        assert response.status_code == 200  # its own slug
        return
    assert response.status_code == 400 and field in response.json(), response.content


def test_bad_competition_put_names_the_missing_field():
    world = build_world()
    response = client_for(world).put("/api/competitions/liga/", {"format": "league"}, format="json")
    assert response.status_code == 400 and "name" in response.json()


def test_generate_fixtures_refused_with_the_reason():
    world = build_world()
    client = client_for(world)
    world.competition.entrants.exclude(seed=1).delete()
    response = client.post("/api/competitions/liga/generate-fixtures/")
    assert response.status_code == 400 and "fixtures" in response.json()
    Entrant.objects.create(competition=world.competition, name="Second", seed=2)
    assert client.post("/api/competitions/liga/generate-fixtures/").status_code == 201
    again = client.post("/api/competitions/liga/generate-fixtures/")
    assert again.status_code == 400 and "fixtures already" in again.json()["fixtures"][0]


def test_groups_that_cannot_be_made_are_a_400():
    world = build_world()
    world.competition.format = "groups_knockout"
    world.competition.group_count = 8
    world.competition.save()
    response = client_for(world).post("/api/competitions/liga/generate-fixtures/")
    assert response.status_code == 400 and "fixtures" in response.json()


BAD_ENTRANT = [
    ({"name": "X"}, "competition"),
    ({"competition": "no-such", "name": "X"}, "competition"),
    ({"competition": "liga"}, "name"),
    ({"competition": "liga", "name": "Ana0 Silva0"}, "name"),
    ({"competition": "liga", "name": "X", "seed": 0}, "seed"),
    ({"competition": "liga", "name": "X", "seed": 1}, "seed"),
    ({"competition": "liga", "name": "X", "seed": "first"}, "seed"),
    ({"competition": "liga", "player": 999999}, "player"),
    ({"competition": "liga", "name": "X", "club": "no-such"}, "club"),
]


@pytest.mark.parametrize("body,field", BAD_ENTRANT)
def test_bad_entrant_create_is_a_400_naming_the_field(body, field):
    world = build_world()
    response = client_for(world).post("/api/entrants/", body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content


def test_entrant_player_entered_twice_is_a_400():
    world = build_world()
    response = client_for(world).post("/api/entrants/", {"competition": "liga", "player": world.players[0].pk},
                                      format="json")
    assert response.status_code == 400 and "player" in response.json()


def test_entrant_added_from_a_player_takes_the_club():
    world = build_world()
    world.competition.entrants.filter(seed=4).delete()
    response = client_for(world).post("/api/entrants/", {"competition": "liga", "player": world.players[3].pk},
                                      format="json")
    assert response.status_code == 201, response.content
    assert response.json()["club"] == "flick-united"


def test_no_entrant_joins_after_the_draw():
    world = build_world()
    world.draw()
    response = client_for(world).post("/api/entrants/", {"competition": "liga", "name": "Late"}, format="json")
    assert response.status_code == 400 and "competition" in response.json()


@pytest.mark.parametrize("body,field", [
    ({"seed": 2}, "seed"), ({"seed": -1}, "seed"), ({"name": "Ana1 Silva1"}, "name"), ({"name": ""}, "name"),
    ({"player": "x"}, "player"),
])
def test_bad_entrant_update_is_a_400_naming_the_field(body, field):
    world = build_world()
    entrant = world.entrants()[0]
    response = client_for(world).patch(f"/api/entrants/{entrant.pk}/", body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content


def test_entrant_with_fixtures_cannot_be_deleted_only_withdrawn():
    world = build_world()
    world.draw()
    entrant = world.entrants()[0]
    client = client_for(world)
    response = client.delete(f"/api/entrants/{entrant.pk}/")
    assert response.status_code == 400 and "competition" in response.json()
    assert client.post(f"/api/entrants/{entrant.pk}/withdraw/").status_code == 200
    again = client.post(f"/api/entrants/{entrant.pk}/withdraw/")
    assert again.status_code == 400 and "withdrawn_at" in again.json()


BAD_RESULT = [
    ({}, "home_goals"),
    ({"home_goals": 1}, "away_goals"),
    ({"home_goals": -1, "away_goals": 0}, "home_goals"),
    ({"home_goals": "two", "away_goals": 0}, "home_goals"),
    ({"home_goals": 1, "away_goals": 1000}, "away_goals"),
    ({"home_goals": 1, "away_goals": 0, "outcome": "forfeit"}, "outcome"),
    ({"home_goals": 1, "away_goals": 0, "outcome": "bye"}, "outcome"),
    ({"home_goals": 0, "away_goals": 0, "outcome": "walkover"}, "outcome_side"),
    ({"home_goals": 0, "away_goals": 0, "outcome": "walkover", "outcome_side": "middle"}, "outcome_side"),
    ({"home_goals": 1, "away_goals": 0, "outcome_side": "home"}, "outcome_side"),
    ({"home_goals": 1, "away_goals": 1, "home_shootout": 4, "away_shootout": 3}, "home_shootout"),
    ({"home_goals": 1, "away_goals": 1, "home_et_goals": 1}, "home_et_goals"),
    ({"home_goals": 1, "away_goals": 0, "home_discipline": -2}, "home_discipline"),
]


@pytest.mark.parametrize("body,field", BAD_RESULT)
def test_bad_result_is_a_400_naming_the_field(body, field):
    world = build_world()
    world.draw()
    fixture = world.competition.fixtures.filter(status="scheduled").first()
    response = client_for(world).post(f"/api/fixtures/{fixture.pk}/result/", body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content
    fixture.refresh_from_db()
    assert fixture.status == "scheduled"


def test_result_for_a_fixture_that_takes_none_is_a_400_on_fixture():
    world = build_world(entrants=3)
    world.draw()
    bye = world.competition.fixtures.filter(status=Fixture.Status.BYE).first()
    response = client_for(world).post(f"/api/fixtures/{bye.pk}/result/", {"home_goals": 1, "away_goals": 0},
                                      format="json")
    assert response.status_code == 400 and "fixture" in response.json()


def test_knockout_result_validation_names_the_shootout_field():
    world = build_world()
    from leagues.services.fixtures import fixtures_generate

    fixtures_generate(competition=world.other_competition)
    semi = world.other_competition.fixtures.filter(round__number=1).first()
    client = client_for(world, "other_organiser")
    body = {"home_goals": 1, "away_goals": 1, "home_shootout": 4, "away_shootout": 4}
    response = client.post(f"/api/fixtures/{semi.pk}/result/", body, format="json")
    assert response.status_code == 400 and "home_shootout" in response.json()
    final = world.other_competition.fixtures.get(label="Final")
    response = client.post(f"/api/fixtures/{final.pk}/result/", {"home_goals": 1, "away_goals": 0}, format="json")
    assert response.status_code == 400 and "fixture" in response.json()


def test_malformed_json_is_a_400():
    world = build_world()
    response = client_for(world).generic("POST", "/api/entrants/", "{not json", content_type="application/json")
    assert response.status_code == 400


# --- The schema -----------------------------------------------------------------------------------------


def test_openapi_schema_validates_without_warnings():
    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null", stdout=out, stderr=out)


def test_schema_and_docs_are_served_offline():
    client = APIClient()
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in ("/api/competitions/", "/api/competitions/{slug}/standings/", "/api/competitions/{slug}/bracket/",
                 "/api/competitions/{slug}/generate-fixtures/", "/api/entrants/{id}/withdraw/",
                 "/api/fixtures/{id}/result/", "/api/results/", "/api/rounds/", "/api/clubs/", "/api/players/",
                 "/api/seasons/", "/api/standings/", "/api/auth/token/"):
        assert path in paths, path
    docs = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in docs and "cdn" not in docs.lower() and "/static/drf_spectacular_sidecar/" in docs


def test_good_match_settings_are_accepted():
    world = build_world()
    body = {"halves": 1, "half_minutes": 10, "extra_time_minutes": 0, "shootout_kicks": 3,
            "rule_params": {"turn_seconds": 20}, "first_date": "2027-01-09", "days_between_rounds": 14}
    response = client_for(world).patch("/api/competitions/liga/", body, format="json")
    assert response.status_code == 200, response.content
    world.competition.refresh_from_db()
    assert world.competition.halves == 1 and world.competition.rule_params == {"turn_seconds": 20}


@pytest.mark.parametrize("stored,field", [
    ({"first_date": "9999-12-31"}, "first_date"),
    ({"first_date": "9999-12-25"}, "first_date"),
    ({"first_date": "2027-01-02", "days_between_rounds": 32767}, "days_between_rounds"),
    ({"first_date": "2027-01-02", "days_between_rounds": 0}, "days_between_rounds"),
])
def test_generate_fixtures_with_dates_past_the_calendar_is_a_400_naming_the_field(stored, field):
    from datetime import date

    world = build_world()
    if "first_date" in stored:
        stored = {**stored, "first_date": date.fromisoformat(stored["first_date"])}
    Competition.objects.filter(slug="liga").update(**stored)
    response = client_for(world).post("/api/competitions/liga/generate-fixtures/")
    assert response.status_code == 400 and field in response.json(), response.content
    assert not Fixture.objects.filter(competition__slug="liga").exists()



@pytest.mark.parametrize("offset", [0.5, 0.0])
def test_an_entrant_whose_player_id_is_not_a_whole_number_is_a_400(offset):
    from leagues.models import Player

    world = build_world()
    player = Player.objects.create(first_name="New", last_name="Comer", licence_number="NEW-1")
    client = client_for(world)
    response = client.post("/api/entrants/", {"competition": "liga", "player": player.pk + offset}, format="json")
    assert response.status_code == 400 and "player" in response.json(), response.content
    assert not Entrant.objects.filter(player=player).exists()
    response = client.post("/api/entrants/", {"competition": "liga", "player": player.pk}, format="json")
    assert response.status_code == 201, response.content
    assert Entrant.objects.get(pk=response.json()["id"]).player == player
