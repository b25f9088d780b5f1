"""Notifications (issue 19): rows written with the event, e-mails sent once by a worker, the
user's choices, the unsubscribe link, the inbox."""
from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from leagues.notifications import services, tasks
from leagues.notifications.models import EmailStatus, Kind, Notification, Preference
from leagues.services.tokens import token_create
from tests.leagues.factories import UserFactory


def _user(name="ana", email=True):
    return UserFactory(username=name, email=f"{name}@example.org" if email else "")


def _notify(user, **kwargs):
    defaults = {"kind": Kind.RESULT_OFFICIAL, "subject": "Official: A 2-1 B", "body": "The result is official.",
                "url": "/fixtures/1/"}
    return services.notify(user=user, **{**defaults, **kwargs})


@pytest.mark.django_db
def test_a_notification_goes_to_the_inbox_and_its_email_once(django_capture_on_commit_callbacks):
    user = _user()
    with django_capture_on_commit_callbacks(execute=True):
        notification = _notify(user)
    assert len(mail.outbox) == 1  # sent by the task after commit (eager here)
    message = mail.outbox[0]
    assert message.subject == "[Botonera] Official: A 2-1 B" and message.to == ["ana@example.org"]
    assert "/unsubscribe/" in message.body and message.extra_headers["List-Unsubscribe"].startswith("<http")
    notification.refresh_from_db()
    assert notification.email_status == EmailStatus.SENT and notification.attempts == 1
    # a second worker, or the sweeper, finds nothing to send
    assert services.email_send(notification_id=notification.pk) is False
    assert tasks.sweep() == {"pending": 0, "sent": 0}
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_a_broker_that_is_down_loses_nothing_the_sweeper_sends_it(django_capture_on_commit_callbacks):
    user = _user()
    with mock.patch.object(tasks.send_email, "apply_async", side_effect=ConnectionError("broker down")):
        with django_capture_on_commit_callbacks(execute=True):
            notification = _notify(user)
    assert mail.outbox == [] and Notification.objects.get(pk=notification.pk).email_status == EmailStatus.PENDING
    assert tasks.sweep() == {"pending": 1, "sent": 1}
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_a_claim_is_taken_once_and_a_dead_workers_claim_is_taken_again_later():
    user = _user()
    notification = _notify(user)
    now = timezone.now()
    Notification.objects.filter(pk=notification.pk).update(email_status=EmailStatus.SENDING, claimed_at=now)
    assert services.email_send(notification_id=notification.pk, now=now) is False  # another worker has it
    assert services.emails_pending(now=now) == []
    later = now + services.CLAIM_TIMEOUT + timedelta(seconds=1)
    assert services.emails_pending(now=later) == [notification.pk]
    assert services.email_send(notification_id=notification.pk, now=later) is True
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_a_failing_mail_server_is_tried_again_then_failed(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 1  # nobody listens
    notification = _notify(_user())
    for _attempt in range(services.MAX_ATTEMPTS):
        assert services.email_send(notification_id=notification.pk) is False
    notification.refresh_from_db()
    assert notification.email_status == EmailStatus.FAILED and notification.last_error


@pytest.mark.django_db
def test_each_user_chooses_and_an_event_with_a_key_is_told_once():
    user = _user()
    Preference.objects.create(user=user, kind=Kind.RESULT_OFFICIAL, inbox=True, email=False)
    quiet = _notify(user)
    assert quiet.email_status == EmailStatus.SKIPPED and quiet.in_inbox
    Preference.objects.create(user=user, kind=Kind.CHECKIN_OPEN, inbox=False, email=True)
    first = _notify(user, kind=Kind.CHECKIN_OPEN, key="checkin-open:1")
    assert first.in_inbox is False and first.email_status == EmailStatus.PENDING
    assert _notify(user, kind=Kind.CHECKIN_OPEN, key="checkin-open:1") is None
    no_address = _notify(_user("noaddress", email=False))
    assert no_address.email_status == EmailStatus.SKIPPED
    with pytest.raises(ValueError):
        _notify(user, kind="gossip")


@pytest.mark.django_db
def test_the_unsubscribe_link_works_without_signing_in_and_a_get_changes_nothing():
    user = _user()
    token = services.unsubscribe_token(user=user, kind=Kind.RESULT_OFFICIAL)
    client = Client()
    page = client.get(f"/unsubscribe/{token}/")
    assert page.status_code == 200 and "Result official" in page.content.decode()
    assert not Preference.objects.filter(user=user).exists()
    done = client.post(f"/unsubscribe/{token}/")  # no session, no CSRF token: the signed token suffices
    assert done.status_code == 200 and "Unsubscribed" in done.content.decode()
    assert services.choices_of(user)[Kind.RESULT_OFFICIAL] == (True, False)
    assert _notify(user).email_status == EmailStatus.SKIPPED
    everything = services.unsubscribe_token(user=user, kind=services.ALL)
    client.post(f"/unsubscribe/{everything}/")
    assert all(email is False for _inbox, email in services.choices_of(user).values())
    assert client.get(f"/unsubscribe/{token}x/").status_code == 404
    assert client.get("/unsubscribe/not-a-token/").status_code == 404


@pytest.mark.django_db
def test_the_inbox_page_preferences_and_api():
    user = _user()
    n = _notify(user)
    _notify(_user("other"))
    client = Client()
    assert client.get("/inbox/").status_code == 302  # sign in first
    client.force_login(user)
    home = client.get("/").content.decode()
    assert 'class="inbox-count">1<' in home
    page = client.get("/inbox/").content.decode()
    assert "Official: A 2-1 B" in page and page.count("inbox-item") == 1
    response = client.post(f"/inbox/{n.pk}/read/")
    assert response.status_code == 302 and response["Location"] == "/fixtures/1/"
    assert Notification.objects.get(pk=n.pk).read_at is not None
    form = {f"{kind}__inbox": "on" for kind in Kind.values} | {f"{kind}__email": "on" for kind in Kind.values}
    form.pop(f"{Kind.WALKOVER_WARNING}__email")
    client.post("/inbox/settings/", form)
    assert services.choices_of(user)[Kind.WALKOVER_WARNING] == (True, False)

    api = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=user)[1]}")
    assert [row["subject"] for row in api.get("/api/notifications/").json()["results"]] == ["Official: A 2-1 B"]
    prefs = api.put("/api/notifications/preferences/", [{"kind": "result_official", "inbox": False, "email": False}],
                    content_type="application/json")
    assert prefs.status_code == 200
    assert {row["kind"]: row["inbox"] for row in prefs.json()}["result_official"] is False
    bad = api.put("/api/notifications/preferences/", [{"kind": "gossip", "inbox": True, "email": True}],
                  content_type="application/json")
    assert bad.status_code == 400 and "preferences" in bad.json()
    assert Client().get("/api/notifications/").status_code in (401, 403)
