"""A flood of WebSockets from one address against the Procfile's ``live`` process, while other
watchers follow a match on it (not in ``make bench``; its figures are in tests/bench/README.md).

``python -m tests.bench.socketflood [--flood 3000] [--watchers 200] [--stall 35] [--json]``

Target: 3,000 sockets from one address against a live process with 200 other watchers: the
200 receive every flick, and the live process is never restarted.

What it does, on loopback:

1. **A scratch database** (``--database-url``, created when missing and migrated) with one live
   match (``loadtest.create_matches``), both players checked in.
2. **The Procfile's ``live`` line** (``tests.bench.procfile``: what a deployment runs), at a free
   port, ``DEBUG=0``, ``REDIS_URL`` (``--redis-url``), ``TRUSTED_PROXY_COUNT=1`` (the clients
   speak as through one proxy: ``X-Forwarded-For``), ``LIVE_CONCURRENCY`` as given (default: the
   line's own, a worker per core), ``LIVE_MAX_SOCKETS_PER_ADDRESS`` its default. The workers'
   PIDs are read every 0.2 s from then on.
3. **The watchers**: ``--watchers`` WebSockets from a child process, each from an address of its
   own (``10.1.x.y``), as a browser's (no pings). One that is closed is not opened again: every
   flick it then misses counts.
4. **The flood**: ``--flood`` WebSockets from another child process, all from ``203.0.113.7``,
   opened at once. A socket let in stays open and reads its pushes; one refused tries again
   after ``--retry-every`` s (x 0.5 to 1.5), until the end.
5. **Flicks**: ``--flicks`` moves (one every ``--flick-every`` s), made here through
   ``matches.services.online`` (Redis tells the live process; without Redis its rooms look
   every ``LIVE_POLL_SECONDS``).
6. **A stall**: every live worker stopped ``--stall`` s (``SIGSTOP``: to gunicorn's master a
   loop that busy sends no heartbeat; the default 35 s is past gunicorn's default timeout of 30
   s) with the flood on, then resumed, and ``--flicks-after`` more flicks.

Figures: the flood's attempts, sockets let in (at most the cap per worker), refusals by status,
failed handshakes (``error_``), sockets let in then lost (``dropped_``); each flick's delay from its commit to each watcher having it (p50/p95/max, during the
flood and after the stall), deliveries missing, watchers closed; the workers' PIDs at the start
and every PID seen, and gunicorn's ``WORKER TIMEOUT`` lines. It exits 1 when a watcher misses a
flick or is closed, or a worker is replaced; 2 when the run cannot start. The run's rows are
deleted at the end. The clients hold ``--flood + --watchers`` sockets and the server as many:
the soft limit of open files is raised to what that needs (up to the hard limit; past it the
bench says which ``ulimit -n`` it needs).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

from tests.bench import loadtest, procfile

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_socketflood"
HOST = "127.0.0.1"
FLOOD_ADDRESS = "203.0.113.7"


def raise_file_limit(needed: int) -> int:
    """Raises this process's soft limit of open files (its children inherit it) to ``needed``
    or more; returns it. ``SystemExit`` when the hard limit is lower."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return soft
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit(f"socketflood: {needed} open files needed, the hard limit is {hard}: "
                         f"raise it (ulimit -Hn {needed}) and run again")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return needed


def watcher_address(i: int) -> str:
    return f"10.1.{i // 250}.{i % 250 + 1}"


# --- the clients, each kind in a child process -------------------------------------------------


