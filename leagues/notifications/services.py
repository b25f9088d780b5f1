"""Writing notifications (in the caller's transaction) and sending their e-mails (a worker).

``notify(user=..., kind=..., subject=..., body=..., url=..., key=...)`` writes the row, as the
user chose (``Preference``): in the inbox or not, an e-mail to send or not; with a ``key``, an
event already announced is not announced again. After commit it sends
``notifications.tasks.send_email`` (a broker that is down is logged: the sweeper sends it).

``email_send(notification_id=...)`` claims the row with one atomic update (``pending``, or a
claim older than ``CLAIM_TIMEOUT`` whose worker died, -> ``sending``), sends it through
Django's mail (``EMAIL_BACKEND``: the console by default, SMTP from the settings), then marks
it ``sent``. A claim it did not get means another worker has it: nothing is sent twice, save
by a worker that died after the server took the message and before it was marked (then it is
sent again after ``CLAIM_TIMEOUT``). A failure is tried again by the sweeper, ``MAX_ATTEMPTS``
times, then ``failed``.

Every e-mail carries an unsubscribe link (a signed token, no sign-in needed) in its text and in
its ``List-Unsubscribe`` headers (one-click, RFC 8058).
"""
from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from leagues.notifications.models import EmailStatus, Kind, Notification, Preference, Profile

logger = logging.getLogger(__name__)

CLAIM_TIMEOUT = timedelta(minutes=15)
MAX_ATTEMPTS = 5
UNSUBSCRIBE_SALT = "notifications.unsubscribe"
ALL = "all"


_muted = contextvars.ContextVar("notifications_muted", default=False)


@contextmanager
def muted() -> Iterator[None]:
    """Nothing is announced inside (e.g. a demo's or an import's past season, not news to anyone)."""
    token = _muted.set(True)
    try:
        yield
    finally:
        _muted.reset(token)


def saved_language(user) -> str:
    """The language ``user`` chose (a code of ``settings.LANGUAGES``), or "" when none, or for
    an anonymous user (``Profile``)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    cached = getattr(user, "_saved_language", None)
    if cached is None:
        cached = Profile.objects.filter(user=user).values_list("language", flat=True).first() or ""
        if cached not in {code for code, _name in settings.LANGUAGES}:
            cached = ""
        user._saved_language = cached
    return cached


def save_language(user, code: str) -> None:
    """Saves ``code`` as ``user``'s language. Raises ``ValueError`` for a code the site does not
    speak."""
    if code not in {c for c, _name in settings.LANGUAGES}:
        raise ValueError(f"unknown language {code!r}")
    Profile.objects.update_or_create(user=user, defaults={"language": code})
    user._saved_language = code


def language_of(user) -> str:
    """The language to write to ``user`` in: their choice, else the site's ``LANGUAGE_CODE``."""
    return saved_language(user) or settings.LANGUAGE_CODE


@contextmanager
def speaking_to(user) -> Iterator[str]:
    """Inside, gettext and the date formats speak ``user``'s language (``language_of``): a
    notification's subject and body are composed in it. Yields the code."""
    language = language_of(user)
    with translation.override(language):
        yield language


def choices_of(user) -> dict[str, tuple[bool, bool]]:
    """kind -> (inbox, email) as the user chose (both on without a choice)."""
    chosen = {p.kind: (p.inbox, p.email) for p in Preference.objects.filter(user=user)}
    return {kind: chosen.get(kind, (True, True)) for kind in Kind.values}


def notify(*, user, kind: str, subject: str, body: str, url: str = "", key: str | None = None,
           now: datetime | None = None) -> Notification | None:
    """Writes a notification for ``user`` in the caller's transaction, and sends its e-mail
    after commit. Returns ``None`` when ``key`` was announced already, for no user, or inside
    ``muted()``. The subject and body are in the active language, which the row records
    (compose them inside ``speaking_to(user)``). Raises ``ValueError`` for an unknown ``kind``."""
    if kind not in Kind.values:
        raise ValueError(f"unknown notification kind {kind!r}")
    if user is None or not user.is_active or _muted.get():
        return None
    if key and Notification.objects.filter(key=key).exists():
        return None
    inbox, email = choices_of(user)[kind]
    wants_email = email and bool(user.email)
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                user=user, kind=kind, subject=subject[:200], body=body[:4000], url=url[:300], key=key or None,
                created_at=now or timezone.now(), in_inbox=inbox, email_to=user.email if wants_email else "",
                email_status=EmailStatus.PENDING if wants_email else EmailStatus.SKIPPED,
                language=translation.get_language() or settings.LANGUAGE_CODE,
            )
    except IntegrityError:
        return None  # the same key, written at the same moment by another transaction
    if wants_email:
        task = current_app.tasks["notifications.tasks.send_email"]
        task.enqueue_on_commit(notification_id=notification.pk)
    return notification


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_token(*, user, kind: str) -> str:
    """A signed token that stops ``kind``'s e-mails (``ALL``: every e-mail) for ``user``."""
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_read(token: str) -> tuple[int, str] | None:
    """(user id, kind) of a token, or ``None`` when it is not one of ours."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("k") not in (*Kind.values, ALL) or not isinstance(data.get("u"), int):
        return None
    return data["u"], data["k"]


def unsubscribe(*, user, kind: str) -> None:
    """Stops the e-mails of ``kind`` (``ALL``: all) for ``user``; the inbox keeps them."""
    for each in (Kind.values if kind == ALL else [kind]):
        Preference.objects.update_or_create(user=user, kind=each, defaults={"email": False})
    Notification.objects.filter(user=user, email_status=EmailStatus.PENDING,
                                **({} if kind == ALL else {"kind": kind})).update(email_status=EmailStatus.SKIPPED)


def preferences_set(*, user, choices: dict[str, tuple[bool, bool]]) -> None:
    """Stores ``user``'s choices: kind -> (inbox, email). Raises ``ValueError`` for an unknown kind."""
    for kind, (inbox, email) in choices.items():
        if kind not in Kind.values:
            raise ValueError(f"unknown notification kind {kind!r}")
        Preference.objects.update_or_create(user=user, kind=kind, defaults={"inbox": inbox, "email": email})


