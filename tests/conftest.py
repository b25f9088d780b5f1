"""Shared fixtures.

The plain suite runs anywhere (SQLite by default). Tests marked ``integration`` need real
PostgreSQL (``DATABASE_URL``), Redis (``REDIS_URL``) and start a real ``celery worker``
process; without those services they are skipped with the reason, and with
``REQUIRE_SERVICES=1`` (CI) a missing service is a failure instead.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _require_services() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false")


def services_missing() -> str | None:
    """The reason the integration services are unusable, or None when all are there."""
    from django.conf import settings

    if not settings.REDIS_URL:
        return "REDIS_URL is not set"
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "DATABASE_URL is not PostgreSQL"
    try:
        import redis

        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001 - any failure means the service is unusable
        return f"Redis at REDIS_URL does not answer: {exc}"
    return None


def skip_or_fail_without_services():
    reason = services_missing()
    if reason:
        if _require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)


@pytest.fixture(autouse=True)
def _eager_celery(request):
    """Plain tests run Celery tasks in-process; integration tests go through the broker."""
    from config.celery import app

    eager = request.node.get_closest_marker("integration") is None
    before = app.conf.task_always_eager
    app.conf.task_always_eager = eager
    yield
    app.conf.task_always_eager = before


@pytest.fixture(autouse=True)
def _fresh_throttles(monkeypatch):
    """Each test counts its own API rates: the throttles' counts go to a cache of the test's
    (the suite's requests all come from one address and reuse user ids)."""
    from django.core.cache.backends.locmem import LocMemCache
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "cache", LocMemCache(f"throttles-{os.getpid()}-{time.monotonic_ns()}", {}))


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's language: a request in another one (the locale middleware
    activates the reader's language and leaves it active in the thread) does not carry over."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


STUB_REFEREE = "tests.matches.stub_referee:StubReferee"


@pytest.fixture
def stub_referee(settings, monkeypatch):
    """Online matches are refereed by ``tests.matches.stub_referee`` (here and in a worker)."""
    settings.MATCHES_REFEREE_OVERRIDE = STUB_REFEREE
    monkeypatch.setenv("MATCHES_REFEREE_OVERRIDE", STUB_REFEREE)
    return STUB_REFEREE


@pytest.fixture
def services():
    """Skips (or fails under REQUIRE_SERVICES=1) unless PostgreSQL and Redis are usable."""
    skip_or_fail_without_services()


def _worker_env(db_name: str) -> dict[str, str]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgresql://{db.get('USER') or ''}"
        f"{':' + db['PASSWORD'] if db.get('PASSWORD') else ''}@{db.get('HOST') or '127.0.0.1'}"
        f":{db.get('PORT') or 5432}/{db_name}"
    )
    env["REDIS_URL"] = settings.REDIS_URL
    env["PYTHONUNBUFFERED"] = "1"
    return env


class WorkerProcess:
    """A real ``celery worker`` subprocess bound to the test database."""

    def __init__(self, db_name: str, hostname: str):
        self.db_name = db_name
        self.hostname = hostname
        self.proc: subprocess.Popen | None = None
        self.log = ROOT / ".pytest_cache" / f"worker-{hostname}.log"

    def start(self) -> WorkerProcess:
        from config.celery import app

        self.log.parent.mkdir(exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
             "--concurrency=1", "--without-gossip", "--without-mingle", "--without-heartbeat",
             f"--hostname={self.hostname}@%h", "--loglevel=info"],
            cwd=ROOT, env=_worker_env(self.db_name),
            stdout=self.log.open("w"), stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"celery worker exited: {self.log.read_text()[-2000:]}")
            replies = app.control.ping(timeout=0.5) or []
            if any(self.hostname in name for reply in replies for name in reply):
                return self
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"celery worker did not answer within 30 s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: the worker dies as a crashed machine would, without acknowledging anything."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def celery_worker_process(services, transactional_db):
    """Starts a real celery worker against the test database; yields a ``WorkerProcess``.

    The test must commit its data (``transactional_db``) so the worker can see it.
    """
    from django.db import connection

    from config.celery import app

    app.control.purge()
    worker = WorkerProcess(connection.settings_dict["NAME"], hostname=f"test{os.getpid()}")
    worker.start()
    yield worker
    worker.stop()
    app.control.purge()


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.2):
    """Polls ``predicate`` until it returns a truthy value or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
