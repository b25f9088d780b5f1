"""Safe headers (issue 15): a Content-Security-Policy with no inline script, Referrer-Policy,
Permissions-Policy, frame-ancestors 'none' except on a page marked embeddable; the templates
carry no inline script and (but for the board's, being rewritten) no inline style."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.mark.parametrize("path", ["/", "/competitions/", "/accounts/login/", "/api/docs/", "/api/competitions/"])
def test_every_answer_has_the_policy_and_the_headers(path):
    response = Client().get(path)
    assert response.status_code == 200
    csp = directives(response)
    assert csp["script-src"] == ["'self'"] and csp["default-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"] and csp["object-src"] == ["'none'"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"] and "geolocation=()" in response["Permissions-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"


def test_no_page_allows_inline_script_and_only_redoc_inline_style():
    redoc = directives(Client().get("/api/redoc/"))
    assert redoc["script-src"] == ["'self'"]
    assert "'unsafe-inline'" in redoc["style-src"] and "blob:" in redoc["worker-src"]
    assert "'unsafe-inline'" not in directives(Client().get("/"))["style-src"]


def test_swagger_ui_starts_from_a_script_of_its_own():
    page = Client().get("/api/docs/").content.decode()
    script = re.search(r'<script src="([^"]*\?[^"]*script[^"]*)"', page)
    assert script, page
    response = Client().get(script.group(1).replace("&amp;", "&"))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in response.content.decode()


def test_a_page_marked_embeddable_may_be_framed_and_no_other(settings):
    settings.ROOT_URLCONF = "tests.config.embed_urls"
    widget = Client().get("/widget/")
    assert directives(widget)["frame-ancestors"] == ["*"] and "X-Frame-Options" not in widget
    ordinary = Client().get("/ordinary/")
    assert directives(ordinary)["frame-ancestors"] == ["'none'"] and ordinary["X-Frame-Options"] == "DENY"


def test_no_template_has_inline_script_or_event_handlers():
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag or 'type="application/json"' in tag, (template, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), template


def test_no_template_has_inline_style_but_the_boards():
    for template in TEMPLATES.rglob("*.html"):
        if template.name == "board.html":
            continue  # its side colours are style="" attributes, allowed on that page alone
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\sstyle\s*=", text) and "<style" not in text, template
