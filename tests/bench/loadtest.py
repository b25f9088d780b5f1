"""Load test of online play through the HTTP API (issue 7 target; ``make bench``, not a test).

``python -m tests.bench.loadtest --matches 200 --actions 25 [--json]``

Target: 200 concurrent bot matches played through the HTTP API on this machine with no error
and no lost or doubled action.

What it does, all on loopback:

1. **A scratch database** (``--database-url``, default ``postgresql://postgres@127.0.0.1:5432/
   botonera_load``; never ``DATABASE_URL``, which may be a real one): created when missing
   (``CREATE DATABASE`` through the ``postgres`` database), then migrated.
2. **Set-up**: per match a two-entrant league (slug ``load-<run>-<i>``) with its two players,
   their users and API tokens (``leagues.services.tokens.token_create``, written directly: a password
   check per user would cost the run a few minutes of PBKDF2; one user obtains its token
   through ``POST /api/auth/token/`` to prove the endpoint), and the fixture's online match
   (``fixture_match_setup``, kick-off now; turns of ``--turn-seconds`` so that no deadline fires while the
   load queues requests, halves of 25 minutes so that no match ends).
3. **gunicorn** on ``127.0.0.1:<free port>`` (``--workers`` x ``--threads`` gthread workers,
   keep-alive, persistent database connections, ``DEBUG=0``), in a ``try/finally`` that stops it.
4. **The matches, concurrently**: one thread per match, its two players each with their own
   token and keep-alive connection. Both check in (``POST .../check-in/``); then, in turn, the
   player to move asks the rule set's computer player (``matches.services.computer``: the bot
   of ``simulation.bots``, then its fallbacks) for an action on the state the API returned and
   ``POST``\\ s it with the next ``seq`` and a fresh ``Idempotency-Key`` (a 422 from the
   referee makes it try the bot's next choice); the other player then reads the match
   (``GET /api/matches/{id}/``) and must see the new ``seq`` and state hash. Deliberate
   misbehaviour, each with the answer it must get (anything else is an error):

   - *retry* (``--retry``): the same request again with the same key: 201, the same ``seq`` and
     hash, ``Idempotent-Replayed: true``;
   - *race* (``--race``): the request sent twice at once on two connections with the same key:
     one 201 and one replayed 201 of the same ``seq``;
   - *stale* (``--stale``): the last accepted action again with a new key and its old ``seq``:
     409 ``stale``;
   - *out of turn* (``--out-of-turn``): the other player submits the next ``seq``: 403
     ``not_your_turn``.

   Every request has a timeout (``--request-timeout``); the run has a hard bound
   (``--time-limit``). Any 5xx, timeout, connection error or unexpected status is an error.
5. **Verification from the database**, for every match: the log's seqs are exactly 1..N, N is
   the match's ``seq``, the rows of the players are exactly the accepted (non-replayed 201)
   answers the clients saw, each with the hash the client was given; the server's deadline
   ticks (there should be none) are counted; the log the API served at the end equals the
   database's; replaying the log with the referee (``adjudication.replay``) reproduces every
   stored hash and the match's state hash.

It prints a table (``--json``: one JSON object) with matches, actions, requests, errors,
p50/p95/max request latency (all requests, action POSTs, and the other player's read), the
accepted actions per second, requests per second and wall time; exits 1 on any error. The
run's rows are deleted at the end (``--keep`` keeps them); ``--prepare-only`` only creates
and migrates the database.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tests.bench import procfile

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_load"
HOST = "127.0.0.1"


# --- the scratch database ------------------------------------------------------------------------


def ensure_database(url: str) -> None:
    """Creates the PostgreSQL database of ``url`` when it does not exist."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise SystemExit(f"--database-url must be PostgreSQL, not {parts.scheme!r}")
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            except psycopg.errors.DuplicateDatabase:
                pass  # another run created it meanwhile


def setup_django(url: str) -> None:
    os.environ.setdefault("DEBUG", "1")  # this process is the clients' (the server runs with DEBUG=0)
    os.environ["DATABASE_URL"] = url
    os.environ.pop("REDIS_URL", None)  # nothing here needs the broker: tasks would run eagerly
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)


# --- set-up --------------------------------------------------------------------------------------


@dataclass
class Planned:
    match_id: int
    tokens: dict[str, str]  # side -> API token
    rule_set: str
    params: dict[str, Any]


