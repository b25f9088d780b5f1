"""Faults and concurrency, measured (issue 14's targets; ``make faults``, not a test).

``python -m tests.bench.faults [--only redis,worker,concurrency,sqlite,postgres] [--json]``

Targets, each measured as a production site runs (gunicorn with ``DEBUG=0``, a redis-server,
a celery worker and beat, all processes of their own that this script starts and stops,
against a scratch PostgreSQL database it creates and drops: ``--database-url``, default
``postgresql://postgres@127.0.0.1:5432/botonera_faults``; never ``DATABASE_URL``):

- **redis**: Redis stopped ``--outage`` (30) seconds while organisers record results through
  the API and the pages, withdraw an entrant, and an online match reaches full time, with
  spectators and the action API reading: 0 answers of 5xx; every result official and every
  table right within 60 s of Redis being back (``recovered_s``); the worker reconnected
  within 5 s (``worker_reconnect_s``).
- **worker**: the whole worker killed with ``kill -9`` in the middle of an adjudication (the
  match row is locked by it), then a worker started again: the result official within 60 s of
  that (``official_s``), exactly one result and one history entry.
- **concurrency**: 120 concurrent recordings of one fixture's result through the API: 0 × 5xx,
  the stored result one of the accepted ones, one history entry per accepted request; and 12
  concurrent check-ins (the fixture's and the match's endpoints), entrants added while the
  fixtures are generated, and same-name races of entrants and competitions: 0 × 5xx, each
  with its rows checked.
- **sqlite**: the embedded default as ``make run`` serves it (``runserver``, SQLite, Celery
  eager, the demo federation) with one player's two tabs racing the same move (201 and 409,
  or a replay), 50 spectators polling the demo's bot match and a results import running in
  another process: 0 × 5xx and no "database is locked" in the server's log.
- **postgres**: a PostgreSQL cluster of the run's own stopped ``--pg-outage`` (10) seconds while
  50 results are recorded and 200 reads made: 0 × 500, every refused write a 503 with
  ``Retry-After``, every accepted write stored, cached reads 200, right again at once
  (``tests.bench.database_outage``, run in a process of its own: its Django is on that cluster).

Every scenario returns its figures and the problems it found (an answer of 5xx, a wrong row, a
target missed); the script prints them and exits 1 when there is any problem. The scenarios
are also run, smaller, by ``tests/leagues/test_faults.py``.
"""
from __future__ import annotations

import argparse
import csv
import http.client
import http.cookiejar
import io
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_faults"
RECOVERY_TARGET_S = 60.0
RECONNECT_TARGET_S = 5.0


