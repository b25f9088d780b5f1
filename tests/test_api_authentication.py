"""A token that does not authenticate (unknown, malformed, expired, revoked, made under a former
password) is a 401 with ``WWW-Authenticate: Token`` on every route of the API that reads
credentials, reads included; the routes are found by walking the URL resolver."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import get_resolver
from django.utils import timezone
from rest_framework.schemas.generators import EndpointEnumerator
from rest_framework.test import APIClient

from leagues.models import ApiToken
from leagues.services import tokens

pytestmark = pytest.mark.django_db

UNKNOWN = "0" * 64


class EveryEndpoint(EndpointEnumerator):
    """DRF's enumerator of (path, method, view), keeping the views the schema leaves out (the
    schema's and the docs' own) and skipping only the ``.json``-style suffixes."""

    def should_include_endpoint(self, path, callback):
        return hasattr(callback, "cls") and "{format}" not in path


def api_operations() -> list[tuple[str, str]]:
    """(method, path) of every operation under ``/api/`` whose view reads credentials, each path
    parameter given the value ``1``."""
    operations = []
    for path, method, callback in EveryEndpoint(patterns=get_resolver().url_patterns).get_api_endpoints():
        if not path.startswith("/api/"):
            continue
        view = callback.cls(**getattr(callback, "initkwargs", {}))
        if not view.authentication_classes:  # POST /api/auth/token/: it takes a password, not a token
            continue
        operations.append((method, re.sub(r"\{[^}]+\}", "1", path)))
    return sorted(set(operations))


def test_the_walk_finds_every_part_of_the_api():
    paths = {path for _method, path in api_operations()}
    for expected in ("/api/notifications/", "/api/notifications/1/read/", "/api/matches/1/actions/",
                     "/api/competitions/", "/api/ratings/", "/api/schema/", "/api/clubs/1/"):
        assert any(path == expected or path.startswith(expected) for path in paths), expected
    assert len(api_operations()) >= 40


@pytest.mark.parametrize("method, path", api_operations())
def test_an_unknown_token_is_a_401_everywhere(method, path):
    response = getattr(APIClient(), method.lower())(path, HTTP_AUTHORIZATION=f"Token {UNKNOWN}")
    assert response.status_code == 401, (method, path, response.status_code, response.content[:200])
    assert response["WWW-Authenticate"] == "Token"


@pytest.fixture
def ana():
    return get_user_model().objects.create_user("ana", password="right-Password-1")


def expired(user) -> str:
    row, token = tokens.token_create(user=user, label="test")
    ApiToken.objects.filter(pk=row.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    return token


def revoked(user) -> str:
    row, token = tokens.token_create(user=user, label="test")
    row.delete()
    return token


def former_password(user) -> str:
    _row, token = tokens.token_create(user=user, label="test")
    user.set_password("another-Password-2")
    user.save()
    return token


@pytest.mark.parametrize("make", [expired, revoked, former_password, lambda user: "not-a-token"])
@pytest.mark.parametrize("path", ["/api/notifications/", "/api/notifications/preferences/",
                                  "/api/matches/1/", "/api/competitions/"])
def test_a_token_that_is_no_longer_good_is_a_401(ana, make, path):
    response = APIClient().get(path, HTTP_AUTHORIZATION=f"Token {make(ana)}")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token", response.content


def test_a_good_token_still_reads_the_inbox_and_the_session_still_works(ana):
    _row, token = tokens.token_create(user=ana, label="test")
    assert APIClient().get("/api/notifications/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 200
    session = APIClient()
    session.force_login(ana)
    assert session.get("/api/notifications/").status_code == 200
    assert APIClient().get("/api/notifications/").status_code == 401  # nobody: told to authenticate
