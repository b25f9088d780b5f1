"""Entrants in bulk, all or none (API and site): licensed players by id or licence number, their
licences checked as sign-up checks them; unregistered entrants by name; a pasted list; a CSV
(name, licence number, club, seed). Every refused line is named and nothing is added."""
from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import ClubMembership, Competition, Entrant
from tests.leagues.factories import ClubFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/competitions/{slug}/entrants/bulk/"


@pytest.fixture
def world():
    club = ClubFactory(name="Mesa Verde", slug="mesa-verde")
    other = ClubFactory(name="Botão Azul", slug="botao-azul")
    players = []
    for i in range(24):
        p = PlayerFactory(first_name=f"Ana{i:02d}", last_name="Costa", licence_number=f"BR-{i:04d}")
        ClubMembership.objects.create(player=p, club=club if i % 2 else other, start_date=date(2020, 1, 1))
        players.append(p)
    # the 18th's licence lapsed before the competition's first day
    ClubMembership.objects.filter(player=players[17]).update(end_date=date(2027, 1, 31))
    competition = Competition.objects.create(name="Open", slug="open-bulk", first_date=date(2027, 2, 6))
    organiser = UserFactory(username="org")
    competition.organisers.add(organiser)
    api = APIClient()
    api.force_authenticate(organiser)
    site = Client()
    site.force_login(organiser)
    return {"competition": competition, "players": players, "api": api, "site": site, "club": club}


def post(world, body):
    return world["api"].post(URL.format(slug=world["competition"].slug), body, format="json")


def test_24_players_with_one_lapsed_licence_are_all_refused_naming_that_one(world):
    ids = [p.pk for p in world["players"]]
    response = post(world, {"players": ids})
    assert response.status_code == 400
    assert response.json() == {"errors": [{"line": 18, "detail": "Ana17 Costa has no licence valid on 6 Feb 2027"}]}
    assert not Entrant.objects.filter(competition=world["competition"]).exists()

    response = post(world, {"licence_numbers": [p.licence_number for p in world["players"]]})
    assert response.status_code == 400 and [e["line"] for e in response.json()["errors"]] == [18]

    ClubMembership.objects.filter(player=world["players"][17]).update(end_date=None)
    response = post(world, {"players": ids})
    assert response.status_code == 201
    made = response.json()
    assert len(made) == 24 and made[1]["name"] == "Ana01 Costa (Mesa Verde)"
    assert Entrant.objects.filter(competition=world["competition"]).count() == 24
    # again: each one is entered already, all refused
    again = post(world, {"players": ids[:2]})
    assert again.status_code == 400 and [e["line"] for e in again.json()["errors"]] == [1, 2]


def test_unregistered_entrants_with_clubs_and_seeds_each_refusal_by_its_line(world):
    response = post(world, {"entrants": [{"name": "Rui", "club": "mesa-verde", "seed": 1},
                                         {"name": "Rui", "seed": 2}, {"name": "Zé", "seed": 1},
                                         {"name": "Lia", "club": "Nowhere FC"}]})
    assert response.status_code == 400
    assert [e["line"] for e in response.json()["errors"]] == [4]  # the club is read first
    response = post(world, {"entrants": [{"name": "Rui", "club": "mesa-verde", "seed": 1},
                                         {"name": "Rui", "seed": 2}, {"name": "Zé", "seed": 1}]})
    assert response.status_code == 400
    assert [e["line"] for e in response.json()["errors"]] == [2, 3]
    assert not Entrant.objects.filter(competition=world["competition"]).exists()
    response = post(world, {"entrants": [{"name": "Rui", "club": "Mesa Verde", "seed": 1}, {"name": "Zé"}]})
    assert response.status_code == 201
    assert [(e["name"], e["seed"]) for e in response.json()] == [("Rui", 1), ("Zé", None)]
    assert Entrant.objects.get(name="Rui").club == world["club"]


def test_one_kind_of_list_a_known_player_and_only_organisers(world):
    assert post(world, {}).status_code == 400
    assert post(world, {"players": [1], "entrants": [{"name": "x"}]}).status_code == 400
    response = post(world, {"players": [world["players"][0].pk, 99999999]})
    assert response.status_code == 400 and response.json()["errors"] == [
        {"line": 2, "detail": "no player with id 99999999"}]
    stranger = APIClient()
    stranger.force_authenticate(UserFactory(username="stranger"))
    assert stranger.post(URL.format(slug="open-bulk"), {"entrants": [{"name": "x"}]}, format="json").status_code == 403


def test_the_site_adds_picked_players_a_pasted_list_and_a_csv(world):
    site, competition = world["site"], world["competition"]
    action = f"/manage/{competition.slug}/entrants/bulk/"
    page = site.get(f"{action}?club=mesa-verde").content.decode()
    assert "Ana01 Costa" in page and "Ana00 Costa" not in page  # the club's players only
    response = site.post(action, {"how": "pick", "players": [world["players"][1].pk, world["players"][3].pk]})
    assert response.status_code == 302
    assert Entrant.objects.filter(competition=competition).count() == 2

    response = site.post(action, {"how": "paste", "text": "BR-0004\nRui Lopes\n\nBR-0017"})
    assert response.status_code == 200  # refused: line 4's licence lapsed
    assert "Line 4" in response.content.decode() and "no licence valid" in response.content.decode()
    assert Entrant.objects.filter(competition=competition).count() == 2
    assert site.post(action, {"how": "paste", "text": "BR-0004\nRui Lopes"}).status_code == 302
    assert set(Entrant.objects.filter(competition=competition).values_list("name", flat=True)) >= {
        "Ana04 Costa (Botão Azul)", "Rui Lopes"}

    csv_file = SimpleUploadedFile("entrants.csv", b"name,licence_number,club,seed\nBia,,mesa-verde,3\n,BR-0006,,4\n")
    assert site.post(action, {"how": "csv", "file": csv_file}).status_code == 302
    assert Entrant.objects.get(competition=competition, seed=3).name == "Bia"
    assert Entrant.objects.get(competition=competition, seed=4).player == world["players"][6]
