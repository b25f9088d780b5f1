"""Groups then knockout with the best third-placed (``best_thirds``), through the API as organisers
use it: the draw names the slots, the groups' results fill them, a correction moves them, and the
settings that cannot make a knockout are refused naming the field."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Competition, Fixture, Result
from tests.leagues.site_world import build_world
from tests.leagues.test_api import client_for
from tests.leagues.test_results_through_the_api import competition_of, names, record

pytestmark = pytest.mark.django_db(transaction=True)


def group_of(competition) -> dict[str, str]:
    return {e.name: g.name for g in competition.stages.get(kind="groups").groups.all() for e in g.entrants.all()}


def first_round(competition) -> list[Fixture]:
    return list(competition.fixtures.filter(round__stage__kind="knockout", round__number=1).order_by("position"))


def play_groups(organiser, competition, margin: dict[str, int] | None = None) -> None:
    """Every group fixture: the better seed wins 1-0, or by ``margin[group]`` in the fixtures of
    the group's third seed (its third-placed: the bigger the margin, the worse it stands)."""
    margin = margin or {}
    for fixture in competition.fixtures.filter(group__isnull=False, status="scheduled").select_related("group"):
        third = sorted(e.seed for e in fixture.group.entrants.all())[2]
        goals = margin.get(fixture.group.name, 1) if third in (fixture.home.seed, fixture.away.seed) else 1
        better_home = fixture.home.seed < fixture.away.seed
        assert record(organiser, fixture, *((goals, 0) if better_home else (0, goals))).status_code == 200


def assert_no_group_mates_meet(competition) -> None:
    groups = group_of(competition)
    for fixture in first_round(competition):
        home, away = names(fixture)
        assert home and (away is None or groups[home] != groups[away]), (fixture.label, home, away)


def test_three_groups_of_two_and_two_best_thirds_make_a_knockout_of_8():
    # 9 entrants, groups of 3: A E1 E6 E7, B E2 E5 E8, C E3 E4 E9; the thirds lose by 1, 2, 3 goals
    competition, organiser = competition_of(9, format="groups_knockout", group_count=3, qualifiers_per_group=2,
                                            best_thirds=2, slug="thirds8")
    assert [f.label for f in first_round(competition)] == [
        "A1 v 3rd of B/C", "C2 v B2", "B1 v 3rd of A/C", "C1 v A2"]
    assert [(f.home_source, f.away_source) for f in first_round(competition)] == [
        ("A1", "3#2"), ("C2", "B2"), ("B1", "3#1"), ("C1", "A2")]
    play_groups(organiser, competition, {"A": 1, "B": 2, "C": 3})
    assert [names(f) for f in first_round(competition)] == [
        ("E1", "E8"), ("E4", "E5"), ("E2", "E7"), ("E3", "E6")]
    assert_no_group_mates_meet(competition)
    body = APIClient().get(f"/api/competitions/{competition.slug}/").json()
    assert body["best_thirds"] == 2 and body["qualifiers_per_group"] == 2


def test_five_groups_of_two_and_six_next_placed_make_a_knockout_of_16():
    competition, organiser = competition_of(20, format="groups_knockout", group_count=5, qualifiers_per_group=2,
                                            best_thirds=6, slug="thirds16")
    fixtures = first_round(competition)
    assert len(fixtures) == 8 and all("3rd-4th of" in f.label for f in fixtures[0::2])
    play_groups(organiser, competition, {"A": 1, "B": 2, "C": 3, "D": 4, "E": 5})
    placed = [n for f in first_round(competition) for n in names(f)]
    assert len(set(placed)) == 16 and None not in placed
    thirds = {"E11", "E12", "E13", "E14", "E15"}  # the snake's third row
    assert thirds <= set(placed)
    fourths = set(placed) - thirds - {f"E{i}" for i in range(1, 11)}
    assert fourths == {"E20"}  # A's fourth: beaten by its third by one goal only, the best fourth
    assert_no_group_mates_meet(competition)


def test_six_groups_of_two_and_four_thirds_follow_uefas_table_in_the_knockout():
    competition, organiser = competition_of(24, format="groups_knockout", group_count=6, qualifiers_per_group=2,
                                            best_thirds=4, slug="euro")
    by_label = {f.label: f for f in first_round(competition)}
    assert set(by_label) >= {"B1 v 3rd of A/D/E/F", "C1 v 3rd of D/E/F", "E1 v 3rd of A/B/C/D",
                             "F1 v 3rd of A/B/C", "A2 v B2"}
    # the thirds of A, B, C, D lose by 1 goal, those of E and F by 4: A, B, C, D qualify
    play_groups(organiser, competition, {"A": 1, "B": 1, "C": 1, "D": 1, "E": 4, "F": 4})
    groups = group_of(competition)
    third_of = {f.label.split(" v ")[0]: groups[names(f)[1]] for f in by_label.values() if "3rd" in f.label}
    assert third_of == {"B1": "A", "C1": "D", "E1": "B", "F1": "C"}  # UEFA's row ABCD: 3A 3D 3B 3C