async def watchers(port: int, match_id: int, after: int, count: int, out: Path) -> None:
    """``count`` watchers of the match, each from its own address; prints ``ready N`` once all
    have the match's state, then records when each first has each seq (wall time) until stdin
    closes, and writes what it saw to ``out``."""
    from websockets.asyncio.client import connect

    seen: dict[int, list[float]] = {}
    errors: Counter[str] = Counter()
    closed: Counter[str] = Counter()
    ready, started = asyncio.Event(), []
    url = f"ws://{HOST}:{port}/ws/matches/{match_id}/?after={after}&frames=1"

    async def one(i: int) -> None:
        last, counted = after, False
        try:
            async with connect(url, origin=f"http://{HOST}:{port}", max_size=None, open_timeout=120,
                               ping_interval=None, additional_headers={"X-Forwarded-For": watcher_address(i)}) as ws:
                async for raw in ws:
                    now = time.time()
                    newest = json.loads(raw)["match"]["seq"]
                    for s in range(last + 1, newest + 1):
                        seen.setdefault(s, []).append(now)
                    last = max(last, newest)
                    if not counted:
                        counted = True
                        started.append(1)
                        if len(started) == count:
                            ready.set()
                closed[str(ws.close_code)] += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - counted: any failure of a watcher is one
            errors[type(exc).__name__] += 1
        if not counted:
            started.append(0)
            if len(started) == count:
                ready.set()

    tasks = [asyncio.create_task(one(i)) for i in range(count)]
    await ready.wait()
    print("ready", sum(started), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the bench closes it
    await asyncio.sleep(0.5)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    out.write_text(json.dumps({"seen": seen, "errors": errors, "closed": closed}))


async def flood(port: int, match_id: int, after: int, count: int, retry_every: float, out: Path) -> None:
    """``count`` sockets from ``FLOOD_ADDRESS`` at once; each let in stays open (reading its
    pushes), each refused tries again after ``retry_every`` s (x 0.5 to 1.5). Prints ``ready``
    once every socket had its first answer, writes the counts to ``out`` when stdin closes."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    counts: Counter[str] = Counter()
    state = {"open": 0, "open_max": 0, "answered": 0}
    ready = asyncio.Event()
    url = f"ws://{HOST}:{port}/ws/matches/{match_id}/?after={after}&frames=0"
    rng = random.Random(7)
    first_wave = time.monotonic()

    def answered(first: bool) -> None:
        if first:
            state["answered"] += 1
            if state["answered"] == count:
                state["first_wave_s"] = round(time.monotonic() - first_wave, 2)
                ready.set()

    async def one() -> None:
        first = True
        while True:
            counts["attempts"] += 1
            inside = False
            try:
                async with connect(url, origin=f"http://{HOST}:{port}", max_size=None, open_timeout=120,
                                   ping_interval=None, additional_headers={"X-Forwarded-For": FLOOD_ADDRESS}) as ws:
                    counts["let_in"] += 1
                    inside = True
                    answered(first)
                    first = False
                    state["open"] += 1
                    state["open_max"] = max(state["open_max"], state["open"])
                    try:
                        async for _raw in ws:
                            pass
                    finally:
                        state["open"] -= 1
                    counts[f"closed_{ws.close_code}"] += 1
            except InvalidStatus as exc:
                counts[f"refused_{exc.response.status_code}"] += 1
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted: the flood goes on
                counts[f"{'dropped' if inside else 'error'}_{type(exc).__name__}"] += 1
            answered(first)
            first = False
            await asyncio.sleep(retry_every * (0.5 + rng.random()))

    tasks = [asyncio.create_task(one()) for _ in range(count)]
    await ready.wait()
    print("ready", state["first_wave_s"], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    out.write_text(json.dumps({**counts, "open_max": state["open_max"], "first_wave_s": state["first_wave_s"]}))


class Child:
    """One of the clients' child processes (``--child watchers|flood``)."""

    def __init__(self, kind: str, *args) -> None:
        self.out = Path(tempfile.mkdtemp(prefix=f"socketflood-{kind}-")) / "out.json"
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.bench.socketflood", "--child", kind,
                                      *map(str, args), str(self.out)], cwd=loadtest.ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ready(self) -> str:
        line = self.proc.stdout.readline()
        if not line.startswith("ready"):
            self.proc.kill()
            raise RuntimeError(f"a client process did not start: {line!r}")
        return line.split()[1]

    def finish(self, timeout: float = 120) -> dict:
        self.proc.stdin.close()
        self.proc.wait(timeout)
        try:
            return json.loads(self.out.read_text())
        finally:
            shutil.rmtree(self.out.parent, ignore_errors=True)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


