"""The per-account cap across addresses: ``LOGIN_FAILURE_LIMIT_PER_ACCOUNT`` failures of one
account in an hour, from any addresses, lock it for every address it has never signed in from;
its owner still signs in from their own, and is told once per lock."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import AccountLock, SignInFailure
from leagues.notifications.models import Kind, Notification
from leagues.notifications.services import save_language
from tests.conftest import _require_services

pytestmark = pytest.mark.django_db

LIMIT = 50  # LOGIN_FAILURE_LIMIT_PER_ACCOUNT's default
HOME, NEW = "198.51.100.20", "192.0.2.99"
RIGHT = "right-Password-1"


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ana():
    """Ana, who has signed in from home before."""
    user = get_user_model().objects.create_user("ana", password=RIGHT, email="ana@example.org")
    assert signed_in(login("ana", RIGHT, HOME))
    return user


def login(username, password, address):
    return Client(REMOTE_ADDR=address).post("/accounts/login/", {"username": username, "password": password})


def token(username, password, address):
    return APIClient(REMOTE_ADDR=address).post("/api/auth/token/", {"username": username, "password": password},
                                               format="json")


def signed_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.client.session


def spread_guesses(username, count, *, per_address=4, first=0):
    """``count`` wrong passwords for ``username``, ``per_address`` from each of as many addresses
    (never a pair's limit of 5, never an address's of 30). Returns the statuses."""
    return [login(username, f"guess-{first + n}", f"203.0.113.{(first + n) // per_address + 1}").status_code
            for n in range(count)]


def locks_told(user) -> int:
    return Notification.objects.filter(user=user, kind=Kind.ACCOUNT_LOCKED).count()


def test_fifty_failures_from_thirteen_addresses_lock_the_account_for_a_new_address(ana, hashes):
    statuses = spread_guesses("ana", 52)  # 13 addresses, 4 guesses each
    assert len({f"203.0.113.{n // 4 + 1}" for n in range(52)}) == 13
    assert statuses[:LIMIT - 1] == [200] * (LIMIT - 1)  # no pair, no address near its own limit
    assert statuses[LIMIT - 1:] == [429] * 3  # the 50th locks; the next are refused
    hashed = len(hashes)
    refused = login("ana", RIGHT, NEW)  # the right password, from an address ana never used
    assert refused.status_code == 429 and len(hashes) == hashed  # refused before any hashing
    assert "from addresses it has never signed in from" in refused.content.decode()
    assert 3500 < int(refused["Retry-After"]) <= 3600
    api = token("ana", RIGHT, NEW)
    assert api.status_code == 429 and api.json()["error"] == "locked_out"
    assert "Sign in from a device or place you have signed in from before" in api.json()["detail"]
    assert api.json()["retry_after"] == int(api["Retry-After"])
    lock = AccountLock.objects.get(username="ana")
    assert (lock.failures, lock.addresses) == (LIMIT, 13)


def test_the_owners_known_address_still_signs_in_during_the_lock(ana):
    spread_guesses("ana", LIMIT)
    assert login("ana", RIGHT, NEW).status_code == 429
    assert login("ana", "a-typo", HOME).status_code == 200  # a wrong password there is just wrong
    assert signed_in(login("ana", RIGHT, HOME))
    assert token("ana", RIGHT, HOME).status_code == 200
    # ...and another account is not locked by ana's
    get_user_model().objects.create_user("bea", password="bea-Password-2")
    assert signed_in(login("bea", "bea-Password-2", NEW))


def test_the_owner_is_told_once_per_lock_in_their_language(ana, mailoutbox, django_capture_on_commit_callbacks,
                                                          time_machine):
    save_language(ana, "es")
    with django_capture_on_commit_callbacks(execute=True):
        spread_guesses("ana", LIMIT + 20)  # the lock, then 20 refused attempts
        for n in range(5):
            login("ana", RIGHT, f"192.0.2.{n + 1}")
    assert locks_told(ana) == 1 and len(mailoutbox) == 1
    notice = Notification.objects.get(user=ana, kind=Kind.ACCOUNT_LOCKED)
    assert notice.language == "es" and notice.subject.startswith("Demasiados intentos fallidos")
    assert "50 intentos" in notice.body and "13 direcciones" in notice.body and "ana" in notice.body
    assert notice.url == "/accounts/password_change/"
    assert mailoutbox[0].to == ["ana@example.org"] and notice.subject in mailoutbox[0].subject
    # the lock ends an hour later; a new one is a new notice
    time_machine.move_to(timezone.now() + timedelta(minutes=61))
    assert spread_guesses("ana", LIMIT, first=100)[-1] == 429
    assert locks_told(ana) == 2


def test_the_window_is_an_hour(ana, time_machine):
    start = timezone.now()
    time_machine.move_to(start, tick=False)
    assert 429 not in spread_guesses("ana", LIMIT - 1)
    time_machine.move_to(start + timedelta(minutes=61), tick=False)  # those 49 are more than an hour old
    assert 429 not in spread_guesses("ana", LIMIT - 1, first=100)
    assert not AccountLock.objects.exists()
    time_machine.move_to(start + timedelta(minutes=61 + 59), tick=False)  # these 49 are within the hour
    assert spread_guesses("ana", 1, first=300) == [429]  # the 50th
    # the lock lasts an hour from the failure that reached the limit
    time_machine.move_to(start + timedelta(minutes=120 + 59), tick=False)
    assert login("ana", RIGHT, NEW).status_code == 429
    time_machine.move_to(start + timedelta(minutes=120 + 61), tick=False)
    assert signed_in(login("ana", RIGHT, NEW))


def test_a_right_password_from_a_new_address_is_not_counted_as_a_failure(ana):
    spread_guesses("ana", LIMIT - 2)
    assert signed_in(login("ana", RIGHT, NEW))  # counted before its password was checked, then forgotten
    assert login("ana", "guess-again", "192.0.2.200").status_code == 200  # the 49th failure
    assert SignInFailure.objects.filter(username="ana").count() == LIMIT - 1


def test_a_name_that_is_no_account_is_locked_alike_and_nobody_is_told(ana):
    statuses = spread_guesses("nobody-by-this-name", LIMIT + 1)
    assert statuses[LIMIT - 1:] == [429, 429]
    assert token("nobody-by-this-name", "anything", NEW).status_code == 429
    assert not Notification.objects.filter(kind=Kind.ACCOUNT_LOCKED).exists()
    assert signed_in(login("ana", RIGHT, NEW))


def test_a_lower_limit_from_the_settings(settings, ana):
    settings.LOGIN_FAILURE_LIMIT_PER_ACCOUNT = 8
    assert spread_guesses("ana", 8, per_address=2)[-1] == 429
    assert login("ana", RIGHT, NEW).status_code == 429


def test_axes_reset_username_lifts_the_accounts_lock(ana):
    spread_guesses("ana", LIMIT)
    assert login("ana", RIGHT, NEW).status_code == 429
    call_command("axes_reset_username", "ana", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert not AccountLock.objects.exists() and not SignInFailure.objects.exists()
    assert signed_in(login("ana", RIGHT, NEW))


@pytest.mark.django_db(transaction=True)
def test_parallel_guessers_from_many_addresses_get_no_more_than_the_limit(settings, hashes):
    """On PostgreSQL, 40 guessers at once, each from its own address, 3 guesses each: the
    passwords checked are exactly the limit's, whatever the interleaving (the name's lock)."""
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        if _require_services():
            pytest.fail("REQUIRE_SERVICES=1 but DATABASE_URL is not PostgreSQL")
        pytest.skip("a race needs PostgreSQL (SQLite serialises every write)")
    settings.LOGIN_FAILURE_LIMIT_PER_ACCOUNT = 20
    get_user_model().objects.create_user("ana", password=RIGHT)
    hashes.clear()
    barrier = threading.Barrier(40)
    statuses: list[int] = []

    def guesser(n: int) -> None:
        try:
            barrier.wait(10)
            statuses.extend(login("ana", f"guess-{n}-{i}", f"203.0.113.{n + 1}").status_code for i in range(3))
        finally:
            connection.close()

    threads = [threading.Thread(target=guesser, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(statuses) == 120 and set(statuses) <= {200, 429}
    assert len(hashes) == 20 and SignInFailure.objects.filter(username="ana").count() == 20
    assert statuses.count(200) <= 19  # a failure checked once the count is full answers "locked"
    assert AccountLock.objects.filter(username="ana").count() == 1
