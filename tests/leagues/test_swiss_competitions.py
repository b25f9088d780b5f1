"""The Swiss system as a competition format (COMPETITIONS.md §9), through the API as organisers
use it: ``rounds`` and ``bye_points``, a round paired at a time by ``generate-fixtures`` (and its
409s), byes as fixtures, withdrawals, late entrants, corrections, exports, the calendar, the
results import and the competition page. On PostgreSQL, with the worker's recomputation run on
commit (``transaction=True``)."""
from __future__ import annotations

import csv
import io
import threading

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture
from leagues.rules.swiss import Game
from leagues.services.imports import results_import
from leagues.services.swiss_rounds import swiss_games

pytestmark = pytest.mark.django_db(transaction=True)


def organiser(username="swiss-organiser") -> tuple[APIClient, object]:
    user = get_user_model().objects.create_user(username=username, password="pw-swiss-1")
    user.user_permissions.add(Permission.objects.get(codename="add_competition", content_type__app_label="leagues"))
    client = APIClient()
    client.force_authenticate(user)
    return client, user


def swiss_of(client, n, *, rounds=3, slug="open", **extra) -> Competition:
    """A Swiss of ``n`` entrants P1..Pn (seeded in order) made through the API, nothing paired."""
    body = {"name": f"Open {slug}", "slug": slug, "format": "swiss", "first_date": "2026-09-05", **extra}
    if rounds is not None:
        body["rounds"] = rounds
    response = client.post("/api/competitions/", body, format="json")
    assert response.status_code == 201, response.content
    for i in range(1, n + 1):
        added = client.post("/api/entrants/", {"competition": slug, "name": f"P{i}", "seed": i}, format="json")
        assert added.status_code == 201, added.content
    return Competition.objects.get(slug=slug)


def pair(client, competition):
    return client.post(f"/api/competitions/{competition.slug}/generate-fixtures/", {}, format="json")


def round_fixtures(client, competition, number) -> list[dict]:
    response = client.get(f"/api/fixtures/?competition={competition.slug}&round={number}&page_size=100")
    assert response.status_code == 200, response.content
    return sorted(response.json()["results"], key=lambda f: f["position"])


def play_round(client, competition, number, score=(1, 0)):
    """Every open fixture of round ``number`` won by its home side (or ``score``)."""
    for fixture in round_fixtures(client, competition, number):
        if fixture["status"] == "scheduled":
            response = client.post(f"/api/fixtures/{fixture['id']}/result/",
                                   {"home_goals": score[0], "away_goals": score[1]}, format="json")
            assert response.status_code == 200, response.content


def table(client, competition) -> dict[str, dict]:
    response = client.get(f"/api/competitions/{competition.slug}/standings/")
    assert response.status_code == 200, response.content
    tables = response.json()["tables"]
    assert len(tables) == 1  # a Swiss is one table
    return {row["entrant"]: row for row in tables[0]["rows"]}


def pairings(client, competition, number) -> list[tuple[str | None, str | None]]:
    return [((f["home"] or {}).get("name"), (f["away"] or {}).get("name"))
            for f in round_fixtures(client, competition, number)]


# --- settings ----------------------------------------------------------------------------------


def test_a_swiss_has_rounds_and_bye_points_and_the_fide_criteria_by_default():
    client, _user = organiser()
    competition = swiss_of(client, 4, rounds=3)
    data = client.get(f"/api/competitions/{competition.slug}/").json()
    assert data["format"] == "swiss" and data["rounds"] == 3 and data["bye_points"] == "win"
    assert data["tiebreak_preset"] == "fide_swiss"
    assert data["criteria"] == ["points", "buchholz_cut1", "buchholz", "sonneborn_berger", "progressive", "wins",
                                "lots"]
    changed = client.patch(f"/api/competitions/{competition.slug}/", {"bye_points": "draw", "rounds": 2},
                           format="json")
    assert changed.status_code == 200 and changed.json()["bye_points"] == "draw" and changed.json()["rounds"] == 2
    league = client.post("/api/competitions/", {"name": "Plain"}, format="json").json()
    assert league["rounds"] is None and league["bye_points"] == "win" and league["tiebreak_preset"] == "fistf"