def mark_read(*, user, ids: list[int] | None = None, now: datetime | None = None) -> int:
    """Marks the user's notifications read (``ids``: those only). Returns how many."""
    rows = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return rows.update(read_at=now or timezone.now())


def email_message(notification: Notification) -> EmailMessage:
    """The e-mail of a notification, with its unsubscribe links, in the language its subject and
    body were written in."""
    with translation.override(notification.written_in):
        return _email_message(notification)


def _email_message(notification: Notification) -> EmailMessage:
    kind_link = site_url(reverse("notifications:unsubscribe", args=[
        unsubscribe_token(user=notification.user, kind=notification.kind)]))
    all_link = site_url(reverse("notifications:unsubscribe", args=[
        unsubscribe_token(user=notification.user, kind=ALL)]))
    body = render_to_string("notifications/email.txt", {
        "notification": notification, "link": site_url(notification.url) if notification.url else "",
        "unsubscribe_kind": kind_link, "unsubscribe_all": all_link,
        "kind_label": Kind(notification.kind).label, "preferences": site_url(reverse("notifications:preferences")),
    })
    return EmailMessage(
        subject=_("[Botonera] %(subject)s") % {"subject": notification.subject}, body=body,
        from_email=settings.DEFAULT_FROM_EMAIL, to=[notification.email_to],
        headers={"List-Unsubscribe": f"<{kind_link}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                 "X-Botonera-Notification": str(notification.pk)},
    )


def email_send(*, notification_id: int, now: datetime | None = None) -> bool:
    """Sends the notification's e-mail if this call claims it (see the module). Returns True
    when it was sent by this call."""
    now = now or timezone.now()
    claimed = Notification.objects.filter(pk=notification_id).filter(
        Q(email_status=EmailStatus.PENDING)
        | Q(email_status=EmailStatus.SENDING, claimed_at__lt=now - CLAIM_TIMEOUT)
    ).update(email_status=EmailStatus.SENDING, claimed_at=now, attempts=F("attempts") + 1)
    if not claimed:
        return False
    notification = Notification.objects.select_related("user").get(pk=notification_id)
    try:
        email_message(notification).send(fail_silently=False)
    except Exception as exc:  # noqa: BLE001 - any mail failure: kept on the row, tried again
        status = EmailStatus.FAILED if notification.attempts >= MAX_ATTEMPTS else EmailStatus.PENDING
        Notification.objects.filter(pk=notification_id, email_status=EmailStatus.SENDING).update(
            email_status=status, last_error=f"{type(exc).__name__}: {exc}"[:2000])
        logger.warning("notification %s: the e-mail was not sent (%s)", notification_id, exc)
        return False
    Notification.objects.filter(pk=notification_id, email_status=EmailStatus.SENDING).update(
        email_status=EmailStatus.SENT, sent_at=timezone.now(), last_error="")
    return True


def emails_pending(*, now: datetime | None = None, limit: int = 200) -> list[int]:
    """Ids of the e-mails to send: ``pending``, or claimed by a worker that died (older than
    ``CLAIM_TIMEOUT``), oldest first."""
    now = now or timezone.now()
    return list(Notification.objects.filter(
        Q(email_status=EmailStatus.PENDING)
        | Q(email_status=EmailStatus.SENDING, claimed_at__lt=now - CLAIM_TIMEOUT)
    ).order_by("created_at", "pk").values_list("pk", flat=True)[:limit])


def unread_count(user) -> int:
    if not getattr(user, "is_authenticated", False):
        return 0
    return Notification.objects.filter(user=user, in_inbox=True, read_at__isnull=True).count()
