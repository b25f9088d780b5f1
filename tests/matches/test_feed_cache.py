"""The spectators' poll (issue 20): answered from the cache while the match has not moved, a
304 to a client that sends the ETag back, never a player's view from the shared copy."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tests.matches.test_online import flick, live_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(stub_referee):
    cache.clear()
    return live_match(timezone.now())


def test_a_spectators_poll_with_nothing_new_is_a_cached_answer_then_a_304(watched, django_assert_max_num_queries):
    match, home, _away = watched
    spectator = Client()
    url = f"/matches/{match.pk}/feed/?after=0"
    first = spectator.get(url)
    assert first.status_code == 200 and first["ETag"]
    assert first.json()["match"]["seq"] == 0 and first.json()["match"]["server_now"]
    with django_assert_max_num_queries(1):  # the match's head; the answer from the cache
        again = spectator.get(url)
    assert again.json()["match"]["state_hash"] == first.json()["match"]["state_hash"]
    with django_assert_max_num_queries(1):
        assert spectator.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    player = APIClient()
    player.force_authenticate(home)
    assert player.post(f"/api/matches/{match.pk}/actions/", {"seq": 1, "action": flick("9", 2100)},
                       format="json").status_code == 201
    moved = spectator.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    assert moved.json()["match"]["seq"] == 1 and [r["seq"] for r in moved.json()["actions"]] == [1]


def test_a_players_poll_is_their_own_never_the_spectators_copy(watched):
    match, home, _away = watched
    url = f"/matches/{match.pk}/feed/?after=0"
    assert Client().get(url).json()["match"]["your_side"] is None
    player = Client()
    player.force_login(home)
    assert player.get(url).json()["match"]["your_side"] == "home"


def test_an_unknown_match_or_a_bad_after_is_refused():
    assert Client().get("/matches/999999/feed/?after=0").status_code == 404
    assert Client().get("/matches/999999/feed/?after=x").status_code == 400


@pytest.mark.parametrize("after", ["-1", "1" * 30, "2147483648", "x", "%205", "1_0", "١"])
def test_the_feed_refuses_the_afters_the_socket_closes_on(watched, after):
    match, _home, _away = watched
    for client in (Client(), APIClient()):  # a spectator's poll (cached path) and the whole way
        assert client.get(f"/matches/{match.pk}/feed/?after={after}").status_code == 400, after


def test_an_after_beyond_the_last_row_finds_nothing_new(watched):
    match, _home, _away = watched
    response = Client().get(f"/matches/{match.pk}/feed/?after=2147483647")
    assert response.status_code == 200 and response.json()["actions"] == []
