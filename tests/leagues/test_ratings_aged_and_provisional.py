"""Ratings that age while a player does not play, and say when they are provisional
(COMPETITIONS.md §11): Glicko-2's step 6 up to the current period, ``provisional`` on every
row, and seeding by the conservative rating (rating less twice the deviation)."""
from __future__ import annotations

from datetime import date

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import ClubMembership, Competition, Entrant, PlayerRating
from leagues.rules import ratings
from leagues.selectors.year import rating_now
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.ratings import ratings_recompute
from leagues.services.results import result_record
from tests.leagues.factories import ClubFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def _league(names, first_date):
    club = ClubFactory()
    players = {}
    competition = Competition.objects.create(name="Liga 2025", slug="liga-2025", first_date=first_date)
    for i, name in enumerate(names, start=1):
        player = PlayerFactory(first_name=name, last_name="Aged")
        ClubMembership.objects.create(player=player, club=club, start_date=date(2020, 1, 1))
        entrant_add(competition=competition, player=player, seed=i)
        players[name] = player
    fixtures_generate(competition=competition)
    return competition, players


def _play(competition, players, home, away, goals, day):
    fixture = (competition.fixtures.filter(home__player=players[home], away__player=players[away]).first()
               or competition.fixtures.get(home__player=players[away], away__player=players[home]))
    fixture.date = day
    fixture.save(update_fields=["date"])
    scored = goals if fixture.home.player_id == players[home].pk else goals[::-1]
    result_record(fixture=fixture, home_goals=scored[0], away_goals=scored[1])


def test_a_player_inactive_for_22_months_has_the_deviation_aged_and_is_provisional():
    competition, players = _league(["Ana", "Bruno", "Caio"], date(2025, 1, 5))
    _play(competition, players, "Ana", "Bruno", (2, 0), date(2025, 1, 5))
    _play(competition, players, "Ana", "Caio", (3, 1), date(2025, 1, 12))
    _play(competition, players, "Bruno", "Caio", (1, 1), date(2025, 2, 9))  # the last game of anyone: February
    ratings_recompute()
    ana = players["Ana"].pk
    january = PlayerRating.objects.get(player=ana, period_start=date(2025, 1, 1))
    assert round(january.deviation, 1) == 253.4  # two wins in January 2025

    with time_machine.travel("2026-12-15 12:00:00+00:00", tick=False):
        body = APIClient().get(f"/api/ratings/{ana}/").json()
        listed = {row["player"]: row for row in APIClient().get("/api/ratings/").json()["results"]}
    current = body["current"]
    assert current["period_start"] == "2026-12-01"
    assert round(current["deviation"]) == 258 and current["deviation"] > 258  # 253.4 widened 23 times
    assert current["provisional"] is True and current["games"] == 0
    assert set(current) >= {"period_start", "rating", "deviation", "volatility", "games", "wins", "draws", "losses",
                            "provisional"}
    assert body["history"][-1]["period_start"] == "2025-02-01" and round(body["history"][-1]["deviation"], 1) == 253.6
    assert all("provisional" in row for row in body["history"])
    assert listed[ana]["deviation"] == current["deviation"] and listed[ana]["provisional"] is True


def test_the_deviation_ages_by_glicko2_step_6_and_stops_at_350():
    start = ratings.Rating(1500, 60, 0.06)
    once = ratings.aged(start, 1)
    phi, sigma = 60 / 173.7178, 0.06
    assert abs(once.deviation - 173.7178 * (phi ** 2 + sigma ** 2) ** 0.5) < 1e-9
    assert ratings.aged(start, 10_000).deviation == 350
    row = PlayerRating(player_id=1, period_start=date(2026, 12, 1), rating=1500, deviation=60, volatility=0.06)
    assert rating_now(row, today=date(2026, 12, 31)) is row  # the current period: nothing to age


def _field(ratings_by_name):
    club = ClubFactory()
    cup = Competition.objects.create(name="Open", slug="open", format=Competition.Format.KNOCKOUT,
                                     first_date=date(2026, 12, 20))
    players = {}
    for i, (name, (rating, deviation, games)) in enumerate(ratings_by_name.items(), start=1):
        player = PlayerFactory(first_name=name, last_name="Seeded")
        ClubMembership.objects.create(player=player, club=club, start_date=date(2020, 1, 1))
        PlayerRating.objects.create(player=player, period_start=date(2026, 12, 1), rating=rating, deviation=deviation,
                                    volatility=0.06, games=games, wins=games)
        entrant_add(competition=cup, player=player, seed=i)
        players[name] = player
    return cup, players


def test_a_newcomer_with_one_win_is_seeded_below_established_players():
    cup, players = _field({"Newcomer": (1662, 290, 1), "Elena": (1580, 55, 40), "Fabio": (1540, 60, 35),
                           "Gil": (1500, 70, 20)})
    fixtures_generate(competition=cup, seeding="rating")
    seeds = {e.player_id: e.seed for e in Entrant.objects.filter(competition=cup)}
    assert seeds[players["Elena"].pk] == 1 and seeds[players["Fabio"].pk] == 2 and seeds[players["Gil"].pk] == 3
    assert seeds[players["Newcomer"].pk] == 4
    page = Client().get(f"/competitions/{cup.slug}/").content.decode()
    assert "less twice its deviation" in page
    ratings_page = Client().get("/ratings/").content.decode()
    assert 'class="provisional"' in ratings_page and ratings_page.count('class="provisional"') == 1


def test_the_ratings_list_takes_no_ordering_or_search_parameters_and_never_fails_on_them():
    _field({"Elena": (1580, 55, 40), "Newcomer": (1662, 290, 1)})
    for query in ("?ordering=rating", "?search=Elena", "?page=1"):
        response = APIClient().get(f"/api/ratings/{query}")
        assert response.status_code == 200, query
        assert [row["player_name"] for row in response.json()["results"]][0] == "Newcomer Seeded"
