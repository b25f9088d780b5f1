"""Placement matches: a knockout that decides every place, through the API as organisers use
it, and the placings every format answers (``GET /api/competitions/{slug}/placings/``)."""
from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from leagues.models import Competition, Fixture, Result
from matches.names import shown
from tests.leagues.site_world import build_world
from tests.leagues.test_permissions import _competition_form
from tests.leagues.test_results_through_the_api import competition_of, names, record

pytestmark = pytest.mark.django_db(transaction=True)

PLACES_OF_8 = [
    # (round, position, label) of the 12 fixtures of 8 entrants
    (1, 0, ""), (1, 1, ""), (1, 2, ""), (1, 3, ""),
    (2, 0, ""), (2, 1, ""), (2, 2, "Semi-final for 5th-8th place"), (2, 3, "Semi-final for 5th-8th place"),
    (3, 0, "Final"), (3, 1, "Third-place match"), (3, 2, "Match for 5th place"), (3, 3, "Match for 7th place"),
]


def play_all(organiser, competition, *, winner="home"):
    """Records every fixture that can be played, round by round, the ``winner`` side 2-0."""
    for number in (1, 2, 3):
        for fixture in competition.fixtures.filter(round__number=number, status="scheduled").order_by("position"):
            fixture.refresh_from_db()
            if fixture.home_id and fixture.away_id:
                goals = (2, 0) if winner == "home" else (0, 2)
                assert record(organiser, fixture, *goals).status_code == 200


def placings(client, competition) -> dict[str, tuple[int, int]]:
    response = client.get(f"/api/competitions/{competition.slug}/placings/")
    assert response.status_code == 200
    return {row["entrant"]: (row["place"], row["place_to"]) for row in response.json()}


def fixture_at(competition, number, position) -> Fixture:
    return competition.fixtures.get(round__number=number, position=position)


def test_eight_entrants_play_twelve_fixtures_and_every_place_is_decided():
    competition, organiser = competition_of(8, format="knockout", placement_matches=True, slug="place8")
    laid_out = [(f.round.number, f.position, f.label)
                for f in competition.fixtures.select_related("round").order_by("round__number", "position")]
    assert laid_out == PLACES_OF_8
    assert [r.name for r in competition.stages.get().rounds.order_by("number")] == [
        "Quarter-finals", "Semi-finals", "Final"]
    later = competition.fixtures.filter(round__number__gt=1)
    assert all(f.home_id is None and f.away_id is None and f.status == "scheduled" for f in later)
    play_all(organiser, competition)
    # home wins all: quarter-finals 1-8 4-5 2-7 3-6 -> 1 4 2 3 on, 8 5 7 6 to the 5th-8th semis
    assert names(fixture_at(competition, 2, 2)) == ("E8", "E5")
    assert names(fixture_at(competition, 3, 3)) == ("E5", "E6")  # the losers of the 5th-8th semis
    assert placings(organiser, competition) == {
        "E1": (1, 1), "E2": (2, 2), "E4": (3, 3), "E3": (4, 4),
        "E8": (5, 5), "E7": (6, 6), "E5": (7, 7), "E6": (8, 8)}
    assert not competition.fixtures.filter(status__in=Fixture.OPEN).exists()


def test_six_entrants_the_byes_go_on_and_every_one_of_the_six_places_is_decided():
    competition, organiser = competition_of(6, format="knockout", placement_matches=True,
                                            third_place_match=True, slug="place6")
    assert competition.fixtures.count() == 12
    # 1-bye, 4-5, 2-bye, 3-6: nobody loses a bye, so each 5th-8th semi has one entrant: a bye
    play_all(organiser, competition)
    semis_below = [fixture_at(competition, 2, p) for p in (2, 3)]
    assert [f.status for f in semis_below] == ["bye", "bye"]
    assert fixture_at(competition, 3, 2).status == "played"  # for 5th: the two quarter-final losers
    assert fixture_at(competition, 3, 3).status == "cancelled"  # for 7th: nobody on either side
    assert placings(organiser, competition) == {
        "E1": (1, 1), "E2": (2, 2), "E4": (3, 3), "E3": (4, 4), "E5": (5, 5), "E6": (6, 6)}


