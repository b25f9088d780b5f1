"""The Procfile's ``web`` is the set-up the benchmarks measure: gunicorn's threaded workers, and
in production (``DEBUG`` off) database connections kept between requests and checked before use."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.bench import procfile

ROOT = Path(__file__).resolve().parents[1]


def test_the_web_line_runs_threaded_workers():
    line = procfile.expanded("web", {})
    words = line.split()
    assert words[:2] == ["gunicorn", "config.wsgi"]
    assert words[words.index("--worker-class") + 1] == "gthread"
    assert int(words[words.index("--threads") + 1]) > 1
    assert int(words[words.index("--workers") + 1]) >= 1
    given = procfile.expanded("web", {"WEB_CONCURRENCY": "5", "WEB_THREADS": "8", "PORT": "9000"}).split()
    assert given[given.index("--workers") + 1] == "5" and given[given.index("--threads") + 1] == "8"
    assert "0.0.0.0:9000" in given


def _database_settings(**env) -> dict:
    """``DATABASES["default"]`` as a process started with ``env`` reads it."""
    code = ("import django, json; django.setup(); from django.conf import settings; "
            "d = settings.DATABASES['default']; print(json.dumps([d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS']]))")
    base = {k: v for k, v in os.environ.items() if k not in ("DB_CONN_MAX_AGE", "DB_POOL", "DEBUG")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env={
        **base, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "k9-" + "x7Yq2Lm4Pz" * 6, **env})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_production_keeps_its_database_connections_and_checks_them():
    assert _database_settings(DEBUG="0") == [300, True]
    assert _database_settings(DEBUG="0", DB_CONN_MAX_AGE="0") == [0, True]  # a choice still
    assert _database_settings(DEBUG="1") == [0, True]  # development: a connection per request
