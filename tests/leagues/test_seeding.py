"""Seeding the draw (issue 19): by hand, by rating, by ranking; the draw says which."""
from __future__ import annotations

from datetime import date

import pytest
from django.test import Client

from leagues.models import ClubMembership, Competition, Entrant, PlayerRating
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.ratings import ratings_recompute
from leagues.services.seeding import SeedingError
from leagues.services.tokens import token_create
from tests.leagues.factories import ClubFactory, PlayerFactory, UserFactory
from tests.leagues.test_federation_ranking import finished_cup


def _field(n, **kwargs):
    club = ClubFactory()
    players = []
    for i in range(n):
        player = PlayerFactory(first_name=f"S{i}", last_name=f"Seed{i}")
        ClubMembership.objects.create(player=player, club=club, start_date=date(2020, 1, 1))
        players.append(player)
    cup = Competition.objects.create(name="Open", slug="open", format=Competition.Format.KNOCKOUT,
                                     first_date=date(2026, 12, 20), **kwargs)
    for i, player in enumerate(players):
        entrant_add(competition=cup, player=player, seed=i + 1)
    return cup, players


def _seeds(cup):
    return {e.player_id: e.seed for e in Entrant.objects.filter(competition=cup)}


@pytest.mark.django_db
def test_by_rating_the_highest_rating_is_seed_one_and_unrated_entrants_come_last():
    cup, players = _field(4)
    for player, value in ((players[2], 1700), (players[1], 1600)):
        PlayerRating.objects.create(player=player, period_start=date(2026, 11, 1), rating=value, deviation=60,
                                    volatility=0.06)
    fixtures_generate(competition=cup, seeding="rating")
    assert _seeds(cup) == {players[2].pk: 1, players[1].pk: 2, players[0].pk: 3, players[3].pk: 4}
    cup.refresh_from_db()
    assert cup.seeding == "rating" and cup.seeded_at is not None
    first = cup.fixtures.get(round__number=1, position=0)
    assert {first.home.player_id, first.away.player_id} == {players[2].pk, players[3].pk}  # 1 v 4
    page = Client().get(f"/competitions/{cup.slug}/").content.decode()
    assert "Seeded by rating at the draw" in page


@pytest.mark.django_db
def test_by_ranking_the_most_points_is_seed_one_and_by_hand_the_typed_seeds_stay():
    earlier = [PlayerFactory(first_name=f"R{i}", last_name="Ranked") for i in range(4)]
    for p in earlier:
        ClubMembership.objects.create(player=p, club=ClubFactory(), start_date=date(2020, 1, 1))
    finished_cup(earlier, slug="earlier", first_date=date(2026, 10, 1))
    ratings_recompute()
    cup = Competition.objects.create(name="Open", slug="open", format=Competition.Format.KNOCKOUT)
    for seed, player in enumerate(reversed(earlier), start=1):
        entrant_add(competition=cup, player=player, seed=seed)
    hand = Competition.objects.create(name="Hand", slug="hand", format=Competition.Format.KNOCKOUT)
    for seed, player in enumerate(reversed(earlier), start=1):
        entrant_add(competition=hand, player=player, seed=seed)
    fixtures_generate(competition=cup, seeding="ranking")
    assert [e.player_id for e in cup.entrants.order_by("seed")][:2] == [earlier[0].pk, earlier[1].pk]
    fixtures_generate(competition=hand)
    assert [e.player_id for e in hand.entrants.order_by("seed")] == [p.pk for p in reversed(earlier)]
    assert Competition.objects.get(pk=hand.pk).seeding == "hand"


@pytest.mark.django_db
def test_the_api_takes_the_seeding_and_names_the_field_when_it_is_unknown():
    cup, _players = _field(3)
    organiser = UserFactory(username="org")
    cup.organisers.add(organiser)
    client = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=organiser)[1]}")
    bad = client.post(f"/api/competitions/{cup.slug}/generate-fixtures/", {"seeding": "luck"},
                      content_type="application/json")
    assert bad.status_code == 400 and "seeding" in bad.json()
    good = client.post(f"/api/competitions/{cup.slug}/generate-fixtures/", {"seeding": "rating"},
                       content_type="application/json")
    assert good.status_code == 201 and good.json()["seeding"] == "rating"
    assert client.get(f"/api/competitions/{cup.slug}/").json()["seeding"] == "rating"
    with pytest.raises(SeedingError):
        fixtures_generate(competition=Competition.objects.create(name="X", slug="x"), seeding="luck")
