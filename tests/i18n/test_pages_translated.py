"""Every page of the demo, and the board, read in each language, as a fan, a player and an
organiser: no text a person reads is left in English.

The pages are the URLconf's (each page of the site's namespaces: a new page is rendered here or
named in ``NOT_PAGES`` with the reason), filled with the demo federation (``load_demo``). A page
in Spanish, Portuguese or Italian fails when one of its texts

- is an English msgid of the catalogue (placeholders matching anything), whose translation is
  empty, fuzzy, or different from what the page shows; or
- is not in the catalogue at all, and reads as English: the same text on the English page, with
  two or more English words of ``ENGLISH`` (a string nobody marked for translation).

Proper names (clubs, players, competitions) and numbers are the same in every language and are
not English sentences, so they pass. The board's words (its ``board-strings``) and the referee's
calls of the demo's live match (its feed) are checked the same way.
"""
from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from leagues.models import Club, Competition, Fixture, Player
from leagues.permissions import can_manage_competition
from leagues.services.demo import demo_load
from matches.models import Match
from tests.i18n.catalogues import LANGUAGES, TextFinder, english_patterns

pytestmark = [pytest.mark.slow]

NAMESPACES = ("site", "play", "notifications")
# Pages of those namespaces that are not pages a person reads, or not reachable by a GET.
NOT_PAGES = {
    "play:feed": "JSON (its texts are checked through the board)",
    "site:competition-export": "downloads (CSV, XLSX): data, their headers in the import's format",
    "site:competition-calendar": "iCalendar feed",
    "site:club-calendar": "iCalendar feed",
    "site:player-calendar": "iCalendar feed",
    "play:replay": "JSON of a finished match",
    "play:practice": "POST only",
    "site:fixture-check-in": "POST only",
    "site:generate-fixtures": "POST only",
    "site:recompute-standings": "POST only",
    "site:reschedule-round": "POST only",
    "site:withdraw-entrant": "POST only",
    "site:remove-entrant": "POST only",
    "site:sign-up": "POST only",
    "site:sign-up-withdraw": "POST only",
    "site:sign-up-decide": "POST only",
    "site:fixture-decision": "POST only",
    "site:fixture-annul-match": "POST only",
    "site:fixture-reschedule": "POST only",
    "notifications:read": "POST only",
    "notifications:read-all": "POST only",
    "notifications:unsubscribe": "needs a signed token (its page is rendered with one below)",
}
EXTRA_PAGES = ["/accounts/login/", "/accounts/tokens/"]
# Words that make a text English (a proper name seldom holds two of them).
ENGLISH = set("""the of and to is are a an in on at for with by not no from this that it its
their your you yet be been has have was were will can cannot when after before what which who
every each only as or than then there here page result results fixture fixtures round match""".split())
_WORD = re.compile(r"[A-Za-z]+")


def _patterns_of(resolver, prefix="", namespace=""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            ns = entry.namespace or namespace
            yield from _patterns_of(entry, prefix + str(entry.pattern), ns)
        elif isinstance(entry, URLPattern) and namespace in NAMESPACES and entry.name:
            yield f"{namespace}:{entry.name}", prefix + str(entry.pattern)


def site_pages() -> dict[str, str]:
    """name -> route of every page of the site's namespaces."""
    return dict(_patterns_of(get_resolver()))


def _fill(route: str, values: dict[str, object]) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), route)


def urls_to_read(world) -> list[str]:
    urls = list(EXTRA_PAGES)
    for name, route in sorted(site_pages().items()):
        if name in NOT_PAGES:
            continue
        if "<" not in route:
            urls.append("/" + route)
            continue
        if route.startswith(("competitions/", "embed/competitions/")):
            # round 1's page (``number``); a fixture of the competition for the referee's pages (``pk``)
            fills = [{"slug": slug, "round_id": world["rounds"][slug], "number": 1, "pk": world["fixtures"][0]}
                     for slug in world["competitions"]]
        elif route.startswith("clubs/"):
            fills = [{"slug": world["club"]}]
        elif route.startswith("players/"):
            fills = [{"pk": world["player"]}]
        elif route.startswith("fixtures/") or route.startswith("manage/fixtures/"):
            fills = [{"pk": pk} for pk in world["fixtures"]]
        elif route.startswith("matches/"):
            fills = [{"pk": world["match"]}]
        elif route.startswith("manage/"):
            fills = [{"slug": world["managed"]}]
        else:
            raise AssertionError(f"{name} ({route}): say how to fill it, or why it is not a page")
        urls.extend("/" + _fill(route, values) for values in fills)
    return urls


def english_leftovers(texts: list[str], english_texts: set[str],
                      translations: dict[str, str]) -> list[tuple[str, str | None]]:
    """The texts of a page in another language that are still English (see the module), each
    with the msgid it shows untranslated, or ``None`` for a text that is in no catalogue."""
    found = []
    for text in texts:
        whole = _msgid_of(text)
        if whole is not None:
            if translations.get(whole, "") != whole:
                found.append((text, whole))
            continue
        pieces = [p for p in re.split(r"\s+[·—→|]\s+", text) if p.strip()] or [text]
        for piece in pieces:
            piece = piece.lstrip(" ·—→|:.;,©").rstrip(" ·—→|:")
            if not piece:
                continue
            matched = _msgid_of(piece)
            if matched is not None:
                if translations.get(matched, "") != matched:
                    found.append((piece, matched))
                continue
            words = [w.lower() for w in _WORD.findall(piece)]
            if text in english_texts and sum(w in ENGLISH for w in words) >= 2:
                found.append((piece, None))
    return found


