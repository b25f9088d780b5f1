"""Double elimination as a competition (``"format": "double_elimination"``), through the API as
organisers use it on PostgreSQL: the draw makes both brackets and the grand final(s), the
results fill them, corrections cascade, withdrawals and double no-shows follow the knockout's
rules, the placings share the places below 4th, and the page, the exports and the calendar
show both brackets."""
from __future__ import annotations

import csv
import io
import random
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, Placing, Result
from leagues.rules import double_elimination as de
from leagues.selectors.year import federation_ranking
from leagues.services.double_elimination import layout_id
from leagues.services.ratings import ratings_recompute
from leagues.services.standings import standings_recompute
from matches.names import shown
from tests.leagues.test_results_through_the_api import as_user, competition_of, names, record

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS_OF_8 = [
    ("Winners' bracket", "Winners' bracket round 1", 4), ("Winners' bracket", "Winners' bracket round 2", 2),
    ("Winners' bracket", "Winners' bracket round 3", 1),
    ("Losers' bracket", "Losers' bracket round 1", 2), ("Losers' bracket", "Losers' bracket round 2", 2),
    ("Losers' bracket", "Losers' bracket round 3", 1), ("Losers' bracket", "Losers' bracket round 4", 1),
    ("Grand final", "Grand final", 1), ("Grand final", "Grand final (reset)", 1),
]


def seed(name: str) -> int:
    return int(name[1:])


def top_seed_wins(fixture: Fixture) -> str:
    return "home" if seed(fixture.home.name) < seed(fixture.away.name) else "away"


def play_through(client, competition, decide=top_seed_wins, *, limit=100) -> list[Fixture]:
    """Records every fixture that can be played, in the order of their kick-offs, until none is
    left: ``decide(fixture)`` gives the winning side, 2-0. Returns the fixtures played, in order."""
    played = []
    for _ in range(limit):
        ready = [f for f in competition.fixtures.filter(status="scheduled", home__isnull=False, away__isnull=False)
                 .select_related("home", "away", "round__stage").order_by("date", "round__stage__order",
                                                                         "round__number", "position")]
        if not ready:
            return played
        fixture = ready[0]
        goals = (2, 0) if decide(fixture) == "home" else (0, 2)
        assert record(client, fixture, *goals).status_code == 200
        played.append(fixture)
    raise AssertionError("the brackets never ended")


def placings(client, competition) -> dict[str, tuple[int, int]]:
    response = client.get(f"/api/competitions/{competition.slug}/placings/")
    assert response.status_code == 200
    return {row["entrant"]: (row["place"], row["place_to"]) for row in response.json()}


def fixture_at(competition, stage: str, number: int, position: int = 0) -> Fixture:
    return competition.fixtures.select_related("round").get(round__stage__name=stage, round__number=number,
                                                             position=position)


def reset_of(competition) -> Fixture:
    return fixture_at(competition, "Grand final", 2)


