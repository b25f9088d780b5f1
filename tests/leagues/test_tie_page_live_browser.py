"""A team tie's page follows its tables played online without a reload (``static/js/tie.js``):
a live table's card shows its match's running score as it changes, then "Full time". On
Django's live server there is no WebSocket, so the page falls back to polling each match's feed,
as it does behind a proxy without one. Chromium through Playwright (``tests.browser``)."""
from __future__ import annotations

import pytest
from django.db.models import F
from django.utils import timezone

from leagues.models import Fixture
from leagues.services.online import fixture_match_setup
from matches.models import Match
from tests.browser import chromium as launch_chromium
from tests.leagues.team_world import team_world

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


def score(match: Match, home: int, away: int, **fields) -> None:
    """The match's state moves on (a goal): its sequence number too, as every save does."""
    state = {**(match.state or {}), "score": {"home": home, "away": away}}
    Match.objects.filter(pk=match.pk).update(state=state, seq=F("seq") + 1, **fields)


def test_a_live_table_of_a_tie_shows_its_running_score_and_full_time_without_a_reload(live_server, chromium):
    world = team_world(clubs=2, tables_per_tie=2, slug="live-tie", venue="online")
    tie = world.ties(1)[0]
    world.lineups(tie)
    now = timezone.now()
    games = list(Fixture.with_games.filter(tie=tie).order_by("table"))
    Fixture.with_games.filter(pk__in=[tie.pk, games[1].pk]).update(kickoff_at=now)
    match = fixture_match_setup(fixture=Fixture.with_games.get(pk=games[1].pk), computer_sides=("home", "away"),
                                now=now)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    page = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{live_server.url}/fixtures/{tie.pk}/")
    page.evaluate("window.__loaded = true")  # gone if the page loads again
    card = page.locator('.tie-table[data-table="2"]')
    assert card.get_attribute("data-feed") == f"/matches/{match.pk}/feed/"
    card.locator(".score", has_text="0–0").wait_for(timeout=15_000)
    score(match, 1, 0)
    card.locator(".score", has_text="1–0").wait_for(timeout=15_000)
    assert page.evaluate("window.__loaded === true")  # followed without a reload
    assert page.locator('.tie-table[data-table="1"] .score').inner_text() == "v"  # not played online: as it was
    score(match, 2, 1, status=Match.Status.FINISHED)
    card.locator(".badge", has_text="Full time").wait_for(timeout=15_000)
    assert card.locator(".score").inner_text() == "2–1"
