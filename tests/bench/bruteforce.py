"""Brute force against a real server (issue 15's figure; a measure, not a test).

``python -m tests.bench.bruteforce [--database-url URL] [--guessers 16] [--attempts 25] [--spread] [--json]``

Target: an account is locked after at most 10 failures, whatever the number of parallel
guessers, and other users' reads are unaffected: p95 under 0.5 s while 16 guessers guess.
``--spread``: each guesser from an address of its own (``--guessers 60 --attempts 4``: one
account guessed from 60 addresses, 4 guesses each, under every pair's and address's limit);
target: at most ``LOGIN_FAILURE_LIMIT_PER_ACCOUNT`` (50) passwords checked, the owner told once,
and the owner's own address (signed in from before the attack) still signs in.

What it does, all on loopback:

1. **The database** (``--database-url``, default the load test's scratch
   ``postgresql://postgres@127.0.0.1:5432/botonera_load``; never ``DATABASE_URL``): created
   when missing, migrated; a victim account ``bf-victim`` (with a real PBKDF2 password, as in
   production) and a few competitions to read; earlier lockouts of the run's addresses cleared.
2. ``collectstatic`` (the pages need its manifest with ``DEBUG=0``), then **gunicorn** as in
   production (``DEBUG=0``, ``--workers`` x ``--threads`` gthread), behind one trusted proxy
   (``TRUSTED_PROXY_COUNT=1``): each client says its address in ``X-Forwarded-For``, so the
   guessers come from 203.0.113.7 and the victim and the readers from other addresses.
3. **Readers** (``--readers``) read ``/api/competitions/`` and ``/competitions/`` in a loop for the
   whole run; their latencies are kept for a quiet baseline (``--baseline`` s) and for the attack.
4. **The attack**: ``--guessers`` threads at once, each ``--attempts`` wrong passwords for the
   victim, in turn on ``/accounts/login/`` (with its CSRF token), ``/admin/login/`` and
   ``POST /api/auth/token/``. The guesses whose password the server checked are counted from its
   database (the pair's failures: a refused guess writes nothing); a refused guess is a 429 (and
   so is a checked one that ended the count: its answer says locked, not wrong).
5. **After**: the right password from the guessers' address (``--spread``: an address no one
   used; must be refused: 429) and from the victim's own address (must sign in: 200 with a token).

It prints ``failures_checked`` (the guesses whose password was checked: at most 10 is the
target), ``answered_wrong_password`` (200 with the form's error, or 400), ``refused_429``, ``errors_5xx``, the readers' p50/p95/max in ms, quiet and under attack,
and the two answers after; ``--json``: one JSON object. Exits 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from tests.bench.loadtest import HOST, ROOT, Server, ensure_database, percentile, setup_django

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_load"
VICTIM, PASSWORD = "bf-victim", "the-Right-password-7"
ATTACKER, VICTIM_ADDRESS, READER = "203.0.113.7", "198.51.100.20", "198.51.100.30"
SPREAD_PREFIX, UNUSED_ADDRESS = "192.0.2.", "192.0.2.254"  # --spread: guesser n is 192.0.2.(n + 1)
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
TARGET_FAILURES, TARGET_P95_MS = 10, 500.0


class Client:
    """One keep-alive connection, with its cookies, speaking as ``address``."""

    def __init__(self, port: int, address: str):
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)
        self.address = address
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: str | None = None, content_type: str | None = None):
        headers = {"X-Forwarded-For": self.address, "Host": HOST}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if content_type:
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.conn.close()  # a keep-alive connection the server closed: once more
                if attempt == 2:
                    raise
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data.decode("utf-8", "replace")

    def form_login(self, path: str, username: str, password: str) -> int:
        status, page = self.request("GET", path)
        match = CSRF_FIELD.search(page)
        token = match.group(1) if match else ""
        body = urlencode({"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/"})
        status, _ = self.request("POST", path, body, "application/x-www-form-urlencoded")
        return status

    def token(self, username: str, password: str) -> int:
        status, _ = self.request("POST", "/api/auth/token/", json.dumps({"username": username, "password": password}),
                                 "application/json")
        return status


def prepare(url: str) -> None:
    from axes.models import AccessAttempt
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from leagues.models import AccountLock, Competition, SignInFailure

    call_command("migrate", "--noinput", verbosity=0)
    user = get_user_model().objects.filter(username=VICTIM).first() or get_user_model()(username=VICTIM)
    user.set_password(PASSWORD)  # the production hasher: a guess costs what it costs there
    user.save()
    for i in range(5):
        Competition.objects.get_or_create(slug=f"bf-read-{i}", defaults={"name": f"Read me {i}"})
    AccessAttempt.objects.filter(ip_address__in=[ATTACKER, VICTIM_ADDRESS, READER]).delete()
    AccessAttempt.objects.filter(ip_address__startswith=SPREAD_PREFIX).delete()
    SignInFailure.objects.filter(username=VICTIM).delete()
    AccountLock.objects.filter(username=VICTIM).delete()


def failures_checked(spread: bool) -> int:
    """The passwords the server checked: the pair's failures, or (``--spread``) the account's."""
    from axes.models import AccessAttempt
    from django.db.models import Sum

    from leagues.models import SignInFailure

    if spread:
        return SignInFailure.objects.filter(username=VICTIM).count()
    pair = AccessAttempt.objects.filter(username=VICTIM, ip_address=ATTACKER)
    return pair.aggregate(total=Sum("failures_since_start"))["total"] or 0


def owner_told() -> int:
    """The notices of the victim's account lock."""
    from leagues.notifications.models import Kind, Notification

    return Notification.objects.filter(user__username=VICTIM, kind=Kind.ACCOUNT_LOCKED).count()


