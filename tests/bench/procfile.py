"""The Procfile's own lines, started as a process manager starts them (honcho, foreman, Heroku:
``sh -c`` on the line, in the repository's root, with the environment given), so that the
benches and the fault tests run what a deployment runs, not a copy of it."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def command(name: str) -> str:
    """The command of the Procfile's process type ``name`` (``KeyError`` when there is none)."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        kind, sep, cmd = line.partition(":")
        if sep and kind.strip() == name:
            return cmd.strip()
    raise KeyError(f"the Procfile has no {name!r} process type")


def start(name: str, *, env: dict[str, str], log: Path) -> subprocess.Popen:
    """Starts the Procfile's ``name`` line under ``sh`` with ``env`` (the whole environment),
    its output to ``log``. ``exec env`` makes the line's program (for the ``live`` line:
    gunicorn's master) the started process itself, its leading ``VAR=value`` words set, so the
    returned process's ``pid`` is the program's. The programs are this Python's (its ``bin``
    first on ``PATH``, as an activated virtual environment)."""
    path = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)])
    return subprocess.Popen(["sh", "-c", f"exec env {command(name)}"], cwd=ROOT, env={**env, "PATH": path},
                            stdout=log.open("w"), stderr=subprocess.STDOUT)


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (gunicorn's workers, for its master), from /proc."""
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def wait_answering(proc: subprocess.Popen, port: int, log: Path, *, timeout: float = 60.0) -> None:
    """Returns once ``127.0.0.1:port`` answers HTTP; ``RuntimeError`` (with the log's end) when
    ``proc`` exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[-1]} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
                conn.sendall(b"GET /api/matches/0/ HTTP/1.0\r\nHost: localhost\r\n\r\n")
                if conn.recv(12).startswith(b"HTTP/1."):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"nothing answered on port {port} within {timeout:.0f} s:\n{log.read_text()[-3000:]}")