def test_eight_entrants_the_draw_makes_both_brackets_and_the_finals_and_the_winners_side_wins_in_fourteen():
    competition, organiser = competition_of(8, format="double_elimination", slug="de8", first_date="2027-03-06")
    rounds = [(f.round.stage.name, f.round.name) for f in competition.fixtures.select_related("round__stage")
              .order_by("round__stage__order", "round__number", "position")]
    assert [(stage, name, rounds.count((stage, name))) for stage, name in dict.fromkeys(rounds)] == ROUNDS_OF_8
    assert competition.fixtures.count() == 15
    assert [names(fixture_at(competition, "Winners' bracket", 1, p)) for p in range(4)] == [
        ("E1", "E8"), ("E4", "E5"), ("E2", "E7"), ("E3", "E6")]
    later = competition.fixtures.exclude(round__stage__name="Winners' bracket", round__number=1)
    assert all(f.home_id is None and f.away_id is None and f.status == "scheduled" for f in later)
    # the losers' first round is played after the winners' first round, the reset last
    dates = {f.round.name: f.date for f in competition.fixtures.select_related("round")}
    assert dates["Winners' bracket round 1"] < dates["Losers' bracket round 1"] < dates["Grand final"]
    assert dates["Grand final"] < dates["Grand final (reset)"]

    played = play_through(organiser, competition)
    assert len(played) == 14
    first = fixture_at(competition, "Grand final", 1)
    assert names(first) == ("E1", "E2")  # E2 lost the winners' final to E1, then won the losers' bracket
    reset = reset_of(competition)
    reset.refresh_from_db()
    assert reset.status == "cancelled" and names(reset) == (None, None)
    assert placings(APIClient(), competition) == {
        "E1": (1, 1), "E2": (2, 2), "E3": (3, 3), "E4": (4, 4),
        "E5": (5, 6), "E6": (5, 6), "E7": (7, 8), "E8": (7, 8)}
    rounds = APIClient().get(f"/api/competitions/{competition.slug}/bracket/").json()["rounds"]
    assert [(r["stage"], r["name"], len(r["fixtures"])) for r in rounds] == ROUNDS_OF_8
    body = APIClient().get(f"/api/competitions/{competition.slug}/").json()
    assert body["format"] == "double_elimination" and body["grand_final_reset"] is True
    assert body["status"] == "finished"
    # the federation ranking reads the same placings, shared places included
    ratings_recompute()
    stored = {p.player.first_name: (p.place, p.place_to)
              for p in Placing.objects.filter(competition=competition).select_related("player")}
    assert stored == placings(APIClient(), competition)
    last_day = competition.fixtures.order_by("-date").first().date
    rows = {r.player.first_name: r.row for r in federation_ranking(at=last_day)}
    assert rows["E5"].explanation == "from 1 competition: 5th-6th in de8 (30)"
    assert rows["E5"].points == rows["E6"].points


def test_the_losers_side_winning_the_first_final_plays_the_reset_fifteen_fixtures():
    competition, organiser = competition_of(8, format="double_elimination", slug="de8-reset")

    def decide(fixture):
        if fixture.round.name == "Grand final":
            return "away"  # E2, from the losers' bracket, beats E1
        return top_seed_wins(fixture)

    played = play_through(organiser, competition, decide)
    assert len(played) == 15
    reset = reset_of(competition)
    assert reset.status == "played" and names(reset) == ("E1", "E2")  # E1 lost once: home again
    assert placings(organiser, competition)["E1"] == (1, 1)
    assert placings(organiser, competition)["E2"] == (2, 2)
    # a correction of the first final (the winners' side won it after all) cancels the reset
    first = fixture_at(competition, "Grand final", 1)
    response = record(organiser, first, 2, 0)
    assert response.status_code == 409 and response.json()["fixtures"] == [reset.pk]
    assert record(organiser, first, 2, 0, cascade=True).status_code == 200
    reset.refresh_from_db()
    assert reset.status == "cancelled" and not Result.objects.filter(fixture=reset).exists()
    assert placings(organiser, competition)["E1"] == (1, 1)


def test_without_a_reset_the_first_final_decides_and_the_setting_is_fixed_after_the_draw():
    admin = get_user_model().objects.create_superuser(username="de-admin", password="x" * 12)
    client = as_user(admin)
    response = client.post("/api/competitions/", {"name": "Dupla", "format": "double_elimination",
                                                  "grand_final_reset": False}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["grand_final_reset"] is False
    competition = Competition.objects.get(slug=response.json()["slug"])
    assert client.patch(f"/api/competitions/{competition.slug}/", {"grand_final_reset": True},
                        format="json").json()["grand_final_reset"] is True
    assert client.patch(f"/api/competitions/{competition.slug}/", {"grand_final_reset": False},
                        format="json").json()["grand_final_reset"] is False
    response = client.patch(f"/api/competitions/{competition.slug}/", {"third_place_match": True}, format="json")
    assert response.status_code == 400 and "third_place_match" in response.json()
    for i in range(1, 5):
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i)
    assert client.post(f"/api/competitions/{competition.slug}/generate-fixtures/").status_code == 201
    assert competition.fixtures.count() == 3 + 2 + 1  # no reset
    response = client.patch(f"/api/competitions/{competition.slug}/", {"grand_final_reset": True}, format="json")
    assert response.status_code == 200 and response.json()["grand_final_reset"] is False  # drawn: fixed

    def decide(fixture):
        return "away" if fixture.round.name == "Grand final" else top_seed_wins(fixture)

    assert len(play_through(client, competition, decide)) == 6
    assert placings(client, competition) == {"E2": (1, 1), "E1": (2, 2), "E3": (3, 3), "E4": (4, 4)}


