"""Durability outside the fault tests' processes: a write that cannot wait for another is a 409,
and a task sent while the broker is down fails fast (issue 14)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.bench import faults

# --- a write that could not wait: 409, never 500; a broker that is down: fails fast ----------------


@pytest.mark.django_db
@pytest.mark.parametrize("message", ["database is locked", "deadlock detected"])
def test_a_write_that_meets_another_and_cannot_wait_is_a_409_not_a_500(client, monkeypatch, message):
    """A conflict no service retried (here a move's) is answered 409 busy, for the API and pages."""
    from django.contrib.auth import get_user_model
    from django.db import OperationalError

    from matches.services import online

    def busy(**kwargs):
        raise OperationalError(message)

    monkeypatch.setattr(online, "submit_action", busy)
    client.force_login(get_user_model().objects.create_user("busy-player"))
    response = client.post("/api/matches/1/actions/", {"seq": 1, "action": {}}, content_type="application/json")
    assert response.status_code == 409 and response.json()["error"] == "busy"


def test_a_task_sent_while_the_broker_is_down_fails_fast_in_one_log_line(tmp_path):
    """With Redis unreachable, sending a task returns False within seconds (it once hung 19 s
    reconnecting to the result backend) and logs one line, no traceback: the sweeper sends it later."""
    script = (
        "import logging, time, django; django.setup(); logging.basicConfig(level=logging.WARNING)\n"
        "from config.celery import app\n"
        "task = app.tasks['leagues.tasks.recompute_standings']\n"
        "start = time.monotonic(); sent = task.enqueue(competition_id=1)\n"
        "print('RESULT', sent, round(time.monotonic() - start, 2))\n"
    )
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{faults.free_port()}/0", "DEBUG": "1",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run([sys.executable, "-c", script], cwd=faults.ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    sent, seconds = out.stdout.split("RESULT ")[1].split()
    assert sent == "False" and float(seconds) < 3, out.stdout + out.stderr
    assert "could not enqueue leagues.tasks.recompute_standings" in out.stderr
    assert "Traceback" not in out.stderr
