"""Failed sign-ins counted per account across addresses, and the lock of an account that had too
many (called by ``config.lockout``, axes' handler, which bounds a pair and an address).

After ``LOGIN_FAILURE_LIMIT_PER_ACCOUNT`` failures of one account name within
``LOGIN_ACCOUNT_WINDOW`` (an hour), from any addresses, the name is locked for an hour for every
address it has never signed in from: one guesser spread over many addresses is bounded, and the
owner still signs in from their own devices, whose addresses an attacker cannot know (the known
addresses are those of axes' access log, ``AccessLog``, written at every successful sign-in). The
owner, when the name is an account's, is told once per lock, in their language (a notification:
inbox and e-mail, as they chose). A name that is no account is locked alike, so the answers do
not tell which names exist.

The count and the lock are read and written under a lock of the name (PostgreSQL's advisory lock
for the transaction; SQLite's writers take turns anyway): guessers in parallel cannot all pass
the count at once.
"""
from __future__ import annotations

from datetime import datetime

from axes.models import AccessLog
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.models import AccountLock, SignInFailure
from leagues.notifications.models import Kind
from leagues.notifications.services import notify, speaking_to


def name_lock(username: str) -> None:
    """Holds the lock of ``username``'s sign-ins for the rest of the caller's transaction."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"axes:{username}"])


def known_address(*, username: str, address: str | None) -> bool:
    """Whether ``username`` has ever signed in from ``address`` (axes' access log)."""
    return address is not None and AccessLog.objects.filter(username=username, ip_address=address).exists()


def _failures(username: str, now: datetime):
    return SignInFailure.objects.filter(username=username, failed_at__gt=now - settings.LOGIN_ACCOUNT_WINDOW)


def refused_until(*, username: str, address: str | None, now: datetime) -> datetime | None:
    """Until when the account's lock refuses ``username`` from ``address``, or None: the lock's
    end, or, while failures being checked at this moment reach the limit before a lock is
    written, an hour from now. A known address is never refused by it."""
    until = AccountLock.objects.filter(username=username, until__gt=now).values_list("until", flat=True).first()
    if until is None:
        if _failures(username, now).count() < settings.LOGIN_FAILURE_LIMIT_PER_ACCOUNT:
            return None
        until = now + settings.LOGIN_ACCOUNT_WINDOW
    if known_address(username=username, address=address):
        return None
    return until


def failure_record(*, username: str, address: str | None, now: datetime) -> int:
    """Counts an attempt of ``username`` as a failure, before its password is checked (the caller
    holds ``name_lock``); forgets the failures older than the window. Returns its id, for
    ``failure_forget`` when the password was right."""
    SignInFailure.objects.filter(failed_at__lte=now - settings.LOGIN_ACCOUNT_WINDOW).delete()
    AccountLock.objects.filter(until__lte=now).delete()
    return SignInFailure.objects.create(username=username, ip_address=address, failed_at=now).pk


def failure_forget(*, failure_id: int) -> None:
    """An attempt counted by ``failure_record`` was a successful sign-in."""
    SignInFailure.objects.filter(pk=failure_id).delete()


def failure_counted(*, username: str, now: datetime) -> AccountLock | None:
    """After a failed sign-in of ``username``: when the window's failures reached the limit and no
    lock is in force, locks the name for ``LOGIN_ACCOUNT_WINDOW`` and tells its owner. Returns
    the new lock, or None."""
    with transaction.atomic():
        name_lock(username)
        if AccountLock.objects.filter(username=username, until__gt=now).exists():
            return None
        failures = _failures(username, now)
        count = failures.count()
        if count < settings.LOGIN_FAILURE_LIMIT_PER_ACCOUNT:
            return None
        lock, _created = AccountLock.objects.update_or_create(username=username, defaults={
            "locked_at": now, "until": now + settings.LOGIN_ACCOUNT_WINDOW, "failures": count,
            "addresses": failures.values("ip_address").distinct().count(),
        })
        owner = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
        if owner is not None:
            account_locked_notice(user=owner, lock=lock)
    return lock


def account_locked_notice(*, user, lock: AccountLock) -> None:
    """Tells ``user`` that their account is locked for new addresses (once per lock: its key)."""
    with speaking_to(user):
        until = f"{date_format(timezone.localtime(lock.until), 'j M Y, H:i')} ({settings.TIME_ZONE})"
        body = "\n\n".join([
            ngettext("In the last hour, %(count)d sign-in to your account %(username)s failed.",
                     "In the last hour, %(count)d sign-ins to your account %(username)s failed.",
                     lock.failures) % {"count": lock.failures, "username": lock.username}
            + " " + ngettext("It came from %(count)d address.", "They came from %(count)d different addresses.",
                             lock.addresses) % {"count": lock.addresses},
            _("Until %(until)s, signing in to it is refused from every address you have never signed in "
              "from. From the devices and places you have signed in from before, you sign in as usual, "
              "and wherever you are signed in now you stay signed in.") % {"until": until},
            _("If these were not you, someone is trying to guess your password: make sure it is long "
              "and used nowhere else."),
        ])
        notify(user=user, kind=Kind.ACCOUNT_LOCKED, key=f"account_locked:{user.pk}:{lock.locked_at.isoformat()}",
               subject=_("Too many failed sign-ins: your account is locked for new addresses"),
               body=body, url=reverse("password_change"), now=lock.locked_at)


def signins_reset(*, username: str | None = None, address: str | None = None) -> int:
    """Forgets the failures and lifts the lock of ``username``, or the failures from ``address``,
    or, with neither, every failure and lock (``axes_reset_username``, ``axes_reset_ip``,
    ``axes_reset``). Returns how many rows were deleted."""
    failures, locks = SignInFailure.objects.all(), AccountLock.objects.all()
    if username is not None:
        failures, locks = failures.filter(username=username), locks.filter(username=username)
    elif address is not None:
        failures, locks = failures.filter(ip_address=address), locks.none()
    return failures.delete()[0] + locks.delete()[0]
