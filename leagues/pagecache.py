"""The public competition pages (a competition's, its rounds', a fixture's) and the standings
API, cached per competition and language.

A page's cache key is made of what it was computed from, read in one small query: the
competition's ``results_version`` (bumped by every change of the results, a withdrawal, the
fixtures made), ``derived_version`` (bumped by the recomputation of the standings and the
bracket), ``updated_at`` (its settings), and the competition's *page token*, a value in the
cache that every save of its fixtures, entrants, stages, groups, rounds, registration and
sign-ups (and every recomputation, the organiser's repair included) replaces after commit,
so that a reschedule or a new entrant shows at once. Writes in bulk (an import) send no
signal; they bump ``results_version``. What depends on the clock or on live matches (the
sign-up window, the live matches' list) is at most ``PAGE_TTL`` seconds old.

Only anonymous requests without a session or messages are answered from the cache (a signed-
in visitor sees their own buttons; nothing personal is ever stored), and a response that set
a cookie is not stored. Every cached answer carries an ``ETag`` (the key's digest), a
``Last-Modified`` (when it was rendered) and ``Cache-Control: public, max-age=0,
must-revalidate``: a client's conditional request with nothing new is a ``304`` that costs one
query and one cache read. With the cache down (Redis unreachable), every request renders.

While the database cannot be reached (``config.database_outage``) the scope cannot be read: an
anonymous request is then answered with the page's last rendering in its language, which every
rendering also keeps for ``OUTAGE_COPY_TTL`` seconds (``keep_for_outage``), or else a 503.
"""
from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable

from django import db
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_http_date_safe
from django.utils.translation import get_language

from config.database_outage import OUTAGE, is_unavailable
from leagues.models import (
    Competition,
    Entrant,
    Fixture,
    Group,
    KickoffProposal,
    Registration,
    ResultReport,
    Round,
    SignUp,
    Stage,
)
from matches.views import spectators_feed

PAGE_TTL = 30  # seconds a cached page lives at most (the clock's and the live matches' part)
# seconds a page's last rendering is kept, to answer anonymous readers while the database is away
OUTAGE_COPY_TTL = 3600


def _token_key(competition_id: int) -> str:
    return f"page-token:{competition_id}"


def page_token(competition_id: int) -> str:
    """The competition's current page token; a missing one (never set, evicted, Redis
    restarted) is replaced by a new one, so that a lost token never brings back an old page."""
    key = _token_key(competition_id)
    token = cache.get(key)
    if token is None:
        token = str(time.time_ns())
        cache.add(key, token, None)
        token = cache.get(key) or token
    return token


def pages_changed(competition_id: int | None) -> None:
    """Every cached page of the competition is stale from the commit of the current
    transaction on (at once outside one)."""
    if competition_id is None:
        return
    transaction.on_commit(lambda: cache.set(_token_key(competition_id), str(time.time_ns()), None))


def _row(sql: str, params: list) -> tuple | None:
    # raw SQL: the ORM's building of this one query costs more than the rest of a cache hit
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def competition_scope(slug: str) -> tuple | None:
    """(id, results_version, derived_version, updated_at, page token) of the competition
    ``slug``; ``None`` when there is none."""
    table = connection.ops.quote_name(Competition._meta.db_table)
    row = _row(f"SELECT id, results_version, derived_version, updated_at FROM {table} WHERE slug = %s", [slug])
    if row is None:
        return None
    return (*row[:3], str(row[3]), page_token(row[0]))


def fixture_scope(pk: int) -> tuple | None:
    """The scope of a fixture's page: its competition's, the fixture's id, and what of the
    fixture and its match the page shows that changes."""
    quote = connection.ops.quote_name
    fixture, competition = quote(Fixture._meta.db_table), quote(Competition._meta.db_table)
    match = quote(Fixture._meta.get_field("match").related_model._meta.db_table)
    row = _row(f"SELECT c.id, c.results_version, c.derived_version, c.updated_at, f.status, f.status_changed_at, "
               f"f.kickoff_at, f.venue, f.match_id, m.status, m.seq, m.status_changed_at, f.home_lineup_at, "
               f"f.away_lineup_at, f.home_player_id, f.away_player_id FROM {fixture} f "
               f"JOIN {competition} c ON c.id = f.competition_id LEFT JOIN {match} m ON m.id = f.match_id "
               f"WHERE f.id = %s", [pk])
    if row is None:
        return None
    return (*row[:3], str(row[3]), page_token(row[0]), pk, *(str(v) for v in row[4:]))