def test_six_entrants_the_top_seeds_have_byes_in_the_winners_bracket_and_lone_losers_go_on_by_byes():
    competition, organiser = competition_of(6, format="double_elimination", slug="de6")
    assert competition.fixtures.count() == 15  # a bracket of 8
    byes = competition.fixtures.filter(status="bye").select_related("round")
    assert sorted((f.round.name, f.home.name) for f in byes) == [
        ("Winners' bracket round 1", "E1"), ("Winners' bracket round 1", "E2")]
    played = play_through(organiser, competition)
    # the losers' first round: nobody lost a bye, so each has one entrant and goes on by a bye
    assert [fixture_at(competition, "Losers' bracket", 1, p).status for p in (0, 1)] == ["bye", "bye"]
    assert len(played) == 2 + 2 + 1 + 2 + 1 + 1 + 1  # W1 (2 of 4), W2, W3, L2, L3, L4, grand final
    assert reset_of(competition).status == "cancelled"
    assert placings(organiser, competition) == {
        "E1": (1, 1), "E2": (2, 2), "E3": (3, 3), "E4": (4, 4), "E5": (5, 6), "E6": (5, 6)}


def test_a_correction_in_the_winners_first_round_cascades_into_the_losers_bracket():
    competition, organiser = competition_of(8, format="double_elimination", slug="de-fix")
    for p in range(4):
        assert record(organiser, fixture_at(competition, "Winners' bracket", 1, p), 2, 0).status_code == 200
    losers_first = fixture_at(competition, "Losers' bracket", 1, 0)
    assert names(losers_first) == ("E8", "E5")
    assert record(organiser, losers_first, 2, 0).status_code == 200  # E8 beats E5
    dropped_into = fixture_at(competition, "Losers' bracket", 2, 0)
    assert names(dropped_into) == ("E8", None)
    # E1 v E8 was 2-0: corrected to 0-2, E1 drops to the losers' bracket in E8's place
    w1 = fixture_at(competition, "Winners' bracket", 1, 0)
    response = record(organiser, w1, 0, 2)
    assert response.status_code == 409 and response.json()["error"] == "played_on"
    assert losers_first.pk in response.json()["fixtures"]
    assert names(losers_first) == ("E8", "E5")  # refused: nothing changed
    assert record(organiser, w1, 0, 2, cascade=True).status_code == 200
    assert names(losers_first) == ("E1", "E5")
    losers_first.refresh_from_db()
    assert losers_first.status == "scheduled" and not Result.objects.filter(fixture=losers_first).exists()
    assert names(fixture_at(competition, "Winners' bracket", 2, 0)) == ("E8", "E4")
    assert names(dropped_into) == (None, None)  # waits for the losers' first round again
    # the worker keeps a conflict when a played fixture would now hold others (a withdrawal)
    assert standings_recompute(competition_id=competition.pk, force=True)
    competition.refresh_from_db()
    assert competition.derived_conflicts == []


def test_an_entrant_who_withdraws_in_the_losers_bracket_loses_by_walkover_and_is_placed_nowhere():
    competition, organiser = competition_of(8, format="double_elimination", slug="de-wd")
    for p in range(4):
        assert record(organiser, fixture_at(competition, "Winners' bracket", 1, p), 2, 0).status_code == 200
    e5 = competition.entrants.get(name="E5")
    assert organiser.post(f"/api/entrants/{e5.pk}/withdraw/").status_code == 200
    losers_first = fixture_at(competition, "Losers' bracket", 1, 0)
    losers_first.refresh_from_db()
    assert losers_first.status == "walkover" and Result.objects.get(fixture=losers_first).winner.name == "E8"
    # E2 beats E3 in round 2 ... every fixture E5 would have reached is played without it
    play_through(organiser, competition)
    places = placings(organiser, competition)
    assert "E5" not in places and len(places) == 7
    assert places["E1"] == (1, 1)
    assert not Fixture.objects.filter(competition=competition, status="scheduled", home=e5).exists()


