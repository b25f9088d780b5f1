"""The database away: a 503 with ``Retry-After`` (JSON on the API, a short page in the reader's
language elsewhere), anonymous cached pages still served, logged once per outage; and what is
not an outage (a lock, a deadlock, a bad query) is not made one.

The database is made unreachable for real (``database_away``): SQLite's file in a folder that
does not exist, PostgreSQL on a port where nothing listens; the next query connects again."""
from __future__ import annotations

import logging
import socket
import sqlite3
from types import SimpleNamespace

import psycopg
import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import Error, connection
from django.db.utils import DatabaseErrorWrapper
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from config import database_outage
from config.database_outage import DatabaseUnavailable, is_unavailable, server_error
from leagues.models import Result
from leagues.services.results import result_record
from tests.leagues.site_world import build_world
from tests.test_project import _settings_of

SENTENCE = "The site cannot reach its database just now. Try again in 7 seconds."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_django(cause: Exception, driver=psycopg) -> Error:
    """``cause`` as Django raises it: its ``django.db`` class, the driver's error as ``__cause__``."""
    try:
        with DatabaseErrorWrapper(SimpleNamespace(Database=driver, errors_occurred=False)):
            raise cause
    except Error as exc:
        return exc
    raise AssertionError("not wrapped")


def refused_connection() -> psycopg.OperationalError:
    try:
        psycopg.connect(host="127.0.0.1", port=free_port(), user="nobody", dbname="none", connect_timeout=2)
    except psycopg.OperationalError as exc:
        return exc
    raise AssertionError("something listens on a free port")


def sqlite_error(sql: str = "", path: str = ":memory:") -> sqlite3.Error:
    try:
        sqlite3.connect(path).execute(sql)
    except sqlite3.Error as exc:
        return exc
    raise AssertionError("no error")


