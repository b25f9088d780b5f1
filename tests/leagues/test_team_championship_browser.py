"""A club championship of four teams x four tables in Chromium: the two captains give their
line-ups on the tie page (one on a 1280 px screen, one on a 390 px phone), the organiser records
three games, the fourth is played online and watched live, and the tie page shows the tables side
by side without overflowing the phone. Screenshots in ``TEAM_SCREENSHOTS`` (default: a temporary
folder), to be looked at. Chromium through Playwright (``tests.browser``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.utils import timezone

from leagues.models import Fixture
from leagues.services.online import fixture_match_setup
from leagues.services.results import result_record
from matches.models import Match
from tests.browser import chromium as launch_chromium
from tests.browser import sign_in
from tests.leagues.team_world import team_world

PASSWORD = "captain-pass"
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


def signed_in(browser, base: str, username: str, device: dict):
    return sign_in(browser.new_context(**device).new_page(), base, username, PASSWORD)


def line_up(page, base: str, tie: Fixture, side: str, players) -> None:
    page.goto(f"{base}/fixtures/{tie.pk}/")
    form = page.locator(f"#lineup-{side}")
    for table, player in enumerate(players, start=1):
        form.locator(f"select[name=table_{table}]").select_option(str(player.pk))
    form.locator("button[type=submit]").click()
    page.wait_for_load_state()


def test_a_club_championship_tie_played_through_in_chromium(live_server, chromium):
    shots = Path(os.environ.get("TEAM_SCREENSHOTS") or "/tmp/team-screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    world = team_world(clubs=4, tables_per_tie=4, slug="clubes", venue="online")
    tie = world.ties(1)[0]
    for team in (tie.home, tie.away):
        team.captain.set_password(PASSWORD)
        team.captain.save()
    base = live_server.url

    home = signed_in(chromium, base, tie.home.captain.username, DESKTOP)
    line_up(home, base, tie, "home", world.players[tie.home_id][:4])
    assert "line-up in" in home.content()
    away = signed_in(chromium, base, tie.away.captain.username, PHONE)
    away.goto(f"{base}/fixtures/{tie.pk}/")
    assert world.players[tie.home_id][0].full_name not in away.locator("#tie-tables").inner_text()  # hidden
    away.screenshot(path=str(shots / "lineup-form-390.png"), full_page=True)
    line_up(away, base, tie, "away", world.players[tie.away_id][:4])

    games = list(Fixture.with_games.filter(tie=tie).order_by("table"))
    for game, (h, a) in zip(games[:3], [(2, 0), (1, 1), (0, 1)], strict=True):
        result_record(fixture=game, home_goals=h, away_goals=a, recorded_by=world.organiser)
    now = timezone.now()
    Fixture.with_games.filter(pk__in=[tie.pk, games[3].pk]).update(kickoff_at=now)
    match = fixture_match_setup(fixture=Fixture.with_games.get(pk=games[3].pk), computer_sides=("home", "away"),
                                now=now)
    Match.objects.filter(pk=match.pk).update(home_user=None, away_user=None)

    spectator = chromium.new_context(**DESKTOP).new_page()
    spectator.goto(f"{base}/fixtures/{tie.pk}/")
    tables = spectator.locator(".tie-table")
    assert tables.count() == 4
    boxes = [tables.nth(i).bounding_box() for i in range(4)]
    assert len({round(b["y"]) for b in boxes}) == 1  # side by side at 1280 px
    assert "Watch live" in spectator.locator("#tie-tables").inner_text()
    spectator.screenshot(path=str(shots / "tie-1280.png"), full_page=True)
    spectator.locator(".tie-table.live a.fixture-link").click()
    spectator.wait_for_load_state()
    assert f"/fixtures/{games[3].pk}/" in spectator.url
    spectator.screenshot(path=str(shots / "live-game-1280.png"), full_page=True)

    phone = chromium.new_context(**PHONE).new_page()
    phone.goto(f"{base}/fixtures/{tie.pk}/")
    widths = phone.evaluate("() => ({page: document.documentElement.scrollWidth, viewport: window.innerWidth})")
    assert widths["page"] <= widths["viewport"] == 390
    phone.screenshot(path=str(shots / "tie-390.png"), full_page=True)

    phone.goto(f"{base}/competitions/{world.competition.slug}/")
    phone.screenshot(path=str(shots / "competition-390.png"), full_page=True)
    desktop = chromium.new_context(**DESKTOP).new_page()
    desktop.goto(f"{base}/competitions/{world.competition.slug}/")
    desktop.screenshot(path=str(shots / "competition-1280.png"), full_page=True)