# --- processes -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Proc:
    """A process of the run with its log file, in a session of its own: ``kill`` is a
    ``kill -9`` of the whole group (a worker's pool children too), as a crashed machine."""

    def __init__(self, name: str, argv: list[str], *, env: dict[str, str], log_dir: Path):
        self.name, self.argv, self.env = name, argv, env
        self.log = log_dir / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Proc:
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=self.log.open("a"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 20.0) -> None:
        if not self.running:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL to the process and all its children: nothing is acknowledged or cleaned up."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)

    def text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def wait_for_log(self, pattern: str, *, timeout: float, after: int = 0) -> str:
        """Waits for ``pattern`` (a regular expression) in the log past offset ``after``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text()[after:])
            if found:
                return found.group(0)
            if not self.running:
                raise RuntimeError(f"{self.name} exited:\n{self.text()[-3000:]}")
            time.sleep(0.1)
        raise RuntimeError(f"{self.name}: no {pattern!r} within {timeout:.0f} s:\n{self.text()[-3000:]}")


class RedisServer(Proc):
    """A redis-server of the run's own on a free port (never the shared one), no persistence."""

    def __init__(self, log_dir: Path, port: int | None = None):
        self.port = port or free_port()
        super().__init__("redis", ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", "",
                                   "--appendonly", "no", "--loglevel", "warning"], env=dict(os.environ),
                         log_dir=log_dir)

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        super().start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((HOST, self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on {self.port}:\n{self.text()}")


def service_env(*, database_url: str, redis_url: str = "", debug: bool = False, **extra: str) -> dict[str, str]:
    """The environment of a web, worker or beat process of the run."""
    env = dict(os.environ)
    for name in ("REDIS_URL", "DJANGO_SETTINGS_MODULE"):
        env.pop(name, None)
    env.update({
        "DATABASE_URL": database_url, "DEBUG": "1" if debug else "0", "SECRET_KEY": secrets.token_urlsafe(40),
        "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": f"{HOST},localhost,testserver", "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "config.settings",
    })
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    return env


def web(env: dict[str, str], log_dir: Path, *, workers: int = 2, threads: int = 8) -> tuple[Proc, str]:
    """gunicorn serving ``config.wsgi`` on a free port; returns it (answering) and its base URL.
    The static files are collected first, as a production site's are (``DEBUG=0``)."""
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    proc = Proc("web", [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"{HOST}:{port}",
                        "--worker-class", "gthread", "--workers", str(workers), "--threads", str(threads),
                        "--timeout", "120", "--backlog", "2048", "--log-level", "warning"],
                env={**env, "DB_CONN_MAX_AGE": "60"}, log_dir=log_dir).start()
    base = f"http://{HOST}:{port}"
    wait_http(proc, base)
    return proc, base


def wait_http(proc: Proc, base: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.running:
            raise RuntimeError(f"{proc.name} exited:\n{proc.text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/", timeout=5) as response:
                if response.status == 200:
                    return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{proc.name} did not answer within {timeout:.0f} s:\n{proc.text()[-3000:]}")


def worker(env: dict[str, str], log_dir: Path, name: str = "worker", *, concurrency: int = 1) -> Proc:
    """A celery worker (prefork: a main process and its pool), started and ready."""
    proc = Proc(name, [sys.executable, "-m", "celery", "-A", "config", "worker", f"--concurrency={concurrency}",
                       "--without-gossip", "--without-mingle", f"--hostname={name}-{uuid.uuid4().hex[:6]}@%h",
                       "--loglevel=info"], env=env, log_dir=log_dir)
    offset = len(proc.text())
    proc.start()
    proc.wait_for_log(r"ready\.", timeout=60, after=offset)
    return proc


def beat(env: dict[str, str], log_dir: Path) -> Proc:
    schedule = log_dir / f"beat-schedule-{uuid.uuid4().hex[:6]}"
    proc = Proc("beat", [sys.executable, "-m", "celery", "-A", "config", "beat", "-s", str(schedule),
                         "--loglevel=info"], env=env, log_dir=log_dir).start()
    proc.wait_for_log(r"beat: Starting", timeout=60)
    return proc


def log_times(text: str, pattern: str) -> list[datetime]:
    """The local times of the celery log lines matching ``pattern``."""
    out = []
    for line in text.splitlines():
        if re.search(pattern, line):
            found = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})", line)
            if found:
                out.append(datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f"))
    return out


def server_log_problems(proc: Proc) -> list[str]:
    """Tracebacks, 500s and "database is locked" in a web server's log."""
    text = proc.text()
    problems = []
    for needle in ("Traceback", "database is locked", "Internal Server Error", '" 500 '):
        count = text.count(needle)
        if count:
            problems.append(f"{proc.name} log: {count} x {needle!r}")
    return problems


# --- HTTP ------------------------------------------------------------------------------------------


class _LoopbackCookies(http.cookiejar.DefaultCookiePolicy):
    """Secure cookies sent back over plain HTTP: the run talks to loopback, with ``DEBUG=0``."""

    def return_ok_secure(self, cookie, request):
        return True


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@dataclass
class Reply:
    status: int  # 0: no answer (connection refused, reset, timeout)
    body: bytes
    ms: float
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"{}")
        except ValueError:
            return {}


class Client:
    """One browser or API client: its cookies (session, CSRF) or its token; no redirects
    followed (a page's POST that worked answers 302)."""

    def __init__(self, base: str, token: str | None = None, *, timeout: float = 60.0):
        self.base, self.token, self.timeout = base, token, timeout
        self.cookies = http.cookiejar.CookieJar(policy=_LoopbackCookies())
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect)

    def csrf(self) -> str:
        return next((c.value for c in self.cookies if c.name == "csrftoken"), "")

    def request(self, method: str, path: str, *, json_body: Any = None, form: dict | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        headers = dict(headers or {})
        data = None
        if json_body is not None:
            data = json.dumps(json_body).encode()
            headers["Content-Type"] = "application/json"
        elif form is not None:
            data = urllib.parse.urlencode({**form, "csrfmiddlewaretoken": self.csrf()}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        elif method != "GET" and self.csrf():
            headers["X-CSRFToken"] = self.csrf()
        headers["Referer"] = self.base + "/"
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        start = time.perf_counter()
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return Reply(response.status, response.read(), (time.perf_counter() - start) * 1000,
                             {k.lower(): v for k, v in response.headers.items()})
        except urllib.error.HTTPError as exc:
            return Reply(exc.code, exc.read(), (time.perf_counter() - start) * 1000,
                         {k.lower(): v for k, v in exc.headers.items()})
        except (OSError, http.client.HTTPException) as exc:
            return Reply(0, str(exc).encode(), (time.perf_counter() - start) * 1000)

    def login(self, username: str, password: str) -> None:
        self.request("GET", "/accounts/login/")
        reply = self.request("POST", "/accounts/login/", form={"username": username, "password": password})
        if reply.status != 302:
            raise RuntimeError(f"sign-in of {username}: {reply.status} {reply.body[:300]!r}")


def api_token(base: str, username: str, password: str) -> str:
    reply = Client(base).request("POST", "/api/auth/token/", json_body={"username": username, "password": password})
    token = reply.json().get("token") if reply.status == 200 else None
    if not token:
        raise RuntimeError(f"POST /api/auth/token/ for {username}: {reply.status} {reply.body[:300]!r}")
    return token


class Tally:
    """The answers of a scenario, by label: statuses, 5xx, no answer, the slowest."""

    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: dict[str, Counter] = {}
        self.slowest: dict[str, float] = {}
        self.failures: list[str] = []

    def add(self, label: str, reply: Reply, path: str = "") -> Reply:
        with self.lock:
            self.statuses.setdefault(label, Counter())[reply.status] += 1
            self.slowest[label] = max(self.slowest.get(label, 0.0), reply.ms)
            if reply.status >= 500 or reply.status == 0:
                self.failures.append(f"{label} {path}: {reply.status} {reply.body[:200]!r}")
        return reply

    @property
    def errors(self) -> int:
        return len(self.failures)

    def figures(self) -> dict[str, Any]:
        return {
            "requests": sum(sum(c.values()) for c in self.statuses.values()),
            "answers_5xx_or_none": self.errors,
            "statuses": {label: dict(sorted(c.items())) for label, c in self.statuses.items()},
            "slowest_ms": {label: round(ms) for label, ms in self.slowest.items()},
        }


def at_once(calls: list[Callable[[], Any]], *, timeout: float = 120.0) -> list[Any]:
    """Runs every call in its own thread, released together; returns their results in order."""
    barrier = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(30)
        except threading.BrokenBarrierError:
            pass
        try:
            out[i] = calls[i]()
        except Exception as exc:  # noqa: BLE001 - reported with the others
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return out


# --- the database: set-up and checks (Django is set up on the run's database) ----------------------


PASSWORD = "faults-" + secrets.token_urlsafe(8)


def make_user(username: str, *, superuser: bool = False):
    from django.contrib.auth import get_user_model

    User = get_user_model()
    if superuser:
        return User.objects.create_superuser(username, f"{username}@example.org", PASSWORD)
    return User.objects.create_user(username, f"{username}@example.org", PASSWORD)


def make_competition(slug: str, n: int, *, venue: str = "table", accounts: bool = False, generate: bool = True,
                     **kwargs):
    """A league of ``n`` entrants "<slug> E1".. (players with accounts ``<slug>-e<i>`` when
    ``accounts``), its fixtures generated and kicking off now."""
    from django.utils import timezone

    from leagues.models import Competition, Entrant, Player
    from leagues.services.fixtures import fixtures_generate

    competition = Competition.objects.create(name=slug, slug=slug, lots_seed=7, venue=venue, **kwargs)
    for i in range(1, n + 1):
        player = None
        if accounts:
            player = Player.objects.create(first_name=f"E{i}", last_name=slug, licence_number=f"{slug}-{i}",
                                           user=make_user(f"{slug}-e{i}"))
        Entrant.objects.create(competition=competition, name=f"{slug} E{i}", seed=i, player=player)
    if generate:
        fixtures_generate(competition=competition)
        competition.fixtures.update(kickoff_at=timezone.now())
    return competition


def tables_right(competition_id: int) -> bool:
    """Whether the stored standings are computed from the current results and equal a
    recomputation of them now."""
    from leagues.models import Competition, Standing
    from leagues.services.standings import competition_tables

    competition = Competition.objects.get(pk=competition_id)
    if competition.derived_version < competition.results_version:
        return False
    tables, _lots = competition_tables(competition=competition)
    expected = sorted((row.entrant, row.position, row.played, row.points, row.goals_for, row.goals_against)
                      for table in tables for row in table.ranked.rows)
    stored = sorted(Standing.objects.filter(competition=competition).values_list(
        "entrant_id", "position", "played", "points", "goals_for", "goals_against"))
    return expected == stored


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.5) -> float | None:
    """Seconds until ``predicate()`` holds, or ``None`` after ``timeout``."""
    from django.db import close_old_connections

    start = time.monotonic()
    while time.monotonic() - start < timeout:
        close_old_connections()
        if predicate():
            return round(time.monotonic() - start, 1)
        time.sleep(interval)
    return None


# --- redis: stopped while results are recorded ------------------------------------------------------


def redis_outage(*, database_url: str, log_dir: Path, outage_s: float = 30.0, competitions: int = 3,
                 sweep_s: float = 15.0, prefix: str = "outage") -> dict[str, Any]:
    """Redis stopped ``outage_s`` seconds while organisers record results (API and pages),
    withdraw an entrant, an online match reaches full time, and spectators read; then Redis
    started again. Returns the figures and the problems."""
    from django.utils import timezone

    from leagues.models import Fixture, Result
    from leagues.services.online import fixture_check_in
    from matches.models import Match

    problems: list[str] = []
    organiser = make_user(f"{prefix}-organiser", superuser=True)
    leagues = [make_competition(f"{prefix}-{i}", 6) for i in range(competitions)]
    withdrawing = make_competition(f"{prefix}-w", 4, withdrawal_policy="forfeit_remaining")
    # an online match that reaches full time during the outage: one half of one minute, both
    # players checked in (time as data) just under a minute before, nobody moving
    live = make_competition(f"{prefix}-live", 2, venue="online", accounts=True, halves=1, half_minutes=1)
    fixture = live.fixtures.get()
    watched = [c.pk for c in (*leagues, withdrawing, live)]

    redis = RedisServer(log_dir).start()
    env = service_env(database_url=database_url, redis_url=redis.url, SWEEP_SECONDS=str(sweep_s))
    procs: list[Proc] = [redis]
    tally = Tally()
    figures: dict[str, Any] = {"outage_s": outage_s}
    try:
        server, base = web(env, log_dir)
        procs.append(server)
        procs.append(worker(env, log_dir))
        procs.append(beat(env, log_dir))
        api = Client(base, api_token(base, organiser.username, PASSWORD))
        page = Client(base)
        page.login(organiser.username, PASSWORD)
        spectator = Client(base)
        queue = list(Fixture.objects.filter(competition__in=leagues, status=Fixture.Status.SCHEDULED)
                     .order_by("round__number", "competition", "position").values_list("pk", flat=True))
        entrant = withdrawing.entrants.order_by("seed").last()
        # full time (60 s of match time) a third of the way into the outage
        kicked_off = timezone.now() - timedelta(seconds=60 - outage_s / 3)
        Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=kicked_off, playable_since=kicked_off)
        fixture.refresh_from_db()
        for side in ("home", "away"):
            match = fixture_check_in(fixture=fixture, user=getattr(fixture, side).player.user, now=kicked_off)
        if match.status != Match.Status.LIVE:
            raise RuntimeError(f"the online match is {match.status}, not live")
        redis.stop()
        stopped = time.monotonic()
        recorded = {"api": 0, "page": 0}
        rng = random.Random(14)
        full_time_seen = withdrawn = False
        i = 0
        while time.monotonic() - stopped < outage_s:
            if queue:
                fixture_id = queue.pop(0)
                goals = {"home_goals": rng.randint(0, 4), "away_goals": rng.randint(0, 4)}
                if i % 2 == 0:
                    reply = tally.add("record_api", api.request("POST", f"/api/fixtures/{fixture_id}/result/",
                                                                json_body=goals), f"fixture {fixture_id}")
                    recorded["api"] += reply.status == 200
                else:
                    reply = tally.add("record_page", page.request(
                        "POST", f"/manage/fixtures/{fixture_id}/result/", form={"outcome": "played", **goals}),
                        f"fixture {fixture_id}")
                    recorded["page"] += reply.status == 302
                i += 1
            if not withdrawn and time.monotonic() - stopped > outage_s / 3:
                reply = tally.add("withdraw_api", api.request("POST", f"/api/entrants/{entrant.pk}/withdraw/"))
                withdrawn = reply.status == 200
            reply = tally.add("match_api", spectator.request("GET", f"/api/matches/{match.pk}/"))
            full_time_seen = full_time_seen or reply.json().get("status") == Match.Status.FINISHED
            tally.add("feed_page", spectator.request("GET", f"/matches/{match.pk}/feed/?after=0&frames=0"))
            tally.add("competition_page", spectator.request("GET", f"/competitions/{leagues[0].slug}/"))
            tally.add("standings_api", spectator.request("GET", f"/api/competitions/{leagues[0].slug}/standings/"))
            tally.add("home_page", spectator.request("GET", "/"))
            time.sleep(0.2)
        starting_at = datetime.now()  # a worker may reconnect before start() has returned
        redis.start()
        back = time.monotonic()
        back_at = datetime.now()

        def all_done() -> bool:
            official = Result.objects.filter(fixture__match=match).exists()
            return official and all(tables_right(pk) for pk in watched)

        recovered = wait_until(all_done, RECOVERY_TARGET_S + 30)
        def reconnected() -> list[datetime]:
            return [t for t in log_times(procs[2].text(), r"Connected to redis") if t >= starting_at]

        wait_until(lambda: bool(reconnected()), 10)  # the worker's log line may still be on its way
        reconnects = reconnected()
        figures.update({
            "recorded_api_2xx": recorded["api"], "recorded_page_2xx": recorded["page"],
            "withdrawal_2xx": withdrawn, "full_time_during_outage": full_time_seen,
            "outage_measured_s": round(back - stopped, 1),
            "worker_reconnect_s": round(max((reconnects[0] - back_at).total_seconds(), 0.0), 1) if reconnects else None,
            "recovered_s": recovered,
        })
        tally_figures = tally.figures()
        figures.update(tally_figures)
        if tally.errors:
            problems += tally.failures[:20]
        if not recorded["api"] or not recorded["page"]:
            problems.append(f"too few results recorded during the outage: {recorded}")
        if not withdrawn:
            problems.append("the withdrawal was not answered 200 during the outage")
        if not full_time_seen:
            problems.append("the online match did not reach full time during the outage")
        if recovered is None or recovered > RECOVERY_TARGET_S:
            stale = [pk for pk in watched if not tables_right(pk)]
            problems.append(f"not recovered within {RECOVERY_TARGET_S:.0f} s of Redis being back "
                            f"(tables wrong: {stale}, online result: "
                            f"{Result.objects.filter(fixture__match=match).exists()})")
        if figures["worker_reconnect_s"] is None or figures["worker_reconnect_s"] > RECONNECT_TARGET_S:
            problems.append(f"the worker reconnected in {figures['worker_reconnect_s']} s (target 5 s)")
        unofficial = Fixture.objects.filter(competition__in=leagues, status=Fixture.Status.PLAYED,
                                            result__isnull=True).count()
        if unofficial:
            problems.append(f"{unofficial} played fixtures without an official result")
        problems += server_log_problems(server)
    finally:
        for proc in reversed(procs):
            proc.stop()
    return {"figures": figures, "problems": problems}


