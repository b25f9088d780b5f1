"""Debian's Chromium through Playwright, for the browser tests (the board, the headers, the
embeds). ``.ci/run`` installs ``chromium``; never ``playwright install``. Without it a browser
test skips, unless ``REQUIRE_SERVICES`` is set (CI), where it fails."""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connections

try:
    from playwright.sync_api import Browser, sync_playwright
except ImportError:  # the dev extras are not installed: the tests say so
    sync_playwright = None

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def browser_missing() -> str | None:
    """Why no browser test can run here, or None."""
    if sync_playwright is None:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium, closed (with its contexts) afterwards; skips or fails the test when
    there is none (see the module)."""
    reason = browser_missing()
    if reason:
        if os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false"):
            pytest.fail(f"REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test itself
    # are still plain synchronous ones.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
                                        args=ARGS, headless=True)
            try:
                yield browser
            finally:
                for context in list(browser.contexts):  # no page polls the server after the test
                    context.close()
                browser.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        # The ORM calls ran in Playwright's greenlet, with a connection of their own: close
        # it, or the test database cannot be dropped.
        connections.close_all()


def sign_in(page, base: str, username: str, password: str):
    """Signs ``page`` in through the sign-in form (its own button: the header has the language
    switcher's form too) and returns it; fails the test when the site refuses."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form [type=submit]")
    page.wait_for_load_state()
    assert "/accounts/login/" not in page.url, "sign-in failed"
    return page


def board_aim(page, side: str, piece: str | None, speed: float) -> dict:
    """On the board (``/matches/<id>/``): where to press and where to let go to flick ``piece``
    of ``side`` (the nearest to the ball that may play, by default) at the ball at ``speed``
    mm/s, a pull straight back. ``{"piece", "from": (x, y), "to": (x, y)}``, in CSS pixels."""
    target = page.evaluate("""([side, piece]) => {
        const v = botonera.pieces(), ball = v.ball, barred = botonera.header().may_not_play || {};
        let best = piece, bestD = Infinity;
        if (!best) for (const [pid, p] of Object.entries(v.pieces[side])) {
            if (pid === 'gk' || pid in barred) continue;
            const d = Math.hypot(p[0] - ball[0], p[1] - ball[1]);
            if (d < bestD) { best = pid; bestD = d; }
        }
        return {piece: best, at: botonera.screenOf(side, best), ball: botonera.screenOf(side, 'ball')};
    }""", [side, piece])
    x, y = target["at"]["x"], target["at"]["y"]
    dx, dy = target["ball"]["x"] - x, target["ball"]["y"] - y
    norm = max(1e-6, (dx * dx + dy * dy) ** 0.5)
    pull = speed / 2500 * 300 * target["at"]["scale"]  # a 300 mm pull is the fastest flick (aim.js)
    return {"piece": target["piece"], "from": (x, y), "to": (x - dx / norm * pull, y - dy / norm * pull)}


def mouse_flick(page, side: str, piece: str | None = None, speed: float = 900) -> str:
    """Flicks with the mouse on the board, once it is idle (the page's context must bypass the
    site's Content-Security-Policy: the probe is an expression); returns the button flicked."""
    page.wait_for_function("botonera.idle()")
    aim = board_aim(page, side, piece, speed)
    (x0, y0), (x1, y1) = aim["from"], aim["to"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5)
    page.mouse.up()
    return aim["piece"]