def create_matches(run: str, n: int, *, rule_set: str, turn_seconds: float) -> list[Planned]:
    """``n`` two-entrant leagues, their players, users, tokens and the fixture's online match."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from leagues.models import Competition, Entrant, Player, Venue
    from leagues.services.fixtures import fixtures_generate
    from leagues.services.online import fixture_match_setup
    from leagues.services.tokens import token_create
    from matches.services import play

    User = get_user_model()
    now = timezone.now()
    planned = []
    for i in range(n):
        slug = f"{run}-{i}"
        with transaction.atomic():
            competition = Competition.objects.create(
                name=slug, slug=slug, rule_set=rule_set, half_minutes=25, checkin_grace_minutes=60,
                venue=Venue.ONLINE, rule_params={"turn_seconds": turn_seconds, "shot_wait_seconds": turn_seconds},
            )
            tokens = {}
            for seed, side in ((1, "home"), (2, "away")):
                user = User.objects.create_user(username=f"{slug}-{side}")  # unusable password
                player = Player.objects.create(first_name=f"Load{seed}", last_name=f"{i}",
                                               licence_number=f"{slug}-{seed}", user=user)
                Entrant.objects.create(competition=competition, name=f"{slug} {side}", seed=seed, player=player)
                tokens[user.username] = token_create(user=user, label="loadtest")[1]
            fixtures_generate(competition=competition, now=now)
            competition.fixtures.update(kickoff_at=now)  # check-in open now
            fixture = competition.fixtures.select_related("home__player__user", "away__player__user").get()
            match = fixture_match_setup(fixture=fixture, now=now)
            planned.append(Planned(
                match_id=match.pk, rule_set=match.rule_set, params=play.params_of(match),
                tokens={"home": tokens[fixture.home.player.user.username],
                        "away": tokens[fixture.away.player.user.username]},
            ))
    return planned


def create_login_user(run: str) -> tuple[str, str]:
    from django.contrib.auth import get_user_model

    username, password = f"{run}-login", secrets.token_urlsafe(12)
    get_user_model().objects.create_user(username=username, password=password)
    return username, password


def cleanup(run: str) -> None:
    from django.contrib.auth import get_user_model

    from leagues.models import Competition, Fixture, Player
    from matches.models import Match

    fixtures = Fixture.objects.filter(competition__slug__startswith=f"{run}-")
    match_ids = list(fixtures.filter(match__isnull=False).values_list("match_id", flat=True))
    fixtures.delete()
    Match.objects.filter(pk__in=match_ids).delete()
    Competition.objects.filter(slug__startswith=f"{run}-").delete()
    Player.objects.filter(licence_number__startswith=f"{run}-").delete()
    get_user_model().objects.filter(username__startswith=f"{run}-").delete()


# --- gunicorn ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server(procfile.ServerProcess):
    """gunicorn serving ``config.wsgi`` on loopback, against the scratch database (``asgi``:
    ``config.asgi`` with uvicorn's worker, as the Procfile serves it: HTTP and WebSockets, a
    pool of ``threads`` database connections per worker)."""

    def __init__(self, database_url: str, *, workers: int, threads: int, log_dir: Path,
                 env: dict[str, str] | None = None, asgi: bool = False):
        self.port = free_port()
        self.asgi = asgi
        self.env = env or {}  # more of the server's environment (the scale bench's REDIS_URL)
        self.workers, self.threads = workers, threads
        self.database_url = database_url
        self.log = log_dir / "gunicorn.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> Server:
        env = dict(os.environ)
        env.pop("REDIS_URL", None)
        env.update({
            "DATABASE_URL": self.database_url, "DB_CONN_MAX_AGE": "300", "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(40), "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": f"{HOST},localhost", "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        })
        env.update(self.env)
        if self.asgi:
            env.update({"DB_POOL": str(self.threads), "DB_CONN_MAX_AGE": "0"})
            serve = ["config.asgi:application", "--worker-class", "uvicorn_worker.UvicornWorker"]
        else:
            serve = ["config.wsgi", "--worker-class", "gthread", "--threads", str(self.threads)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", *serve, "--bind", f"{HOST}:{self.port}", "--workers", str(self.workers),
             "--keep-alive", "120", "--timeout", "120", "--backlog", "2048", "--log-level", "warning"],
            cwd=ROOT, env=env, stdout=self.log.open("w"), stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("GET", "/api/matches/0/")
                status = conn.getresponse().status
                conn.close()
                if status == 404:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s:\n{self.tail()}")


# --- the clients ---------------------------------------------------------------------------------


class LoadError(Exception):
    """Something a correct server would not have answered; the match's thread stops."""


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"post": [], "read": [], "other": []})
    counts: dict[str, int] = field(default_factory=lambda: {
        "requests": 0, "accepted": 0, "refused_422": 0, "retried": 0, "raced": 0, "stale_409": 0,
        "out_of_turn_403": 0, "reconnected": 0})
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, ms: float) -> None:
        with self.lock:
            self.latencies[kind].append(ms)
            self.counts["requests"] += 1

    def count(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.counts[name] += n

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


# a keep-alive connection the server closed while it was idle
_STALE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, http.client.RemoteDisconnected)