# --- worker: killed in the middle of an adjudication -----------------------------------------------


def match_locked(match_id: int) -> bool:
    """Whether another transaction holds the match's row (an adjudication under way)."""
    from django.db import OperationalError, connection, transaction

    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT id FROM matches_match WHERE id = %s FOR UPDATE NOWAIT", [match_id])
        return False
    except OperationalError:
        return True


def bot_match_to_full_time(slug: str, *, half_minutes: int = 10, seconds_per_action: float = 5.0):
    """A league fixture played computer against computer to full time, in this process, with
    its adjudication not sent (as by a broker that refused it). Returns the match."""
    from django.utils import timezone

    from leagues.models import Fixture
    from leagues.services.online import fixture_match_setup
    from matches import tasks
    from matches.models import Match
    from matches.services import online

    competition = make_competition(slug, 2, venue="online", accounts=True, half_minutes=half_minutes)
    fixture = competition.fixtures.get()
    now = timezone.now() - timedelta(hours=3)
    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=now, playable_since=now)
    fixture.refresh_from_db()
    tasks.adjudicate_match.enqueue_on_commit = lambda **kw: None  # the worker of the run does it
    try:
        match = fixture_match_setup(fixture=fixture, computer_sides=("home", "away"), now=now)
        step = timedelta(seconds=seconds_per_action)
        while match.status == Match.Status.LIVE:
            match = online.computer_step(match_id=match.pk, now=now, steps=50, step=step)
            now += step * 50
    finally:
        del tasks.adjudicate_match.enqueue_on_commit
    return match


