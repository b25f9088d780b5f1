"""Lockouts after repeated failed sign-ins, with django-axes (the settings are ``AXES_*`` and
``LOGIN_FAILURE_LIMIT_PER_ADDRESS`` in ``config.settings``).

- The pair (account, address) is locked after ``AXES_FAILURE_LIMIT`` failures, and an address
  on its own after ``LOGIN_FAILURE_LIMIT_PER_ADDRESS`` failures, whatever the accounts it tried;
  an account is never locked for every address (anyone could lock anyone out). A lock lasts
  ``AXES_COOLOFF_TIME`` from the last failure.
- A refused attempt is refused by ``LockoutBackend``, the first authentication backend, before
  any password is hashed, and records nothing.
- The counts are kept in the database (axes' database handler): no Redis needed.
- A refused sign-in answers 429: a page that says so on ``/accounts/login/`` and
  ``/admin/login/``, JSON on the API (``lockout_response``).
"""
from __future__ import annotations

import math

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _


def client_address(request: HttpRequest) -> str | None:
    """The client's address: ``REMOTE_ADDR``, or, behind ``TRUSTED_PROXY_COUNT`` proxies, the
    address the outermost of them saw (``X-Forwarded-For`` counted from the right), as DRF's
    throttles read it with ``NUM_PROXIES``. A client's own ``X-Forwarded-For`` is ignored."""
    remote = request.META.get("REMOTE_ADDR")
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
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
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class LoginAttempts(AxesDatabaseHandler):
    """Axes' database handler with two limits: the pair's (``AXES_FAILURE_LIMIT``) and the
    address's own (``LOGIN_FAILURE_LIMIT_PER_ADDRESS``).

    ``AXES_LOCKOUT_PARAMETERS`` is ``[["username", "ip_address"], "ip_address"]``: the first
    queryset is the pair's failures, the second the address's."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        counts = [
            attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        ]
        pair, address = (counts + [0, 0])[:2]
        if address >= settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS:
            return max(pair, settings.AXES_FAILURE_LIMIT)  # the address is locked: so is the pair
        return pair

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        """On a successful sign-in, forget the failures of this account from this address only
        (axes would forget the address's too: a guesser with an account of their own could then
        wipe their count by signing in between guesses)."""
        pair = self.get_user_attempts(request, credentials)[0]
        count, _deleted = pair.delete()
        return count


def retry_after_seconds(request: HttpRequest) -> int:
    cool_off = get_cool_off(request)
    return max(1, math.ceil(cool_off.total_seconds())) if cool_off else 0


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """429 for a refused sign-in: JSON on the API, else the page ``registration/locked_out.html``;
    ``Retry-After`` gives the lock's length in seconds."""
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
                          {"minutes": minutes, "detail": detail}, status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response
