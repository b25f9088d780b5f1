"""The language of a page: the switcher (cookie and profile), a signed-in user's saved choice
applied at sign-in, then Accept-Language, then the site's default; no language prefix."""
from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from leagues.notifications.models import Profile
from leagues.notifications.services import saved_language

pytestmark = pytest.mark.django_db
COOKIE = settings.LANGUAGE_COOKIE_NAME


def html_lang(response) -> str:
    text = response.content.decode()
    start = text.index("<html lang=\"") + len("<html lang=\"")
    return text[start:text.index("\"", start)]


def test_the_home_does_not_redirect_and_speaks_the_default(client):
    response = client.get("/")
    assert response.status_code == 200
    assert html_lang(response) == settings.LANGUAGE_CODE == "en"
    assert response["Content-Language"] == "en"


@pytest.mark.parametrize(("header", "expected"), [
    ("es-ES,es;q=0.9", "es"), ("pt-BR,pt;q=0.8", "pt-br"), ("it", "it"), ("de-DE", "en"),
])
def test_accept_language_when_nothing_was_chosen(client, header, expected):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=header)
    assert response.status_code == 200
    assert html_lang(response) == expected
    assert "Accept-Language" in response["Vary"]


def test_the_switcher_is_on_every_page_and_its_choice_beats_the_browser(client):
    page = client.get("/competitions/").content.decode()
    assert 'action="/i18n/setlang/"' in page and 'name="language"' in page
    response = client.post("/i18n/setlang/", {"language": "it", "next": "/clubs/"}, HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 302 and response["Location"] == "/clubs/"
    assert response.cookies[COOKIE].value == "it"
    assert html_lang(client.get("/clubs/", HTTP_ACCEPT_LANGUAGE="es")) == "it"


def test_an_unknown_language_changes_nothing(client):
    user = get_user_model().objects.create_user("ana", password="pw-Long-enough-1")
    client.force_login(user)
    client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert saved_language(user) == ""
    assert not Profile.objects.filter(user=user).exists()
    assert html_lang(client.get("/")) == "en"


def test_a_signed_in_choice_is_saved_and_applied_at_the_next_sign_in(client):
    user = get_user_model().objects.create_user("bea", password="pw-Long-enough-1")
    client.force_login(user)
    client.post("/i18n/setlang/", {"language": "pt-br", "next": "/"})
    assert Profile.objects.get(user=user).language == "pt-br"
    client.logout()

    other = type(client)()  # another browser, which asks for Spanish and has no cookie
    assert html_lang(other.get("/", HTTP_ACCEPT_LANGUAGE="es")) == "es"
    response = other.post("/accounts/login/", {"username": "bea", "password": "pw-Long-enough-1"},
                          HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 302
    assert response.cookies[COOKIE].value == "pt-br"  # applied at sign-in, remembered in the cookie
    assert html_lang(other.get("/", HTTP_ACCEPT_LANGUAGE="es")) == "pt-br"


def test_the_saved_choice_beats_an_older_cookie(client):
    user = get_user_model().objects.create_user("caio", password="pw-Long-enough-1")
    Profile.objects.create(user=user, language="es")
    client.cookies[COOKIE] = "it"
    client.force_login(user)
    response = client.get("/")
    assert html_lang(response) == "es"
    assert response.cookies[COOKIE].value == "es"