def worker_kill(*, database_url: str, log_dir: Path, match_id: int, sweep_s: float = 15.0,
                first_worker_env: dict[str, str] | None = None) -> dict[str, Any]:
    """The whole worker killed with ``kill -9`` while it adjudicates ``match_id`` (a finished
    match whose adjudication is pending), then a worker started again, beat running."""
    from leagues.models import Fixture, FixtureChange, Result
    from matches.models import Match

    problems: list[str] = []
    figures: dict[str, Any] = {}
    fixture = Fixture.objects.get(match_id=match_id)
    redis = RedisServer(log_dir).start()
    env = service_env(database_url=database_url, redis_url=redis.url, SWEEP_SECONDS=str(sweep_s))
    procs: list[Proc] = [redis]
    try:
        procs.append(beat(env, log_dir))
        first = worker({**env, **(first_worker_env or {})}, log_dir, "worker-killed")
        procs.append(first)
        start = time.monotonic()
        while time.monotonic() - start < sweep_s * 3 + 30 and not match_locked(match_id):
            if Match.objects.get(pk=match_id).status == Match.Status.ADJUDICATED:
                break
            time.sleep(0.02)
        locked = match_locked(match_id)
        first.kill()
        figures["killed_mid_adjudication"] = locked
        status = Match.objects.get(pk=match_id).status
        figures["after_kill"] = {"match": status, "results": Result.objects.filter(fixture=fixture).count()}
        if not locked or status == Match.Status.ADJUDICATED:
            problems.append(f"the worker was not killed in the middle of the adjudication (match {status})")
        back = time.monotonic()
        procs.append(worker(env, log_dir, "worker-again"))
        figures["worker_start_s"] = round(time.monotonic() - back, 1)
        official = wait_until(lambda: Result.objects.filter(fixture=fixture).exists(), RECOVERY_TARGET_S + 30)
        figures["official_s"] = round(official + figures["worker_start_s"], 1) if official is not None else None
        time.sleep(2)  # anything sent twice would land now
        results = Result.objects.filter(fixture=fixture).count()
        entries = FixtureChange.objects.filter(fixture=fixture, kind=FixtureChange.Kind.ONLINE_RESULT).count()
        figures.update({"results": results, "history_entries": entries,
                        "match_status": Match.objects.get(pk=match_id).status})
        if figures["official_s"] is None or figures["official_s"] > RECOVERY_TARGET_S:
            problems.append(f"official {figures['official_s']} s after a worker was back (target 60 s)")
        if results != 1 or entries != 1:
            problems.append(f"{results} results and {entries} history entries (exactly one each expected)")
    finally:
        for proc in reversed(procs):
            proc.stop()
    return {"figures": figures, "problems": problems}