# --- the server, the match, the flicks ------------------------------------------------------------


class Workers(threading.Thread):
    """Reads the live master's workers every 0.2 s: every PID seen, in order."""

    def __init__(self, master: int) -> None:
        super().__init__(daemon=True)
        self.master, self.seen, self.stop = master, [], threading.Event()

    def now(self) -> set[int]:
        return procfile.children(self.master)

    def run(self) -> None:
        while not self.stop.wait(0.2):
            for pid in sorted(self.now()):
                if pid not in self.seen:
                    self.seen.append(pid)


def start_live(args, log: Path) -> tuple[subprocess.Popen, int, set[int]]:
    port = loadtest.free_port()
    env = {**os.environ, "DATABASE_URL": args.database_url, "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(40),
           "SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": f"{HOST},localhost", "LOG_LEVEL": "WARNING",
           "PYTHONUNBUFFERED": "1", "TRUSTED_PROXY_COUNT": "1", "LIVE_PORT": str(port), "REDIS_URL": args.redis_url}
    for name in ("LIVE_MAX_SOCKETS_PER_ADDRESS", "GUNICORN_CMD_ARGS"):
        env.pop(name, None)  # the defaults, and the line's own flags only
    if args.live_concurrency:
        env["LIVE_CONCURRENCY"] = str(args.live_concurrency)
    proc = procfile.start("live", env=env, log=log)
    procfile.wait_answering(proc, port, log)
    workers, since, deadline = procfile.children(proc.pid), time.monotonic(), time.monotonic() + 60
    while time.monotonic() - since < 2:  # the master has started its workers: none new for 2 s
        time.sleep(0.2)
        if (now := procfile.children(proc.pid)) != workers:
            workers, since = now, time.monotonic()
        if time.monotonic() > deadline:
            raise RuntimeError(f"the live workers did not settle:\n{log.read_text()[-3000:]}")
    return proc, port, workers


def stop_live(proc: subprocess.Popen) -> None:
    for pid in procfile.children(proc.pid):
        with_signal(pid, signal.SIGCONT)
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def with_signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def players(match_id: int) -> dict:
    from leagues.models import Fixture

    fixture = Fixture.objects.select_related("home__player__user", "away__player__user").get(match_id=match_id)
    return {"home": fixture.home.player.user, "away": fixture.away.player.user}


def check_in(match_id: int, users: dict) -> int:
    from matches.models import Match
    from matches.services import online

    for user in users.values():
        online.check_in(match_id=match_id, user=user)
    match = Match.objects.get(pk=match_id)
    if match.status != Match.Status.LIVE:
        raise RuntimeError(f"the match is {match.status} after both check-ins, not live")
    return match.seq


def flicks(plan, users: dict, *, count: int, every: float, accepted: dict[int, float]) -> None:
    """The side to move flicks ``count`` times (the computer player's first choice its referee
    accepts), ``every`` s apart; ``accepted[seq]`` is the wall time each committed."""
    from matches.models import Match
    from matches.services import online
    from matches.services.computer import candidate_actions
    from simulation.rules import make_referee
    from simulation.state import MatchState

    referee = make_referee(plan.rule_set, plan.params)
    for _flick in range(count):
        match = Match.objects.get(pk=plan.match_id)
        side = match.state["to_move"]
        for action in candidate_actions(MatchState.from_json(match.state), side, plan.rule_set, plan.params,
                                        referee=referee, seed=match.seq):
            answer = online.submit_action(match_id=plan.match_id, user=users[side], seq=match.seq + 1,
                                          action_json=action, idempotency_key=uuid.uuid4().hex)
            if answer.status_code == 201:
                accepted[answer.data["seq"]] = time.time()  # committed (the publication follows it)
                break
        else:
            raise RuntimeError(f"no action of {side} accepted at seq {match.seq + 1}")
        time.sleep(every)


# --- the run --------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 3)


