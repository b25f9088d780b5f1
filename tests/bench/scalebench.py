"""Benchmark of federation scale (issue 20; ``make bench``, not a test).

``python -m tests.bench.scalebench [--parts import,http,watchers] [--database-url URL] [--redis-url URL]
[--results 10000] [--watchers 200] [--json]``

Every figure is printed beside an *anchor* measured in the same run on the same machine, and
as a ratio to it, so that a busy machine (2 cores shared with other work) moves both:

- **import**: ``manage.py import_results`` of a generated file of ``--results`` results, in two
  shapes: a league (a double round robin of ``n`` entrants) and groups then a knockout (groups of
  four, six results each, then quarter-finals, semi-finals and a final), on PostgreSQL (a
  scratch database, ``--database-url``) and on SQLite (a file in a temporary folder), and the
  same at a tenth of the size (growth: the two within 12x of each other is linear enough).
  Tasks run in-process (no broker), as in the SQLite default. Anchor: parsing the same file
  with the csv module and writing its rows three times (fixtures, results, history) as bare
  tuples into a temporary table of the same database.
- **recompute**: ``standings_recompute(force=True)`` of those results, twice: the first
  writes every row (the stored standings deleted first), the second only what moved (nothing).
  Anchor: reading the results' columns once (``values_list``). Then the competition API on it,
  as an organiser calls it: ``GET /api/competitions/SLUG/`` and ``POST .../recompute-standings/``
  (the best of three; targets 50 ms and 0.5 s).
- **http**: the Procfile's ``web`` line itself (``tests.bench.procfile``; ``--workers`` as
  ``WEB_CONCURRENCY``, ``--threads`` as ``WEB_THREADS``, ``DEBUG=0``, the cache in Redis
  ``--redis-url``) on the scratch database with the demo loaded; ``wrk`` when installed, else a
  threaded keep-alive Python client (``--connections``), ``--seconds`` per run, on the demo
  league's page, its standings API and a live match's feed (nothing new), each run interleaved
  with one on a static file served by the same server (whitenoise); the median of ``--runs``.
- **watchers**: ``--watchers`` clients polling one live match's feed (``?after=<last>``, every
  ``--poll`` s, as the board does) while its players flick through the API; per flick and
  watcher, the time from the accepted POST to the watcher having it: p50/p95/max, errors, and
  the players' own request latency meanwhile (anchor: the same without watchers).

The run's rows are deleted at the end (the scratch database stays); servers are stopped.
"""
from __future__ import annotations

import argparse
import csv
import http.client
import importlib
import io
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from tests.bench import loadtest, procfile

ROOT = Path(__file__).resolve().parents[2]
HOST = loadtest.HOST
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_scalebench"


# --- the files ----------------------------------------------------------------------------------


def league_csv(results: int) -> str:
    """A double round robin of the smallest field giving at least ``results`` results."""
    n = 2
    while n * (n - 1) < results:
        n += 1
    rng = random.Random(1)
    names = [f"Team {i:04d}" for i in range(n)]
    out = ["stage,round,home,away,home_goals,away_goals"]
    for leg in (1, 2):
        for i in range(n):
            for j in range(i + 1, n):
                home, away = (names[i], names[j]) if leg == 1 else (names[j], names[i])
                out.append(f"League,{leg},{home},{away},{rng.randint(0, 4)},{rng.randint(0, 4)}")
    return "\n".join(out) + "\n"


