"""API tokens: made, checked, listed and revoked (django-rest-knox's tokens, ``leagues.ApiToken``).

A token lives ``API_TOKEN_TTL_DAYS`` days (``REST_KNOX["TOKEN_TTL"]``) and dies as soon as its
user's password changes, however it is changed (the password page, the admin, ``set_password()``
then ``save()``, a raw update): each token keeps a hash of the password's hash as it was when
the token was made (``password_stamp``), and a token whose stamp no longer matches is refused
and deleted: Django's own check for sessions (``get_session_auth_hash``), applied to tokens. The
stamp is not keyed with ``SECRET_KEY`` (it sits beside the password hash it is made from, so a key
would hide nothing): rotating ``SECRET_KEY`` leaves the tokens alive.
"""
from __future__ import annotations

import hashlib
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from knox.settings import knox_settings

from leagues.models import ApiToken

STAMP_SALT = "botonera.api-token.password-stamp"


def password_stamp(user) -> str:
    """SHA-256 of ``user``'s password hash (which changes with every new password, its salt too)."""
    return hashlib.sha256(f"{STAMP_SALT}:{user.password or ''}".encode()).hexdigest()


def stamp_is_current(token: ApiToken, user) -> bool:
    """True when ``token`` was made under ``user``'s current password."""
    return constant_time_compare(token.password_stamp, password_stamp(user))


def is_alive(token: ApiToken, *, now: datetime | None = None) -> bool:
    """Not expired, and made under its user's current password."""
    now = now or timezone.now()
    return (token.expiry is None or token.expiry > now) and stamp_is_current(token, token.user)


def token_create(*, user, label: str = "", now: datetime | None = None) -> tuple[ApiToken, str]:
    """A new token for ``user``: the row and the token itself (shown once; only its digest is
    stored). A user keeps at most ``API_TOKENS_PER_USER`` live tokens: making one more deletes
    the oldest."""
    now = now or timezone.now()
    with transaction.atomic():
        tokens_purge_dead(user=user, now=now)
        instance, token = ApiToken.objects.create(
            user=user, expiry=knox_settings.TOKEN_TTL, password_stamp=password_stamp(user), label=label[:100],
        )
        keep = settings.API_TOKENS_PER_USER
        extra = list(ApiToken.objects.filter(user=user).order_by("-created", "-pk")
                     .values_list("pk", flat=True)[keep:])
        if extra:
            ApiToken.objects.filter(pk__in=extra).delete()
    return instance, token


def tokens_of(*, user, now: datetime | None = None) -> list[ApiToken]:
    """``user``'s live tokens, newest first (the dead ones are deleted on the way)."""
    tokens_purge_dead(user=user, now=now)
    return list(ApiToken.objects.filter(user=user).select_related("user").order_by("-created"))


def token_revoke(*, user, digest: str) -> bool:
    """Deletes ``user``'s token with this digest; False when there is none (or it is another's)."""
    deleted, _rows = ApiToken.objects.filter(user=user, digest=digest).delete()
    return bool(deleted)


def tokens_revoke_all(*, user) -> int:
    """Deletes every token of ``user``; the number deleted."""
    deleted, _rows = ApiToken.objects.filter(user=user).delete()
    return deleted


def tokens_purge_dead(*, user=None, now: datetime | None = None) -> int:
    """Deletes the expired tokens and those made under a former password (of ``user``, or of
    everyone); the number deleted."""
    now = now or timezone.now()
    tokens = ApiToken.objects.select_related("user")
    if user is not None:
        tokens = tokens.filter(user=user)
    dead = [token.pk for token in tokens if not is_alive(token, now=now)]
    if dead:
        ApiToken.objects.filter(pk__in=dead).delete()
    return len(dead)
