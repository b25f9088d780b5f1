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