def delays(seen: dict[int, list[float]], accepted: dict[int, float]) -> dict:
    got = sorted(t - accepted[s] for s in accepted for t in seen.get(s, []))
    return {"p50_s": pct(got, 0.5), "p95_s": pct(got, 0.95), "max_s": round(got[-1], 3) if got else None}


def run(args) -> dict:
    loadtest.ensure_database(args.database_url)
    loadtest.setup_django(args.database_url)
    loadtest.migrate()
    from django.conf import settings

    settings.REDIS_URL = args.redis_url  # each flick is published there; the tasks stay in process
    run_name = f"flood-{uuid.uuid4().hex[:6]}"
    figures: dict = {"machine": {"cpus": os.cpu_count(), "load_before": round(os.getloadavg()[0], 2)}}
    log = Path(tempfile.mkdtemp(prefix="socketflood-")) / "live.log"
    proc = monitor = crowd = flooders = None
    try:
        plan = loadtest.create_matches(run_name, 1, rule_set="one_touch", turn_seconds=600)[0]
        users = players(plan.match_id)
        seq = check_in(plan.match_id, users)
        proc, port, first = start_live(args, log)
        monitor = Workers(proc.pid)
        monitor.seen.extend(sorted(first))
        monitor.start()
        crowd = Child("watchers", port, plan.match_id, seq, args.watchers)
        opened = int(crowd.ready())
        flooders = Child("flood", port, plan.match_id, seq, args.flood, args.retry_every)
        first_wave_s = float(flooders.ready())
        accepted: dict[int, float] = {}
        flicks(plan, users, count=args.flicks, every=args.flick_every, accepted=accepted)
        during = set(accepted)
        time.sleep(3)  # the last flicks delivered: the stall's delay is not theirs
        stalled = sorted(monitor.now())
        for pid in stalled:
            with_signal(pid, signal.SIGSTOP)
        time.sleep(args.stall)
        for pid in stalled:
            with_signal(pid, signal.SIGCONT)
        time.sleep(2)
        flicks(plan, users, count=args.flicks_after, every=args.flick_every, accepted=accepted)
        time.sleep(3)
        monitor.stop.set()
        last = monitor.now()
        flooded, watched = flooders.finish(), crowd.finish()
    finally:
        if monitor is not None:
            monitor.stop.set()
        for child in (flooders, crowd):
            if child is not None:
                child.kill()
        if proc is not None:
            stop_live(proc)
        if not args.keep:
            loadtest.cleanup(run_name)
    seen = {int(k): v for k, v in watched["seen"].items()}
    after = {s: t for s, t in accepted.items() if s not in during}
    timeouts = log.read_text().count("WORKER TIMEOUT")
    figures["live"] = {
        "workers": len(first), "pids_at_start": sorted(first), "pids_at_end": sorted(last),
        "pids_seen": monitor.seen, "replaced": len(set(monitor.seen) - first), "worker_timeout_lines": timeouts,
        "stalled_s": args.stall, "log": str(log),
    }
    figures["flood"] = {"sockets": args.flood, "first_wave_s": first_wave_s, **flooded}
    figures["watchers"] = {
        "watchers": args.watchers, "opened": opened, "flicks": len(accepted), "flicks_after_stall": len(after),
        "deliveries": sum(len(seen.get(s, [])) for s in accepted),
        "missing": sum(args.watchers - len(seen.get(s, [])) for s in accepted),
        "closed": sum(watched["closed"].values()), "errors": sum(watched["errors"].values()),
        "during_flood": delays(seen, {s: accepted[s] for s in during}), "after_stall": delays(seen, after),
    }
    figures["machine"]["load_after"] = round(os.getloadavg()[0], 2)
    return figures


