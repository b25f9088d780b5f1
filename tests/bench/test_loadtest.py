"""The load test of online play (``tests.bench.loadtest``): its check of the log against what the
clients saw, and a small run through gunicorn on the real PostgreSQL."""
from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest

from matches.models import Match
from matches.services import online
from tests.bench import loadtest
from tests.conftest import ROOT
from tests.matches.conftest import T0, make_league, setup_match, users_of


@pytest.mark.django_db
def test_verify_finds_a_lost_and_a_doubled_action(stub_referee):
    competition = make_league(2, slug="loadtest-verify")
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, T0)
    online.check_in(match_id=match.pk, user=home, now=T0)
    online.check_in(match_id=match.pk, user=away, now=T0)
    accepted = {}
    for i in range(4):
        match.refresh_from_db()
        user = home if match.state["to_move"] == "home" else away
        answer = online.submit_action(
            match_id=match.pk, user=user, seq=match.seq + 1, now=T0 + timedelta(seconds=2 + i), idempotency_key=f"k{i}",
            action_json={"type": "flick", "piece": "5", "angle_deg": 0.0, "speed_mm_s": 500.0})
        assert answer.status_code == 201
        accepted[answer.data["seq"]] = answer.data["state_hash"]
    match = Match.objects.get(pk=match.pk)
    plan = loadtest.Planned(match_id=match.pk, tokens={}, rule_set=match.rule_set, params=online.params_of(match))

    problems, totals = loadtest.verify([plan], {match.pk: loadtest.Played(accepted=dict(accepted))})
    assert problems == []
    assert totals == {"log_rows": 4, "ticks": 0, "replayed_matches": 1}

    lost = {seq: h for seq, h in accepted.items() if seq != 3}
    problems, _ = loadtest.verify([plan], {match.pk: loadtest.Played(accepted=lost)})
    assert any("not seen (doubled?) [3]" in p for p in problems)

    phantom = {**accepted, 5: "0" * 64}
    problems, _ = loadtest.verify([plan], {match.pk: loadtest.Played(accepted=phantom)})
    assert any("lost [5]" in p for p in problems)


@pytest.mark.integration
@pytest.mark.slow
def test_concurrent_matches_through_gunicorn_lose_and_double_nothing(services):
    """5 matches x 10 actions through gunicorn, with many deliberate retries, races, stale and
    out-of-turn submissions; the script checks the database and the replay itself."""
    import psycopg
    from django.conf import settings
    from psycopg import sql

    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    server = f"postgresql://{db.get('USER') or 'postgres'}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    # its own scratch database, made afresh: named after this run's test database, so that runs of
    # other checkouts on the same server never share a schema
    name = f"{db['NAME']}_loadtest"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    url = f"{server}/{name}"
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench.loadtest", "--matches", "5", "--actions", "10", "--json",
         "--database-url", url, "--workers", "2", "--threads", "4", "--retry", "0.3", "--race", "0.2",
         "--stale", "0.3", "--out-of-turn", "0.2", "--request-timeout", "20", "--time-limit", "60"],
        cwd=ROOT, capture_output=True, text=True, timeout=150,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0, figures["error_list"]
    assert figures["matches"] == 5 and figures["actions"] == 50
    assert figures["log_rows"] == 50 and figures["ticks"] == 0 and figures["replayed_matches"] == 5
    for kind in ("retried", "raced", "stale_409", "out_of_turn_403"):
        assert figures[kind] > 0, kind


class _OneRequestPerConnection(http.server.BaseHTTPRequestHandler):
    """Answers one request, then closes the connection without saying so (as a server does
    with a keep-alive connection that idled past its timeout)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (http.server's naming)
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args):
        pass


def test_a_request_on_a_connection_the_server_closed_goes_again_on_a_new_one():
    server = http.server.ThreadingHTTPServer((loadtest.HOST, 0), _OneRequestPerConnection)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        stats = loadtest.Stats()
        api = loadtest.Api(server.server_address[1], "t", timeout=5, stats=stats, deadline=time.monotonic() + 60)
        for _ in range(3):
            time.sleep(0.05)  # the server has closed the previous connection by now
            status, body, _ = api.request("GET", "/ping/")
            assert (status, body) == (200, {"ok": True})
        assert stats.counts["reconnected"] == 2 and stats.counts["requests"] == 3 and stats.errors == []
    finally:
        server.shutdown()
        server.server_close()