@pytest.mark.parametrize("rounds", [None, 4, 9])
def test_rounds_are_checked_when_round_one_is_paired_and_nothing_is_stored(rounds):
    client, _user = organiser()
    competition = swiss_of(client, 4, rounds=rounds)
    response = pair(client, competition)
    assert response.status_code == 400 and "rounds" in response.json(), response.content
    assert "1 to 3" in response.json()["rounds"][0]
    assert not competition.fixtures.exists() and not competition.stages.exists()


def test_rounds_and_bye_points_are_fixed_once_round_one_is_paired():
    client, _user = organiser()
    competition = swiss_of(client, 4, rounds=3)
    assert pair(client, competition).status_code == 201
    client.patch(f"/api/competitions/{competition.slug}/", {"bye_points": "draw", "rounds": 2}, format="json")
    competition.refresh_from_db()
    assert (competition.rounds, competition.bye_points) == (3, "win")


# --- a round at a time ------------------------------------------------------------------------------


def test_generate_pairs_the_next_round_only_and_refuses_while_a_round_is_open_and_after_the_last():
    client, _user = organiser()
    competition = swiss_of(client, 6, rounds=3)
    response = pair(client, competition)
    assert response.status_code == 201 and response.json()["fixtures"] == 3
    assert competition.fixtures.count() == 3 and {f.round.number for f in competition.fixtures.all()} == {1}
    # round 1 from the seeding: the top half against the bottom half, home (white) alternating
    assert pairings(client, competition, 1) == [("P1", "P4"), ("P5", "P2"), ("P3", "P6")]

    first = round_fixtures(client, competition, 1)
    client.post(f"/api/fixtures/{first[0]['id']}/result/", {"home_goals": 2, "away_goals": 0}, format="json")
    refused = pair(client, competition)
    assert refused.status_code == 409, refused.content
    body = refused.json()
    assert body["error"] == "round_not_finished"
    assert body["fixtures"] == [first[1]["id"], first[2]["id"]]
    assert f"#{first[1]['id']} P5 v P2" in body["detail"] and f"#{first[2]['id']} P3 v P6" in body["detail"]
    assert competition.fixtures.count() == 3

    play_round(client, competition, 1)
    assert pair(client, competition).status_code == 201
    second = pairings(client, competition, 2)
    assert len(second) == 3 and not set(second) & set(pairings(client, competition, 1))
    play_round(client, competition, 2)
    assert pair(client, competition).status_code == 201
    play_round(client, competition, 3)
    last = pair(client, competition)
    assert last.status_code == 409 and last.json()["error"] == "all_rounds_paired", last.content
    assert competition.fixtures.count() == 9
    met = [frozenset(p) for n in (1, 2, 3) for p in pairings(client, competition, n)]
    assert len(met) == len(set(met))  # nobody met twice


def test_the_competition_page_offers_pair_round_n_and_says_why_not():
    client, user = organiser()
    competition = swiss_of(client, 4, rounds=3)
    page = Client()
    page.force_login(user)
    assert "Pair round 1" in page.get(f"/competitions/{competition.slug}/").content.decode()
    assert page.post(f"/manage/{competition.slug}/generate/").status_code == 302
    html = page.get(f"/competitions/{competition.slug}/").content.decode()
    assert "Pair round 2" not in html and "round 1 is not finished" in html
    play_round(client, competition, 1)
    html = page.get(f"/competitions/{competition.slug}/").content.decode()
    assert "Pair round 2" in html
    anonymous = Client().get(f"/competitions/{competition.slug}/").content.decode()
    assert "Pair round 2" not in anonymous