def test_a_double_no_show_in_a_semi_final_cancels_the_third_place_match_and_shares_the_places():
    competition, organiser = competition_of(8, format="knockout", placement_matches=True, slug="place-dns")
    for fixture in competition.fixtures.filter(round__number=1).order_by("position"):
        assert record(organiser, fixture, 2, 0).status_code == 200
    semi = fixture_at(competition, 2, 0)
    assert names(semi) == ("E1", "E4")
    response = organiser.post(f"/api/fixtures/{semi.pk}/result/", {"outcome": "walkover", "outcome_side": "both"},
                              format="json")
    assert response.status_code == 200
    play_all(organiser, competition)
    third = competition.fixtures.get(label="Third-place match")
    third.refresh_from_db()
    assert third.status == "cancelled" and names(third) == (None, "E3")
    assert competition.fixtures.get(label="Final").status == "bye"
    places = placings(organiser, competition)
    assert places["E2"] == (1, 1) and places["E3"] == (3, 3)
    assert places["E1"] == places["E4"] == (3, 4)  # nobody of the double no-show is third alone
    assert {places[e] for e in ("E8", "E7", "E5", "E6")} == {(5, 5), (6, 6), (7, 7), (8, 8)}


def test_a_corrected_quarter_final_cascades_into_the_placement_rounds():
    competition, organiser = competition_of(8, format="knockout", placement_matches=True, slug="place-fix")
    play_all(organiser, competition)
    quarter = fixture_at(competition, 1, 0)  # E1 2-0 E8
    response = record(organiser, quarter, 0, 2)
    assert response.status_code == 409  # E1 and E8 have played on, above and below
    reached = {Fixture.objects.get(pk=pk).label or "main" for pk in response.json()["fixtures"]}
    assert {"Semi-final for 5th-8th place", "Match for 5th place", "Match for 7th place"} <= reached
    assert record(organiser, quarter, 0, 2, cascade=True).status_code == 200
    assert names(fixture_at(competition, 2, 0)) == ("E8", "E4")
    assert names(fixture_at(competition, 2, 2)) == ("E1", "E5")
    semi_below = fixture_at(competition, 2, 2)
    assert semi_below.status == "scheduled" and not Result.objects.filter(fixture=semi_below).exists()
    play_all(organiser, competition)
    assert placings(organiser, competition) == {
        "E8": (1, 1), "E2": (2, 2), "E4": (3, 3), "E3": (4, 4),
        "E1": (5, 5), "E7": (6, 6), "E5": (7, 7), "E6": (8, 8)}


def test_without_placement_matches_a_knockout_shares_the_places_it_does_not_play_for():
    competition, organiser = competition_of(8, format="knockout", third_place_match=True, slug="ko8")
    assert competition.fixtures.count() == 8
    play_all(organiser, competition)
    assert placings(organiser, competition) == {
        "E1": (1, 1), "E2": (2, 2), "E4": (3, 3), "E3": (4, 4),
        "E8": (5, 8), "E7": (5, 8), "E5": (5, 8), "E6": (5, 8)}


def test_a_league_places_by_its_standings():
    competition, organiser = competition_of(3, slug="place-league", tiebreak_preset="custom",
                                            tiebreak_criteria=["goal_difference"])
    for fixture in competition.fixtures.exclude(status="bye"):
        assert record(organiser, fixture, 1, 1).status_code == 200
    assert placings(organiser, competition) == {"E1": (1, 3), "E2": (1, 3), "E3": (1, 3)}


def test_placement_matches_are_set_on_a_knockout_before_the_draw_and_refused_on_a_league():
    competition, organiser = competition_of(4, format="knockout", slug="place-api")
    response = organiser.patch(f"/api/competitions/{competition.slug}/", {"placement_matches": True}, format="json")
    assert response.status_code == 200 and response.json()["placement_matches"] is False  # drawn: fixed
    Competition.objects.create(name="Taça", slug="taca-place").organisers.add(
        competition.organisers.get())
    response = organiser.patch("/api/competitions/taca-place/", {"placement_matches": True}, format="json")
    assert response.status_code == 400 and "placement_matches" in response.json()  # a league
    assert Competition.objects.get(slug="taca-place").placement_matches is False
    response = organiser.patch("/api/competitions/taca-place/", {
        "format": "knockout", "placement_matches": True, "third_place_match": True}, format="json")
    assert response.status_code == 200 and response.json()["placement_matches"] is True


def test_the_competition_page_draws_the_placement_rounds_with_their_names():
    competition, organiser = competition_of(8, format="knockout", placement_matches=True, slug="place-page")
    play_all(organiser, competition)
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    bracket = page[page.index('<section id="bracket">'):page.index('<section id="fixtures">')]
    below = bracket[bracket.index('class="places-below"'):]
    headings = re.findall(r'<h3 class="small muted">([^<]+)</h3>', below)
    assert headings == ["Third-place match", "Semi-final for 5th-8th place", "Match for 5th place",
                        "Match for 7th place"]
    assert below.count('class="bm') == 5  # the placement matches there, not in the main bracket
    assert [h for h in re.findall(r"<h3>([^<]+)</h3>", bracket)] == ["Quarter-finals", "Semi-finals", "Final",
                                                                      "Champion"]
    with translation.override("es"):
        assert shown("Match for 5th place") == "Partido por el 5º puesto"
        assert shown("Semi-final for 5th-8th place") == "Semifinal por los puestos 5º-8º"
        assert shown("Round of 16 for 17th-32nd place") == "Ronda de 16 por los puestos 17º-32º"