def test_unequal_groups_leave_out_the_results_against_the_fourth_of_the_groups_of_4():
    # 11 entrants: A E1 E6 E7 (a group of 3), B E2 E5 E8 E11 and C E3 E4 E9 E10 (of 4)
    competition, organiser = competition_of(11, format="groups_knockout", group_count=3, qualifiers_per_group=2,
                                            best_thirds=2, slug="unequal")
    play_groups(organiser, competition)
    e8_e11 = competition.fixtures.get(home__name__in=["E8", "E11"], away__name__in=["E8", "E11"])
    assert record(organiser, e8_e11, *((9, 0) if e8_e11.home.name == "E8" else (0, 9))).status_code == 200
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    table = page.split('id="best-thirds"', 1)[1].split("</section>", 1)[0]
    assert "Best third-placed" in page and "E7" in table and "E8" in table and "E9" in table
    assert "the results against the entrants placed below 3rd in the larger groups are left out" in table
    # without the 9-0 over B's fourth, E8 is level with E7 and E9: 2 played, 0 points, -2
    e8 = next(r for r in table.split("<tr")[1:] if re.search(r'class="entrant"><a[^>]*>E8\b', r))
    cells = re.findall(r'<td class="n[^"]*">([^<]*)</td>', e8)
    assert cells == ["B3", "2", "0", "0", "2", "0", "2", "\u22122", "0"], cells


def test_a_group_correction_after_the_knockout_was_filled_moves_a_third():
    competition, organiser = competition_of(9, format="groups_knockout", group_count=3, qualifiers_per_group=2,
                                            best_thirds=2, slug="thirds-fix")
    play_groups(organiser, competition, {"A": 1, "B": 2, "C": 3})
    top = first_round(competition)[0]
    assert names(top) == ("E1", "E8")  # A1 v the third of B
    b_game = competition.fixtures.get(group__name="B", home__name__in=["E2", "E8"], away__name__in=["E2", "E8"])
    side = "home" if b_game.home.name == "E2" else "away"
    beaten = (5, 0) if side == "home" else (0, 5)  # B's third now -7: C's third (-6) goes through
    assert record(organiser, top, 1, 0).status_code == 200  # the knockout fixture is played
    response = record(organiser, b_game, *beaten)
    assert response.status_code == 409 and response.json()["error"] == "played_on"
    assert top.pk in response.json()["fixtures"] and names(top) == ("E1", "E8")
    assert record(organiser, b_game, *beaten, cascade=True).status_code == 200
    assert names(top) == ("E1", "E9") and not Result.objects.filter(fixture=top).exists()
    # and back again, with nothing played: the slot follows the results
    assert record(organiser, b_game, *((2, 0) if side == "home" else (0, 2))).status_code == 200
    assert names(top) == ("E1", "E8")


@pytest.mark.parametrize("body", [
    {"group_count": 3, "qualifiers_per_group": 2, "best_thirds": 1},  # one third could meet its winner
    {"group_count": 1, "qualifiers_per_group": 1, "best_thirds": 0},  # a knockout of 1
    {"group_count": 2, "qualifiers_per_group": 2, "best_thirds": -1},
])
def test_settings_that_make_no_knockout_are_a_400_naming_best_thirds(body):
    world = build_world()
    response = client_for(world).post("/api/competitions/", {"name": "X", "format": "groups_knockout", **body},
                                      format="json")
    assert response.status_code == 400 and "best_thirds" in response.json(), response.content
    assert not Competition.objects.filter(name="X").exists()


def test_more_best_thirds_than_the_groups_give_are_refused_and_fixed_after_the_draw():
    world = build_world()
    client = client_for(world)
    created = client.post("/api/competitions/", {"name": "Thirds", "format": "groups_knockout", "group_count": 2,
                                                 "qualifiers_per_group": 1}, format="json")
    assert created.status_code == 201 and created.json()["best_thirds"] == 0
    slug = created.json()["slug"]
    for name in ("A", "B", "C", "D"):  # groups of 2: nobody is third
        assert client.post("/api/entrants/", {"competition": slug, "name": name}, format="json").status_code == 201
    refused = client.patch(f"/api/competitions/{slug}/", {"qualifiers_per_group": 2, "best_thirds": 2}, format="json")
    assert refused.status_code == 400 and "best_thirds" in refused.json()
    assert client.patch(f"/api/competitions/{slug}/", {"best_thirds": 2}, format="json").status_code == 200
    assert client.post(f"/api/competitions/{slug}/generate-fixtures/").status_code in (200, 201)
    client.patch(f"/api/competitions/{slug}/", {"best_thirds": 0}, format="json")
    assert Competition.objects.get(slug=slug).best_thirds == 2  # fixed once drawn