class Api:
    """One player's keep-alive connection to the server; every request has a timeout. A
    request on a connection the server closed while idle is sent again, once, on a new one."""

    def __init__(self, port: int, token: str, *, timeout: float, stats: Stats, deadline: float):
        self.port, self.token, self.timeout, self.stats, self.deadline = port, token, timeout, stats, deadline
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Any = None, *, key: str | None = None,
                kind: str = "other") -> tuple[int, dict, dict[str, str]]:
        if time.monotonic() > self.deadline:
            raise LoadError("the run's time limit passed")
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        reused = self.conn is not None
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        start = time.perf_counter()
        try:
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
            except _STALE:
                if not reused:
                    raise
                # the server closed the idle keep-alive connection before reading this
                # request (as any HTTP client does, send it again on a new connection; an
                # action carries its Idempotency-Key, so it can never count twice)
                self.close()
                self.stats.count("reconnected")
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
                start = time.perf_counter()
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise LoadError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
        self.stats.add(kind, (time.perf_counter() - start) * 1000)
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            payload = json.loads(raw) if raw else {}
        except ValueError:
            payload = {"raw": raw[:300].decode(errors="replace")}
        if response.status >= 500:
            raise LoadError(f"{method} {path}: {response.status} {str(payload)[:300]}")
        return response.status, payload, {k.lower(): v for k, v in response.getheaders()}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise LoadError(what)


@dataclass
class Played:
    accepted: dict[int, str] = field(default_factory=dict)  # seq -> state hash the client was given
    api_log: list[tuple[int, str]] = field(default_factory=list)