def test_anyone_reads_the_placings_of_a_final_of_two():
    competition, organiser = competition_of(2, format="knockout", placement_matches=True, slug="place2")
    play_all(organiser, competition)
    assert placings(APIClient(), competition) == {"E1": (1, 1), "E2": (2, 2)}


def test_after_groups_the_knockout_plays_for_every_place_and_the_groups_share_the_rest():
    competition, organiser = competition_of(12, format="groups_knockout", group_count=4, qualifiers_per_group=2,
                                            placement_matches=True, slug="place-groups")
    knockout = competition.fixtures.filter(round__stage__kind="knockout")
    assert knockout.count() == 12
    for fixture in competition.fixtures.filter(group__isnull=False).exclude(status="bye"):
        assert record(organiser, fixture, 1, 0).status_code == 200
    play_all(organiser, competition)
    places = placings(organiser, competition)
    assert sorted(places.values())[:8] == [(p, p) for p in range(1, 9)]
    assert sorted(places.values())[8:] == [(9, 12)] * 4  # third in their groups


def test_a_quarter_final_loser_who_withdraws_loses_below_by_walkover_and_is_placed_nowhere():
    competition, organiser = competition_of(8, format="knockout", placement_matches=True, slug="place-wd")
    for fixture in competition.fixtures.filter(round__number=1).order_by("position"):
        assert record(organiser, fixture, 2, 0).status_code == 200
    e8 = competition.entrants.get(name="E8")
    assert organiser.post(f"/api/entrants/{e8.pk}/withdraw/").status_code == 200
    semi_below = fixture_at(competition, 2, 2)
    semi_below.refresh_from_db()
    assert semi_below.status == "walkover" and names(semi_below) == ("E8", "E5")  # as in any knockout
    assert Result.objects.get(fixture=semi_below).winner.name == "E5"
    play_all(organiser, competition)
    seventh = fixture_at(competition, 3, 3)
    assert seventh.status == "cancelled" and names(seventh) == (None, "E6")  # the withdrawn E8 is not there
    page = Client().get(f"/fixtures/{seventh.pk}/").content.decode()
    assert "E6" in page and "is 7th without playing" in page
    places = placings(organiser, competition)
    assert "E8" not in places and places["E5"][0] in (5, 6) and len(places) == 7


@pytest.mark.parametrize("placement", [True, False], ids=["placement-matches", "third-place-match"])
def test_an_exported_knockout_imports_with_the_same_placings(tmp_path, placement):
    competition, organiser = competition_of(8, format="knockout", placement_matches=placement,
                                            third_place_match=True, slug="place-out")
    play_all(organiser, competition)
    body = Client().get(f"/competitions/{competition.slug}/export/results.csv").content
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    below = {"Semi-final for 5th-8th place", "Match for 5th place", "Match for 7th place"}
    assert ({r["round"] for r in rows} >= below) is placement
    path = tmp_path / "cup.csv"
    path.write_bytes(body)
    call_command("import_results", str(path), "--competition", "place-copy", "--create", "--name", "Copy",
                 "--format", "knockout", stdout=io.StringIO())
    copy = Competition.objects.get(slug="place-copy")
    assert placings(organiser, copy) == placings(organiser, competition)
    # its page crowns the final's winner and shows the matches below apart, under their names
    champion = next(name for name, (place, _to) in placings(organiser, copy).items() if place == 1)
    for cup in (competition, copy):
        page = Client().get(f"/competitions/{cup.slug}/").content.decode()
        crowned = page.split('<div class="bracket-round champion">', 1)[1].split("<b>", 1)[1].split("</b>", 1)[0]
        assert crowned.split()[0] == champion
        main = page.split('<div class="bracket">', 1)[1].split('<div class="bracket-round champion">', 1)[0]
        assert ("Match for 7th place" in page) is placement and "Match for 7th place" not in main


def test_the_organisers_form_sets_placement_matches_on_a_cup_and_refuses_them_on_a_league():
    world = build_world(entrants=0)
    client = Client()
    client.force_login(world.users["organiser"])
    page = client.get("/manage/new/").content.decode()
    assert 'name="placement_matches"' in page
    league = client.post("/manage/new/", {**_competition_form("Liga Nova"), "placement_matches": "on"})
    assert league.status_code == 200 and "placement_matches" in league.context["form"].errors
    assert not Competition.objects.filter(slug="liga-nova").exists()
    cup = client.post("/manage/new/", {**_competition_form("Taça Nova"), "format": "knockout",
                                       "placement_matches": "on"})
    assert cup.status_code == 302 and Competition.objects.get(slug="taca-nova").placement_matches
