"""In a real browser (Debian's Chromium, tests/browser.py) at a phone's 390 px: the page never
scrolls sideways, every link of the header's menu is in sight and "Sign in" takes the reader
to the sign-in page; the language switcher is in the header."""
from __future__ import annotations

import pytest

from tests.browser import chromium as launch_chromium


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language, sign_in", [("es", "Iniciar sesión"), ("it", "Accedi"), ("en", "Sign in")])
def test_at_390_px_the_header_wraps_and_sign_in_is_in_sight(live_server, language, sign_in):
    with launch_chromium() as browser:
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      extra_http_headers={"Accept-Language": language})
        page = context.new_page()
        for url in ("/", "/competitions/", "/ranking/"):
            page.goto(live_server.url + url)
            assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), url
            for link in page.locator(".site-header nav a").all():
                box = link.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (url, link.inner_text())
            assert page.locator(".site-header .language-switcher select").is_visible()
        page.get_by_role("link", name=sign_in).click()
        page.wait_for_url("**/accounts/login/**")
        context.close()