def collectstatic(url: str) -> None:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "0", "SECRET_KEY": "collectstatic-only-" + "x" * 40}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                   check=True)


def run(args) -> dict:
    ensure_database(args.database_url)
    setup_django(args.database_url)
    prepare(args.database_url)
    collectstatic(args.database_url)
    os.environ["TRUSTED_PROXY_COUNT"] = "1"  # the server reads the clients' X-Forwarded-For
    server = Server(args.database_url, workers=args.workers, threads=args.threads,
                    log_dir=Path(tempfile.mkdtemp(prefix="bruteforce-")))
    quiet: list[float] = []
    attacked: list[float] = []
    phase = {"name": "quiet", "stop": False}
    statuses: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()

    def reader():
        client = Client(server.port, READER)
        paths = ["/api/competitions/", "/competitions/"]
        i = 0
        while not phase["stop"]:
            start = time.perf_counter()
            status, _ = client.request("GET", paths[i % 2])
            ms = (time.perf_counter() - start) * 1000
            i += 1
            with lock:
                (quiet if phase["name"] == "quiet" else attacked if phase["name"] == "attack" else []).append(ms)
                if status >= 500:
                    errors.append(f"read {status}")

    def guesser(n: int):
        client = Client(server.port, f"{SPREAD_PREFIX}{n + 1}" if args.spread else ATTACKER)
        for i in range(args.attempts):
            kind = (n + i) % 3
            password = f"guess-{n}-{i}"
            try:
                if kind == 0:
                    status = client.form_login("/accounts/login/", VICTIM, password)
                elif kind == 1:
                    status = client.form_login("/admin/login/", VICTIM, password)
                else:
                    status = client.token(VICTIM, password)
            except OSError as exc:
                with lock:
                    errors.append(f"guess: {exc}")
                continue
            with lock:
                statuses.append(status)

    server.start()
    try:
        known_first = Client(server.port, VICTIM_ADDRESS).token(VICTIM, PASSWORD)  # the owner's own address
        told_before = owner_told()
        readers = [threading.Thread(target=reader, daemon=True) for _ in range(args.readers)]
        for t in readers:
            t.start()
        time.sleep(args.baseline)
        phase["name"] = "attack"
        started = time.perf_counter()
        guessers = [threading.Thread(target=guesser, args=(n,)) for n in range(args.guessers)]
        for t in guessers:
            t.start()
        for t in guessers:
            t.join(args.time_limit)
        attack_s = time.perf_counter() - started
        phase["name"] = "after"
        checked = failures_checked(args.spread)
        after_attacker = Client(server.port, UNUSED_ADDRESS if args.spread else ATTACKER).token(VICTIM, PASSWORD)
        after_victim = Client(server.port, VICTIM_ADDRESS).token(VICTIM, PASSWORD)
        phase["stop"] = True
        for t in readers:
            t.join(30)
    finally:
        server.stop()

    out = {
        "guessers": args.guessers, "guesses": len(statuses), "attack_s": round(attack_s, 1),
        "failures_checked": checked, "answered_wrong_password": sum(1 for s in statuses if s in (200, 400)),
        "refused_429": statuses.count(429),
        "errors_5xx": sum(1 for s in statuses if s >= 500) + len(errors),
        "other_statuses": sorted({s for s in statuses if s not in (200, 400, 429)}),
        "right_password_from_guessers_address": after_attacker,
        "right_password_from_victims_address": after_victim,
        "owner_told": owner_told() - told_before,
    }
    for name, values in (("quiet", quiet), ("attack", attacked)):
        out[f"read_{name}_n"] = len(values)
        out[f"read_{name}_p50_ms"] = round(statistics.median(values), 1) if values else None
        out[f"read_{name}_p95_ms"] = percentile(values, 0.95)
        out[f"read_{name}_max_ms"] = round(max(values), 1) if values else None
    target = settings_limit() if args.spread else TARGET_FAILURES
    out["ok"] = (
        checked <= target and out["errors_5xx"] == 0 and after_attacker == 429 and after_victim == 200
        and known_first == 200 and (out["owner_told"] == 1 or not args.spread)
        and out["read_attack_p95_ms"] is not None and out["read_attack_p95_ms"] < TARGET_P95_MS
    )
    return out


def settings_limit() -> int:
    from django.conf import settings

    return settings.LOGIN_FAILURE_LIMIT_PER_ACCOUNT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--guessers", type=int, default=16)
    parser.add_argument("--attempts", type=int, default=25, help="wrong passwords per guesser")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds of quiet reads first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--spread", action="store_true", help="each guesser from an address of its own")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.spread and args.guessers > 253:
        parser.error("--spread: at most 253 guessers (one address each)")
    out = run(args)
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:40} {value}")
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