def test_a_double_no_show_in_the_winners_bracket_sends_nobody_on_and_both_share_the_places():
    competition, organiser = competition_of(8, format="double_elimination", slug="de-dns")
    w1 = fixture_at(competition, "Winners' bracket", 1, 1)  # E4 v E5
    response = organiser.post(f"/api/fixtures/{w1.pk}/result/", {"outcome": "walkover", "outcome_side": "both"},
                              format="json")
    assert response.status_code == 200
    play_through(organiser, competition)
    w2 = fixture_at(competition, "Winners' bracket", 2, 0)
    w2.refresh_from_db()
    assert w2.status == "bye" and names(w2) == ("E1", None)
    losers_first = fixture_at(competition, "Losers' bracket", 1, 0)
    losers_first.refresh_from_db()
    assert losers_first.status == "bye" and names(losers_first) == ("E8", None)  # no loser of E4 v E5
    places = placings(organiser, competition)
    assert places["E4"] == places["E5"] == (7, 8)  # out in the losers' round they would have entered
    assert places["E1"] == (1, 1)


def test_the_page_draws_the_winners_bracket_above_the_losers_and_the_grand_final():
    competition, organiser = competition_of(8, format="double_elimination", slug="de-page")
    play_through(organiser, competition)
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    section = page[page.index('<section id="bracket">'):page.index('<section id="fixtures">')]
    headings = re.findall(r'<h3 class="bracket-name">([^<]+)</h3>', section)
    assert headings == ["Winners&#x27; bracket", "Losers&#x27; bracket", "Grand final"]
    winners = section[section.index("Winners&#x27; bracket"):section.index("Losers&#x27; bracket")]
    assert winners.count('class="bm') == 7
    losers = section[section.index("Losers&#x27; bracket"):section.rindex('class="bracket-name"')]
    assert losers.count('class="bm') == 6
    assert "Losers&#x27; bracket round 4" in losers
    crowned = section.split('<div class="bracket-round champion">', 1)[1].split("<b>", 1)[1].split("</b>", 1)[0]
    assert crowned.split()[0] == "E1"
    with translation.override("es"):
        page = Client(headers={"accept-language": "es"}).get(f"/competitions/{competition.slug}/").content.decode()
        assert shown("Losers' bracket round 2") == "Cuadro de perdedores, ronda 2"
        assert shown("Grand final (reset)") == "Gran final (desempate)"
    assert shown("Winners' bracket") == "Winners' bracket"


def test_the_exports_and_the_calendar_name_each_fixture_by_its_bracket_and_round():
    competition, organiser = competition_of(4, format="double_elimination", slug="de-out", first_date="2027-03-06")
    for p in range(2):
        assert record(organiser, fixture_at(competition, "Winners' bracket", 1, p), 2, 0).status_code == 200
    body = Client().get(f"/competitions/{competition.slug}/export/fixtures.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert {(r["stage"], r["round"]) for r in rows} == {
        ("Winners' bracket", "Winners' bracket round 1"), ("Winners' bracket", "Winners' bracket round 2"),
        ("Losers' bracket", "Losers' bracket round 1"), ("Losers' bracket", "Losers' bracket round 2"),
        ("Grand final", "Grand final"), ("Grand final", "Grand final (reset)")}
    losers_first = next(r for r in rows if r["round"] == "Losers' bracket round 1")
    assert (losers_first["home"], losers_first["away"]) == ("E4", "E3")
    results = list(csv.DictReader(io.StringIO(
        Client().get(f"/competitions/{competition.slug}/export/results.csv").content.decode())))
    assert [(r["stage"], r["round"], r["home"], r["away"]) for r in results] == [
        ("Winners' bracket", "Winners' bracket round 1", "E1", "E4"),
        ("Winners' bracket", "Winners' bracket round 1", "E2", "E3")]
    xlsx = Client().get(f"/competitions/{competition.slug}/export/fixtures.xlsx")
    assert xlsx.status_code == 200 and b"xl/worksheets" in xlsx.content
    calendar = Client().get(f"/competitions/{competition.slug}/calendar.ics").content.decode().replace("\r\n ", "")
    events = calendar.split("BEGIN:VEVENT")[1:]
    known = [f for f in competition.fixtures.all() if f.home_id and f.away_id]
    for fixture in known:
        event = next(e for e in events if f"UID:fixture-{fixture.pk}@" in e)
        assert f"{fixture.round.name}" in event.replace("\\", "")
    assert any("E4 v E3" in e and "Losers' bracket round 1" in e.replace("\\", "") for e in events)
    embed = Client().get(f"/embed/competitions/{competition.slug}/fixtures/").content.decode()
    assert "E4" in embed and "Losers&#x27; bracket round 1" in embed


