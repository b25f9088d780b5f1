"""The federation ranking (issue 19): final placings, points by placing times the tier, a window."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.test import Client

from leagues.models import ClubMembership, Competition, Fixture, Placing, RankingScale, RankingTier
from leagues.rules import placings as placing
from leagues.selectors.year import federation_ranking, rank_history
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.ratings import ratings_recompute
from leagues.services.results import result_record
from tests.leagues.factories import ClubFactory, PlayerFactory, UserFactory

KO = placing.KnockoutGame


def test_a_knockout_places_by_how_far_each_went_and_the_third_place_match_decides_third():
    games = [KO(1, False, 1, 8, 1, True), KO(1, False, 4, 5, 5, True), KO(1, False, 2, 7, 2, True),
             KO(1, False, 3, 6, 6, True), KO(2, False, 1, 5, 1, True), KO(2, False, 2, 6, 6, True),
             KO(3, False, 1, 6, 6, True), KO(3, True, 5, 2, 2, True)]
    places = placing.knockout_places(games, rounds=3)
    assert places[6] == placing.Band(1, 1) and places[1] == placing.Band(2, 2)
    assert places[2] == placing.Band(3, 3) and places[5] == placing.Band(4, 4)
    assert {places[e] for e in (8, 4, 7, 3)} == {placing.Band(5, 8)}


def test_without_a_third_place_match_both_losing_semi_finalists_share_third_and_fourth():
    games = [KO(1, False, 1, 4, 1, True), KO(1, False, 2, 3, 3, True), KO(2, False, 1, 3, 3, True)]
    places = placing.knockout_places(games, rounds=2, others=[9, 10], withdrawn=[10])
    assert places == {3: placing.Band(1, 1), 1: placing.Band(2, 2), 4: placing.Band(3, 4), 2: placing.Band(3, 4),
                      9: placing.Band(5, 6)}


def test_a_bye_goes_on_and_a_table_shares_the_places_it_cannot_separate():
    games = [KO(1, False, 1, None, 1, True), KO(1, False, 2, 3, 2, True), KO(2, False, 1, 2, 2, True)]
    assert placing.knockout_places(games, rounds=2) == {
        2: placing.Band(1, 1), 1: placing.Band(2, 2), 3: placing.Band(3, 4)}
    assert placing.table_places([("a", 1, False), ("b", 2, True), ("c", 2, True), ("d", 4, False)]) == {
        "a": placing.Band(1, 1), "b": placing.Band(2, 3), "c": placing.Band(2, 3), "d": placing.Band(4, 4)}


def test_points_by_placing_times_the_tier_over_a_rolling_window_with_the_explanation():
    def finish(player, comp, place, day, factor=1, place_to=None):
        return placing.Finish(player=player, competition=comp, competition_name=f"Cup {comp}",
                              band=placing.Band(place, place_to or place), finished_on=day, factor=Decimal(factor))

    finishes = [finish("ana", 1, 1, date(2026, 5, 1)), finish("ana", 2, 3, date(2026, 9, 1), place_to=4),
                finish("rui", 1, 2, date(2026, 5, 1)), finish("rui", 3, 1, date(2026, 10, 1), factor="0.5"),
                finish("old", 4, 1, date(2025, 6, 1)), finish("lia", 2, 17, date(2026, 9, 1), place_to=20)]
    rows = placing.rank(finishes, at=date(2026, 11, 30))
    assert [(r.player, r.rank, r.points) for r in rows] == [
        ("ana", 1, Decimal(150)), ("rui", 2, Decimal(120)), ("lia", 3, Decimal(5))]
    assert rows[0].explanation == "from 2 competitions: 1st in Cup 1 (100), 3rd-4th in Cup 2 (50)"
    assert rows[1].explanation == "from 2 competitions: 2nd in Cup 1 (70), 1st in Cup 3 (50)"
    # a year later the May placings have left the window; equal points share a rank
    later = placing.rank(finishes, at=date(2027, 5, 1))
    assert [(r.player, r.rank, r.shared) for r in later] == [("ana", 1, True), ("rui", 1, True), ("lia", 3, False)]
    assert placing.Scale(first=25).points(1) == 25 and placing.Scale().points(40) == 5


def _players(n):
    club = ClubFactory()
    players = []
    for i in range(n):
        player = PlayerFactory(first_name=f"P{i}", last_name=f"Cup{i}", user=UserFactory(username=f"cup{i}"))
        ClubMembership.objects.create(player=player, club=club, start_date=date(2020, 1, 1))
        players.append(player)
    return players


def finished_cup(players, *, slug="cup", tier=None, first_date=date(2026, 9, 6)) -> Competition:
    """A four-player knockout with a third-place match, played to the end: the home side wins."""
    cup = Competition.objects.create(name=f"Cup {slug}", slug=slug, format=Competition.Format.KNOCKOUT,
                                     third_place_match=True, first_date=first_date, ranking_tier=tier)
    for seed, player in enumerate(players, start=1):
        entrant_add(competition=cup, player=player, seed=seed)
    fixtures_generate(competition=cup)
    while True:
        fixture = cup.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False,
                                      away__isnull=False).order_by("round__number", "position").first()
        if fixture is None:
            break
        result_record(fixture=fixture, home_goals=2, away_goals=0)
    return cup


@pytest.mark.django_db
def test_a_finished_cup_gives_placings_and_the_ranking_page_and_api_explain_them():
    players = _players(4)
    major = RankingTier.objects.create(name="Major", factor=Decimal(2))
    cup = finished_cup(players, tier=major)
    ratings_recompute()
    placings = {p.player_id: (p.place, p.place_to) for p in Placing.objects.filter(competition=cup)}
    # 1 v 4 and 2 v 3: the home sides (1, 2) win; the final 1 v 2 -> 1; third place 4 v 3 -> 4
    assert placings == {players[0].pk: (1, 1), players[1].pk: (2, 2), players[3].pk: (3, 3), players[2].pk: (4, 4)}
    rows = federation_ranking(at=date(2026, 12, 1))
    assert [(r.player.pk, r.row.points) for r in rows] == [  # 3rd and 4th both 50 x 2: listed by id
        (players[0].pk, 200), (players[1].pk, 140), (players[2].pk, 100), (players[3].pk, 100)]
    assert rows[0].row.explanation == "from 1 competition: 1st in Cup cup (200)"
    assert rows[2].rank == rows[3].rank == 3

    client = Client()
    page = client.get("/ranking/?at=2026-12-01").content.decode()
    assert "from 1 competition: 1st in Cup cup (200)" in page
    body = client.get("/api/ranking/?at=2026-12-01").json()
    assert body["rows"][0]["explanation"] == "from 1 competition: 1st in Cup cup (200)"
    assert body["rows"][0]["finishes"][0]["placing"] == "1st"
    assert client.get("/api/ranking/?at=soon").status_code == 400
    history = client.get(f"/api/ranking/history/{players[0].pk}/?at=2026-12-01").json()
    assert history[-1] == {"day": "2026-12-01", "rank": 1, "points": "200"}
    assert history[0]["rank"] is None  # January 2026: nothing finished yet
    # the player's page: the rank and the charts
    player_page = client.get(f"/players/{players[0].pk}/").content.decode()
    assert "<svg" in player_page and "Federation ranking" in player_page


@pytest.mark.django_db
def test_the_scale_and_tiers_change_the_ranking_at_once_and_only_federation_admins_change_them():
    players = _players(4)
    finished_cup(players)
    ratings_recompute()
    RankingScale.objects.create(pk=1, first=10)
    rows = federation_ranking(at=date(2026, 12, 1))
    assert [(r.player.pk, r.row.points) for r in rows[:2]] == [(players[1].pk, 70), (players[2].pk, 50)]
    assert rank_history(player=players[0], at=date(2026, 12, 1))[-1][1:] == (4, 10)
    client = Client()
    client.force_login(UserFactory(username="someone"))
    assert client.put("/api/ranking/scale/", {"first": 50}, content_type="application/json").status_code == 403
    client.force_login(UserFactory(username="boss", is_superuser=True))
    response = client.patch("/api/ranking/scale/", {"window_months": 0}, content_type="application/json")
    assert response.status_code == 400 and "window_months" in response.json()
    assert client.patch("/api/ranking/scale/", {"first": 160}, content_type="application/json").status_code == 200
    assert federation_ranking(at=date(2026, 12, 1))[0].player == players[0]
    assert federation_ranking(at=date(2026, 12, 1))[0].row.points == 160
