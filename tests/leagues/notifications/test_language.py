"""Notifications are written in their user's language (the one they chose, else the site's),
which the row records; the e-mail is rendered in it, and the inbox marks it."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation
from django.utils.formats import date_format

from leagues.notifications.models import Kind, Profile
from leagues.notifications.services import email_message, language_of, notify, speaking_to

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    User = get_user_model()
    chose = User.objects.create_user("giulia", email="g@example.org", password="x-Long-enough-1")
    Profile.objects.create(user=chose, language="it")
    default = User.objects.create_user("ana", email="a@example.org", password="x-Long-enough-1")
    return chose, default


def test_a_notification_is_composed_in_its_users_language_and_records_it(users):
    chose, default = users
    when = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
    for user in (chose, default):
        with translation.override("es"):  # whoever's request (an organiser's) wrote it
            with speaking_to(user):
                notify(user=user, kind=Kind.RESULT_OFFICIAL, subject="s",
                       body=date_format(when, "D j M Y"))
    by_user = {n.user.username: n for n in chose.notifications.all() | default.notifications.all()}
    assert (by_user["giulia"].language, by_user["giulia"].body) == ("it", "Mar 1 Dic 2026")
    assert (by_user["ana"].language, by_user["ana"].body) == ("en", "Tue 1 Dec 2026")
    assert language_of(chose) == "it" and language_of(default) == "en"


def test_the_email_is_rendered_in_the_notifications_language(users, monkeypatch):
    from leagues.notifications import services

    chose, _default = users
    with speaking_to(chose):
        notification = notify(user=chose, kind=Kind.RESULT_OFFICIAL, subject="Ufficiale", body="2-1")
    seen = []
    real = services.render_to_string
    monkeypatch.setattr(services, "render_to_string",
                        lambda *a, **k: seen.append(translation.get_language()) or real(*a, **k))
    with translation.override("en"):  # the worker's default
        email_message(notification)
        assert translation.get_language() == "en"
    assert seen == ["it"]


def test_the_inbox_marks_each_notification_with_its_language(users, client):
    chose, _default = users
    with speaking_to(chose):
        notify(user=chose, kind=Kind.RESULT_OFFICIAL, subject="Ufficiale", body="2-1")
    client.force_login(chose)
    page = client.get("/inbox/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert '<span lang="it"><strong>Ufficiale</strong>' in page