def groups_csv(results: int) -> str:
    """Groups of four (six results each) then an eight-entrant knockout of the group winners."""
    groups = max(8, (results - 7) // 6)
    rng = random.Random(2)
    out = ["stage,group,round,home,away,home_goals,away_goals"]
    for g in range(groups):
        teams = [f"G{g:05d} T{i}" for i in range(4)]
        for n, (a, b) in enumerate(((0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2))):
            out.append(f"Groups,Group {g:05d},{n // 2 + 1},{teams[a]},{teams[b]},{rng.randint(0, 4)},{rng.randint(0, 4)}")
    alive = [f"G{g:05d} T0" for g in range(8)]
    for stage in ("Quarter-finals", "Semi-finals", "Final"):
        nxt = []
        for i in range(0, len(alive), 2):
            out.append(f"{stage},,1,{alive[i]},{alive[i + 1]},2,1")
            nxt.append(alive[i])
        alive = nxt
    return "\n".join(out) + "\n"


SHAPES = {"league": (league_csv, "league"), "groups": (groups_csv, "groups_knockout")}


# --- import and recomputation (one database per child process) ----------------------------------


def _one_database(url: str, results: list[int], out: Path) -> None:
    """In a child process: the import and recomputation figures on ``url``, as JSON to ``out``."""
    os.environ.update({"DATABASE_URL": url, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"})
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from leagues.models import Competition, Fixture, Result, Standing
    from leagues.services.standings import standings_recompute

    call_command("migrate", "--noinput", verbosity=0)
    _forget_earlier_runs()
    run = uuid.uuid4().hex[:6]
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in results:
            for shape, (make, fmt) in SHAPES.items():
                text = make(size)
                path = Path(tmp) / f"{shape}-{size}.csv"
                path.write_text(text, encoding="utf-8")
                slug = f"scalebench-{run}-{shape}-{size}"
                anchor = _write_anchor(connection, text)
                start = time.perf_counter()
                call_command("import_results", str(path), "--competition", slug, "--create", "--name", slug,
                             "--format", fmt, stdout=io.StringIO(), stderr=io.StringIO())
                imported = time.perf_counter() - start
                competition = Competition.objects.get(slug=slug)
                start = time.perf_counter()
                list(Result.objects.filter(fixture__competition=competition).values_list(
                    "fixture__home_id", "fixture__away_id", "home_goals", "away_goals", "home_discipline",
                    "away_discipline", "outcome", "outcome_side"))
                read = time.perf_counter() - start
                Standing.objects.filter(competition=competition).delete()
                start = time.perf_counter()
                standings_recompute(competition_id=competition.pk, force=True)
                full = time.perf_counter() - start
                start = time.perf_counter()
                standings_recompute(competition_id=competition.pk, force=True)
                unchanged = time.perf_counter() - start
                api_get, api_recompute = _api_figures(slug)
                figures.append({
                    "shape": shape, "results": text.count("\n") - 1, "import_s": imported, "write_anchor_s": anchor,
                    "recompute_s": full, "recompute_unchanged_s": unchanged, "read_anchor_s": read,
                    "entrants": competition.entrants.count(), "api_get_s": api_get, "api_recompute_s": api_recompute,
                })
                Fixture.objects.filter(competition=competition).delete()  # they protect their rounds
                competition.delete()
    out.write_text(json.dumps({"vendor": connection.vendor, "figures": figures}))


def _api_figures(slug: str, runs: int = 3) -> tuple[float, float]:
    """The best of ``runs`` seconds of ``GET /api/competitions/SLUG/`` and of the organiser's
    ``POST /api/competitions/SLUG/recompute-standings/`` (a full recomputation and the standings
    in the answer), through Django's test client as the federation's administrator."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    admin, _created = get_user_model().objects.get_or_create(
        username="scalebench-admin", defaults={"is_staff": True, "is_superuser": True})
    client = Client()
    client.force_login(admin)
    best = {"get": float("inf"), "recompute": float("inf")}
    for _run in range(runs):
        start = time.perf_counter()
        response = client.get(f"/api/competitions/{slug}/")
        best["get"] = min(best["get"], time.perf_counter() - start)
        if response.status_code != 200:
            raise SystemExit(f"GET /api/competitions/{slug}/ answered {response.status_code}")
        start = time.perf_counter()
        response = client.post(f"/api/competitions/{slug}/recompute-standings/")
        best["recompute"] = min(best["recompute"], time.perf_counter() - start)
        if response.status_code != 200:
            raise SystemExit(f"the recompute of {slug} answered {response.status_code}")
    return best["get"], best["recompute"]


def _forget_earlier_runs() -> None:
    """Deletes what an earlier run stopped halfway left (competitions ``scalebench-*``)."""
    from leagues.models import Competition, Fixture

    Fixture.objects.filter(competition__slug__startswith="scalebench-").delete()
    Competition.objects.filter(slug__startswith="scalebench-").delete()


def _write_anchor(connection, text: str) -> float:
    """Seconds to parse ``text`` with the csv module and write its rows three times as bare
    tuples into a temporary table of the same database (what any import must at least do)."""
    start = time.perf_counter()
    rows = [(i, len(r[2]), len(r[3]), int(r[-2]), int(r[-1]), i % 7)
            for i, r in enumerate(csv.reader(io.StringIO(text))) if i]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE scalebench_anchor (a integer, b integer, c integer, d integer, "
                       "e integer, f integer)")
        for _copy in range(3):
            if connection.vendor == "postgresql":
                with cursor.copy("COPY scalebench_anchor FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            else:
                cursor.executemany("INSERT INTO scalebench_anchor VALUES (%s, %s, %s, %s, %s, %s)", rows)
        elapsed = time.perf_counter() - start
        cursor.execute("DROP TABLE scalebench_anchor")
    return elapsed


def part_import(args) -> list[dict]:
    loadtest.ensure_database(args.database_url)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for url in (args.database_url, f"sqlite:///{tmp}/scalebench.sqlite3"):
            result = Path(tmp) / "figures.json"
            sizes = [args.results // 10, args.results]
            proc = subprocess.run([sys.executable, "-m", "tests.bench.scalebench", "--child-import", url,
                                   "--child-sizes", ",".join(map(str, sizes)), "--child-out", str(result)],
                                  cwd=ROOT, capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"the import bench on {url.split(':')[0]} failed:\n{proc.stderr[-3000:]}")
            out.append(json.loads(result.read_text()))
    return out


def print_import(data: list[dict]) -> None:
    print("\nImport and recomputation (seconds; ratio to the anchor measured just before)")
    print(f"{'database':<11}{'shape':<8}{'results':>8}{'import':>9}{'anchor':>8}{'ratio':>7}"
          f"{'recompute':>11}{'unchanged':>11}{'read':>7}{'ratio':>7}")
    for db in data:
        for f in db["figures"]:
            print(f"{db['vendor']:<11}{f['shape']:<8}{f['results']:>8}{f['import_s']:>9.2f}{f['write_anchor_s']:>8.2f}"
                  f"{f['import_s'] / f['write_anchor_s']:>7.1f}{f['recompute_s']:>11.3f}"
                  f"{f['recompute_unchanged_s']:>11.3f}{f['read_anchor_s']:>7.3f}"
                  f"{f['recompute_s'] / max(f['read_anchor_s'], 1e-6):>7.1f}")
        for f in db["figures"]:
            print(f"  {db['vendor']} {f['shape']} of {f['entrants']} entrants, {f['results']} results: "
                  f"GET /api/competitions/SLUG/ {f['api_get_s'] * 1000:.0f} ms (target 50), "
                  f"POST recompute-standings/ {f['api_recompute_s']:.3f} s (target 0.5)")
        for shape in SHAPES:
            small, large = [f for f in db["figures"] if f["shape"] == shape][:2]
            growth = large["import_s"] / small["import_s"]
            print(f"  {db['vendor']} {shape}: {large['results']} results import in {growth:.1f}x the time of "
                  f"{small['results']} (linear is 10x; the target is within 12x); recomputation "
                  f"{large['recompute_s'] / max(small['recompute_s'], 1e-6):.1f}x")


# --- HTTP load ----------------------------------------------------------------------------------


def load_run(port: int, path: str, *, seconds: float, connections: int, headers: dict | None = None,
             readers: list[dict] | None = None) -> dict:
    """Requests per second and latency percentiles of ``path`` under ``connections``
    keep-alive clients for ``seconds`` (``wrk`` when installed). ``readers``: header sets (a
    signed-in reader's session cookie each), taken in turn request after request, so that every
    request is a different reader's (the Python client then, whether ``wrk`` is installed or not)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)  # warm: the steady state is measured
    conn.request("GET", path, headers=headers or {})
    conn.getresponse().read()
    conn.close()
    if shutil.which("wrk") and not readers:
        return _wrk(port, path, seconds=seconds, connections=connections, headers=headers or {})
    turn = itertools.count()
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        mine = []
        while time.monotonic() < stop:
            start = time.perf_counter()
            sent = {**(headers or {}), **(readers[next(turn) % len(readers)] if readers else {})}
            try:
                conn.request("GET", path, headers=sent)
                response = conn.getresponse()
                response.read()
                if response.status >= 400:
                    errors[0] += 1
            except (OSError, http.client.HTTPException):
                errors[0] += 1
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=30)
                continue
            mine.append(time.perf_counter() - start)
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(connections)]
    begin = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - begin
    latencies.sort()
    return {"rps": len(latencies) / wall, "p50_ms": _pct(latencies, 0.5) * 1000, "p90_ms": _pct(latencies, 0.9) * 1000,
            "p99_ms": _pct(latencies, 0.99) * 1000, "errors": errors[0], "tool": "python"}


def _wrk(port: int, path: str, *, seconds: float, connections: int, headers: dict) -> dict:
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{max(1, int(seconds))}s", "--latency"]
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    return wrk_figures(subprocess.run([*cmd, f"http://{HOST}:{port}{path}"], capture_output=True, text=True).stdout)


def wrk_figures(out: str) -> dict:
    """The figures of one ``wrk --latency`` run's output: ``rps``, ``p50_ms``, ``p90_ms`` and
    ``p99_ms`` (wrk prints its distribution at 50, 75, 90 and 99 %: each named as what it is),
    ``errors`` (non-2xx answers)."""
    rps = float(next(line.split()[1] for line in out.splitlines() if line.startswith("Requests/sec")))

    def latency(label: str) -> float:
        for line in out.splitlines():
            if line.strip().startswith(label):
                value = line.split()[1]
                for unit, factor in (("ms", 1), ("us", 0.001), ("s", 1000)):
                    if value.endswith(unit):
                        return float(value[: -len(unit)]) * factor
        return float("nan")

    errors = sum(int(w) for line in out.splitlines() if "Non-2xx" in line for w in line.split() if w.isdigit())
    return {"rps": rps, "p50_ms": latency("50%"), "p90_ms": latency("90%"), "p99_ms": latency("99%"),
            "errors": errors, "tool": "wrk"}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


def _prepare_site(args) -> dict:
    """The demo on the scratch database, a live match (two players with tokens, both checked
    in), the static files collected. Returns the paths to load and the match's tokens."""
    loadtest.ensure_database(args.database_url)
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"  # the demo's notices
    loadtest.setup_django(args.database_url)
    loadtest.migrate()
    from django.core.management import call_command

    from leagues.models import Competition

    _forget_earlier_runs()
    call_command("load_demo", "--if-empty", stdout=io.StringIO())
    # the manifest the server (DEBUG=0) reads its static files' names from
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, check=True,
                   env={**os.environ, "DEBUG": "0", "SECRET_KEY": uuid.uuid4().hex * 2})
    league = Competition.objects.filter(slug__startswith="liga-").order_by("-created_at").first()
    if league is None:
        raise SystemExit(f"{args.database_url} holds data but not the demo league: give an empty scratch database")
    run = f"scalebench-{uuid.uuid4().hex[:6]}"
    plan = loadtest.create_matches(run, 1, rule_set="one_touch", turn_seconds=600)[0]
    static = next((ROOT / "staticfiles" / "css").glob("site*.css"))
    return {"run": run, "plan": plan, "league": league.slug,
            "static": f"/static/css/{static.name}", "readers": _signed_in_readers(run, args.readers,
                                                                                 secret_key=_secret_key(args))}


def _secret_key(args) -> str:
    """The servers' ``SECRET_KEY``, one per run: the readers' sessions are signed with it."""
    if not getattr(args, "secret_key", None):
        args.secret_key = uuid.uuid4().hex * 2
    return args.secret_key


def _signed_in_readers(run: str, count: int, *, secret_key: str) -> list[dict]:
    """``count`` distinct users, each signed in: the ``Cookie`` header of their session (made as
    ``django.contrib.auth.login`` makes it, in the sessions' own store, signed with the servers'
    ``secret_key``), and ``X-Reader``, their username, to read pages as them."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.test.utils import override_settings

    store = importlib.import_module(settings.SESSION_ENGINE).SessionStore
    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"{run}-reader-{i:03d}", password="!") for i in range(count)])
    cookies = []
    with override_settings(SECRET_KEY=secret_key):
        for user in users:
            session = store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            cookies.append({"Cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}",
                            "X-Reader": user.username})
    return cookies


def _server(args, *, asgi: bool, workers: int) -> procfile.Served:
    """The Procfile's own line, as deployed (``tests.bench.procfile``): ``web`` (``asgi``: ``live``,
    which serves the site's HTTP too) with ``workers`` (``WEB_CONCURRENCY``, ``LIVE_CONCURRENCY``)
    and ``--threads`` (``WEB_THREADS``; ``live``'s pool, ``DB_POOL``), ``DEBUG=0``, on the scratch
    database; its persistent connections are the production default (config/settings.py)."""
    log_dir = Path(tempfile.mkdtemp(prefix="scalebench-"))
    port = loadtest.free_port()
    env = {key: value for key, value in os.environ.items()
           if key not in ("REDIS_URL", "DB_CONN_MAX_AGE", "DB_POOL", "WEB_CONCURRENCY", "WEB_THREADS",
                          "LIVE_CONCURRENCY", "GUNICORN_CMD_ARGS")}
    env.update({
        "DATABASE_URL": args.database_url, "DEBUG": "0", "SECRET_KEY": _secret_key(args),
        "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": f"{HOST},localhost", "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "config.settings",
        # every watcher of the bench connects from 127.0.0.1: the cap on one address's sockets
        # (LIVE_MAX_SOCKETS_PER_ADDRESS, 100 by default) above the crowd, or it would refuse most of it
        "LIVE_MAX_SOCKETS_PER_ADDRESS": str(args.watchers + 100),
    })
    if args.redis_url:
        env["REDIS_URL"] = args.redis_url
    name = "live" if asgi else "web"
    given = {"LIVE_CONCURRENCY": workers, "DB_POOL": args.threads} if asgi else {
        "WEB_CONCURRENCY": workers, "WEB_THREADS": args.threads}
    env.update({"LIVE_PORT" if asgi else "PORT": str(port)})
    env.update({key: str(value) for key, value in given.items() if value is not None})
    server = procfile.Served(name, port=port, env=env, log=log_dir / f"{name}.log")
    line = f"the Procfile's {name}: {procfile.expanded(name, env)}"
    if not getattr(args, "served", None):  # the first started serves the HTTP part
        args.served = line
    print(line, file=sys.stderr)
    return server.start()


def _check_in(port: int, plan) -> tuple[int, dict]:
    body = {}
    for side in ("home", "away"):
        api = loadtest.Api(port, plan.tokens[side], timeout=30, stats=loadtest.Stats(), deadline=time.monotonic() + 600)
        status, body, _ = api.request("POST", f"/api/matches/{plan.match_id}/check-in/")
        api.close()
        if status != 200:
            raise SystemExit(f"check-in {side}: {status} {body}")
    return body["seq"], body


def part_http(args, site: dict, port: int, seq: int) -> dict:
    page, standings = f"/competitions/{site['league']}/", f"/api/competitions/{site['league']}/standings/"
    paths = {
        "competition page": (page, None),
        "standings API": (standings, None),
        "feed, nothing new": (f"/matches/{site['plan'].match_id}/feed/?after={seq}", None),
        # each request a different one of the signed-in readers (``--readers``, 200 by default)
        "page, signed in": (page, site["readers"]),
        "API, signed in": (standings, site["readers"]),
    }
    _check_own_parts(port, page, site["readers"])
    figures: dict = {name: {"runs": [], "static": []} for name in paths}
    for _run in range(args.runs):
        for name, (path, readers) in paths.items():
            # the static file served the same way: by the same client, with the same cookies
            figures[name]["static"].append(load_run(port, site["static"], seconds=args.seconds,
                                                    connections=args.connections, readers=readers))
            figures[name]["runs"].append(load_run(port, path, seconds=args.seconds, connections=args.connections,
                                                  readers=readers))
    for name in paths:
        f = figures[name]
        f["rps"] = statistics.median(r["rps"] for r in f["runs"])
        f["static_rps"] = statistics.median(r["rps"] for r in f["static"])
        for key in ("p50_ms", "p90_ms", "p99_ms"):
            f[key] = statistics.median(r[key] for r in f["runs"])
        f["errors"] = sum(r["errors"] for r in f["runs"])
        f["tool"] = f["runs"][0]["tool"]
    return figures


def _check_own_parts(port: int, path: str, readers: list[dict]) -> None:
    """Each signed-in reader's page is their own (the header names them), whatever the cache
    serves the others: checked for a few readers before the load."""
    for reader in readers[:3] + readers[-2:]:
        conn = http.client.HTTPConnection(HOST, port, timeout=60)
        conn.request("GET", path, headers={"Cookie": reader["Cookie"]})
        body = conn.getresponse().read().decode("utf-8", "replace")
        conn.close()
        if reader["X-Reader"] not in body:
            raise SystemExit(f"{path}: the page of {reader['X-Reader']} does not name them: not their own page")


def print_http(figures: dict, args) -> None:
    tool = next(iter(figures.values()))["tool"]
    print(f"\nHTTP ({tool}, {args.connections} connections, {args.seconds:.0f} s a run, median of {args.runs} "
          f"runs each interleaved with the static file's; DEBUG=0)\n{args.served}")
    print(f"{'what':<20}{'req/s':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'errors':>8}{'static req/s':>14}{'ratio':>8}")
    for name, f in figures.items():
        print(f"{name:<20}{f['rps']:>9.0f}{f['p50_ms']:>9.1f}{f['p90_ms']:>9.1f}{f['p99_ms']:>9.1f}{f['errors']:>8}"
              f"{f['static_rps']:>14.0f}"
              f"{f['rps'] / f['static_rps']:>8.0%}")


# --- watchers of one live match -----------------------------------------------------------------


def _flicks(plan, api: dict, seq: int, state: dict, *, count: int, every: float, accepted: dict,
            clock) -> tuple[int, dict]:
    """The side to move flicks ``count`` times through the API (the computer player's choice,
    the first its referee accepts), ``every`` seconds apart; ``accepted[seq]`` is ``clock()``
    when each was accepted. Returns the last seq and state."""
    from matches.services.computer import candidate_actions
    from simulation.rules import make_referee
    from simulation.state import MatchState

    referee = make_referee(plan.rule_set, plan.params)
    for _flick in range(count):
        side = state["to_move"]
        for action in candidate_actions(MatchState.from_json(state), side, plan.rule_set, plan.params,
                                        referee=referee, seed=seq):
            status, body, _ = api[side].request("POST", f"/api/matches/{plan.match_id}/actions/",
                                                {"seq": seq + 1, "action": action}, key=uuid.uuid4().hex, kind="post")
            if status == 201:
                accepted[body["seq"]] = clock()
                seq, state = body["seq"], body["state"]
                break
        else:
            raise SystemExit(f"no action of {side} accepted at seq {seq + 1}")
        time.sleep(every)
    return seq, state


def part_watchers(args, site: dict, port: int, seq: int, state: dict, *, watchers: int,
                  flicks: int | None = None) -> dict:
    """``watchers`` pollers of the match's feed while its players flick ``flicks`` (default
    ``args.flicks``) times."""

    plan = site["plan"]
    seen: dict[int, list[float]] = {}  # seq -> the times watchers first had it
    accepted: dict[int, float] = {}
    lock = threading.Lock()
    errors = [0]
    stop = threading.Event()

    def watcher(i: int) -> None:
        last = seq
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        time.sleep(random.Random(i).random() * args.poll)  # not all at the same instant
        while not stop.is_set():
            start = time.monotonic()
            try:
                conn.request("GET", f"/matches/{plan.match_id}/feed/?after={last}&frames=0")
                response = conn.getresponse()
                raw = response.read()
                if response.status != 200:
                    errors[0] += 1
                else:
                    now = time.perf_counter()
                    newest = json.loads(raw)["match"]["seq"]
                    if newest > last:
                        with lock:
                            for s in range(last + 1, newest + 1):
                                seen.setdefault(s, []).append(now)
                        last = newest
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                errors[0] += 1
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=30)
            stop.wait(max(0.0, args.poll - (time.monotonic() - start)))
        conn.close()

    threads = [threading.Thread(target=watcher, args=(i,), daemon=True) for i in range(watchers)]
    for t in threads:
        t.start()
    time.sleep(args.poll * 2 if watchers else 0)
    stats = loadtest.Stats()
    api = {side: loadtest.Api(port, plan.tokens[side], timeout=60, stats=stats, deadline=time.monotonic() + 900)
           for side in ("home", "away")}
    seq, state = _flicks(plan, api, seq, state, count=args.flicks if flicks is None else flicks,
                         every=args.flick_every, accepted=accepted, clock=time.perf_counter)
    time.sleep(args.poll * 4 if watchers else 0)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    for a in api.values():
        a.close()
    delays = sorted(t - accepted[s] for s, times in seen.items() if s in accepted for t in times)
    missing = sum(watchers - len(seen.get(s, [])) for s in accepted) if watchers else 0
    posts = sorted(stats.latencies.get("post", []))
    return {"watchers": watchers, "flicks": len(accepted), "deliveries": len(delays), "missing": missing,
            "errors": errors[0], "p50_s": _pct(delays, 0.5), "p95_s": _pct(delays, 0.95),
            "max_s": delays[-1] if delays else float("nan"), "post_p95_ms": _pct(posts, 0.95),
            "post_p50_ms": _pct(posts, 0.5), "seq": seq, "state": state}


async def _crowd(port: int, match_id: int, after: int, watchers: int, out: Path) -> None:
    """In a child process: ``watchers`` WebSockets on the match; prints ``ready`` once all are
    open, then records when each first has each seq (wall time) until its stdin closes."""
    import asyncio

    from websockets.asyncio.client import connect

    seen: dict[int, list[float]] = {}
    errors = [0]
    url = f"ws://{HOST}:{port}/ws/matches/{match_id}/?after={after}&frames=1"

    async def one(ready: asyncio.Event, opened: list) -> None:
        last = after
        try:
            async with connect(url, origin=f"http://{HOST}:{port}", max_size=None, open_timeout=60) as ws:
                opened.append(1)
                if len(opened) == watchers:
                    ready.set()
                async for raw in ws:
                    now = time.time()
                    newest = json.loads(raw)["match"]["seq"]
                    for s in range(last + 1, newest + 1):
                        seen.setdefault(s, []).append(now)
                    last = max(last, newest)
        except Exception:  # noqa: BLE001 - counted: any failure of a watcher is an error
            errors[0] += 1
            opened.append(0)
            if len(opened) == watchers:
                ready.set()

    ready, opened = asyncio.Event(), []
    tasks = []
    for i in range(watchers):
        tasks.append(asyncio.create_task(one(ready, opened)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # not all handshakes in one instant
    await ready.wait()
    print("ready", sum(opened), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the bench closes it
    await asyncio.sleep(0.5)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    out.write_text(json.dumps({"seen": seen, "errors": errors[0]}))


def part_socket_watchers(args, site: dict, port: int, seq: int, state: dict, *, watchers: int,
                         live_port: int) -> dict:
    """``watchers`` WebSockets on the match at ``live_port`` (a child process) while its players
    flick ``args.flicks`` times through ``port``; the delay from each accepted POST to each
    watcher having it (Redis tells the live server of each flick made by the web server)."""

    plan = site["plan"]
    out = Path(tempfile.mkdtemp(prefix="scalebench-crowd-")) / "crowd.json"
    crowd = subprocess.Popen([sys.executable, "-m", "tests.bench.scalebench", "--child-crowd", str(live_port), str(plan.match_id),
                              str(seq), str(watchers), str(out)], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    line = crowd.stdout.readline()
    if not line.startswith("ready"):
        crowd.kill()
        raise SystemExit(f"the watchers did not connect: {line!r}")
    opened = int(line.split()[1])
    time.sleep(1)
    stats = loadtest.Stats()
    api = {side: loadtest.Api(port, plan.tokens[side], timeout=60, stats=stats, deadline=time.monotonic() + 900)
           for side in ("home", "away")}
    accepted: dict[int, float] = {}  # wall time: the watchers' times are taken in another process
    seq, state = _flicks(plan, api, seq, state, count=args.flicks, every=args.flick_every, accepted=accepted,
                         clock=time.time)
    time.sleep(2)
    crowd.stdin.close()
    crowd.wait(120)
    for a in api.values():
        a.close()
    got = json.loads(out.read_text())
    seen = {int(k): v for k, v in got["seen"].items()}
    delays = sorted(t - accepted[s] for s, times in seen.items() if s in accepted for t in times)
    missing = sum(watchers - len(seen.get(s, [])) for s in accepted)
    posts = sorted(stats.latencies.get("post", []))
    return {"watchers": watchers, "opened": opened, "flicks": len(accepted), "deliveries": len(delays),
            "missing": missing, "errors": got["errors"] + (watchers - opened), "p50_s": _pct(delays, 0.5),
            "p95_s": _pct(delays, 0.95), "max_s": delays[-1] if delays else float("nan"),
            "post_p95_ms": _pct(posts, 0.95), "post_p50_ms": _pct(posts, 0.5), "seq": seq, "state": state,
            "mode": "socket"}


def print_watchers(alone: dict, crowd: dict) -> None:
    how = ("over WebSockets" if crowd.get("mode") == "socket"
           else f"polling the feed every {ARGS.poll} s")
    print(f"\nWatchers of one live match ({how}; {crowd['flicks']} flicks; server: {ARGS.server})")
    print(f"  players alone: their action POST p50 {alone['post_p50_ms']:.0f} ms, p95 {alone['post_p95_ms']:.0f} ms")
    print(f"  {crowd['watchers']} watchers: a flick reaches a watcher in p50 {crowd['p50_s']:.2f} s, "
          f"p95 {crowd['p95_s']:.2f} s, max {crowd['max_s']:.2f} s; {crowd['missing']} deliveries missing, "
          f"{crowd['errors']} errors; the players' POST p50 {crowd['post_p50_ms']:.0f} ms, "
          f"p95 {crowd['post_p95_ms']:.0f} ms ({crowd['post_p95_ms'] / max(alone['post_p95_ms'], 1e-6):.1f}x alone)")


# --- main ---------------------------------------------------------------------------------------

ARGS = argparse.Namespace()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="import,http,watchers")
    parser.add_argument("--database-url", default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""),
                        help="the server's cache (default: REDIS_URL; empty: each worker's memory)")
    parser.add_argument("--results", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=None,
                        help="the web line's WEB_CONCURRENCY (default: the Procfile's own default)")
    parser.add_argument("--threads", type=int, default=None,
                        help="the web line's WEB_THREADS, or live's DB_POOL (default: the Procfile's own)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--readers", type=int, default=200, help="distinct signed-in readers (default 200)")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--watch", choices=("socket", "poll"), default="socket",
                        help="watchers on the WebSocket (default) or polling the feed")
    parser.add_argument("--server", choices=("wsgi", "asgi"), default="wsgi",
                        help="the site's HTTP: gthread on config.wsgi (the Procfile's web), or uvicorn's worker on "
                             "config.asgi (HTTP and WebSockets from one server)")
    parser.add_argument("--live-workers", type=int, default=1,
                        help="with --server wsgi: workers of the WebSockets' server (the Procfile's live)")
    parser.add_argument("--poll", type=float, default=0.5, help="seconds between a watcher's polls")
    parser.add_argument("--flicks", type=int, default=20)
    parser.add_argument("--flick-every", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child-import", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", help=argparse.SUPPRESS)
    parser.add_argument("--child-sizes", help=argparse.SUPPRESS)
    parser.add_argument("--child-crowd", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    ARGS.__dict__.update(vars(args))
    if args.child_crowd:
        import asyncio

        port, match_id, after, watchers, out = args.child_crowd
        asyncio.run(_crowd(int(port), int(match_id), int(after), int(watchers), Path(out)))
        return 0
    if args.child_import:
        _one_database(args.child_import, [int(s) for s in args.child_sizes.split(",")], Path(args.child_out))
        return 0
    parts = set(args.parts.split(","))
    report: dict = {"machine": {"cpus": os.cpu_count(), "load": os.getloadavg()}}
    if "import" in parts:
        report["import"] = part_import(args)
        print_import(report["import"])
    if parts & {"http", "watchers"}:
        site = _prepare_site(args)
        server = _server(args, asgi=args.server == "asgi", workers=args.workers)
        # the watchers' WebSockets: the same server when it is ASGI, else the Procfile's `live`
        live = server if args.server == "asgi" or "watchers" not in parts else _server(
            args, asgi=True, workers=args.live_workers)
        try:
            seq, body = _check_in(server.port, site["plan"])
            if "http" in parts:
                report["http"] = part_http(args, site, server.port, seq)
                print_http(report["http"], args)
            if "watchers" in parts:
                # a few flicks first, not counted: each server worker's first action loads the referee
                warm = part_watchers(args, site, server.port, seq, body["state"], watchers=0, flicks=6)
                alone = part_watchers(args, site, server.port, warm["seq"], warm["state"], watchers=0)
                if args.watch == "socket":
                    crowd = part_socket_watchers(args, site, server.port, alone["seq"], alone["state"],
                                                 watchers=args.watchers, live_port=live.port)
                else:
                    crowd = part_watchers(args, site, server.port, alone["seq"], alone["state"], watchers=args.watchers)
                report["watchers"] = {"alone": {k: v for k, v in alone.items() if k != "state"},
                                      "crowd": {k: v for k, v in crowd.items() if k != "state"}}
                print_watchers(alone, crowd)
        finally:
            server.stop()
            live.stop()
            loadtest.cleanup(site["run"])
    print(f"\nmachine: {report['machine']['cpus']} cores, load average {report['machine']['load'][0]:.1f} at the end")
    if args.json:
        print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
