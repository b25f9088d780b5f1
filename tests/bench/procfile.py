"""The Procfile's own lines, started as a process manager starts them (honcho, foreman, Heroku:
``sh -c`` on the line, in the repository's root, with the environment given), so that the
benches and the fault tests run what a deployment runs, not a copy of it."""
from __future__ import annotations

import os
import re
import signal
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


def expanded(name: str, env: dict[str, str]) -> str:
    """The Procfile's ``name`` line with its ``${VAR:-default}`` and ``${VAR}`` put in from
    ``env`` as ``sh`` would (an empty or unset ``VAR`` takes the default): what a bench prints of
    the set-up it measured (``start`` leaves the expansion to ``sh`` itself)."""
    def value(found: re.Match) -> str:
        return env.get(found["name"]) or (found["default"] or "")

    return re.sub(r"\$\{(?P<name>\w+)(?::-(?P<default>[^}]*))?\}", value, command(name))


class ServerProcess:
    """A server the benches started (``proc``, its output in ``log``): ``stop()`` ends it
    gracefully (gunicorn's master, its workers with it), ``tail()`` is its log's end."""

    proc: subprocess.Popen | None = None
    log: Path

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)  # graceful: the master stops its workers
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text()[-chars:]
        except OSError:
            return ""



class Served(ServerProcess):
    """The Procfile's ``name`` line serving on loopback at ``port`` (the line's ``PORT`` or
    ``LIVE_PORT``, set in ``env``), as the benches' servers are used: ``start()`` returns once
    it answers; ``stop()`` and ``tail()`` as any ``ServerProcess``."""

    def __init__(self, name: str, *, port: int, env: dict[str, str], log: Path):
        self.name, self.port, self.env, self.log = name, port, env, log
        self.proc = None

    def start(self, timeout: float = 60.0) -> Served:
        self.proc = start(self.name, env=self.env, log=self.log)
        wait_answering(self.proc, self.port, self.log, timeout=timeout)
        return self


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