# --- byes ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("bye_points", "worth"), [("win", 3), ("draw", 1)])
def test_a_bye_is_a_fixture_of_its_round_official_at_once_counting_the_bye_points(bye_points, worth):
    client, _user = organiser()
    competition = swiss_of(client, 5, rounds=3, bye_points=bye_points)
    assert pair(client, competition).status_code == 201
    fixtures = round_fixtures(client, competition, 1)
    assert len(fixtures) == 3
    bye = fixtures[-1]
    assert bye["away"] is None and bye["status"] == "bye" and bye["result"] is None
    assert bye["home"]["name"] == "P5"  # the lowest ranked of the lowest score group
    rows = table(client, competition)
    assert rows["P5"]["points"] == worth and rows["P5"]["played"] == 0
    assert rows["P5"]["goals_for"] == rows["P5"]["goals_against"] == 0
    play_round(client, competition, 1)
    assert pair(client, competition).status_code == 201
    second = round_fixtures(client, competition, 2)
    assert second[-1]["status"] == "bye" and second[-1]["home"]["name"] != "P5"  # no second bye


# --- the engine's refusal ------------------------------------------------------------------------------


def test_no_legal_pairing_is_a_409_naming_the_rule_and_pairs_nothing():
    client, _user = organiser()
    competition = swiss_of(client, 4, rounds=3, withdrawal_policy="forfeit_remaining")
    assert pair(client, competition).status_code == 201
    play_round(client, competition, 1)
    # the two left met in round 1: no pairing without a rematch
    left = set(pairings(client, competition, 1)[0])
    for entrant in Entrant.objects.filter(competition=competition).exclude(name__in=left):
        assert client.post(f"/api/entrants/{entrant.pk}/withdraw/", {"reason": "ill"}, format="json").status_code == 200
    response = pair(client, competition)
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["error"] == "no_legal_pairing" and body["rule"] == "rematch"
    assert "no two entrants meet twice" in body["detail"]
    assert competition.fixtures.count() == 2 and not competition.fixtures.filter(round__number=2).exists()


def test_the_engine_reads_the_competition_points_and_a_double_no_show_gives_none():
    client, _user = organiser()
    competition = swiss_of(client, 4, rounds=3, points_loss=1)
    assert pair(client, competition).status_code == 201
    won, no_show = round_fixtures(client, competition, 1)
    client.post(f"/api/fixtures/{won['id']}/result/", {"home_goals": 2, "away_goals": 0}, format="json")
    client.post(f"/api/fixtures/{no_show['id']}/result/", {"outcome": "walkover", "outcome_side": "both"},
                format="json")
    ids = {e.name: e.pk for e in competition.entrants.all()}
    assert swiss_games(competition) == [
        Game(1, ids[won["home"]["name"]], ids[won["away"]["name"]], 3, 1),
        Game(1, ids[no_show["home"]["name"]], ids[no_show["away"]["name"]], 0, 0, played=False),
    ]
    rows = table(client, competition)
    assert rows[no_show["home"]["name"]]["points"] == rows[no_show["away"]["name"]]["points"] == 0
    assert pair(client, competition).status_code == 201


# --- withdrawals, late entrants, corrections ------------------------------------------------------------


def test_a_withdrawn_entrant_is_not_paired_again_and_its_open_fixture_is_a_walkover():
    client, _user = organiser()
    competition = swiss_of(client, 6, rounds=4, withdrawal_policy="forfeit_remaining")
    assert pair(client, competition).status_code == 201
    play_round(client, competition, 1)
    assert pair(client, competition).status_code == 201
    open_fixture = round_fixtures(client, competition, 2)[0]
    leaving = Entrant.objects.get(pk=open_fixture["away"]["id"])
    assert client.post(f"/api/entrants/{leaving.pk}/withdraw/", {}, format="json").status_code == 200
    after = client.get(f"/api/fixtures/{open_fixture['id']}/").json()
    assert after["status"] == "walkover" and after["result"]["outcome"] == "walkover"
    assert after["result"]["outcome_side"] == "away"
    play_round(client, competition, 2)
    assert pair(client, competition).status_code == 201
    third = pairings(client, competition, 3)
    assert leaving.name not in {name for p in third for name in p}
    assert len(third) == 3 and third[-1][1] is None  # five left: one rests
    rows = table(client, competition)
    assert rows[leaving.name]["played"] == 2  # its results stand (the walkover counted as a game)