# --- concurrency on PostgreSQL ---------------------------------------------------------------------


def concurrency(*, database_url: str, log_dir: Path, recordings: int = 120, checkins: int = 12,
                prefix: str = "conc", only: tuple[str, ...] = ()) -> dict[str, Any]:
    """Concurrent writes through the API of a gunicorn server (a worker and beat behind it)."""
    problems: list[str] = []
    figures: dict[str, Any] = {}
    redis = RedisServer(log_dir).start()
    env = service_env(database_url=database_url, redis_url=redis.url)
    procs: list[Proc] = [redis]
    try:
        server, base = web(env, log_dir, workers=2, threads=8)
        procs += [server, worker(env, log_dir)]
        organiser = make_user(f"{prefix}-organiser", superuser=True)
        token = api_token(base, organiser.username, PASSWORD)
        parts = {
            "recordings": lambda: concurrent_recordings(base, token, n=recordings, prefix=prefix),
            "checkins": lambda: concurrent_checkins(base, n=checkins, prefix=prefix),
            "generation": lambda: entrants_during_generation(base, token, prefix=prefix),
            "same_names": lambda: same_name_races(base, token, prefix=prefix),
        }
        for name, run in parts.items():
            if only and name not in only:
                continue
            out = run()
            figures[name] = out["figures"]
            problems += [f"{name}: {p}" for p in out["problems"]]
        problems += server_log_problems(server)
    finally:
        for proc in reversed(procs):
            proc.stop()
    return {"figures": figures, "problems": problems}


