"""Lockouts after repeated failed sign-ins, with django-axes (the settings are ``AXES_*`` and
``LOGIN_FAILURE_LIMIT_PER_*`` in ``config.settings``).

- The pair (account, address) is locked after ``AXES_FAILURE_LIMIT`` failures, and an address
  on its own after ``LOGIN_FAILURE_LIMIT_PER_ADDRESS`` failures, whatever the accounts it tried.
  A lock lasts ``AXES_COOLOFF_TIME`` from the last failure.
- An account is locked after ``LOGIN_FAILURE_LIMIT_PER_ACCOUNT`` failures in an hour from any
  addresses, for an hour, and only for the addresses it has never signed in from (anyone could
  lock anyone out of their own devices otherwise); its owner is told (``leagues.services.signins``).
- A refused attempt is refused by ``LockoutBackend``, the first authentication backend, before
  any password is hashed, and records nothing.
- An attempt is counted as a failure before its password is checked (and forgotten if it
  succeeds), under a lock of its account name: parallel guessers cannot all pass the check at
  once, so a pair is tried at most ``AXES_FAILURE_LIMIT`` times, and an account from new
  addresses ``LOGIN_FAILURE_LIMIT_PER_ACCOUNT`` times an hour, however many guess together.
- The counts are kept in the database (axes' database handler): no Redis needed.
- A refused sign-in answers 429: a page that says so on ``/accounts/login/`` and
  ``/admin/login/``, JSON on the API (``lockout_response``).
"""
from __future__ import annotations

import math

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off, get_credentials, get_lockout_message
from axes.models import AccessAttempt
from axes.signals import user_locked_out
from django.conf import settings
from django.db import transaction
from django.db.models import F, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.services import signins


def client_address(request: HttpRequest) -> str | None:
    """The client's address: ``REMOTE_ADDR``, or, behind ``TRUSTED_PROXY_COUNT`` proxies, the
    address the outermost of them saw (``X-Forwarded-For`` counted from the right), as DRF's
    throttles read it with ``NUM_PROXIES``. A client's own ``X-Forwarded-For`` is ignored."""
    return forwarded_address(request.META.get("REMOTE_ADDR"), request.META.get("HTTP_X_FORWARDED_FOR"))


def forwarded_address(remote: str | None, forwarded: str | None) -> str | None:
    """``client_address``'s rule on its parts: the connection's address (``remote``) and the
    ``X-Forwarded-For`` header's value (``forwarded``, None without one), for a request or an
    ASGI scope (``config.socket_limit``)."""
    count = settings.TRUSTED_PROXY_COUNT
    if not count or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",")]
    return hops[-min(count, len(hops))] or remote