def test_a_swiss_keeps_a_withdrawn_entrants_results_whatever_it_was_given():
    """FIDE C.04.1: the others' Buchholz and the pairings rest on what a withdrawn entrant
    played, so a Swiss never annuls it: made without a policy it takes ``forfeit_remaining``,
    and ``annul`` is refused naming the field, nothing stored."""
    client, _user = organiser()
    refused = client.post("/api/competitions/", {"name": "Open annul", "slug": "annul", "format": "swiss",
                                                 "rounds": 3, "withdrawal_policy": "annul"}, format="json")
    assert refused.status_code == 400 and "withdrawal_policy" in refused.json(), refused.content
    assert not Competition.objects.filter(slug="annul").exists()
    competition = swiss_of(client, 6, rounds=4, slug="keeps")
    assert client.get(f"/api/competitions/{competition.slug}/").json()["withdrawal_policy"] == "forfeit_remaining"
    changed = client.patch(f"/api/competitions/{competition.slug}/", {"withdrawal_policy": "annul"}, format="json")
    assert changed.status_code == 400 and "withdrawal_policy" in changed.json()
    assert pair(client, competition).status_code == 201
    play_round(client, competition, 1)
    winner_of = {f["away"]["name"]: f["home"]["name"] for f in round_fixtures(client, competition, 1) if f["away"]}
    leaving_name, beaten_by = next(iter(winner_of.items()))
    leaving = Entrant.objects.get(competition=competition, name=leaving_name)
    assert client.post(f"/api/entrants/{leaving.pk}/withdraw/", {}, format="json").status_code == 200
    rows = table(client, competition)
    assert rows[beaten_by]["won"] == 1 and rows[leaving_name]["played"] == 1  # the result it played stands


def test_the_settings_page_gives_a_new_swiss_its_own_withdrawal_policy():
    from .test_permissions import _competition_form

    user = get_user_model().objects.create_user(username="swiss-form", password="pw-swiss-1")
    user.user_permissions.add(Permission.objects.get(codename="add_competition", content_type__app_label="leagues"))
    page = Client()
    page.force_login(user)
    form = {**_competition_form("Open form", slug="open-form"), "format": "swiss", "rounds": "5",
            "tiebreak_preset": "fide_swiss"}
    made = page.post("/manage/new/", form)
    assert made.status_code == 302, made.context["form"].errors if made.context else made
    assert Competition.objects.get(slug="open-form").withdrawal_policy == "forfeit_remaining"


def test_a_late_entrant_joins_from_the_next_round_at_zero_points():
    client, _user = organiser()
    competition = swiss_of(client, 5, rounds=3)
    assert pair(client, competition).status_code == 201
    late = client.post("/api/entrants/", {"competition": competition.slug, "name": "Late"}, format="json")
    assert late.status_code == 201, late.content
    play_round(client, competition, 1)
    rows = table(client, competition)
    assert rows["Late"]["points"] == 0 and rows["Late"]["played"] == 0
    assert pair(client, competition).status_code == 201
    second = pairings(client, competition, 2)
    assert len(second) == 3 and all(away is not None for _home, away in second)  # six now: no bye
    assert any("Late" in p for p in second)
    play_round(client, competition, 2)
    assert pair(client, competition).status_code == 201
    play_round(client, competition, 3)
    refused = client.post("/api/entrants/", {"competition": competition.slug, "name": "Too late"}, format="json")
    assert refused.status_code == 400 and "competition" in refused.json()


def test_a_correction_of_round_one_moves_the_standings_not_the_pairings_made_since():
    client, _user = organiser()
    competition = swiss_of(client, 4, rounds=3)
    assert pair(client, competition).status_code == 201
    play_round(client, competition, 1)
    assert pair(client, competition).status_code == 201
    second = pairings(client, competition, 2)
    first = round_fixtures(client, competition, 1)[0]
    winner, loser = first["home"]["name"], first["away"]["name"]
    assert table(client, competition)[winner]["points"] == 3
    corrected = client.post(f"/api/fixtures/{first['id']}/result/", {"home_goals": 0, "away_goals": 3},
                            format="json")
    assert corrected.status_code == 200, corrected.content
    rows = table(client, competition)
    assert rows[winner]["points"] == 0 and rows[loser]["points"] == 3
    assert pairings(client, competition, 2) == second


