"""A week of a league played by its players, in a real browser (Chromium through Playwright,
``tests.browser``): a result reported at 1280 px, confirmed by the opponent on a 390 px phone, a
report disputed and settled by the organiser, and a kick-off moved by agreement. Screenshots of
each stage go to ``SCREENSHOTS_DIR`` (default ``/tmp/botonera-screens``) for a person to look at."""
from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from leagues.models import Fixture, Result
from tests.browser import chromium as launch_chromium
from tests.leagues.test_result_reports import league

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
SHOTS = Path(os.environ.get("SCREENSHOTS_DIR", "/tmp/botonera-screens"))


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


def signed_in(browser, live_server, user, device):
    """A browser context signed in as ``user`` (the session cookie of a test client's login)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(**device)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    return context


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def no_overflow(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_week_of_a_league_played_by_its_players(live_server, chromium):
    competition, _api = league(slug="semana", n=4)
    organiser = competition.organisers.get()
    first, second = list(competition.fixtures.filter(round__number=1).select_related(
        "home__player__user", "away__player__user").order_by("pk"))
    later = competition.fixtures.filter(round__number=2).select_related(
        "home__player__user", "away__player__user").order_by("pk").first()
    Fixture.objects.filter(pk__in=[first.pk, second.pk]).update(kickoff_at=timezone.now() - timedelta(hours=3))

    # Tuesday: the home player reports 2-1 from a laptop
    context = signed_in(chromium, live_server, first.home.player.user, DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/fixtures/{first.pk}/")
    page.fill("#report-home", "2")
    page.fill("#report-away", "1")
    page.click("#report-result")
    page.wait_for_selector("#report-stage")
    assert "waiting for" in page.inner_text("#report-stage")
    shot(page, "1-report-waiting-1280")
    context.close()

    # the opponent confirms on a phone
    context = signed_in(chromium, live_server, first.away.player.user, PHONE)
    page = context.new_page()
    page.goto(f"{live_server.url}/fixtures/{first.pk}/")
    assert "reported 2-1" in page.inner_text("#report-stage")
    confirm = page.locator("#confirm-result")
    box = confirm.bounding_box()
    assert box["width"] >= 300 and box["height"] >= 44  # a thumb's button, the width of the phone
    assert no_overflow(page)
    shot(page, "2-confirm-390")
    confirm.tap()
    page.wait_for_selector("text=it is official")
    assert no_overflow(page)
    shot(page, "3-confirmed-390")
    context.close()
    assert (Result.objects.get(fixture=first).home_goals, Result.objects.get(fixture=first).away_goals) == (2, 1)

    # Wednesday: another report, disputed by the opponent
    context = signed_in(chromium, live_server, second.home.player.user, DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/fixtures/{second.pk}/")
    page.fill("#report-home", "3")
    page.fill("#report-away", "0")
    page.click("#report-result")
    page.wait_for_selector("#report-stage")
    context.close()
    context = signed_in(chromium, live_server, second.away.player.user, PHONE)
    page = context.new_page()
    page.goto(f"{live_server.url}/fixtures/{second.pk}/")
    page.fill("#dispute-reason", "It was 1-1: we played extra minutes")
    page.locator("#dispute-result").tap()
    page.wait_for_selector("text=the organisers decide")
    assert no_overflow(page)
    shot(page, "4-disputed-390")
    context.close()

    # the organiser sees it on the competition's page and settles it
    context = signed_in(chromium, live_server, organiser, DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/manage/{competition.slug}/")
    assert second.home.name in page.inner_text("#disputed")
    shot(page, "5-organiser-disputed-1280")
    page.goto(f"{live_server.url}/manage/fixtures/{second.pk}/result/")
    page.fill("input[name=home_goals]", "1")
    page.fill("input[name=away_goals]", "1")
    page.click("button:has-text('Save the result')")
    page.wait_for_selector("text=the organisers recorded the result")
    shot(page, "6-settled-1280")
    context.close()
    assert Result.objects.get(fixture=second).home_goals == 1

    # Thursday: a kick-off of the next round moved by agreement
    when = timezone.localtime(later.kickoff_at, competition.zone) + timedelta(days=2)
    context = signed_in(chromium, live_server, later.home.player.user, DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/fixtures/{later.pk}/")
    page.click("details.propose-kickoff summary")
    page.fill("input[name=kickoff]", when.strftime("%Y-%m-%dT%H:%M"))
    page.fill("input[name=reason]", "The club is closed on the round's day")
    page.click("#propose-kickoff")
    page.wait_for_selector("#proposal-stage")
    shot(page, "7-proposed-1280")
    context.close()
    context = signed_in(chromium, live_server, later.away.player.user, PHONE)
    page = context.new_page()
    page.goto(f"{live_server.url}/fixtures/{later.pk}/")
    page.locator("#accept-kickoff").tap()
    page.wait_for_selector("text=accepted on")
    assert no_overflow(page)
    shot(page, "8-accepted-390")
    context.close()
    later.refresh_from_db()
    assert timezone.localtime(later.kickoff_at, competition.zone).replace(tzinfo=None) == when.replace(
        tzinfo=None, second=0, microsecond=0)

    # the week's results rate the players: few games, so provisional, a "?" explained on hover
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/ratings/")
    marks = page.locator("abbr.provisional")
    assert marks.count() >= 2
    assert "Provisional" in marks.first.get_attribute("title")
    marks.first.hover()
    shot(page, "9-ratings-provisional-1280")
    context.close()
