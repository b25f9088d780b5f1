"""PostgreSQL stopped while results are recorded and pages read: the ``postgres`` scenario of
``make faults`` (``tests.bench.faults`` runs this module in a process of its own).

``python -m tests.bench.database_outage [--outage 10] [--recordings 50] [--reads 200] [--json]``

It starts a PostgreSQL cluster of its own (``initdb`` in a temporary folder, a free port on
127.0.0.1, its socket in that folder; as the ``postgres`` user when run as root), a redis-server
of its own, and the site as production serves it: gunicorn on ``config.wsgi`` (gthread, kept
connections, ``DEBUG=0``) and the ``live`` process (``config.asgi`` under uvicorn's worker, a
``DB_POOL``). No other server is touched: every process is pointed at that cluster, and this
process's own Django too.

Then, over ``--before`` + ``--outage`` + ``--after`` seconds, an organiser records
``--recordings`` results (the API and the page's form, in turn) and readers make ``--reads``
reads (anonymous pages and standings already in the cache, pages and API lists that are not, a
signed-in page, a page in Spanish), while the cluster is stopped (``pg_ctl stop -m fast``) for
``--outage`` seconds and started again; a reader of the ``live`` process polls beside them,
except while the cluster is away (the pool's connection then lies idle, broken by the stop).
Each refused write is sent again once the cluster is back.

Targets (a problem each, and exit 1): 0 × 500 and every request answered; every refused write a
503 with ``Retry-After`` (the API's with ``{"error": "unavailable", "detail": ...}``, a page's
the 503 page); every accepted write stored; every cached read 200; a 503 page in Spanish for
the Spanish reader; every answer normal from the moment the cluster answers again (both
servers); the outage logged at most once per server process.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import django
import psycopg

from tests.bench import faults

READERS = 2
# what a reader reads, in turn: (kind, who, path, Accept-Language)
READ_PLAN = (
    ("cached", "anonymous", "/competitions/{a}/", ""),
    ("cached", "anonymous", "/api/competitions/{b}/standings/", ""),
    ("uncached", "anonymous", "/api/competitions/", ""),
    ("cached", "anonymous", "/fixtures/{b_fixture}/", ""),
    ("uncached", "anonymous", "/", ""),
    ("signed_in", "organiser", "/competitions/{b}/", ""),
    ("cached", "anonymous", "/competitions/{b}/", ""),
    ("spanish", "anonymous", "/competitions/", "es"),
    ("cached", "anonymous", "/api/competitions/{a}/standings/", ""),
    ("uncached", "anonymous", "/clubs/", ""),
)


def postgres_bin() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``: ``PG_BIN``, else Debian's newest
    ``/usr/lib/postgresql/<version>/bin``, else the ``PATH``'s."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    if shutil.which("initdb"):
        return Path(shutil.which("initdb")).parent
    raise RuntimeError("no PostgreSQL server binaries (initdb, pg_ctl): set PG_BIN")


class Cluster:
    """A throwaway PostgreSQL cluster: its data, socket and log in ``folder``, on ``port``."""

    def __init__(self, folder: Path, port: int):
        if port == 5432:
            raise ValueError("the outage's cluster never runs on 5432")
        self.folder, self.port, self.bin = folder, port, postgres_bin()
        self.data, self.log = folder / "data", folder / "postgres.log"
        # initdb refuses to run as root: the cluster is then the postgres user's
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            account = pwd.getpwnam("postgres")
            os.chown(folder, account.pw_uid, account.pw_gid)

    def _run(self, *argv: str, timeout: float = 120) -> None:
        done = subprocess.run([*self.as_user, *argv], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}\n{done.stdout}{done.stderr}")

    def init(self) -> Cluster:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        return self

    def start(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o",
                  f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    @property
    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, name: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"


@dataclass
class Sent:
    """One request of the run: what it was, when it left and came back, what came back."""

    kind: str
    path: str
    reply: faults.Reply
    sent: float
    done: float
    fixture: int | None = None
    goals: tuple[int, int] | None = None
    via: str = ""


def accepted(sent: Sent) -> bool:
    return sent.reply.status == (200 if sent.via == "api" else 302)


def well_refused(sent: Sent) -> bool:
    """A 503 with ``Retry-After`` and the body of its kind (the JSON, or the page)."""
    reply = sent.reply
    if reply.status != 503 or not reply.headers.get("retry-after", "").isdigit():
        return False
    if sent.path.startswith("/api/"):
        body = reply.json()
        return body.get("error") == "unavailable" and bool(body.get("detail"))
    return reply.headers.get("content-type", "").startswith("text/html") and b'class="auth-box' in reply.body


def scenario(cluster: Cluster, *, log_dir: Path, outage_s: float, recordings: int, reads: int, before_s: float,
             after_s: float, stop_mode: str) -> dict[str, Any]:
    """The run, once Django is set up on ``cluster``'s database (``main``)."""
    # Django's modules, once it is set up on the cluster (as in tests.bench.faults)
    from django.db import connections

    from leagues.models import Fixture, Result

    problems: list[str] = []
    organiser = faults.make_user("outage-organiser", superuser=True)
    league = faults.make_competition("outage-a", 11)  # 55 fixtures (and 11 byes): one per recording
    other = faults.make_competition("outage-b", 4)
    queue = list(league.fixtures.exclude(status=Fixture.Status.BYE).order_by("round__number", "position")
                 .values_list("pk", flat=True))[:recordings]
    names = {"a": league.slug, "b": other.slug, "b_fixture": other.fixtures.order_by("pk").first().pk}
    connections.close_all()  # this process says nothing to the cluster until it is back

    redis = faults.RedisServer(log_dir).start()
    env = faults.service_env(database_url=os.environ["DATABASE_URL"], redis_url=redis.url)
    procs: list[faults.Proc] = [redis]
    try:
        web, base = faults.web(env, log_dir)
        procs.append(web)
        live_port = faults.free_port()
        live = faults.Proc("live", [sys.executable, "-m", "gunicorn", "config.asgi:application", "-k",
                                    "uvicorn_worker.UvicornWorker", "--workers", "1", "--bind",
                                    f"{faults.HOST}:{live_port}", "--log-level", "warning"],
                           env={**env, "DB_POOL": "4"}, log_dir=log_dir).start()
        procs.append(live)
        live_base = f"http://{faults.HOST}:{live_port}"
        faults.wait_http(live, live_base)
        api = faults.Client(base, faults.api_token(base, organiser.username, faults.PASSWORD))
        writer, reader = faults.Client(base), faults.Client(base)
        for client in (writer, reader):
            client.login(organiser.username, faults.PASSWORD)
        clients = {"organiser": reader, "anonymous": faults.Client(base)}
        plan = [READ_PLAN[i % len(READ_PLAN)] for i in range(reads)]
        for _kind, who, path, language in READ_PLAN:  # what is cached is in the cache
            clients[who].request("GET", path.format(**names), headers={"Accept-Language": language or "en"})

        log: list[Sent] = []
        lock = threading.Lock()

        def send(kind, client, method, path, **kwargs) -> Sent:
            start = time.monotonic()
            reply = client.request(method, path, **kwargs)
            sent = Sent(kind, path, reply, start, time.monotonic())
            with lock:
                log.append(sent)
            return sent

        span = before_s + outage_s + after_s
        t0 = time.monotonic()
        marks: dict[str, float] = {}

        def outage() -> None:
            time.sleep(before_s)
            marks["stopping"] = time.monotonic()
            cluster.stop(stop_mode)
            marks["stopped"] = time.monotonic()
            time.sleep(max(0.0, outage_s - (marks["stopped"] - marks["stopping"])))
            marks["starting"] = time.monotonic()
            cluster.start()
            marks["back"] = time.monotonic()

        def record(i: int, fixture: int, kind: str = "write") -> Sent:
            goals = (i % 5, (i * 3) % 4)
            if i % 2 == 0:
                sent = send(kind, api, "POST", f"/api/fixtures/{fixture}/result/",
                            json_body={"home_goals": goals[0], "away_goals": goals[1]})
                sent.via = "api"
            else:
                sent = send(kind, writer, "POST", f"/manage/fixtures/{fixture}/result/",
                            form={"outcome": "played", "home_goals": goals[0], "away_goals": goals[1]})
                sent.via = "page"
            sent.fixture, sent.goals = fixture, goals
            return sent

        def write_all() -> None:
            for i, fixture in enumerate(queue):
                time.sleep(max(0.0, t0 + i * span / len(queue) - time.monotonic()))
                record(i, fixture)

        def read_all(first: int) -> None:
            for j in range(first, len(plan), READERS):
                time.sleep(max(0.0, t0 + j * span / len(plan) - time.monotonic()))
                kind, who, path, language = plan[j]
                send(kind, clients[who], "GET", path.format(**names), headers={"Accept-Language": language or "en"})

        def poll_live(stop: threading.Event) -> None:
            # silent while the cluster is away, so that the pool's connection lies idle, broken by
            # the stop: the first read after the restart shows whether the pool reuses it
            client = faults.Client(live_base, timeout=30)
            while not stop.is_set():
                if "stopping" not in marks or "back" in marks:
                    send("live", client, "GET", "/api/competitions/")
                time.sleep(0.5)

        done_polling = threading.Event()
        threads = [threading.Thread(target=outage), threading.Thread(target=write_all),
                   *(threading.Thread(target=read_all, args=(k,)) for k in range(READERS)),
                   threading.Thread(target=poll_live, args=(done_polling,))]
        for thread in threads:
            thread.start()
        for thread in threads[:-1]:
            thread.join(span + 300)
        time.sleep(1.0)  # the live reader's answers after the cluster is back
        done_polling.set()
        threads[-1].join(60)
        if "back" not in marks:
            raise RuntimeError(f"the cluster was not started again: {marks}")

        # every refused write sent again, as a client that reads Retry-After would
        writes = [s for s in log if s.kind == "write"]
        index = {fixture: i for i, fixture in enumerate(queue)}
        retries = [record(index[s.fixture], s.fixture, "retry") for s in writes if not accepted(s)]
        figures, more = judge(log, writes, retries, marks, web, live)
        problems += more
        connections.close_all()
        stored = {r.fixture_id: (r.table_home_goals, r.table_away_goals) for r in Result.objects.filter(
            fixture__competition=league)}
        lost = [s.fixture for s in writes + retries if accepted(s) and stored.get(s.fixture) != s.goals]
        figures["accepted_writes_stored"] = sum(accepted(s) for s in writes + retries) - len(lost)
        figures["results_stored"] = len(stored)
        if lost:
            problems.append(f"accepted writes not stored as sent: fixtures {lost[:10]}")
        figures["outage"] = {"stop_s": round(marks["stopped"] - marks["stopping"], 2),
                             "down_s": round(marks["back"] - marks["stopped"], 2),
                             "start_s": round(marks["back"] - marks["starting"], 2), "mode": stop_mode,
                             "port": cluster.port}
        problems += faults.server_log_problems(web) + faults.server_log_problems(live)
    finally:
        for proc in reversed(procs):
            proc.stop()
    return {"figures": figures, "problems": problems}


