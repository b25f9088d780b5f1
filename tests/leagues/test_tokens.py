"""API tokens with a life (issue 15): an expiry, revoked by any change of the password (the page,
the admin, ``set_password()`` then ``save()``), and a page where a user sees and revokes theirs."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import ApiToken
from leagues.services import tokens

pytestmark = pytest.mark.django_db

PASSWORD = "first-Password-1"


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ana():
    return get_user_model().objects.create_user("ana", password=PASSWORD)


def obtain(username="ana", password=PASSWORD) -> str:
    response = APIClient().post("/api/auth/token/", {"username": username, "password": password}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["token"]


def works(token: str) -> bool:
    """The token authenticates: a write to no competition is a 404 for a user, a 401 for nobody."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    status = client.patch("/api/competitions/no-such-competition/", {}, format="json").status_code
    assert status in (401, 404), status
    return status == 404


def test_a_token_lasts_30_days_by_default(ana):
    before = timezone.now()
    response = APIClient().post("/api/auth/token/", {"username": "ana", "password": PASSWORD})  # a form
    assert response.status_code == 200 and set(response.json()) == {"token", "expiry"}
    row = ApiToken.objects.get(user=ana)
    assert timedelta(days=30) <= row.expiry - before <= timedelta(days=30, minutes=1)
    assert row.digest != response.json()["token"]  # only a digest is stored


def test_an_expired_token_is_refused_and_deleted(ana):
    token = obtain()
    assert works(token)
    ApiToken.objects.filter(user=ana).update(expiry=timezone.now() - timedelta(seconds=1))
    assert not works(token)
    assert not ApiToken.objects.filter(user=ana).exists()


def test_set_password_then_save_kills_every_token(ana):
    alive = [obtain() for _ in range(3)]
    assert all(works(t) for t in alive)
    ana.set_password("second-Password-2")
    ana.save()
    assert [works(t) for t in alive] == [False, False, False]
    assert tokens.tokens_of(user=ana) == []
    assert works(obtain(password="second-Password-2"))


def test_the_password_change_page_kills_the_tokens(ana):
    token = obtain()
    page = Client()
    page.force_login(ana)
    response = page.post("/accounts/password_change/", {
        "old_password": PASSWORD, "new_password1": "second-Password-2", "new_password2": "second-Password-2"})
    assert response.status_code == 302, response.content
    assert not works(token)


def test_the_admin_password_form_kills_the_tokens(ana):
    token = obtain()
    admin = get_user_model().objects.create_superuser("root", password="root-Password-3")
    page = Client()
    page.force_login(admin)
    response = page.post(f"/admin/auth/user/{ana.pk}/password/", {
        "password1": "second-Password-2", "password2": "second-Password-2", "usable_password": "true"})
    assert response.status_code == 302, response.content
    assert not works(token)


def test_a_raw_update_of_the_password_kills_the_tokens_too(ana):
    token = obtain()
    get_user_model().objects.filter(pk=ana.pk).update(password="!unusable")
    assert not works(token)


def test_a_user_keeps_at_most_the_limit_of_tokens(settings, ana):
    settings.API_TOKENS_PER_USER = 3
    made = [tokens.token_create(user=ana)[1] for _ in range(5)]
    assert ApiToken.objects.filter(user=ana).count() == 3
    assert [works(t) for t in made] == [False, False, True, True, True]


@pytest.mark.parametrize("header", [
    "Token " + "z" * 64, "Token " + "a" * 63, "Token é" + "a" * 63, "Token a\x00" + "a" * 62, "Token", "Token a b",
])
def test_a_malformed_token_is_a_401_not_a_500(ana, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    assert client.get("/api/competitions/").status_code == 401


def test_the_tokens_page_lists_and_revokes(ana):
    first, second = obtain(), obtain()
    bea = get_user_model().objects.create_user("bea", password=PASSWORD)
    beas = tokens.token_create(user=bea)[1]
    page = Client()
    assert page.get("/accounts/tokens/").status_code == 302  # signed in only
    page.force_login(ana)
    listing = page.get("/accounts/tokens/")
    assert listing.status_code == 200
    html = listing.content.decode()
    assert first[:8] in html and second[:8] in html and beas[:8] not in html
    assert first not in html  # never the token itself
    row = ApiToken.objects.get(user=ana, token_key=first[:15])
    response = page.post("/accounts/tokens/", {"revoke": row.digest}, follow=True)
    assert "revoked" in response.content.decode()
    assert not works(first) and works(second)
    # another user's token is not found from here
    other = ApiToken.objects.get(user=bea)
    page.post("/accounts/tokens/", {"revoke": other.digest})
    assert works(beas)
    page.post("/accounts/tokens/", {"revoke_all": "1"})
    assert not works(second) and works(beas)


def test_no_token_is_alive_after_a_password_change_whatever_the_path(ana):
    """The issue's figure: 0 tokens alive after a password change."""
    made = [obtain() for _ in range(5)] + [tokens.token_create(user=ana)[1] for _ in range(5)]
    ana.set_password("second-Password-2")
    ana.save()
    alive = [t for t in made if works(t)]
    assert alive == []
    assert ApiToken.objects.filter(user=ana).count() == 0