def test_two_requests_at_once_pair_one_round():
    if connection.vendor != "postgresql":
        pytest.skip("the row lock is PostgreSQL's")
    client, user = organiser()
    competition = swiss_of(client, 8, rounds=3)
    answers: list[int] = []
    barrier = threading.Barrier(2)

    def request():
        mine = APIClient()
        mine.force_authenticate(user)
        barrier.wait()
        try:
            answers.append(pair(mine, competition).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=request) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [201, 409]
    assert competition.fixtures.count() == 4 and competition.stages.count() == 1


# --- exports, calendar, import ---------------------------------------------------------------------------


def played_swiss(client) -> Competition:
    """Five entrants, three rounds played (a bye each round), a draw and a walkover among them."""
    competition = swiss_of(client, 5, rounds=3, slug="five")
    for number in (1, 2, 3):
        assert pair(client, competition).status_code == 201
        fixtures = [f for f in round_fixtures(client, competition, number) if f["status"] == "scheduled"]
        scores = [{"home_goals": 1, "away_goals": 1}, {"outcome": "walkover", "outcome_side": "home"}]
        for fixture, body in zip(fixtures, scores if number == 2 else [{"home_goals": 2, "away_goals": 1}] * 2,
                                 strict=True):
            assert client.post(f"/api/fixtures/{fixture['id']}/result/", body, format="json").status_code == 200
    return competition


def test_exports_list_the_byes_and_the_calendar_has_no_event_for_them():
    client, _user = organiser()
    competition = played_swiss(client)
    results = list(csv.DictReader(io.StringIO(
        Client().get(f"/competitions/{competition.slug}/export/results.csv").content.decode("utf-8-sig"))))
    byes = [row for row in results if row["away"] == ""]
    assert len(results) == 9 and len(byes) == 3
    assert [row["round"] for row in byes] == ["1", "2", "3"] and byes[0]["home"] == "P5"
    assert all(row["home_goals"] == row["away_goals"] == "" for row in byes)
    fixtures = list(csv.DictReader(io.StringIO(
        Client().get(f"/competitions/{competition.slug}/export/fixtures.csv").content.decode("utf-8-sig"))))
    assert [(row["home"], row["away"], row["status"]) for row in fixtures if row["status"] == "bye"] == [
        (f.home.name, "", "bye") for f in competition.fixtures.filter(status="bye").order_by("round__number")]
    first = competition.fixtures.get(round__number=1, status="bye")
    sheet = Client().get(f"/competitions/{competition.slug}/rounds/{first.round_id}/print/").content.decode()
    assert "Bye:" in sheet and first.home.name in sheet
    # each round's page shows its bye; the competition's page (every round played) the last round's
    for n in (1, 2, 3):
        page = Client().get(f"/competitions/{competition.slug}/rounds/{n}/").content.decode()
        assert page.count('<span class="score pending">bye</span>') == 1
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    assert page.count('<span class="score pending">bye</span>') == 1
    placings = client.get(f"/api/competitions/{competition.slug}/placings/").json()
    assert sorted(row["place"] for row in placings) == [1, 2, 3, 4, 5]  # from the one table
    xlsx = Client().get(f"/competitions/{competition.slug}/export/results.xlsx")
    assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"
    ics = Client().get(f"/competitions/{competition.slug}/calendar.ics").content.decode()
    assert ics.count("BEGIN:VEVENT") == 6  # the six matches; no event for the three byes


def test_an_exported_swiss_imported_into_a_new_swiss_gives_the_same_standings():
    client, _user = organiser()
    competition = played_swiss(client)
    text = Client().get(f"/competitions/{competition.slug}/export/results.csv").content.decode("utf-8-sig")
    copy = Competition.objects.create(name="Copy", slug="copy", format="swiss", rounds=3,
                                      tiebreak_preset="fide_swiss", lots_seed=competition.lots_seed)
    results_import(competition=copy, text=text)
    assert copy.fixtures.filter(status=Fixture.Status.BYE, away__isnull=True).count() == 3

    def shown(c):
        return [(r["position"], r["entrant"], r["points"], r["played"], r["tiebreak"])
                for r in client.get(f"/api/competitions/{c.slug}/standings/").json()["tables"][0]["rows"]]

    assert shown(copy) == shown(competition)