def cacheable(request: HttpRequest) -> bool:
    """An anonymous GET or HEAD without a session or pending messages: what may be answered
    from, and stored in, the shared cache."""
    if request.method not in ("GET", "HEAD"):
        return False
    if settings.SESSION_COOKIE_NAME in request.COOKIES or "messages" in request.COOKIES:
        return False
    return not request.user.is_authenticated


def cached_page(request: HttpRequest, *, name: str, scope: tuple,
                build: Callable[[], HttpResponse]) -> HttpResponse:
    """The response of ``build()`` for an anonymous visitor, kept under ``name`` + ``scope`` +
    the language + the full path; for anyone else, ``build()`` as it is."""
    if not cacheable(request):
        response = build()
        patch_cache_control(response, private=True)
        return response
    key = scoped_key(f"page:{name}", scope, request.get_full_path())
    etag = f'"{key.rsplit(":", 1)[1]}"'
    entry = cache.get(key)
    if entry is None:
        response = build()
        if response.status_code != 200 or response.cookies or getattr(response, "streaming", False):
            return response
        entry = {"content": response.content, "type": response["Content-Type"], "at": time.time(),
                 "headers": {h: response[h] for h in ("Content-Language",) if h in response},
                 # what a view's decorators ask of the headers' middlewares (csp, clickjacking)
                 "marks": {k: v for k, v in vars(response).items()
                           if k.startswith("_csp") or k == "xframe_options_exempt"}}
        cache.set(key, entry, PAGE_TTL)
        keep_for_outage(f"page:{name}", request.get_full_path(), key=key, entry=entry)
    else:
        if not_modified(request, etag, entry["at"]):
            response = HttpResponseNotModified()
            validators(response, etag, entry["at"])
            return response
        response = HttpResponse(entry["content"], content_type=entry["type"])
        for header, value in entry["headers"].items():
            response[header] = value
    validators(response, etag, entry["at"])
    return response


def scoped_key(name: str, scope: tuple, *more) -> str:
    """A cache key for ``name`` under ``scope`` in the current language: ``name:<digest>``."""
    raw = ":".join(str(part) for part in (*scope, get_language(), *more))
    return f"{name}:{hashlib.sha256(raw.encode()).hexdigest()[:32]}"


def _outage_key(name: str, address: str) -> str:
    raw = f"{name}:{get_language()}:{address}"
    return f"outage-copy:{hashlib.sha256(raw.encode()).hexdigest()[:32]}"


def keep_for_outage(name: str, address: str, *, key: str, entry: dict) -> None:
    """Keeps ``entry`` (stored under ``key``) as the last rendering of ``name`` at ``address``
    (a page's full path, the standings' slug) in the current language, for ``OUTAGE_COPY_TTL``
    seconds: what ``early_answer`` serves while the database cannot be reached."""
    cache.set(_outage_key(name, address), {**entry, "key": key}, OUTAGE_COPY_TTL)


