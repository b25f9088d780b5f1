"""``BusyAsConflict``: a write that met another one and could not wait it out, in a path that does
not retry it itself (a deadlock or a lock timeout reported by PostgreSQL; SQLite's "database is
locked" after its busy timeout), is answered 409 ``busy`` (try again), never 500. The services that
write results retry such conflicts first (``leagues.services.locks.retry_conflicts``); this is the
net under every other path (check-ins, moves, the deadlines a read applies)."""
from __future__ import annotations

import logging

from django import db
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from config.database_outage import answer_unavailable
from leagues import pagecache
from leagues.services.locks import is_transient

logger = logging.getLogger(__name__)


class BusyAsConflict:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError) or not is_transient(exception):
            return None
        logger.warning("%s %s met another write and was answered 409: %s", request.method, request.path,
                       str(exception).splitlines()[0] if str(exception) else type(exception).__name__)
        detail = _("another change of the same data was being saved; try again")
        if request.path.startswith("/api/") or "json" in request.headers.get("Accept", "") \
                or request.path.endswith("/feed/"):
            return JsonResponse({"error": "busy", "detail": detail}, status=409)
        return HttpResponse(detail, status=409, content_type="text/plain; charset=utf-8")


class AnonymousCacheMiddleware:
    """Answers an anonymous request for a cached page (a competition's, a fixture's, the
    standings API) from the cache before the session, the user and the CSRF machinery are
    loaded (``leagues.pagecache.early_answer``); anything else goes on to the view, which
    stores what it renders. Placed after the security headers' middlewares, which still
    apply to what it answers. While the database cannot be reached it answers the page's last
    rendering, or the 503 (``config.database_outage``): an error raised here would be a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            answer = pagecache.early_answer(request)
        except db.Error as exc:  # a DatabaseError or an InterfaceError
            answer = answer_unavailable(request, exc)
            if answer is None:
                raise
        return answer or self.get_response(request)