def concurrent_recordings(base: str, token: str, *, n: int, prefix: str) -> dict[str, Any]:
    """``n`` organisers' recordings of one fixture's result at once."""
    from leagues.models import FixtureChange, Result

    competition = make_competition(f"{prefix}-rec", 4)
    fixture = competition.fixtures.order_by("pk").first()
    tally = Tally()
    scores = [(i % 7, (i // 7) % 7) for i in range(n)]

    def record(score):
        client = Client(base, token)
        return tally.add("record", client.request("POST", f"/api/fixtures/{fixture.pk}/result/",
                                                  json_body={"home_goals": score[0], "away_goals": score[1]}))

    replies = at_once([lambda s=s: record(s) for s in scores])
    accepted = {scores[i] for i, r in enumerate(replies) if isinstance(r, Reply) and r.status == 200}
    accepted_count = sum(isinstance(r, Reply) and r.status == 200 for r in replies)
    result = Result.objects.get(fixture=fixture)
    entries = FixtureChange.objects.filter(fixture=fixture, kind__in=(FixtureChange.Kind.RESULT,
                                                                      FixtureChange.Kind.CORRECTION)).count()
    problems = list(tally.failures[:10])
    others = Counter(r.status for r in replies if isinstance(r, Reply) and r.status != 200)
    if set(others) - {409}:
        problems.append(f"answers other than 200 and 409: {dict(others)}")
    if (result.table_home_goals, result.table_away_goals) not in accepted:
        problems.append(f"stored {result.table_home_goals}-{result.table_away_goals}, not one of the accepted")
    if entries != accepted_count:
        problems.append(f"{entries} history entries for {accepted_count} accepted requests")
    return {"figures": {**tally.figures(), "accepted": accepted_count, "history_entries": entries,
                        "stored": f"{result.table_home_goals}-{result.table_away_goals}"},
            "problems": problems}


def concurrent_checkins(base: str, *, n: int, prefix: str) -> dict[str, Any]:
    """``n`` check-ins at once by a fixture's two players, through the fixture's endpoint (its
    match set up by the first), then through the match's endpoint of another fixture."""
    from django.urls import reverse

    from leagues.models import Fixture
    from leagues.services.online import fixture_match_setup
    from matches.models import Match

    competition = make_competition(f"{prefix}-chk", 4, venue="online", accounts=True)
    first, second = list(competition.fixtures.filter(round__number=1).order_by("position"))
    tokens = {}
    for fixture in (first, second):
        for side in ("home", "away"):
            user = getattr(fixture, side).player.user
            tokens[(fixture.pk, side)] = api_token(base, user.username, PASSWORD)
    tally = Tally()
    problems: list[str] = []

    def check_in(fixture_id, side, path):
        return tally.add(path.split("/")[2], Client(base, tokens[(fixture_id, side)]).request("POST", path))

    calls = [lambda i=i: check_in(first.pk, ("home", "away")[i % 2], f"/api/fixtures/{first.pk}/check-in/")
             for i in range(n)]
    at_once(calls)
    first.refresh_from_db()
    matches = Match.objects.filter(url=reverse("site:fixture", args=[first.pk])).count()
    match = Match.objects.filter(pk=first.match_id).first()
    if matches != 1 or match is None or match.status != Match.Status.LIVE:
        problems.append(f"fixture's check-in: {matches} matches, status {match and match.status}")
    set_up = fixture_match_setup(fixture=Fixture.objects.get(pk=second.pk))
    calls = [lambda i=i: check_in(second.pk, ("home", "away")[i % 2], f"/api/matches/{set_up.pk}/check-in/")
             for i in range(n)]
    at_once(calls)
    second.refresh_from_db()
    match2 = Match.objects.get(pk=set_up.pk)
    if second.match_id != set_up.pk or match2.status != Match.Status.LIVE:
        problems.append(f"match's check-in: status {match2.status}")
    problems += tally.failures[:10]
    statuses = {s for c in tally.statuses.values() for s in c}
    if statuses - {200, 409}:
        problems.append(f"answers other than 200 and 409: {tally.figures()['statuses']}")
    return {"figures": {**tally.figures(), "matches_of_first_fixture": matches, "status": match and match.status,
                        "status_second": match2.status}, "problems": problems}


def entrants_during_generation(base: str, token: str, *, prefix: str, rounds: int = 3,
                               joiners: int = 8) -> dict[str, Any]:
    """Entrants added while the fixtures are generated: each is refused with a message naming
    the competition, or included; none is left without fixtures."""
    from leagues.models import Entrant, Fixture

    tally = Tally()
    problems: list[str] = []
    added = refused = 0
    for r in range(rounds):
        competition = make_competition(f"{prefix}-gen{r}", 8, generate=False)
        client = Client(base, token)

        def generate(client=client, slug=competition.slug):
            return tally.add("generate", client.request("POST", f"/api/competitions/{slug}/generate-fixtures/"))

        def join(i, slug=competition.slug):
            return tally.add("join", Client(base, token).request(
                "POST", "/api/entrants/", json_body={"competition": slug, "name": f"Late {i}"}))

        replies = at_once([generate] + [lambda i=i: join(i) for i in range(joiners)])
        for reply in replies[1:]:
            if isinstance(reply, Reply) and reply.status == 201:
                added += 1
            elif isinstance(reply, Reply) and reply.status == 400 and "competition" in reply.json():
                refused += 1
            else:
                problems.append(f"a late entrant: {getattr(reply, 'status', reply)} {getattr(reply, 'body', b'')[:200]!r}")
        if not isinstance(replies[0], Reply) or replies[0].status != 201:
            problems.append(f"generation: {getattr(replies[0], 'status', replies[0])}")
        for entrant in Entrant.objects.filter(competition=competition):
            if not Fixture.objects.filter(competition=competition).filter(home=entrant).exists() and \
                    not Fixture.objects.filter(competition=competition, away=entrant).exists():
                problems.append(f"{entrant.name} has no fixture")
    problems += tally.failures[:10]
    return {"figures": {**tally.figures(), "late_included": added, "late_refused": refused}, "problems": problems}


def same_name_races(base: str, token: str, *, prefix: str, n: int = 20) -> dict[str, Any]:
    """The same entrant's name ``n`` times at once; a competition's name (no slug: each gets its
    own) and a competition's slug ``n`` times at once."""
    from leagues.models import Competition, Entrant

    tally = Tally()
    problems: list[str] = []
    competition = make_competition(f"{prefix}-names", 2, generate=False)

    def post(label, path, body):
        return tally.add(label, Client(base, token).request("POST", path, json_body=body))

    replies = at_once([lambda: post("entrant", "/api/entrants/", {"competition": competition.slug, "name": "Twin"})
                       for _ in range(n)])
    created = [r for r in replies if isinstance(r, Reply) and r.status == 201]
    named = [r for r in replies if isinstance(r, Reply) and r.status == 400 and "name" in r.json()]
    if len(created) != 1 or len(named) != n - 1 or Entrant.objects.filter(competition=competition, name="Twin").count() != 1:
        problems.append(f"entrant 'Twin': {len(created)} created, {len(named)} refused naming 'name'")
    name = f"{prefix} Same Name Cup"
    replies = at_once([lambda: post("competition_name", "/api/competitions/", {"name": name}) for _ in range(n)])
    slugs = [r.json().get("slug") for r in replies if isinstance(r, Reply) and r.status == 201]
    if len(slugs) != n or len(set(slugs)) != n or Competition.objects.filter(name=name).count() != n:
        problems.append(f"competitions named alike: {len(slugs)} created of {n}, {len(set(slugs))} slugs")
    slug = f"{prefix}-same-slug"
    replies = at_once([lambda i=i: post("competition_slug", "/api/competitions/", {"name": f"Slug {i}", "slug": slug})
                       for i in range(n)])
    created = [r for r in replies if isinstance(r, Reply) and r.status == 201]
    named = [r for r in replies if isinstance(r, Reply) and r.status == 400 and "slug" in r.json()]
    if len(created) != 1 or len(named) != n - 1 or Competition.objects.filter(slug=slug).count() != 1:
        problems.append(f"competition slug {slug}: {len(created)} created, {len(named)} refused naming 'slug'")
    problems += tally.failures[:10]
    return {"figures": tally.figures(), "problems": problems}


# --- the embedded default: make run on SQLite -------------------------------------------------------


def import_csv(entrants: int = 24) -> str:
    """A results file of a double round robin of ``entrants`` (every pairing home and away)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["home", "away", "home_goals", "away_goals", "round"])
    rng = random.Random(5)
    names = [f"Importer {i:02d}" for i in range(entrants)]
    pairs = [(h, a) for h in names for a in names if h != a]
    for n, (home, away) in enumerate(pairs):
        writer.writerow([home, away, rng.randint(0, 4), rng.randint(0, 4), n // (entrants // 2) + 1])
    return out.getvalue()


def sqlite_make_run(*, log_dir: Path, seconds: float = 30.0, spectators: int = 50, races: int = 8,
                    import_entrants: int = 24) -> dict[str, Any]:
    """``make run``'s set-up (a fresh SQLite file, the demo, runserver and run_clock, Celery eager) under two
    tabs racing the same move, ``spectators`` polling the bot match and an import running."""
    from matches.services.computer import candidate_actions
    from simulation.rules import make_referee
    from simulation.state import MatchState

    problems: list[str] = []
    db = log_dir / "make-run.sqlite3"
    env = service_env(database_url=f"sqlite:///{db}", debug=True)
    manage = [sys.executable, "manage.py"]
    for argv in (manage + ["migrate", "--noinput"], manage + ["load_demo", "--if-empty"]):
        subprocess.run(argv, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    port = free_port()
    server = Proc("runserver", manage + ["runserver", "--noreload", f"{HOST}:{port}"], env=env,
                  log_dir=log_dir).start()
    # make run's clock beside it: the watched bot match moves, writing while the rest happens
    clock = Proc("run_clock", manage + ["run_clock"], env=env, log_dir=log_dir).start()
    base = f"http://{HOST}:{port}"
    tally = Tally()
    figures: dict[str, Any] = {}
    importer: Proc | None = None
    try:
        wait_http(server, base)
        with sqlite3.connect(db) as conn:
            bot_match = conn.execute("SELECT id FROM matches_match WHERE status = 'live' AND home_user_id IS NULL "
                                     "AND away_user_id IS NULL ORDER BY id LIMIT 1").fetchone()[0]
            fixture_id = conn.execute(
                "SELECT f.id FROM leagues_fixture f JOIN leagues_entrant e ON e.id IN (f.home_id, f.away_id) "
                "JOIN leagues_player p ON p.id = e.player_id JOIN auth_user u ON u.id = p.user_id "
                "JOIN matches_match m ON m.id = f.match_id WHERE u.username = 'anaferreira' AND m.status IN "
                "('scheduled', 'checked_in')").fetchone()[0]
        player = Client(base)
        player.login("anaferreira", "botonera-demo")
        reply = tally.add("check_in", player.request("POST", f"/api/fixtures/{fixture_id}/check-in/"))
        if reply.status != 200 or reply.json().get("status") != "live":
            raise RuntimeError(f"check-in: {reply.status} {reply.body[:300]!r}")
        match = reply.json()
        stop = threading.Event()

        def spectate(i: int) -> None:
            client, after = Client(base), 0
            while not stop.is_set():
                reply = tally.add("spectator_feed", client.request("GET", f"/matches/{bot_match}/feed/?after={after}"))
                if reply.status == 200:
                    after = reply.json().get("match", {}).get("seq", after)
                time.sleep(0.5)

        watchers = [threading.Thread(target=spectate, args=(i,), daemon=True) for i in range(spectators)]
        for thread in watchers:
            thread.start()
        csv_path = log_dir / "import.csv"
        csv_path.write_text(import_csv(import_entrants))
        importer = Proc("import", manage + ["import_results", str(csv_path), "--competition", "faults-import",
                                            "--create", "--name", "Faults import", "--preset", "fifa_2018"],
                        env=env, log_dir=log_dir).start()
        started = time.monotonic()
        referee = make_referee(match["rule_set"], match["rule_params"])
        outcomes = Counter()
        for r in range(races):
            if match["status"] != "live" or match["to_move"] != match["your_side"]:
                break
            state = MatchState.from_json(match["state"])
            action = candidate_actions(state, match["your_side"], match["rule_set"], match["rule_params"],
                                       referee=referee, seed=r)[0]
            same_key = r % 2 == 1
            keys = [uuid.uuid4().hex] * 2 if same_key else [uuid.uuid4().hex, uuid.uuid4().hex]
            body = {"seq": match["seq"] + 1, "action": action}
            path = f"/api/matches/{match['id']}/actions/"
            replies = at_once([lambda k=k, body=body, path=path: tally.add("tab_move", player.request(
                "POST", path, json_body=body, headers={"Idempotency-Key": k})) for k in keys])
            statuses = sorted(r.status for r in replies if isinstance(r, Reply))
            replayed = sum(r.headers.get("idempotent-replayed") == "true" for r in replies if isinstance(r, Reply))
            if same_key and statuses == [201, 201] and replayed == 1:
                outcomes["201_and_replay"] += 1
            elif not same_key and statuses == [201, 409]:
                outcomes["201_and_409"] += 1
            elif statuses == [422, 422] or statuses == [409, 422]:
                outcomes["refused_by_referee"] += 1
            else:
                problems.append(f"two tabs, same move ({'same' if same_key else 'new'} key): {statuses}")
            reply = tally.add("tab_read", player.request("GET", f"/api/matches/{match['id']}/"))
            match = reply.json()
        import_s = None
        while time.monotonic() - started < seconds or importer.running:
            if import_s is None and not importer.running:
                import_s = round(time.monotonic() - started, 1)
            if time.monotonic() - started > seconds + 300:
                problems.append("the import did not end within 5 minutes")
                break
            tally.add("player_read", player.request("GET", f"/api/matches/{match['id']}/"))
            time.sleep(0.5)
        stop.set()
        for thread in watchers:
            thread.join(70)
        importer.stop()
        figures.update({"races": dict(outcomes), "spectators": spectators,
                        "import_exit": importer.proc.returncode,
                        "import_s": import_s if import_s is not None else round(time.monotonic() - started, 1)})
        figures.update(tally.figures())
        if importer.proc.returncode != 0:
            problems.append(f"the import exited {importer.proc.returncode}: {importer.text()[-500:]}")
        problems += tally.failures[:20]
        problems += server_log_problems(server) + server_log_problems(clock)
    finally:
        if importer is not None:
            importer.stop()
        clock.stop()
        server.stop()
    return {"figures": figures, "problems": problems}


# --- the run -----------------------------------------------------------------------------------------


def ensure_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(parts.path.lstrip("/"))))


def postgres_outage(*, log_dir: Path, outage_s: float = 10.0, recordings: int = 50, reads: int = 200,
                    timeout: float = 900.0) -> dict[str, Any]:
    """``tests.bench.database_outage`` in a process of its own; its figures and problems."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    done = subprocess.run([sys.executable, "-m", "tests.bench.database_outage", "--json", "--outage", str(outage_s),
                           "--recordings", str(recordings), "--reads", str(reads), "--log-dir", str(log_dir)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"figures": {}, "problems": [f"database_outage exited {done.returncode}: "
                                            f"{(done.stdout + done.stderr)[-2000:]}"]}


SCENARIOS = ("redis", "worker", "concurrency", "sqlite", "postgres")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SCENARIOS), help=f"comma-separated, of {', '.join(SCENARIOS)}")
    parser.add_argument("--database-url", default=os.environ.get("FAULTS_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--outage", type=float, default=30.0, help="seconds Redis is stopped")
    parser.add_argument("--pg-outage", type=float, default=10.0, help="seconds PostgreSQL (its own cluster) is stopped")
    parser.add_argument("--recordings", type=int, default=120)
    parser.add_argument("--spectators", type=int, default=50)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database and the logs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(chosen) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    if shutil.which("redis-server") is None:
        print("faults: redis-server is not installed", file=sys.stderr)
        return 2
    log_dir = Path(tempfile.mkdtemp(prefix="botonera-faults-"))
    scratch = bool(set(chosen) - {"postgres"})  # the postgres scenario brings its own cluster
    if scratch:
        ensure_database(args.database_url)
        os.environ["DATABASE_URL"] = args.database_url
        os.environ.pop("REDIS_URL", None)  # this process's own tasks (set-up) run eagerly
        os.environ.setdefault("DEBUG", "1")
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", "--noinput", verbosity=0)
    report: dict[str, Any] = {}
    problems: list[str] = []
    runs: dict[str, Callable[[], dict[str, Any]]] = {
        "redis": lambda: redis_outage(database_url=args.database_url, log_dir=log_dir, outage_s=args.outage),
        "worker": lambda: worker_kill(database_url=args.database_url, log_dir=log_dir,
                                      match_id=bot_match_to_full_time("faults-kill", half_minutes=25).pk),
        "concurrency": lambda: concurrency(database_url=args.database_url, log_dir=log_dir,
                                           recordings=args.recordings),
        "sqlite": lambda: sqlite_make_run(log_dir=log_dir, spectators=args.spectators),
        "postgres": lambda: postgres_outage(log_dir=log_dir / "postgres", outage_s=args.pg_outage),
    }
    try:
        for name in chosen:
            start = time.monotonic()
            try:
                out = runs[name]()
            except Exception as exc:  # noqa: BLE001 - a failed scenario is a problem of the report
                out = {"figures": {}, "problems": [f"{type(exc).__name__}: {exc}"]}
            out["figures"]["wall_s"] = round(time.monotonic() - start, 1)
            report[name] = out["figures"]
            problems += [f"{name}: {p}" for p in out["problems"]]
            if not args.json:
                print(f"{name}:")
                for key, value in out["figures"].items():
                    print(f"  {key}: {json.dumps(value) if isinstance(value, dict) else value}")
                for problem in out["problems"]:
                    print(f"  PROBLEM {problem}")
                sys.stdout.flush()
    finally:
        if scratch:
            from django.db import connections

            connections.close_all()
            if not args.keep:
                drop_database(args.database_url)
    if args.json:
        print(json.dumps({"scenarios": report, "problems": problems}))
    print(f"faults: {len(problems)} problem(s); logs in {log_dir}", file=sys.stderr)
    if not args.keep and not problems:
        shutil.rmtree(log_dir, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
