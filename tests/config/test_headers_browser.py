"""The Content-Security-Policy in a real browser (issue 15): the site's pages, the API docs
(Swagger UI and Redoc, from the sidecar) and the board load and work with no violation of it.

Chromium through Playwright, as tests/matches/test_board_browser.py (skipped without it unless
``REQUIRE_SERVICES`` is set); unlike that test, the pages here are loaded under the policy.
"""
from __future__ import annotations

import os
import shutil

import pytest

from tests.matches.conftest import make_league, setup_match
from tests.matches.test_board_browser import ARGS, CHROMIUM, _browser_missing


@pytest.fixture
def strict_browser():
    reason = _browser_missing()
    if reason:
        if os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false"):
            pytest.fail(f"REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
            browser = p.chromium.launch(executable_path=path, args=ARGS, headless=True)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


# Redoc shows Redocly's logo from their site; the policy blocks it and Redoc drops the image
# (its onError): the only request to another site that a page makes, and it is refused.
TOLERATED = ("https://cdn.redoc.ly/redoc/logo-mini.svg",)


def _open(browser, url: str, ready: str | None = None) -> list[str]:
    """Opens ``url``; waits for ``ready`` (a selector); the policy's violations reported."""
    page = browser.new_page()
    violations: list[str] = []
    page.on("console", lambda msg: violations.append(msg.text) if (
        "Content Security Policy" in msg.text and not any(t in msg.text for t in TOLERATED)) else None)
    response = page.goto(url)
    assert response.status == 200, url
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    if ready:
        page.wait_for_selector(ready, timeout=20000)
    page.wait_for_load_state("networkidle")
    page.close()
    return violations


@pytest.mark.django_db(transaction=True)
def test_pages_api_docs_and_board_load_under_the_policy(live_server, strict_browser):
    competition = make_league(2, slug="csp-league")
    match = setup_match(competition.fixtures.get())
    base = live_server.url
    pages = [
        ("/", None), ("/competitions/", None), (f"/competitions/{competition.slug}/", None),
        ("/clubs/", None), ("/players/", None), ("/accounts/login/", "input[name=username]"),
        ("/api/docs/", ".swagger-ui .info .title"),
        ("/api/redoc/", ".api-content h1"),
        (f"/matches/{match.pk}/", "canvas"),
    ]
    found = {path: _open(strict_browser, base + path, ready) for path, ready in pages}
    assert found == {path: [] for path, _ in pages}