def not_modified(request: HttpRequest, etag: str, at: float) -> bool:
    """Whether the client's validators (``If-None-Match``, else ``If-Modified-Since``) say it
    holds this answer already."""
    if_none_match = request.headers.get("If-None-Match")
    if if_none_match is not None:  # it takes precedence over If-Modified-Since (RFC 9110 13.2.2)
        return etag in [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")] or if_none_match == "*"
    since = parse_http_date_safe(request.headers.get("If-Modified-Since", ""))
    return since is not None and int(at) <= since


def validators(response: HttpResponse, etag: str, at: float, *, public: bool = True) -> None:
    """``ETag``, ``Last-Modified`` and ``Cache-Control`` (``public`` for an anonymous answer,
    ``private`` otherwise; revalidated at every use either way)."""
    response["ETag"] = etag
    response["Last-Modified"] = http_date(at)
    if public:
        patch_cache_control(response, public=True, max_age=0, must_revalidate=True)
    else:
        patch_cache_control(response, private=True, max_age=0, must_revalidate=True)
    patch_vary_headers(response, ("Cookie", "Accept-Language", "Authorization"))


# --- What makes a competition's pages stale (saves one by one; bulk writes bump versions) -----


def _competition_of(instance) -> int | None:
    if isinstance(instance, Competition):
        return instance.pk
    if isinstance(instance, Stage):
        return instance.competition_id
    if isinstance(instance, Group | Round):
        return Stage.objects.filter(pk=instance.stage_id).values_list("competition_id", flat=True).first()
    if isinstance(instance, ResultReport | KickoffProposal):
        return Fixture.objects.filter(pk=instance.fixture_id).values_list("competition_id", flat=True).first()
    return getattr(instance, "competition_id", None)


def _changed(sender, instance, **kwargs) -> None:
    pages_changed(_competition_of(instance))


for _model in (Competition, Fixture, Entrant, Stage, Group, Round, Registration, SignUp, ResultReport, KickoffProposal):
    post_save.connect(_changed, sender=_model, dispatch_uid=f"pagecache-save-{_model.__name__}")
    post_delete.connect(_changed, sender=_model, dispatch_uid=f"pagecache-delete-{_model.__name__}")


# --- Served before the session, the user and the CSRF machinery are even looked at -----------

# ids as the URLconf's <id:...> takes them (config.converters): a larger number is the view's 404
_FEED = re.compile(r"^/matches/(?P<pk>[1-9][0-9]{0,17}|[1-8][0-9]{18})/feed/$")
_PAGES = (
    (re.compile(r"^/competitions/(?P<slug>[-a-zA-Z0-9_]+)/$"), "competition"),
    (re.compile(r"^/competitions/(?P<slug>[-a-zA-Z0-9_]+)/rounds/[0-9]+/$"), "round"),
    (re.compile(r"^/fixtures/(?P<pk>[1-9][0-9]{0,17}|[1-8][0-9]{18})/$"), "fixture"),
    (re.compile(r"^/api/competitions/(?P<slug>[-a-zA-Z0-9_]+)/standings/$"), "standings-api"),
)


def early_answer(request: HttpRequest) -> HttpResponse | None:
    """A cached answer for an anonymous request of a cached page or of a match's feed
    (``matches.views.spectators_feed``), or ``None`` (then the view
    runs, and stores it). ``AnonymousCacheMiddleware`` asks this before the session and the
    user are loaded: a hit costs the scope's query and one cache read. While the database
    cannot be reached, a page's last rendering (``keep_for_outage``); without one, or for the
    feed, the ``django.db`` error is raised (the middleware answers 503)."""
    if not cacheable_early(request):
        return None
    # the reader's language, as LocaleMiddleware (which comes after) would choose it: it is in the keys
    language = translation.get_language_from_request(request)
    translation.activate(language)
    found = _FEED.match(request.path_info)
    if found is not None:
        return spectators_feed(request, int(found["pk"]))
    for pattern, name in _PAGES:
        found = pattern.match(request.path_info)
        if found is None:
            continue
        if name == "standings-api" and "html" in request.headers.get("Accept", ""):
            return None  # the browsable API: rendered for a person, by the view
        try:
            key = _current_key(request, name, found)
            entry = cache.get(key) if key is not None else None
        except db.Error as exc:  # a DatabaseError or an InterfaceError
            if not is_unavailable(exc):
                raise
            entry = _outage_copy(request, name, found)
            if entry is None:
                raise
            OUTAGE.met(exc, request, answer="from the cache")
            key = entry["key"]
        if entry is None or "content" not in entry:
            return None
        etag = f'"{key.rsplit(":", 1)[1]}"'
        if not_modified(request, etag, entry["at"]):
            response = HttpResponseNotModified()
        else:
            response = HttpResponse(entry["content"], content_type=entry["type"])
            for header, value in entry.get("headers", {}).items():
                response[header] = value
        for mark, value in entry.get("marks", {}).items():
            setattr(response, mark, value)
        # XFrameOptionsMiddleware and LocaleMiddleware come after this one: what they add, added here
        if not entry.get("marks", {}).get("xframe_options_exempt"):
            response["X-Frame-Options"] = settings.X_FRAME_OPTIONS
        response.headers.setdefault("Content-Language", language)
        validators(response, etag, entry["at"])
        return response
    return None


def _current_key(request: HttpRequest, name: str, found: re.Match) -> str | None:
    """The cache key of the page ``name`` as the database says it is now (its scope's query)."""
    if name == "standings-api":
        scope = competition_scope(found["slug"])
        return scoped_key("standings-api", scope) if scope is not None else None
    scope = competition_scope(found["slug"]) if name in ("competition", "round") else fixture_scope(int(found["pk"]))
    return scoped_key(f"page:{name}", scope, request.get_full_path()) if scope is not None else None


def _outage_copy(request: HttpRequest, name: str, found: re.Match) -> dict | None:
    if name == "standings-api":
        return cache.get(_outage_key("standings-api", found["slug"]))
    return cache.get(_outage_key(f"page:{name}", request.get_full_path()))


def cacheable_early(request: HttpRequest) -> bool:
    """``cacheable`` without touching the session: no session or messages cookie (then the
    visitor is anonymous), no credentials."""
    return (request.method in ("GET", "HEAD") and settings.SESSION_COOKIE_NAME not in request.COOKIES
            and "messages" not in request.COOKIES and "Authorization" not in request.headers)
