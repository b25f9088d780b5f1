"""How long after a flick each board shows it: the flicking player's, the opponent's and a
spectator's (not in ``make bench``; its figures are in tests/bench/README.md).

``python -m tests.bench.boardlag [--flicks 30] [--json]``

What it does, on loopback: a scratch database (``--database-url``, created when missing and
migrated) with one live one-touch match, both players checked in; ``config.asgi`` under
uvicorn (the page, the feed, the actions and the socket from one process, ``--redis-url`` for
the push); three Chromium pages at 1280 px: the two players, signed in, and a spectator. The
side to move flicks with the mouse on its own board (a pull straight back from the button
nearest the ball), ``--flicks`` times, one after the other once every board has shown the last.

Each board stamps the moment each log row's first line enters its referee's feed
(``performance.timeOrigin + performance.now()``, one clock for the three pages of one browser);
the flicking board stamps the pointer's release. Figures: per board (``flicker``, ``opponent``,
``spectator``) the median and p90 from the release to the row (ms), and the opponent's lag
behind the spectator per flick (median, max). Target: the opponent's median within 100 ms of
the spectator's. Exit 1 when it is not, 2 when the run cannot start.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.bench import loadtest
from tests.browser import ARGS, CHROMIUM, sign_in

ROOT = Path(__file__).resolve().parents[2]
STAMP_ROWS = """() => {
    window.__rows = {};
    const feed = document.getElementById('feed');
    new MutationObserver((changes) => {
        const now = performance.timeOrigin + performance.now();
        for (const change of changes) for (const li of change.addedNodes) {
            const seq = li.dataset && li.dataset.seq;
            if (seq && !(seq in window.__rows)) window.__rows[seq] = now;
        }
    }).observe(feed, {childList: true});
    document.getElementById('board').addEventListener('pointerup',
        () => { window.__released = performance.timeOrigin + performance.now(); }, true);
}"""
AIM = """(side) => {
    const v = botonera.pieces(), ball = v.ball, barred = botonera.header().may_not_play || {};
    let best = null, bestD = Infinity;
    for (const [pid, p] of Object.entries(v.pieces[side])) {
        if (pid === 'gk' || pid in barred) continue;
        const d = Math.hypot(p[0] - ball[0], p[1] - ball[1]);
        if (d < bestD) { best = pid; bestD = d; }
    }
    return {at: botonera.screenOf(side, best), ball: botonera.screenOf(side, 'ball')};
}"""


def serve(database_url: str, redis_url: str, log: Path) -> tuple[subprocess.Popen, int]:
    port = loadtest.free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "1",
           "SECRET_KEY": secrets.token_urlsafe(40), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
                             "--host", "127.0.0.1", "--log-level", "warning"], cwd=ROOT, env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"uvicorn did not answer:\n{log.read_text()[-3000:]}")


def players_with_passwords(match_id: int) -> dict[str, tuple[str, str]]:
    from leagues.models import Fixture
    from matches.services import online

    fixture = Fixture.objects.select_related("home__player__user", "away__player__user").get(match_id=match_id)
    out = {}
    for side, entrant in (("home", fixture.home), ("away", fixture.away)):
        user, password = entrant.player.user, secrets.token_urlsafe(12)
        user.set_password(password)
        user.save(update_fields=["password"])
        online.check_in(match_id=match_id, user=user)
        out[side] = (user.username, password)
    return out


def flick(page, side: str) -> None:
    target = page.evaluate(AIM, side)
    x, y = target["at"]["x"], target["at"]["y"]
    dx, dy = target["ball"]["x"] - x, target["ball"]["y"] - y
    norm = max(1e-6, (dx * dx + dy * dy) ** 0.5)
    pull = 900 / 2500 * 300 * target["at"]["scale"]
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(x - dx / norm * pull * k / 5, y - dy / norm * pull * k / 5)
    page.mouse.up()


def run(args) -> dict:
    loadtest.ensure_database(args.database_url)
    loadtest.setup_django(args.database_url)
    loadtest.migrate()
    run_name = f"lag-{uuid.uuid4().hex[:6]}"
    plan = loadtest.create_matches(run_name, 1, rule_set="one_touch", turn_seconds=600)[0]
    accounts = players_with_passwords(plan.match_id)
    log = Path(tempfile.mkdtemp(prefix="boardlag-")) / "uvicorn.log"
    proc, port = serve(args.database_url, args.redis_url, log)
    base = f"http://127.0.0.1:{port}"
    lags: dict[str, list[float]] = {"flicker": [], "opponent": [], "spectator": []}
    behind: list[float] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            pages = {}
            for role in ("home", "away", "spectator"):
                page = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True).new_page()
                if role in accounts:
                    sign_in(page, base, *accounts[role])
                page.goto(f"{base}/matches/{plan.match_id}/")
                page.wait_for_function("window.botonera && botonera.idle()")
                page.evaluate(STAMP_ROWS)
                pages[role] = page
            time.sleep(1.0)  # the sockets open
            for _ in range(args.flicks):
                side = pages["spectator"].evaluate("botonera.header().state.to_move")
                seq = pages["spectator"].evaluate("botonera.header().seq") + 1
                pages[side].wait_for_function("botonera.idle()")
                flick(pages[side], side)
                for page in pages.values():
                    page.wait_for_function(f"window.__rows['{seq}'] !== undefined", timeout=15000)
                released = pages[side].evaluate("window.__released")
                other = "away" if side == "home" else "home"
                seen = {role: pages[role].evaluate(f"window.__rows['{seq}']") - released
                        for role in ("home", "away", "spectator")}
                lags["flicker"].append(seen[side])
                lags["opponent"].append(seen[other])
                lags["spectator"].append(seen["spectator"])
                behind.append(seen[other] - seen["spectator"])
                for page in pages.values():
                    page.wait_for_function("botonera.idle()", timeout=15000)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(20)
        loadtest.cleanup(run_name)

    def p90(values: list[float]) -> float:
        return sorted(values)[max(0, round(0.9 * len(values)) - 1)]

    return {
        "flicks": args.flicks, "load_before": round(os.getloadavg()[0], 2),
        **{f"{role}_ms": {"median": round(statistics.median(v), 1), "p90": round(p90(v), 1)}
           for role, v in lags.items()},
        "opponent_behind_spectator_ms": {"median": round(statistics.median(behind), 1),
                                         "max": round(max(behind), 1)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flicks", type=int, default=30)
    parser.add_argument("--database-url", default=os.environ.get(
        "BOARDLAG_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/botonera_boardlag"))
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/9"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        figures = run(args)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0 if figures["opponent_behind_spectator_ms"]["median"] <= 100 else 1


if __name__ == "__main__":
    sys.exit(main())
