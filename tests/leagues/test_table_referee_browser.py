"""A table referee records a result from a 390 px phone, in a real browser (Chromium through
Playwright, ``tests.browser``): the fixtures called to their tables, the steppers, the
confirmation; a double tap stores the result once. Screenshots go to ``SCREENSHOTS_DIR``
(default ``/tmp/hallref``) for a person to look at."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from leagues.models import Competition, Entrant, Fixture, FixtureChange, Player, Result
from leagues.services.fixtures import fixtures_generate
from tests.browser import chromium as launch_chromium

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
SHOTS = Path(os.environ.get("SCREENSHOTS_DIR", "/tmp/hallref"))


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def stepper(page, name, step):
    """The - (``step`` -1) or + (1) button of the score input ``name``."""
    return page.locator(f".stepper:has(#id_{name}) .stepper-btn[data-step='{step}']")


def no_overflow(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_referee_records_a_result_from_a_phone_at_the_table(live_server, chromium):
    users = get_user_model().objects
    rui = users.create_user(username="rui", first_name="Rui", last_name="Costa")
    competition = Competition.objects.create(name="Lisbon Open", slug="lisbon-open", lots_seed=5, tables=4,
                                             format="knockout", extra_time=True, shootout=True,
                                             referee_tables={"rui": [3, 4]})
    competition.referees.add(rui)
    for i, (first, last) in enumerate([("Maximiliano", "Albuquerque-Fontes"), ("João", "Pereira"),
                                       ("Ana", "Ferreira"), ("Beatriz", "Santos")], start=1):
        player = Player.objects.create(first_name=first, last_name=last, licence_number=f"L-{i}")
        Entrant.objects.create(competition=competition, name=f"{first} {last}", seed=i, player=player)
    fixtures_generate(competition=competition)
    semi, other = competition.fixtures.filter(status=Fixture.Status.SCHEDULED).order_by("pk")[:2]
    Fixture.objects.filter(pk=semi.pk).update(hall_table=3, called_at=timezone.now())
    Fixture.objects.filter(pk=other.pk).update(hall_table=1, called_at=timezone.now())  # not his table

    client = Client()
    client.force_login(rui)
    context = chromium.new_context(**PHONE)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/competitions/lisbon-open/referee/")
    items = page.locator(".ref-item")
    assert items.count() == 1 and "Table 3" in items.first.inner_text()
    assert no_overflow(page)
    shot(page, "1-referee-tables-390")

    items.first.click()
    page.wait_for_selector("#referee-result")
    assert "Maximiliano Albuquerque-Fontes" in page.inner_text(".ref-players")
    assert page.get_attribute("#id_home_goals", "inputmode") == "numeric"
    plus = stepper(page, "home_goals", 1)
    box = plus.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44  # a thumb's button
    for _tap in range(2):
        plus.tap()
    stepper(page, "away_goals", 1).tap()
    stepper(page, "away_goals", -1).tap()
    stepper(page, "away_goals", -1).tap()  # never below 0
    assert page.input_value("#id_home_goals") == "2" and page.input_value("#id_away_goals") == "0"
    assert page.is_visible("#id_home_shootout") and not page.is_visible("input[name=walkover_side]")
    page.fill("#id_reason", "Clean game")
    assert no_overflow(page)
    shot(page, "2-referee-form-390")

    page.locator("input[name=outcome][value=walkover]").check()
    assert page.is_visible("input[name=walkover_side]") and not page.is_visible("#id_home_goals")
    shot(page, "3-referee-walkover-390")
    page.locator("input[name=outcome][value=played]").check()

    page.dblclick(".ref-save")  # a double tap
    page.wait_for_selector(".ref-ok")
    assert "Saved: this is the official result." in page.inner_text(".ref-saved")
    assert "2-0" in page.inner_text(".ref-final")
    assert no_overflow(page)
    shot(page, "4-referee-saved-390")

    result = Result.objects.get(fixture=semi)
    assert (result.home_goals, result.away_goals, result.recorded_by_id) == (2, 0, rui.pk)
    assert FixtureChange.objects.filter(fixture=semi, kind__in=["result", "correction"]).count() == 1

    # a retry after a lost answer: the same form sent again
    page.go_back()
    page.wait_for_selector("#referee-result")
    page.goto(f"{live_server.url}/competitions/lisbon-open/referee/")
    assert "Recorded by you" in page.inner_text("main") and page.locator(".ref-item").count() == 1
    shot(page, "5-referee-recorded-390")
    context.close()

    # a fixture at another table, on a phone in Spanish: refused, in Spanish
    context = chromium.new_context(**PHONE, locale="es-ES")
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/competitions/lisbon-open/referee/fixtures/{other.pk}/")
    assert "este partido está en la mesa 1; tú arbitras las mesas 3, 4" in page.inner_text(".ref-refusal").lower()
    assert page.locator("#referee-result").count() == 0
    assert no_overflow(page)
    shot(page, "6-referee-refused-es-390")
    context.close()