def _msgid_of(text: str) -> str | None:
    """The English msgid ``text`` is (placeholders matching anything), or ``None``."""
    text = text.strip()
    return next((msgid for pattern, msgid in english_patterns() if pattern.match(text)), None)


def _texts(html: str) -> tuple[list[str], list[str]]:
    finder = TextFinder()
    finder.feed(html)
    board_words: list[str] = []
    for data in finder.json_scripts:
        try:
            value = json.loads(data)
        except ValueError:
            continue
        # the board's words (its board-strings), not its configuration (board-config: "hints" false)
        if isinstance(value, dict) and any(isinstance(value.get(key), dict) for key in ("hints", "turn")):
            board_words.extend(_strings(value))
    return finder.texts, board_words


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.fixture(scope="module")
def readings(django_db_setup, django_db_blocker):
    """{(language, actor, url): texts} for every page, and the English ones, read once."""
    read: dict[tuple[str, str, str], list[str]] = {}
    with django_db_blocker.unblock(), transaction.atomic():
        demo_load(random_passwords=True)
        world = demo_world()
        actors = {"fan": None, "player": world["player_user"], "organiser": world["organiser_user"]}
        urls = urls_to_read(world)
        for language in ["en", *LANGUAGES]:
            for actor, user in actors.items():
                client = Client(HTTP_ACCEPT_LANGUAGE=language)
                if user is not None:
                    client.force_login(user)
                for url in urls:
                    response = client.get(url)
                    if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                        continue
                    texts, board_words = _texts(response.content.decode())
                    read[(language, actor, url)] = texts + board_words
                feed = client.get(f"/matches/{world['match']}/feed/")
                if feed.status_code == 200:
                    read[(language, actor, "feed")] = _strings(_feed_texts(feed.json()))
        transaction.set_rollback(True)
    return read


def _feed_texts(body) -> list[str]:
    """The sentences of a feed: every ``text`` of its rows and events."""
    found = []
    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("text", "rule_label") and isinstance(item, str):
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(body)
    return found


def demo_world() -> dict:
    User = get_user_model()
    organiser = User.objects.get(username="organiser")
    player = Player.objects.filter(user__isnull=False).order_by("pk").first()
    league = Competition.objects.filter(format=Competition.Format.LEAGUE, season__is_current=True).first()
    cup = Competition.objects.filter(slug__startswith="taca-", season__is_current=True).first()
    managed = next(c for c in (league, cup) if c and can_manage_competition(organiser, c))
    played = league.fixtures.filter(status=Fixture.Status.PLAYED).order_by("pk").first()
    scheduled = league.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False).order_by("pk").first()
    match = Match.objects.order_by("-pk").first()
    return {
        "competitions": [c.slug for c in (league, cup) if c],
        "club": Club.objects.order_by("pk").first().slug,
        "player": player.pk, "player_user": player.user, "organiser_user": organiser,
        "fixtures": [f.pk for f in (played, scheduled) if f],
        "match": match.pk if match else 0,
        "managed": managed.slug,
        "rounds": {c.slug: c.stages.order_by("order").first().rounds.order_by("number").first().pk
                   for c in (league, cup) if c},
    }


def test_every_page_of_the_site_is_read_or_named_with_its_reason():
    names = set(site_pages())
    assert set(NOT_PAGES) - names == set(), "NOT_PAGES names a page that no longer exists"


def _leftovers(language: str, readings) -> dict[str, list[tuple[str, str | None]]]:
    """page -> its texts still in English, for ``language``."""
    from tests.i18n.catalogues import entries

    translations = {e.msgid: (e.msgstr or (e.msgstr_plural.get(0, "") if e.msgid_plural else ""))
                    for e in entries(language) if "fuzzy" not in e.flags}
    assert any(key[0] == language for key in readings), "no page was read"
    english = {(actor, url): set(texts) for (lang, actor, url), texts in readings.items() if lang == "en"}
    left = {}
    for (lang, actor, url), texts in readings.items():
        if lang == language:
            found = english_leftovers(texts, english.get((actor, url), set()), translations)
            if found:
                left[f"{actor} {url}"] = found
    return left


@pytest.mark.translations
@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_is_left_in_english(language, readings):
    """Fails until the translators have filled the catalogue of ``language``."""
    left = _leftovers(language, readings)
    shown = {page: sorted({text for text, _msgid in found})[:8] for page, found in left.items()}
    report = "\n".join(f"  {page}: {texts}" for page, texts in list(shown.items())[:12])
    assert shown == {}, f"{len(shown)} pages still show English in {language}, e.g.:\n{report}"


@pytest.mark.django_db
def test_every_english_text_of_the_pages_is_in_the_catalogue(readings):
    """No page shows an English text that no catalogue holds (a string nobody marked): holds
    whatever the translations, so it runs with the rest of the suite."""
    left = _leftovers(LANGUAGES[0], readings)
    unmarked = sorted({text for found in left.values() for text, msgid in found if msgid is None})
    assert unmarked == [], "\n".join(unmarked)
