"""The Procfile's ``live`` line, run as a process manager runs it (``tests.bench.procfile``): a
worker whose event loop sends no heartbeat for longer than gunicorn's timeout is not killed,
and its watchers keep watching."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time

import pytest
from django.db import connection

from tests.bench import procfile
from tests.conftest import _worker_env
from tests.matches.test_watching import live_now, move


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_live(tmp_path, **env) -> tuple[subprocess.Popen, int]:
    """The Procfile's ``live`` on the test database, at a free port (``env``: more of its
    environment), once its workers answer; returns gunicorn's master and the port."""
    port = _free_port()
    log = tmp_path / f"live-{port}.log"
    proc = procfile.start("live", log=log, env={
        **_worker_env(connection.settings_dict["NAME"]), "DEBUG": "1", "LIVE_PORT": str(port),
        "LOG_LEVEL": "WARNING", **env})
    try:
        procfile.wait_answering(proc, port, log)
    except RuntimeError as exc:
        stop_live(proc)
        raise AssertionError(str(exc)) from None
    return proc, port


def stop_live(proc: subprocess.Popen) -> None:
    for worker in procfile.children(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker, signal.SIGCONT)  # a worker a failed test left stopped
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_live_worker_silent_past_its_heartbeat_is_not_killed_and_its_watchers_stay(services, stub_referee,
                                                                                     tmp_path):
    """The environment asks gunicorn for a 2 s heartbeat (``GUNICORN_CMD_ARGS``, which the
    line's own flags override); the worker is stopped 6 s (``SIGSTOP``: to its master, a loop
    busy that long, no heartbeat sent). It keeps its PID, and the watcher connected before the
    stall gets the next flick on the same socket."""
    from websockets.sync.client import connect

    match, home, away = live_now("stalled-live")
    proc, port = serve_live(tmp_path, LIVE_CONCURRENCY="1", GUNICORN_CMD_ARGS="--timeout 2")
    try:
        [worker] = procfile.children(proc.pid)
        url = f"ws://127.0.0.1:{port}/ws/matches/{match.pk}/?after={match.seq}"
        with connect(url, origin="http://localhost", open_timeout=10, ping_interval=None) as ws:
            assert json.loads(ws.recv(timeout=10))["match"]["seq"] == match.seq
            os.kill(worker, signal.SIGSTOP)
            time.sleep(6)
            with contextlib.suppress(ProcessLookupError):  # (killed meanwhile: said below)
                os.kill(worker, signal.SIGCONT)
            assert procfile.children(proc.pid) == {worker}, "the stalled worker was killed and replaced"
            seq = move(match.pk, {"home": home, "away": away})
            assert json.loads(ws.recv(timeout=10))["match"]["seq"] == seq
        assert procfile.children(proc.pid) == {worker}
    finally:
        stop_live(proc)
