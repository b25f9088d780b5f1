"""Brute force (issue 15): lockouts of the pair (account, address) and of an address on its own,
on both login pages and the token endpoint; a refused attempt hashes no password; the token
endpoint's and the action API's rates; a Redis outage makes no 5xx."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache.backends.redis import RedisCache
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from config.throttling import ScopedRateThrottle

pytestmark = pytest.mark.django_db

LIMIT = 5  # AXES_FAILURE_LIMIT's default
ATTACKER, OTHER = "203.0.113.7", "198.51.100.20"


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ana():
    return get_user_model().objects.create_user("ana", password="right-Password-1")


def login_page(path, username, password, address):
    client = Client(REMOTE_ADDR=address)
    return client.post(path, {"username": username, "password": password})


def token(username, password, address, fmt="json"):
    client = APIClient(REMOTE_ADDR=address)
    return client.post("/api/auth/token/", {"username": username, "password": password}, format=fmt)


def signed_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.client.session


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_a_login_page_locks_the_pair_after_the_limit_and_not_the_account_elsewhere(ana, path, hashes):
    ana.is_staff = True
    ana.save()
    statuses = [login_page(path, "ana", f"guess-{i}", ATTACKER).status_code for i in range(LIMIT)]
    assert statuses[:-1] == [200] * (LIMIT - 1) and statuses[-1] == 429
    hashed = len(hashes)
    # locked: even the right password is refused from the guesser's address, and hashes nothing
    refused = login_page(path, "ana", "right-Password-1", ATTACKER)
    assert refused.status_code == 429
    assert "Too many failed sign-ins" in refused.content.decode() and refused["Retry-After"] == "900"
    assert len(hashes) == hashed
    # ...while ana, from her own address, signs in
    assert signed_in(login_page(path, "ana", "right-Password-1", OTHER))
    # ...and another account from the guesser's address is not locked by ana's pair
    get_user_model().objects.create_user("bea", password="bea-Password-2", is_staff=True)
    assert signed_in(login_page(path, "bea", "bea-Password-2", ATTACKER))


def test_the_token_endpoint_locks_the_pair_with_a_429_in_json(ana, hashes):
    for i in range(LIMIT - 1):
        assert token("ana", f"guess-{i}", ATTACKER).status_code == 400
    last = token("ana", "guess-last", ATTACKER)
    assert last.status_code == 429 and last.json()["error"] == "locked_out"
    hashed = len(hashes)
    refused = token("ana", "right-Password-1", ATTACKER, fmt="multipart")
    assert refused.status_code == 429 and refused.json()["error"] == "locked_out"
    assert int(refused["Retry-After"]) > 0 and refused.json()["retry_after"] == int(refused["Retry-After"])
    assert len(hashes) == hashed  # refused before any password is hashed
    good = token("ana", "right-Password-1", OTHER)
    assert good.status_code == 200 and len(good.json()["token"]) == 64


def test_the_login_pages_and_the_token_endpoint_share_the_count(ana):
    for i in range(LIMIT - 1):
        login_page("/accounts/login/", "ana", f"guess-{i}", ATTACKER)
    assert token("ana", "guess", ATTACKER).status_code == 429
    assert login_page("/admin/login/", "ana", "right-Password-1", ATTACKER).status_code == 429


def test_an_address_is_limited_on_its_own_whatever_the_accounts(settings, ana, hashes):
    settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS = 8
    for i in range(8):  # 8 accounts, 1 guess each: no pair near its limit
        response = login_page("/accounts/login/", f"user{i}", "guess", ATTACKER)
    assert response.status_code == 429
    hashed = len(hashes)
    assert login_page("/accounts/login/", "ana", "right-Password-1", ATTACKER).status_code == 429
    assert token("ana", "right-Password-1", ATTACKER).status_code == 429
    assert len(hashes) == hashed
    assert signed_in(login_page("/accounts/login/", "ana", "right-Password-1", OTHER))


def test_a_success_forgets_the_pairs_failures_only(ana):
    get_user_model().objects.create_user("guesser", password="own-Password-3")
    for i in range(LIMIT - 1):
        login_page("/accounts/login/", "ana", f"guess-{i}", ATTACKER)
    # the guesser signs in to an account of their own: ana's pair keeps its count
    assert signed_in(login_page("/accounts/login/", "guesser", "own-Password-3", ATTACKER))
    assert login_page("/accounts/login/", "ana", "guess-again", ATTACKER).status_code == 429
    # ana's own failures are forgotten when she signs in
    for i in range(LIMIT - 1):
        login_page("/accounts/login/", "ana", f"typo-{i}", OTHER)
    assert signed_in(login_page("/accounts/login/", "ana", "right-Password-1", OTHER))
    assert login_page("/accounts/login/", "ana", "typo-again", OTHER).status_code == 200


def test_a_forged_forwarded_for_header_does_not_dodge_the_lock(ana):
    for i in range(LIMIT):
        Client(REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").post(
            "/accounts/login/", {"username": "ana", "password": f"guess-{i}"})
    forged = Client(REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert forged.post("/accounts/login/", {"username": "ana", "password": "right-Password-1"}).status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_address_counts(settings, ana):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.1"
    for i in range(LIMIT):
        Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"forged, {ATTACKER}").post(
            "/accounts/login/", {"username": "ana", "password": f"guess-{i}"})
    locked = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=ATTACKER)
    assert locked.post("/accounts/login/", {"username": "ana", "password": "right-Password-1"}).status_code == 429
    other = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=OTHER)
    assert signed_in(other.post("/accounts/login/", {"username": "ana", "password": "right-Password-1"}))


@pytest.mark.parametrize("body, field", [
    ({"username": "ana\x00", "password": "x"}, "username"),
    ({"username": "a" * 151, "password": "x"}, "username"),
    ({"username": "ana", "password": "x" * 4097}, "password"),
    ({"password": "x"}, "username"),
])
def test_a_bad_token_request_is_a_400_naming_the_field(ana, body, field):
    response = APIClient().post("/api/auth/token/", body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content


def test_the_token_endpoint_has_a_rate_per_address(monkeypatch, ana, hashes):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "auth-token", "3/min")
    assert [token("ana", "right-Password-1", ATTACKER).status_code for _ in range(3)] == [200] * 3
    hashed = len(hashes)
    throttled = token("ana", "right-Password-1", ATTACKER)
    assert throttled.status_code == 429 and "Retry-After" in throttled
    assert len(hashes) == hashed
    assert token("ana", "right-Password-1", OTHER).status_code == 200


def test_a_redis_outage_lets_the_token_endpoint_work_and_the_lockouts_hold(monkeypatch, ana):
    monkeypatch.setattr(SimpleRateThrottle, "cache", RedisCache("redis://127.0.0.1:1/0", {}))
    assert token("ana", "right-Password-1", ATTACKER).status_code == 200
    for i in range(LIMIT):
        last = token("ana", f"guess-{i}", ATTACKER)
    assert last.status_code == 429  # the counts are in the database
