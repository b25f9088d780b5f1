"""The Content-Security-Policy in a real browser (issue 15): the site's pages, the API docs
(Swagger UI and Redoc, from the sidecar) and the board load and work with no violation of it.

Chromium through Playwright, as tests/matches/test_board_browser.py (skipped without it unless
``REQUIRE_SERVICES`` is set); unlike that test, the pages here are loaded under the policy.
"""
from __future__ import annotations

import pytest

from tests.browser import chromium as launch_chromium
from tests.matches.conftest import make_league, setup_match


@pytest.fixture
def strict_browser():
    with launch_chromium() as browser:
        yield browser


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
