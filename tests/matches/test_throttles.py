"""The action API's rate (issue 15): a player's submissions are limited per user
(``THROTTLE_ACTIONS_RATE``); reading the log, the board's feed and the pages are not."""
from __future__ import annotations

import pytest
from django.core.cache.backends.redis import RedisCache
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from config.throttling import ScopedRateThrottle
from tests.matches.test_online import live_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def slow_rate(monkeypatch):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "match-actions", "2/min")


def test_submissions_are_limited_per_user(stub_referee, slow_rate):
    match, home, away = live_match()
    client = APIClient()
    client.force_authenticate(home)
    url = f"/api/matches/{match.pk}/actions/"
    # refused answers count too: the limit is on requests, whatever they carry
    statuses = [client.post(url, {"seq": 99, "action": {"type": "ready"}}, format="json").status_code
                for _ in range(3)]
    assert statuses[:2] != [429, 429] and statuses[2] == 429
    other = APIClient()
    other.force_authenticate(away)
    assert other.post(url, {"seq": 99, "action": {"type": "ready"}}, format="json").status_code != 429


def test_reads_are_not_limited(stub_referee, slow_rate):
    match, home, _away = live_match()
    anonymous = APIClient()
    for _ in range(10):
        assert anonymous.get(f"/api/matches/{match.pk}/actions/").status_code == 200
        assert anonymous.get(f"/matches/{match.pk}/feed/").status_code == 200
        assert anonymous.get(f"/api/matches/{match.pk}/").status_code == 200


def test_a_redis_outage_lets_submissions_through(stub_referee, slow_rate, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "cache", RedisCache("redis://127.0.0.1:1/0", {}))
    match, home, _away = live_match()
    client = APIClient()
    client.force_authenticate(home)
    for _ in range(4):
        response = client.post(f"/api/matches/{match.pk}/actions/", {"seq": 99, "action": {"type": "ready"}},
                               format="json")
        assert response.status_code < 500 and response.status_code != 429