def test_an_entrant_who_withdraws_after_a_bye_and_a_win_below_keeps_its_bye_and_the_bracket_goes_on():
    competition, organiser = competition_of(6, format="double_elimination", slug="de-bye-wd")
    for p in (1, 3):  # 4-5 and 3-6: E5 and E6 drop, each alone in a losers' first round: byes
        assert record(organiser, fixture_at(competition, "Winners' bracket", 1, p), 2, 0).status_code == 200
    lone = fixture_at(competition, "Losers' bracket", 1, 0)
    lone.refresh_from_db()
    assert lone.status == "bye" and names(lone) == (None, "E5")
    for p in (0, 1):  # E1 beats E4, E2 beats E3: they drop, crossed
        assert record(organiser, fixture_at(competition, "Winners' bracket", 2, p), 2, 0).status_code == 200
    below = fixture_at(competition, "Losers' bracket", 2, 0)
    assert names(below) == ("E5", "E3")
    assert record(organiser, below, 2, 0).status_code == 200  # E5 plays on, and wins
    e5 = competition.entrants.get(name="E5")
    assert organiser.post(f"/api/entrants/{e5.pk}/withdraw/").status_code == 200
    lone.refresh_from_db()
    assert lone.status == "bye" and names(lone) == (None, "E5")  # the bye it had stays: it played on
    play_through(organiser, competition)  # every later result is taken (no fixture "played on" to undo)
    assert standings_recompute(competition_id=competition.pk, force=True)
    competition.refresh_from_db()
    assert competition.derived_conflicts == []
    assert not competition.fixtures.filter(status__in=Fixture.OPEN).exists()
    assert "E5" not in placings(organiser, competition)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_random_results_and_corrections_fill_the_stored_brackets_as_the_pure_structure_plays_them(seed):
    """Random fields (5 to 16), random results (double no-shows among them), corrections that
    cascade: the stored fixtures hold what ``leagues.rules.double_elimination.play`` gives for the
    same results, and the placings API says what its ``placings`` say."""
    rng = random.Random(seed)
    n = rng.choice([5, 7, 9, 12, 16])
    competition, organiser = competition_of(n, format="double_elimination", slug=f"de-random-{seed}",
                                            grand_final_reset=rng.random() < 0.7)
    for _ in range(300):
        ready = list(competition.fixtures.filter(status="scheduled", home__isnull=False, away__isnull=False))
        if not ready:
            break
        choice = rng.random()
        done = list(competition.fixtures.filter(status="played"))
        if choice < 0.1 and done:
            fixture, extra = rng.choice(done), {"cascade": True}
        else:
            fixture, extra = rng.choice(ready), {}
        if choice > 0.93:
            response = organiser.post(f"/api/fixtures/{fixture.pk}/result/", {"outcome": "walkover",
                                                                               "outcome_side": "both"}, format="json")
        else:
            response = record(organiser, fixture, *rng.choice([(2, 0), (0, 2)]), **extra)
        assert response.status_code == 200, response.content
    assert not competition.fixtures.filter(status__in=Fixture.OPEN).exists()
    stored = {layout_id(f): f for f in competition.fixtures.select_related("round__stage", "result")}
    laid_out = de.layout(n, grand_final_reset=competition.grand_final_reset)
    games = de.play(laid_out, lambda f, home, away: stored[f.id].result.winner_id,
                    seeds=list(competition.entrants.order_by("seed").values_list("pk", flat=True)))
    statuses = {de.PLAYED: {"played", "walkover"}, de.BYE: {"bye"}, de.CANCELLED: {"cancelled"}}
    for game in games:
        fixture = stored[game.fixture.id]
        assert fixture.status in statuses[game.status], game.fixture.id
        if game.status != de.CANCELLED:
            assert (fixture.home_id, fixture.away_id) == (game.home, game.away), game.fixture.id
    names_of = dict(competition.entrants.values_list("pk", "name"))
    assert placings(organiser, competition) == {
        names_of[e]: (band.place, band.place_to) for e, band in de.placings(laid_out, games).items()}