def problems(figures: dict) -> list[str]:
    out = []
    w, live = figures["watchers"], figures["live"]
    if w["opened"] < w["watchers"]:
        out.append(f"{w['watchers'] - w['opened']} watchers never had the match")
    if w["missing"]:
        out.append(f"{w['missing']} deliveries missing")
    if w["closed"] or w["errors"]:
        out.append(f"{w['closed']} watchers closed, {w['errors']} failed")
    if live["replaced"] or live["worker_timeout_lines"] or sorted(live["pids_at_end"]) != live["pids_at_start"]:
        out.append(f"live workers replaced: {live['pids_at_start']} at the start, {live['pids_seen']} seen, "
                   f"{live['worker_timeout_lines']} WORKER TIMEOUT lines")
    return out


def print_figures(figures: dict) -> None:
    m, live, f, w = figures["machine"], figures["live"], figures["flood"], figures["watchers"]
    print(f"socket flood against the Procfile's live (workers: {live['workers']}; {m['cpus']} cores, load average "
          f"{m['load_before']} before, {m['load_after']} after)")
    answers = {k: v for k, v in f.items() if k.startswith(("refused_", "error_", "closed_", "dropped_"))}
    pending = f.get("attempts", 0) - f.get("let_in", 0) - sum(v for k, v in answers.items()
                                                               if k.startswith(("refused_", "error_")))
    print(f"  flood from {FLOOD_ADDRESS}: {f['sockets']} sockets, {f.get('attempts', 0)} attempts, "
          f"{f.get('let_in', 0)} let in (at most {f['open_max']} open at once), {answers}, {pending} unanswered at "
          f"the end; the first {f['sockets']} answered in {f['first_wave_s']} s")
    d, a = w["during_flood"], w["after_stall"]
    print(f"  {w['watchers']} watchers ({w['opened']} opened): {w['flicks']} flicks, {w['deliveries']} deliveries, "
          f"{w['missing']} missing, {w['closed']} closed, {w['errors']} failed")
    print(f"    a flick reaches a watcher, during the flood: p50 {d['p50_s']} s, p95 {d['p95_s']} s, max {d['max_s']} s;"
          f" after the {live['stalled_s']} s stall: p50 {a['p50_s']} s, p95 {a['p95_s']} s, max {a['max_s']} s")
    print(f"  live workers: {live['pids_at_start']} at the start, {live['pids_at_end']} at the end, "
          f"{live['replaced']} replaced, {live['worker_timeout_lines']} WORKER TIMEOUT lines "
          f"(all stopped {live['stalled_s']} s mid-flood)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("SOCKETFLOOD_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""),
                        help="the live process's Redis (default: REDIS_URL; empty: its rooms look every 0.5 s)")
    parser.add_argument("--flood", type=int, default=3000, help="sockets from the flooding address")
    parser.add_argument("--watchers", type=int, default=200, help="other watchers, each from its own address")
    parser.add_argument("--retry-every", type=float, default=1.0, help="seconds before a refused socket tries again")
    parser.add_argument("--flicks", type=int, default=20, help="flicks during the flood")
    parser.add_argument("--flicks-after", type=int, default=5, help="flicks after the stall")
    parser.add_argument("--flick-every", type=float, default=1.0)
    parser.add_argument("--stall", type=float, default=35.0, help="seconds every live worker is stopped (SIGSTOP)")
    parser.add_argument("--live-concurrency", type=int, default=0, help="LIVE_CONCURRENCY (default: the Procfile's)")
    parser.add_argument("--keep", action="store_true", help="keep the run's rows")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        if kind == "watchers":
            port, match_id, after, count, out = rest
            asyncio.run(watchers(int(port), int(match_id), int(after), int(count), Path(out)))
        else:
            port, match_id, after, count, retry_every, out = rest
            asyncio.run(flood(int(port), int(match_id), int(after), int(count), float(retry_every), Path(out)))
        return 0
    raise_file_limit(args.flood + args.watchers + 1024)
    try:
        figures = run(args)
    except RuntimeError as exc:
        print(f"socketflood: {exc}", file=sys.stderr)
        return 2
    print_figures(figures)
    found = problems(figures)
    for problem in found:
        print(f"  PROBLEM {problem}")
    if args.json:
        print(json.dumps({**figures, "problems": found}))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