class LockoutBackend(AxesStandaloneBackend):
    """Axes' backend: refuses a locked-out attempt before the model backend hashes anything.

    A call of ``authenticate()`` with no request (the test client's ``login``, a script) is no
    attempt from an address: it is passed on to the next backend. Every sign-in over HTTP (the
    login pages, the admin's, ``POST /api/auth/token/``) passes its request."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None or not settings.AXES_ENABLED:
            return None
        credentials = get_credentials(username=username, **kwargs)
        AxesProxyHandler.update_request(request)
        handler = AxesProxyHandler.get_implementation()
        if handler.is_whitelisted(request, credentials):
            return None
        if not handler.is_blacklisted(request, credentials) and handler.claim_attempt(request, credentials):
            return None  # counted; the model backend checks the password
        request.axes_locked_out = True
        raise AxesBackendPermissionDenied(get_lockout_message())


class LoginAttempts(AxesDatabaseHandler):
    """Axes' database handler with three limits: the pair's (``AXES_FAILURE_LIMIT``), the
    address's own (``LOGIN_FAILURE_LIMIT_PER_ADDRESS``) and the account's across addresses
    (``LOGIN_FAILURE_LIMIT_PER_ACCOUNT``, ``leagues.services.signins``).

    ``AXES_LOCKOUT_PARAMETERS`` is ``[["username", "ip_address"], "ip_address"]``: the first
    queryset is the pair's failures, the second the address's."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        """The pair's failures, or the limit when the address or the account's lock refuses it
        (then ``request.axes_account_locked_until`` says until when, for the answer)."""
        counts = [
            attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        ]
        pair, address = (counts + [0, 0])[:2]
        if address >= settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS:
            return max(pair, settings.AXES_FAILURE_LIMIT)  # the address is locked: so is the pair
        username = get_client_username(request, credentials)
        if pair >= settings.AXES_FAILURE_LIMIT or not username:
            return pair
        until = signins.refused_until(username=username, address=request.axes_ip_address,
                                      now=request.axes_attempt_time)
        if until is not None:
            request.axes_account_locked_until = until
            return settings.AXES_FAILURE_LIMIT
        return pair

    def claim_attempt(self, request, credentials: dict | None = None) -> bool:
        """Counts this attempt as a failure of its pair and of its account, unless the pair, the
        address or the account is locked for it (then False, and nothing is written). Under a
        lock of the account name (``signins.name_lock``), so that parallel attempts are counted
        one after the other."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address
        self.clean_expired_user_attempts(request, credentials)
        with transaction.atomic():
            signins.name_lock(username or "")
            if self.is_locked(request, credentials):
                return False
            attempt, created = AccessAttempt.objects.get_or_create(
                username=username, ip_address=address, user_agent=request.axes_user_agent,
                defaults={"get_data": "", "post_data": "", "http_accept": request.axes_http_accept,
                          "path_info": request.axes_path_info, "failures_since_start": 1,
                          "attempt_time": request.axes_attempt_time},
            )
            if not created:
                AccessAttempt.objects.filter(pk=attempt.pk).update(
                    failures_since_start=F("failures_since_start") + 1, attempt_time=request.axes_attempt_time,
                    path_info=request.axes_path_info, http_accept=request.axes_http_accept,
                )
            if username:
                request.axes_signin_failure = signins.failure_record(
                    username=username, address=address, now=request.axes_attempt_time)
        request.axes_claimed = True
        return True

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        """A failure claimed before the password was checked is counted already: it only locks
        the pair, the address or the account when it was the last one allowed."""
        if request is None or not getattr(request, "axes_claimed", False):
            return super().user_login_failed(sender, credentials, request=request, **kwargs)
        username = get_client_username(request, credentials)
        if username:
            signins.failure_counted(username=username, now=request.axes_attempt_time)
        if self.is_locked(request, credentials):
            request.axes_locked_out = True
            request.axes_credentials = credentials
            user_locked_out.send("axes", request=request, username=get_client_username(request, credentials),
                                 ip_address=request.axes_ip_address)
        return None

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        """On a successful sign-in, forget the failures of this account from this address only
        (axes would forget the address's too: a guesser with an account of their own could then
        wipe their count by signing in between guesses), and this attempt in the account's count
        (its earlier failures stay: the account may be under attack from elsewhere)."""
        if getattr(request, "axes_signin_failure", None):
            signins.failure_forget(failure_id=request.axes_signin_failure)
        pair = self.get_user_attempts(request, credentials)[0]
        count, _deleted = pair.delete()
        return count

    def reset_attempts(self, *, ip_address: str | None = None, username: str | None = None,
                       ip_or_username: bool = False) -> int:
        """Axes' resets (``axes_reset``, ``axes_reset_username``, ``axes_reset_ip``) also forget
        the account's count and lift its lock (an address's: its failures in the counts)."""
        count = super().reset_attempts(ip_address=ip_address, username=username, ip_or_username=ip_or_username)
        if username is not None:
            count += signins.signins_reset(username=username)
        if ip_address is not None:
            count += signins.signins_reset(address=ip_address)
        if username is None and ip_address is None:
            count += signins.signins_reset()
        return count


def retry_after_seconds(request: HttpRequest) -> int:
    cool_off = get_cool_off(request)
    return max(1, math.ceil(cool_off.total_seconds())) if cool_off else 0


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """429 for a refused sign-in: JSON on the API, else the page ``registration/locked_out.html``;
    ``Retry-After`` gives the lock's length in seconds (the account's lock: what is left of it)."""
    account_until = getattr(request, "axes_account_locked_until", None)
    if account_until is not None:
        seconds = max(1, math.ceil((account_until - timezone.now()).total_seconds()))
        minutes = max(1, math.ceil(seconds / 60))
        detail = _(
            "Too many failed sign-ins to this account. Sign in from a device or place you have signed "
            "in from before, or try again in %(minutes)d minutes."
        ) % {"minutes": minutes}
    else:
        seconds = retry_after_seconds(request)
        minutes = max(1, math.ceil(seconds / 60))
        detail = _(
            "Too many failed sign-ins from your address. Try again in %(minutes)d minutes."
        ) % {"minutes": minutes}
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": "locked_out", "detail": detail, "retry_after": seconds},
                                status=429)
    else:
        response = render(request, "registration/locked_out.html",
                          {"minutes": minutes, "detail": detail, "account_locked": account_until is not None},
                          status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response
