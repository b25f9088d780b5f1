"""The database away: ``503 Service Unavailable`` with ``Retry-After``, never a 500.

While PostgreSQL (or SQLite's file) cannot be reached, a request that needs it is answered
``503``: the API (and any answer asked as JSON, a match's feed) ``{"error": "unavailable",
"detail": SENTENCE}``, a page the short page ``templates/503.html`` in the reader's language;
both with ``Retry-After: DATABASE_RETRY_AFTER_SECONDS`` and ``Cache-Control: no-store``.
Anonymous pages in the cache are still served from it (``leagues.pagecache``). Nothing is
half-written: a write's transaction that meets the outage is rolled back by the database.

What is an outage (``is_unavailable``), and nothing else (a lock not granted, a deadlock, a
statement timeout, a bad query stay what they are: a 409 or a 500 with its traceback):

- psycopg: an error raised by the client itself (no SQLSTATE: a connection attempt that failed,
  for whatever reason the log gives; a connection lost or closed; the socket gone; the pool's
  wait for a connection timed out), or the server's class 08 (connection exception),
  ``57P01``/``57P02`` (the server shutting down: administrator or crash), ``57P03`` (it cannot
  take connections now: starting up or shutting down) and ``53300`` (too many connections);
- SQLite: ``SQLITE_CANTOPEN`` and ``SQLITE_IOERR`` (the file or its folder cannot be opened,
  read or written); its ``SQLITE_BUSY`` ("database is locked") is ``BusyAsConflict``'s 409;
- Django's ``InterfaceError`` that says the connection is closed.

Logged once per outage and process: the first request that meets it logs an error, the next
ones a debug line, and the first connection made after it logs that the database is back (the
``connection_created`` signal). Recovery needs nothing: a broken connection is discarded
(``CONN_HEALTH_CHECKS``, also the pool's check, in ``config.settings``) and the next request
connects again.
"""
from __future__ import annotations

import logging
import sqlite3
import sys
import threading
import time

import psycopg
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.db.backends.signals import connection_created
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views import defaults

logger = logging.getLogger(__name__)

# the server's SQLSTATEs of a database that cannot be used now (besides class 08)
UNAVAILABLE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300"})
SQLITE_IOERR, SQLITE_CANTOPEN = 10, 14  # primary result codes (an extended code's low byte)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (a ``django.db`` error) says the database cannot be reached, as the
    module's docstring lists; ``False`` for any other error."""
    if isinstance(exc, InterfaceError):
        text = str(exc).lower()
        return "connection" in text and "closed" in text
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    if isinstance(cause, psycopg.Error):
        if cause.sqlstate is None:  # raised by psycopg itself, not by a server that answered
            return isinstance(cause, psycopg.OperationalError)
        return cause.sqlstate.startswith("08") or cause.sqlstate in UNAVAILABLE_SQLSTATES
    if isinstance(cause, sqlite3.Error):
        return (getattr(cause, "sqlite_errorcode", 0) & 0xFF) in (SQLITE_IOERR, SQLITE_CANTOPEN)
    return False


class OutageLog:
    """This process's view of the outage: when it began and how many requests met it, so that
    it is logged once, not once per request. Thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self.since: float | None = None
        self.requests = 0

    def met(self, exc: BaseException, request: HttpRequest, *, answer: str = "503") -> None:
        """A request met the outage (and was answered ``answer``): an error the first time, then
        a debug line."""
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        with self._lock:
            first = self.since is None
            if first:
                self.since, self.requests = time.monotonic(), 0
            self.requests += 1
        if first:
            logger.error("the database cannot be reached (%s): %s %s answered %s; until it is back a request "
                         "that needs it is answered 503 (an anonymous cached page from the cache)", reason,
                         request.method, request.path, answer)
        else:
            logger.debug("the database is still away: %s %s answered %s", request.method, request.path, answer)

    def reached(self) -> None:
        """A connection was made: the outage, if there was one, is over."""
        if self.since is None:
            return
        with self._lock:
            since, requests, self.since = self.since, self.requests, None
        if since is not None:
            logger.info("the database is back after %.1f s; %d requests found it away", time.monotonic() - since,
                        requests)


OUTAGE = OutageLog()


def _connection_made(sender, connection, **kwargs) -> None:
    OUTAGE.reached()


connection_created.connect(_connection_made, dispatch_uid="config.database_outage")


def answers_json(request: HttpRequest) -> bool:
    """The API, a client that asks for JSON, a match's feed: a JSON body, not the page."""
    return (request.path.startswith("/api/") or "json" in request.headers.get("Accept", "")
            or request.path.endswith("/feed/"))


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """The 503 in the active language: JSON ``{"error": "unavailable", "detail"}`` or the page
    ``503.html`` (rendered without the request: no context processor, no query), with
    ``Retry-After`` (seconds) and ``Cache-Control: no-store``."""
    seconds = settings.DATABASE_RETRY_AFTER_SECONDS
    detail = ngettext(
        "The site cannot reach its database just now. Try again in %(seconds)d second.",
        "The site cannot reach its database just now. Try again in %(seconds)d seconds.",
        seconds,
    ) % {"seconds": seconds}
    if answers_json(request):
        response = JsonResponse({"error": "unavailable", "detail": detail}, status=503)
    else:
        page = render_to_string("503.html", {"detail": detail, "LANGUAGE_CODE": get_language(),
                                             "again": request.get_full_path() if request.method == "GET" else ""})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    response["Content-Language"] = get_language()
    # not logged again per request by django.request (django.utils.log.log_response): OUTAGE logs it
    response._has_been_logged = True
    return response


def answer_unavailable(request: HttpRequest, exc: BaseException) -> HttpResponse | None:
    """The 503 for ``exc`` when it is an outage (noted in ``OUTAGE``), else ``None``."""
    if not is_unavailable(exc):
        return None
    OUTAGE.met(exc, request)
    return unavailable_response(request)


class DatabaseUnavailable:
    """A view (an API view, a page, its template) that met the outage is answered 503."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return answer_unavailable(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500`` (with ``DEBUG`` off, where Django calls it): the net under a middleware
    that met the outage outside any view, a 503 logged once; any other error (a database
    error that is not an outage among them: a full disk, a bad query) a 500, logged with the
    request by ``django.request`` as always, answered on the API (and to JSON callers) with
    its JSON body ``{"error": "server_error", "detail": SENTENCE}``, elsewhere Django's page."""
    exc = sys.exc_info()[1]
    response = answer_unavailable(request, exc) if exc is not None else None
    if response is not None:
        return response
    if answers_json(request):
        return JsonResponse({"error": "server_error", "detail": _(
            "Something went wrong on the server. It has been logged; try again, and if it happens again, "
            "tell the site's administrators.")}, status=500)
    return defaults.server_error(request)