def judge(log: list[Sent], writes: list[Sent], retries: list[Sent], marks: dict[str, float],
          web: faults.Proc, live: faults.Proc) -> tuple[dict[str, Any], list[str]]:
    """The figures of the run and the targets it missed."""
    problems: list[str] = []
    back = marks["back"]
    reads = [s for s in log if s.kind not in ("write", "retry", "live")]
    live_reads = [s for s in log if s.kind == "live"]

    def statuses(items: list[Sent]) -> dict[str, int]:
        return dict(sorted(Counter(str(s.reply.status) for s in items).items()))

    failures = []
    for sent in log + retries:
        if (sent.reply.status >= 500 and sent.reply.status != 503) or sent.reply.status == 0:
            failures.append(f"{sent.kind} {sent.path}: {sent.reply.status} {sent.reply.body[:200]!r}")
        elif sent.reply.status == 503 and not well_refused(sent):
            failures.append(f"{sent.kind} {sent.path}: a 503 without Retry-After or its body: "
                            f"{sent.reply.headers} {sent.reply.body[:200]!r}")
    if failures:
        problems += [f"{len(failures)} answers 5xx (not 503), unanswered or a 503 without its parts; the first:",
                     *failures[:10]]
    refused = [s for s in writes if s.reply.status == 503]
    odd = [s for s in writes if not accepted(s) and s.reply.status != 503]
    if odd:
        problems.append(f"{len(odd)} writes answered neither as accepted nor 503: "
                        f"{[(s.path, s.reply.status, s.reply.body[:300]) for s in odd][:3]}")
    not_cached = [s for s in reads if s.kind == "cached" and s.reply.status != 200]
    if not_cached:
        problems.append(f"{len(not_cached)} cached reads not 200: {[(s.path, s.reply.status) for s in not_cached][:5]}")
    spanish = [s for s in reads if s.kind == "spanish" and s.reply.status == 503]
    if any(b'<html lang="es">' not in s.reply.body for s in spanish):
        problems.append("a 503 page for a Spanish reader is not in Spanish")
    after = [s for s in log if s.sent >= back and s.kind != "retry"]
    abnormal = [s for s in after + retries if s.reply.status not in (200, 302)]
    if abnormal:
        problems.append(f"{len(abnormal)} answers not normal after the cluster was back: "
                        f"{[(s.kind, s.path, s.reply.status, round(s.sent - back, 2)) for s in abnormal][:5]}")
    retried_yet_stored = [s for s in retries if s.reply.status == 400]
    web_log, live_log = web.text(), live.text()
    figures = {
        "writes": {"sent": len(writes), "accepted": sum(accepted(s) for s in writes), "refused_503": len(refused),
                   "answered_500": sum(s.reply.status == 500 for s in writes), "statuses": statuses(writes)},
        "retried_after_back": {"sent": len(retries), "accepted": sum(accepted(s) for s in retries),
                               "already_stored": len(retried_yet_stored)},
        "reads": {"sent": len(reads), "200": sum(s.reply.status == 200 for s in reads),
                  "503": sum(s.reply.status == 503 for s in reads),
                  "500": sum(s.reply.status == 500 for s in reads),
                  "by_kind": {kind: statuses([s for s in reads if s.kind == kind])
                              for kind in dict.fromkeys(s.kind for s in reads)}},
        "during_outage": {"writes": statuses([s for s in writes if marks["stopped"] <= s.sent < back]),
                          "reads": statuses([s for s in reads if marks["stopped"] <= s.sent < back])},
        "after_back": {"answers": len(after) + len(retries), "not_normal": len(abnormal)},
        "live_pooled": {"reads": statuses(live_reads),
                        "slowest_ms": round(max((s.reply.ms for s in live_reads), default=0)),
                        "after_back": statuses([s for s in live_reads if s.sent >= back])},
        "slowest_503_ms": round(max((s.reply.ms for s in log if s.kind != "live" and s.reply.status == 503),
                                    default=0)),
        "logged": {"web_outages": web_log.count("the database cannot be reached"),
                   "web_back": web_log.count("the database is back"),
                   "live_outages": live_log.count("the database cannot be reached"),
                   "live_back": live_log.count("the database is back")},
    }
    if figures["logged"]["web_outages"] > 2 or figures["logged"]["live_outages"] > 1:
        problems.append(f"the outage logged more than once per process: {figures['logged']}")
    return figures, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage", type=float, default=10.0, help="seconds the cluster is stopped")
    parser.add_argument("--before", type=float, default=3.0, help="seconds of load before it is stopped")
    parser.add_argument("--after", type=float, default=5.0, help="seconds of load after it is started")
    parser.add_argument("--recordings", type=int, default=50)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--stop-mode", choices=("fast", "immediate"), default="fast")
    parser.add_argument("--log-dir", type=Path, help="where the processes' logs go (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = parser.parse_args(argv)
    if not 1 <= args.recordings <= 55:
        parser.error("--recordings: 1 to 55 (the fixtures of an 11-entrant league)")
    for tool in ("redis-server",):
        if shutil.which(tool) is None:
            print(f"database_outage: {tool} is not installed", file=sys.stderr)
            return 2
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="botonera-pg-outage-logs-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="botonera-pg-outage-"))
    cluster = Cluster(folder, faults.free_port())
    out: dict[str, Any] = {"figures": {}, "problems": []}
    try:
        cluster.init().start()
        with psycopg.connect(cluster.url("postgres"), autocommit=True, connect_timeout=10) as conn:
            conn.execute("CREATE DATABASE botonera")
        os.environ["DATABASE_URL"] = cluster.url("botonera")
        os.environ.pop("REDIS_URL", None)  # this process's own tasks (the set-up's) run eagerly
        os.environ.setdefault("DEBUG", "1")
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        django.setup()
        from django.core.management import call_command  # once Django is set up on the cluster

        call_command("migrate", "--noinput", verbosity=0)
        out = scenario(cluster, log_dir=log_dir, outage_s=args.outage, recordings=args.recordings, reads=args.reads,
                       before_s=args.before, after_s=args.after, stop_mode=args.stop_mode)
    except Exception as exc:  # noqa: BLE001 - a run that could not be made is a problem of the report
        out["problems"].append(f"{type(exc).__name__}: {exc}")
    finally:
        if cluster.running:
            try:
                cluster.stop("immediate")
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                out["problems"].append(f"the cluster could not be stopped: {exc}")
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out["figures"].items():
            print(f"{key}: {json.dumps(value) if isinstance(value, dict) else value}")
        for problem in out["problems"]:
            print(f"PROBLEM {problem}")
    print(f"database_outage: {len(out['problems'])} problem(s); logs in {log_dir}", file=sys.stderr)
    return 1 if out["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
