"""The socket flood (``tests.bench.socketflood``), small: the Procfile's ``live`` with one worker,
150 sockets from one address and 10 watchers from their own; the script's own checks pass and
its figures show the cap (``python -m tests.bench.socketflood`` measures the target)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.integration
@pytest.mark.slow
def test_a_small_flood_is_capped_and_the_watchers_get_every_flick(services):
    import psycopg
    from django.conf import settings
    from psycopg import sql

    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    server = f"postgresql://{db.get('USER') or 'postgres'}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    name = f"{db['NAME']}_socketflood"  # its own scratch database, named after this run's
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench.socketflood", "--database-url", f"{server}/{name}",
         "--redis-url", settings.REDIS_URL, "--live-concurrency", "1", "--flood", "150", "--watchers", "10",
         "--flicks", "3", "--flicks-after", "2", "--flick-every", "0.5", "--stall", "2", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["problems"] == []
    assert figures["flood"]["open_max"] == 100 and figures["flood"]["refused_429"] > 0  # the default cap
    watchers = figures["watchers"]
    assert watchers["opened"] == 10 and watchers["flicks"] == 5 and watchers["deliveries"] == 50
    assert figures["live"]["replaced"] == 0