class MatchPlayer:
    """Plays one match: both players, in turn, through the API, misbehaving now and then."""

    def __init__(self, plan: Planned, *, port: int, actions: int, stats: Stats, args, deadline: float):
        self.plan, self.actions, self.stats, self.args = plan, actions, stats, args
        self.rng = random.Random(plan.match_id)
        self.api = {side: Api(port, token, timeout=args.request_timeout, stats=stats, deadline=deadline)
                    for side, token in plan.tokens.items()}
        self.port, self.deadline = port, deadline
        self.path = f"/api/matches/{plan.match_id}"
        self.played = Played()

    def run(self) -> Played:
        try:
            self._play()
        except LoadError as exc:
            self.stats.error(f"match {self.plan.match_id}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a bug of this script is reported, not hidden
            self.stats.error(f"match {self.plan.match_id}: {type(exc).__name__}: {exc}")
        finally:
            for api in self.api.values():
                api.close()
        return self.played

    def _play(self) -> None:
        from matches.services.computer import candidate_actions
        from simulation.rules import make_referee
        from simulation.state import MatchState

        referee = make_referee(self.plan.rule_set, self.plan.params)
        for side in ("home", "away"):
            status, body, _ = self.api[side].request("POST", f"{self.path}/check-in/")
            expect(status == 200, f"check-in {side}: {status} {body}")
        expect(body.get("status") == "live", f"not live after both check-ins: {body.get('status')}")
        seq, state = body["seq"], body["state"]
        last: tuple[str, dict] | None = None  # the last accepted request: side, body
        while len(self.played.accepted) < self.actions:
            side = state.get("to_move")
            expect(side in ("home", "away"), f"nobody to move at seq {seq}: {state.get('phase')}")
            other = "away" if side == "home" else "home"
            if last is not None and self.rng.random() < self.args.stale:
                self._stale(*last, seq)
            if self.rng.random() < self.args.out_of_turn:
                self._out_of_turn(other, seq)
            candidates = candidate_actions(MatchState.from_json(state), side, self.plan.rule_set,
                                           self.plan.params, referee=referee,
                                           seed=self.plan.match_id * 100003 + seq)
            answer = None
            for action in candidates:
                request = {"seq": seq + 1, "action": action}
                key = uuid.uuid4().hex
                if self.rng.random() < self.args.race:
                    status, body = self._race(side, request, key)
                else:
                    status, body, _ = self.api[side].request("POST", f"{self.path}/actions/", request, key=key,
                                                             kind="post")
                if status == 422:
                    self.stats.count("refused_422")
                    continue
                expect(status == 201, f"action {seq + 1} of {side}: {status} {str(body)[:300]}")
                answer = (request, key, body)
                break
            expect(answer is not None, f"every candidate action of {side} at seq {seq + 1} was refused")
            request, key, body = answer
            expect(body["seq"] == seq + 1 and body.get("accepted") == [seq + 1],
                   f"accepted as {body.get('seq')} / {body.get('accepted')}, sent {seq + 1}")
            expect(body["seq"] not in self.played.accepted, f"seq {body['seq']} accepted twice")
            self.played.accepted[body["seq"]] = body["state_hash"]
            self.stats.count("accepted")
            last = (side, request)
            if self.rng.random() < self.args.retry:
                self._retry(side, request, key, body)
            # the other player's read: the action must be there
            status, view, _ = self.api[other].request("GET", f"{self.path}/", kind="read")
            expect(status == 200, f"read after {body['seq']}: {status}")
            expect(view["seq"] == body["seq"] and view["state_hash"] == body["state_hash"],
                   f"the other player reads seq {view['seq']} {view['state_hash'][:8]}, "
                   f"accepted {body['seq']} {body['state_hash'][:8]}")
            seq, state = view["seq"], view["state"]
        status, log, _ = self.api["home"].request("GET", f"{self.path}/actions/?after=0")
        expect(status == 200, f"log: {status}")
        self.played.api_log = [(row["seq"], row["state_hash"]) for row in log["actions"]]

    def _retry(self, side: str, request: dict, key: str, first: dict) -> None:
        status, body, headers = self.api[side].request("POST", f"{self.path}/actions/", request, key=key, kind="post")
        expect(status == 201 and headers.get("idempotent-replayed") == "true"
               and body.get("seq") == first["seq"] and body.get("state_hash") == first["state_hash"],
               f"retry of {first['seq']} with its key: {status} {headers.get('idempotent-replayed')} {body.get('seq')}")
        self.stats.count("retried")

    def _race(self, side: str, request: dict, key: str) -> tuple[int, dict]:
        """The same request twice at once, on two connections, with the same key."""
        twin = Api(self.port, self.plan.tokens[side], timeout=self.args.request_timeout, stats=self.stats,
                   deadline=self.deadline)
        out: list = [None, None]

        def send(i: int, api: Api) -> None:
            try:
                out[i] = api.request("POST", f"{self.path}/actions/", request, key=key, kind="post")
            except LoadError as exc:
                out[i] = exc

        thread = threading.Thread(target=send, args=(1, twin), daemon=True)
        thread.start()
        send(0, self.api[side])
        thread.join(self.args.request_timeout + 5)
        twin.close()
        for answer in out:
            if isinstance(answer, LoadError):
                raise answer
            expect(answer is not None, "a raced request did not finish")
        (s0, b0, h0), (s1, b1, h1) = out
        if s0 == s1 == 422:
            return 422, b0
        replayed = sorted(h.get("idempotent-replayed") == "true" for h in (h0, h1))
        expect(s0 == s1 == 201 and replayed == [False, True] and b0.get("seq") == b1.get("seq")
               and b0.get("state_hash") == b1.get("state_hash"),
               f"raced twins: {s0}/{s1} replayed {replayed} seq {b0.get('seq')}/{b1.get('seq')}")
        self.stats.count("raced")
        return 201, b0 if h1.get("idempotent-replayed") == "true" else b1

    def _stale(self, side: str, request: dict, seq: int) -> None:
        status, body, _ = self.api[side].request("POST", f"{self.path}/actions/", request,
                                                 key=uuid.uuid4().hex, kind="post")
        expect(status == 409 and body.get("error") == "stale" and body.get("seq") == seq,
               f"stale resubmission of {request['seq']}: {status} {body.get('error')} seq {body.get('seq')}")
        self.stats.count("stale_409")

    def _out_of_turn(self, other: str, seq: int) -> None:
        request = {"seq": seq + 1, "action": {"type": "ready", "side": other}}
        status, body, _ = self.api[other].request("POST", f"{self.path}/actions/", request,
                                                  key=uuid.uuid4().hex, kind="post")
        expect(status == 403 and body.get("error") == "not_your_turn",
               f"{other} out of turn at {seq + 1}: {status} {body.get('error')}")
        self.stats.count("out_of_turn_403")


def obtain_token(port: int, username: str, password: str, timeout: float) -> None:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("POST", "/api/auth/token/", body=json.dumps({"username": username, "password": password}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        body = json.loads(response.read() or b"{}")
    finally:
        conn.close()
    if response.status != 200 or not body.get("token"):
        raise LoadError(f"POST /api/auth/token/: {response.status} {body}")


# --- verification --------------------------------------------------------------------------------


def verify(plans: list[Planned], played: dict[int, Played]) -> tuple[list[str], dict[str, int]]:
    """Problems found in the database (each match's log against what its clients saw)."""
    from matches.models import ActionRequest, Match, MatchAction
    from matches.services.adjudication import ReplayMismatch, replay

    problems, totals = [], {"log_rows": 0, "ticks": 0, "replayed_matches": 0}
    for plan in plans:
        mid = plan.match_id
        seen = played.get(mid, Played())
        match = Match.objects.get(pk=mid)
        rows = list(MatchAction.objects.filter(match_id=mid).order_by("seq").values_list("seq", "side", "state_hash"))
        seqs = [r[0] for r in rows]
        totals["log_rows"] += len(rows)
        if seqs != list(range(1, len(rows) + 1)):
            problems.append(f"match {mid}: log seqs are not 1..{len(rows)}: {seqs[:10]}...")
        if match.seq != len(rows):
            problems.append(f"match {mid}: match.seq {match.seq} but {len(rows)} log rows")
        players = {seq: digest for seq, side, digest in rows if side}
        totals["ticks"] += len(rows) - len(players)
        if players != seen.accepted:
            lost = sorted(set(seen.accepted) - set(players))
            extra = sorted(set(players) - set(seen.accepted))
            differ = sorted(s for s in set(players) & set(seen.accepted) if players[s] != seen.accepted[s])
            problems.append(f"match {mid}: log vs clients' 201s: lost {lost}, not seen (doubled?) {extra}, "
                            f"hash differs at {differ}")
        if seen.api_log and seen.api_log != [(r[0], r[2]) for r in rows]:
            problems.append(f"match {mid}: the log served by the API differs from the database's")
        stored = ActionRequest.objects.filter(match_id=mid, status_code=201).count()
        if stored != len(seen.accepted):
            problems.append(f"match {mid}: {stored} idempotency keys answered 201, {len(seen.accepted)} accepted")
        try:
            result = replay(match)
        except ReplayMismatch as exc:
            problems.append(str(exc))
            continue
        if result.state.state_hash() != match.state_hash:
            problems.append(f"match {mid}: the replay ends at another state than the match's")
        else:
            totals["replayed_matches"] += 1
    return problems, totals


# --- the run ---------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))], 1)


def figures(stats: Stats, plans: list[Planned], wall: float, play_s: float, totals: dict) -> dict[str, Any]:
    every = [ms for kind in stats.latencies.values() for ms in kind]
    out: dict[str, Any] = {
        "matches": len(plans), "actions": stats.counts["accepted"],
        "requests": stats.counts["requests"], "errors": len(stats.errors),
        **{k: v for k, v in stats.counts.items() if k not in ("requests", "accepted")},
    }
    for name, values in (("request", every), ("post", stats.latencies["post"]), ("read", stats.latencies["read"])):
        out[f"{name}_p50_ms"] = round(statistics.median(values), 1) if values else None
        out[f"{name}_p95_ms"] = percentile(values, 0.95)
        out[f"{name}_max_ms"] = round(max(values), 1) if values else None
    out.update({
        "play_s": round(play_s, 2),
        "actions_per_s": round(stats.counts["accepted"] / play_s, 1) if play_s else None,
        "requests_per_s": round(stats.counts["requests"] / play_s, 1) if play_s else None,
        **totals,
        "wall_s": round(wall, 2),
    })
    return out


def print_table(figs: dict[str, Any], args) -> None:
    print(f"load test: {figs['matches']} concurrent bot matches x {args.actions} actions through the HTTP API "
          f"(gunicorn gthread {args.workers}x{args.threads}, loopback)")
    width = max(len(k) for k in figs)
    for key, value in figs.items():
        print(f"  {key:<{width}}  {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--actions", type=int, default=25, help="accepted actions per match")
    parser.add_argument("--database-url", default=os.environ.get("LOADTEST_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--rule-set", default="one_touch", choices=["one_touch", "mbs"])
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    parser.add_argument("--turn-seconds", type=float, default=300.0)
    parser.add_argument("--retry", type=float, default=0.05, help="share of actions retried with their key")
    parser.add_argument("--race", type=float, default=0.03, help="share of actions sent twice at once")
    parser.add_argument("--stale", type=float, default=0.05, help="share of turns with a stale resubmission")
    parser.add_argument("--out-of-turn", type=float, default=0.03, help="share of turns with an out-of-turn try")
    parser.add_argument("--request-timeout", type=float, default=30.0, help="seconds, every request")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds for the whole play")
    parser.add_argument("--keep", action="store_true", help="keep the run's rows in the database")
    parser.add_argument("--prepare-only", action="store_true", help="create and migrate the database, then stop")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args(argv)

    wall_start = time.monotonic()
    try:
        ensure_database(args.database_url)
    except Exception as exc:  # noqa: BLE001 - the message says which database and why
        print(f"loadtest: cannot reach or create the database {args.database_url}: {exc}", file=sys.stderr)
        return 2
    setup_django(args.database_url)
    migrate()
    if args.prepare_only:
        print(f"loadtest: database {args.database_url} ready")
        return 0
    # the referee and the replay are imported before the server starts: both run the same code
    import matches.services.adjudication  # noqa: F401
    import matches.services.computer  # noqa: F401

    run = f"load-{uuid.uuid4().hex[:6]}"
    stats = Stats()
    played: dict[int, Played] = {}
    plans: list[Planned] = []
    play_s = 0.0
    totals: dict[str, Any] = {}
    log_dir = Path(tempfile.mkdtemp(prefix="botonera-load-"))
    server = Server(args.database_url, workers=args.workers, threads=args.threads, log_dir=log_dir)
    try:
        setup_start = time.monotonic()
        plans = create_matches(run, args.matches, rule_set=args.rule_set, turn_seconds=args.turn_seconds)
        username, password = create_login_user(run)
        totals["setup_s"] = round(time.monotonic() - setup_start, 2)
        server.start()
        deadline = time.monotonic() + args.time_limit
        try:
            obtain_token(server.port, username, password, args.request_timeout)
        except LoadError as exc:
            stats.error(str(exc))
        players = [MatchPlayer(p, port=server.port, actions=args.actions, stats=stats, args=args, deadline=deadline)
                   for p in plans]
        play_start = time.monotonic()
        client_cpu = time.process_time()

        def play(player: MatchPlayer) -> None:
            played[player.plan.match_id] = player.run()

        threads = [threading.Thread(target=play, args=(p,), name=f"match-{p.plan.match_id}", daemon=True)
                   for p in players]
        for thread in threads:
            thread.start()
        for thread in threads:  # daemon threads: past the limit, the process does not wait for them
            thread.join(max(deadline - time.monotonic() + args.request_timeout + 5, 0.1))
        late = [p.plan.match_id for p in players if p.plan.match_id not in played]
        if late:
            stats.error(f"{len(late)} matches not done within the time limit ({args.time_limit:.0f} s): {late[:10]}")
        play_s = time.monotonic() - play_start
        totals["client_cpu_s"] = round(time.process_time() - client_cpu, 1)
    except Exception as exc:  # noqa: BLE001 - set-up or server failure: reported as an error
        stats.error(f"{type(exc).__name__}: {exc}")
    finally:
        server.stop()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)  # gunicorn and its workers
        totals["server_cpu_s"] = round(children.ru_utime + children.ru_stime, 1)
    if plans and len(played) == len(plans):
        verify_start = time.monotonic()
        problems, found = verify(plans, played)
        totals = {**found, **totals, "verify_s": round(time.monotonic() - verify_start, 2)}
        for problem in problems:
            stats.error(problem)
    figs = figures(stats, plans, time.monotonic() - wall_start, play_s, totals)
    if args.json:
        print(json.dumps({**figs, "error_list": stats.errors[:50]}))
    else:
        print_table(figs, args)
        for text in stats.errors[:20]:
            print(f"  ERROR {text}")
        if len(stats.errors) > 20:
            print(f"  ... {len(stats.errors) - 20} more errors")
    if stats.errors:
        tail = server.tail()
        if tail:
            print(f"gunicorn log ({server.log}):\n{tail}", file=sys.stderr)
    if args.keep or stats.errors:
        if plans:
            print(f"loadtest: rows of run {run} kept in {args.database_url}", file=sys.stderr)
    else:
        cleanup(run)
    return 1 if stats.errors else 0


if __name__ == "__main__":
    sys.exit(main())