class Away:
    """Makes the default database unreachable (``away``) and reachable again (``back``)."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.saved_settings = dict(connection.settings_dict)
        self.saved_connection = None
        self.is_away = False

    def away(self) -> None:
        self.saved_connection, connection.connection = connection.connection, None
        if connection.vendor == "sqlite":
            connection.settings_dict["NAME"] = str(self.tmp_path / "no-such-folder" / "db.sqlite3")
        else:
            connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
        self.is_away = True

    def back(self) -> None:
        """The settings restored; the next query makes a new connection."""
        connection.settings_dict.clear()
        connection.settings_dict.update(self.saved_settings)
        self.is_away = False

    def restore(self) -> None:
        if self.is_away:
            self.back()
        if connection.connection is not None and connection.connection is not self.saved_connection:
            connection.connection.close()  # the driver's: Django keeps an in-memory SQLite open
        connection.connection = self.saved_connection
        database_outage.OUTAGE.reached()  # a test that left it away does not leak into the next


@pytest.fixture
def database(transactional_db, tmp_path, settings):
    settings.DATABASE_RETRY_AFTER_SECONDS = 7
    away = Away(tmp_path)
    yield away
    away.restore()


@pytest.fixture
def world(database):
    cache.clear()
    return build_world()


# --- what is an outage ----------------------------------------------------------------------------


@pytest.mark.parametrize("cause", [
    pytest.param(lambda: refused_connection(), id="psycopg-connection-refused"),
    pytest.param(lambda: psycopg.OperationalError("consuming input failed: server closed the connection "
                                                  "unexpectedly"), id="psycopg-connection-lost"),
    pytest.param(lambda: psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
                 id="57P01-server-stopped"),
    pytest.param(lambda: psycopg.errors.CannotConnectNow("the database system is starting up"),
                 id="57P03-starting-up"),
    pytest.param(lambda: psycopg.errors.TooManyConnections("sorry, too many clients already"), id="53300"),
    pytest.param(lambda: psycopg.errors.ConnectionFailure("connection failure"), id="08006"),
])
def test_a_connection_that_cannot_be_made_or_was_lost_is_an_outage(cause):
    assert is_unavailable(as_django(cause()))


def test_sqlites_file_that_cannot_be_opened_is_an_outage(tmp_path):
    cause = sqlite_error(path=str(tmp_path / "no-such-folder" / "db.sqlite3"))
    assert cause.sqlite_errorname == "SQLITE_CANTOPEN"
    assert is_unavailable(as_django(cause, sqlite3))


@pytest.mark.parametrize("cause", [
    pytest.param(lambda: psycopg.errors.LockNotAvailable("could not obtain lock on row"), id="55P03-lock"),
    pytest.param(lambda: psycopg.errors.DeadlockDetected("deadlock detected"), id="40P01-deadlock"),
    pytest.param(lambda: psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
                 id="57014-statement-timeout"),
    pytest.param(lambda: psycopg.errors.UndefinedTable('relation "nothing" does not exist'), id="42P01-bad-query"),
    pytest.param(lambda: psycopg.errors.DiskFull("could not extend file"), id="53100-disk-full"),
    pytest.param(lambda: psycopg.InterfaceError("the cursor is closed"), id="closed-cursor"),
])
def test_a_lock_a_deadlock_a_timeout_or_a_bad_query_is_no_outage(cause):
    assert not is_unavailable(as_django(cause()))


def test_sqlites_lock_and_bad_query_are_no_outage():
    locked = sqlite3.OperationalError("database is locked")  # BusyAsConflict's 409
    assert not is_unavailable(as_django(locked, sqlite3))
    assert not is_unavailable(as_django(sqlite_error("SELECT * FROM nothing"), sqlite3))


def test_the_middleware_leaves_other_errors_to_django():
    request = RequestFactory().get("/api/competitions/")
    middleware = DatabaseUnavailable(lambda request: None)
    assert middleware.process_exception(request, as_django(psycopg.errors.LockNotAvailable("lock"))) is None
    assert middleware.process_exception(request, ValueError("a bug")) is None


# --- the answers while it is away -------------------------------------------------------------------


def test_the_api_answers_503_unavailable_with_retry_after(world, database):
    token = world.token("organiser")
    database.away()
    anonymous = APIClient().get("/api/competitions/")
    assert anonymous.status_code == 503
    assert anonymous.json() == {"error": "unavailable", "detail": SENTENCE}
    assert anonymous["Retry-After"] == "7" and anonymous["Cache-Control"] == "no-store"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    write = client.patch("/api/competitions/liga/", {"half_minutes": 20}, format="json")
    assert write.status_code == 503 and write["Retry-After"] == "7"
    assert write.json()["error"] == "unavailable"


def test_a_refused_write_changes_nothing_and_the_site_is_right_again_at_once(world, database):
    world.draw()
    fixture = world.competition.fixtures.order_by("pk").first()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {world.token('organiser')}")
    database.away()
    refused = client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": 2, "away_goals": 1}, format="json")
    assert refused.status_code == 503
    database.back()
    assert not Result.objects.filter(fixture=fixture).exists()
    accepted = client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": 2, "away_goals": 1}, format="json")
    assert accepted.status_code == 200, accepted.content


def test_a_page_is_a_short_503_page_in_the_readers_language(world, database):
    database.away()
    page = Client().get("/competitions/", HTTP_ACCEPT_LANGUAGE="es")
    assert page.status_code == 503 and page["Retry-After"] == "7"
    text = page.content.decode()
    assert '<html lang="es">' in text and page["Content-Language"] == "es"
    assert "Vuelve a intentarlo en 7 segundos" in text
    assert 'href="/competitions/"' in text  # try again
    english = Client().get("/").content.decode()
    assert SENTENCE in english and "Back in a moment" in english


def test_a_signed_in_readers_page_is_a_503_in_the_language_of_their_cookie(world, database):
    client = Client()
    client.force_login(world.users["organiser"])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "it"
    assert client.get("/manage/").status_code == 200
    database.away()
    page = client.get("/manage/")
    assert page.status_code == 503 and page["Retry-After"] == "7"
    assert '<html lang="it">' in page.content.decode()
    form = client.post("/i18n/setlang/", {"language": "pt-br", "next": "/"})
    assert form.status_code == 503


def test_an_anonymous_cached_page_and_the_standings_api_are_still_served(world, database):
    world.draw()
    pages = ["/competitions/liga/", "/api/competitions/liga/standings/",
             f"/fixtures/{world.competition.fixtures.order_by('pk').first().pk}/"]
    before = {url: Client().get(url) for url in pages}
    spanish = Client().get(pages[0], HTTP_ACCEPT_LANGUAGE="es")
    assert all(answer.status_code == 200 for answer in before.values())
    database.away()
    for url in pages:
        during = Client().get(url)
        assert during.status_code == 200, url
        assert during.content == before[url].content and during["ETag"] == before[url]["ETag"]
        assert Client().get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"]).status_code == 304
    assert Client().get(pages[0], HTTP_ACCEPT_LANGUAGE="es").content == spanish.content
    # what was never rendered, or in another language, is the 503
    assert Client().get("/competitions/taca/").status_code == 503
    assert Client().get(pages[0], HTTP_ACCEPT_LANGUAGE="it").status_code == 503
    assert Client().get("/api/competitions/taca/standings/").json()["error"] == "unavailable"


def test_the_cached_copy_is_the_last_rendering(world, database, django_capture_on_commit_callbacks):
    world.draw()
    fixture = world.competition.fixtures.order_by("pk").first()
    Client().get("/competitions/liga/")
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=fixture, home_goals=7, away_goals=5)
    assert "7–5" in Client().get("/competitions/liga/").content.decode()
    database.away()
    assert "7–5" in Client().get("/competitions/liga/").content.decode()


def test_a_matchs_feed_is_a_json_503(world, database):
    database.away()
    feed = Client().get("/matches/1/feed/?after=0")
    assert feed.status_code == 503 and feed.json()["error"] == "unavailable" and feed["Retry-After"] == "7"


def test_logged_once_per_outage_and_back_when_a_connection_is_made(world, database, caplog):
    caplog.set_level(logging.DEBUG, logger="config.database_outage")
    database.away()
    for _ in range(3):
        assert Client().get("/competitions/").status_code == 503
    assert APIClient().get("/api/competitions/").status_code == 503
    records = [r for r in caplog.records if r.name == "config.database_outage"]
    assert [r.levelname for r in records] == ["ERROR", "DEBUG", "DEBUG", "DEBUG"]
    assert not [r for r in caplog.records if r.name == "django.request"]  # no "Service Unavailable" each
    assert "cannot be reached" in records[0].getMessage() and "GET /competitions/" in records[0].getMessage()
    caplog.clear()
    database.back()
    assert Client().get("/competitions/").status_code == 200
    assert Client().get("/competitions/").status_code == 200
    back = [r for r in caplog.records if r.name == "config.database_outage"]
    assert [r.levelname for r in back] == ["INFO"] and "back after" in back[0].getMessage()
    assert "4 requests" in back[0].getMessage()


def test_handler500_makes_an_outage_outside_a_view_a_503(settings):
    settings.DATABASE_RETRY_AFTER_SECONDS = 7
    request = RequestFactory().get("/competitions/")
    try:
        raise as_django(refused_connection())
    except Error:
        response = server_error(request)
    assert response.status_code == 503 and response["Retry-After"] == "7"
    assert response._has_been_logged  # once, by the outage's log: not as an "Internal Server Error"
    try:
        raise as_django(psycopg.errors.LockNotAvailable("lock"))
    except Error:
        assert server_error(request).status_code == 500
    database_outage.OUTAGE.reached()


def test_every_api_operation_says_it_may_answer_503_with_retry_after(db):
    schema = APIClient().get("/api/schema/?format=json").json()
    operations = [(path, method, operation) for path, item in schema["paths"].items()
                  for method, operation in item.items() if method in {"get", "post", "put", "patch", "delete"}]
    assert operations
    for path, method, operation in operations:
        answer = operation["responses"].get("503")
        assert answer is not None, f"{method} {path}"
        assert "Retry-After" in answer["headers"]
        assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Refusal"}


def test_kept_connections_are_checked_before_use_and_connecting_gives_up():
    """A connection kept (``DB_CONN_MAX_AGE``, ``DB_POOL``) that a restart broke is discarded, and
    PostgreSQL that does not answer at all is given up after ``DB_CONNECT_TIMEOUT`` seconds."""
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True
    out = _settings_of("DATABASES", DEBUG="1", DATABASE_URL="postgresql://u@db.example:5432/b",
                       DB_POOL="4", DB_CONNECT_TIMEOUT="3")
    assert out.returncode == 0, out.stderr
    assert "'connect_timeout': 3" in out.stdout and "'CONN_HEALTH_CHECKS': True" in out.stdout
    assert "'pool'" in out.stdout


@pytest.mark.django_db
def test_a_database_error_that_is_not_an_outage_is_a_logged_500_with_the_apis_json_body(settings, monkeypatch,
                                                                                          caplog):
    settings.DEBUG = False
    full = as_django(sqlite3.OperationalError("database or disk is full"), driver=sqlite3)
    assert not is_unavailable(full)

    def disk_full(*args, **kwargs):
        raise full

    monkeypatch.setattr("leagues.api.views.CompetitionViewSet.get_queryset", disk_full)
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get("/api/competitions/")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert response.json()["error"] == "server_error" and "logged" in response.json()["detail"]
    logged = [r for r in caplog.records if r.name == "django.request"]
    assert len(logged) == 1 and logged[0].status_code == 500 and logged[0].request.path == "/api/competitions/"
    assert logged[0].exc_info[1] is full
    page = client.get("/competitions/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200  # the pages do not use the API's queryset
