"""The organisers' tournament day page in Chromium (``tests.browser``) at 1280 px and on a 390 px
phone: the tables, a call made from the page's form, a refusal, no sideways scrolling.
Screenshots go to ``SCREENSHOTS_DIR`` (default ``/tmp/botonera-screens``) for a person to look at."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.browser import chromium as launch_chromium
from tests.leagues.test_hall_calls import hall
from tests.leagues.test_players_week_browser import DESKTOP, PHONE, no_overflow, shot, signed_in


@pytest.fixture
def chromium():
    with launch_chromium() as browser:
        yield browser


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_tournament_day_page_at_1280_and_390(live_server, chromium):
    competition, api = hall(8, tables=4, table_names=["Centre table", "", "Window"], min_rest_minutes=10)
    organiser = get_user_model().objects.get(username="day-organiser")
    first = competition.fixtures.filter(round__number=1).order_by("position").first()
    assert api.post(f"/api/fixtures/{first.pk}/call/", {"hall_table": 1}, format="json").status_code == 200
    url = f"{live_server.url}/manage/{competition.slug}/day/"
    for name, device in (("desktop", DESKTOP), ("phone", PHONE)):
        context = signed_in(chromium, live_server, organiser, device)
        page = context.new_page()
        page.goto(url)
        assert page.locator(".hall-table").count() == 4
        assert page.locator("#table-1 .hall-table-pairing").inner_text() == str(first)
        assert no_overflow(page), name
        shot(page, f"hall-day-{name}")
        if name == "desktop":
            form = page.locator("form.call-form").first
            form.locator("select").select_option("2")
            form.locator("button").click()
            page.wait_for_load_state()
            assert "is called to table 2" in page.inner_text("body")
            assert page.locator("#table-2.busy").count() == 1
            shot(page, "hall-day-desktop-called")
        context.close()
