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


# --- No English left ---------------------------------------------------------------------------

_WORDS = re.compile(r"[A-Za-zÀ-ÿ0-9]+(?:'[a-z]+)?")


def english_words(language: str, proper: set[str]) -> set[str]:
    """The words (lower-case) of the catalogue's English msgids whose translation differs from
    them, less the words of the translations themselves ("in" is Italian too, "no" Spanish) and
    the words of the federation's proper names (its clubs, players, competitions)."""
    from tests.i18n.catalogues import _PLACEHOLDER, entries

    english: set[str] = set()
    native: set[str] = set()
    for e in entries(language):
        translations = list(e.msgstr_plural.values()) if e.msgid_plural else [e.msgstr]
        for text in translations:
            native.update(w.lower() for w in _WORDS.findall(_PLACEHOLDER.sub(" ", text)))
        for msgid in (e.msgid, e.msgid_plural):
            if msgid and msgid not in translations:
                english.update(w.lower() for w in _WORDS.findall(_PLACEHOLDER.sub(" ", re.sub(r"<[^>]+>", " ", msgid))))
    from datetime import date

    from django.utils import translation
    from django.utils.formats import date_format

    with translation.override(language):  # the months' and days' names ("ago", "May")
        for day in (date(2026, month, 1 + month) for month in range(1, 13)):
            native.update(w.lower() for w in _WORDS.findall(date_format(day, "D l M F b E N")))
    return {w for w in english - native - proper if not w.isdigit() and len(w) > 1}


def page_words(html: str) -> list[str]:
    """The words a reader sees on ``html``: its texts and titles (not its scripts or styles)."""
    from tests.i18n.catalogues import TextFinder

    finder = TextFinder()
    finder.feed(html)
    return [w for text in finder.texts for w in _WORDS.findall(text)]


@pytest.fixture
def fan_pages(demo):
    """The pages a fan reads most, with a knockout's placings (the ranking), a history with a
    bracket's reason and a withdrawal's, and a withdrawal's confirmation (the organiser's)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from leagues.models import Club, Competition, Entrant, Fixture, FixtureChange
    from leagues.services.entrants import entrant_withdraw, withdrawal_preview
    from leagues.services.results import ResultConflict

    league = Competition.objects.get(format="league", season__is_current=True)
    organiser = get_user_model().objects.get(username="organiser")
    free = []  # entrants without a match under way: they can withdraw
    for entrant in league.entrants.filter(withdrawn_at__isnull=True).order_by("-seed"):
        try:
            if withdrawal_preview(entrant=entrant):
                free.append(entrant)
        except ResultConflict:
            continue
    withdrawn, leaving = free[:2]
    with transaction.atomic():
        entrant_withdraw(entrant=withdrawn, by=organiser)
    bracket_fixture = FixtureChange.objects.filter(reason="The bracket follows the results.").order_by("pk").first().fixture_id
    withdrawal_fixture = Fixture.objects.filter(changes__kind=FixtureChange.Kind.WITHDRAWAL).order_by("pk").first().pk
    public = (["/", "/ranking/", f"/fixtures/{bracket_fixture}/", f"/fixtures/{withdrawal_fixture}/"]
              + [f"/competitions/{c.slug}/" for c in Competition.objects.all()]
              + [f"/players/{pk}/" for pk in league.entrants.values_list("player_id", flat=True)[:4] if pk])
    managed = [f"/manage/{league.slug}/entrants/{leaving.pk}/withdraw/"]
    proper = {w.lower() for name in [*Club.objects.values_list("name", flat=True),
                                     *Competition.objects.values_list("name", flat=True),
                                     *Entrant.objects.values_list("name", flat=True),
                                     *Player.objects.values_list("licence_number", flat=True)]
              for w in _WORDS.findall(name)} | {organiser.username, "botonera", "api", "glicko", "utc", "lisbon", "europe"}
    return public, managed, organiser, proper


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_fans_pages_leave_no_english_word_of_the_catalogue(fan_pages, language):
    public, managed, organiser, proper = fan_pages
    english = english_words(language, proper)
    assert {"1st", "season", "bracket", "round"} <= english  # what the check looks for
    fan = Client(HTTP_ACCEPT_LANGUAGE=language)
    organiser_client = Client(HTTP_ACCEPT_LANGUAGE=language)
    organiser_client.force_login(organiser)
    left = {}
    for client, urls in ((fan, public), (organiser_client, managed)):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, url
            words = sorted({w for w in page_words(response.content.decode()) if w.lower() in english})
            if words:
                left[url] = words
    assert left == {}


# --- Refusals read as sentences, dates as the site's others -----------------------------------


@pytest.mark.parametrize("language, day", [("en", "10 Jan 2027"), ("es", "10 ene 2027"), ("it", "10 gen 2027")])
def test_the_licence_refusal_is_a_sentence_with_the_sites_date(language, day):
    from datetime import date, timedelta

    from django.utils import timezone

    from leagues.models import Competition
    from leagues.services import registration as reg
    from tests.leagues.factories import PlayerFactory, UserFactory

    now = timezone.now()
    cup = Competition.objects.create(name="Open Cup", slug="open-cup", format=Competition.Format.KNOCKOUT,
                                     first_date=date(2027, 1, 10))
    reg.registration_open(competition=cup, opens_at=now - timedelta(days=1), closes_at=now + timedelta(days=10),
                          capacity=4, now=now)
    user = UserFactory(username="nolicence")
    PlayerFactory(first_name="No", last_name="Licence", user=user)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    page = client.post(f"/competitions/{cup.slug}/sign-up/", follow=True).content.decode()
    message = re.search(r'<ul class="messages"><li class="error">(.*?)</li>', page, flags=re.S).group(1)
    assert message[:1].isupper(), message
    assert day.lower() in message.lower(), message  # "10 Jan 2027", as "D j M Y" elsewhere, never "Jan. 10, 2027"
