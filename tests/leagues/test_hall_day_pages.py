"""The organisers' page of a tournament day, and the call as the other pages show it: the
tables, the ready fixtures and their "Call to table" forms, a refusal in the reader's language,
the fixture's page ("Table 2, called 14:05"), the player's page (their called fixture first), the
round sheet and the fixtures export with a hall table column, the settings form's hall fields."""
from __future__ import annotations

import csv
import io
from datetime import UTC, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from leagues.models import Competition, Fixture, FixtureChange
from tests.leagues.forms_html import form_data
from tests.leagues.test_hall_calls import hall

pytestmark = pytest.mark.django_db(transaction=True)


def browser(username, language="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(get_user_model().objects.get(username=username))
    return client


def first_two(competition) -> list[Fixture]:
    return list(competition.fixtures.filter(round__number=1).order_by("position"))


def test_the_day_page_shows_the_tables_the_ready_fixtures_and_calls_from_its_form():
    competition, _api = hall(4, tables=2, table_names=["Centre"])
    organiser = browser("day-organiser")
    manage = organiser.get(f"/manage/{competition.slug}/").content.decode()
    assert f"/manage/{competition.slug}/day/" in manage
    page = organiser.get(f"/manage/{competition.slug}/day/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="table-1"' in html and 'id="table-2"' in html and "Centre" in html
    first, second = first_two(competition)
    assert f"/manage/fixtures/{first.pk}/call/" in html and f"/manage/fixtures/{second.pk}/call/" in html
    response = organiser.post(f"/manage/fixtures/{first.pk}/call/", {"hall_table": "1"}, follow=True)
    html = response.content.decode()
    assert "is called to table 1 · Centre" in html
    first.refresh_from_db()
    assert first.hall_table == 1
    assert f"/manage/fixtures/{first.pk}/uncall/" in html and f"/manage/fixtures/{first.pk}/call/" not in html
    response = organiser.post(f"/manage/fixtures/{first.pk}/uncall/", follow=True)
    assert "is withdrawn" in response.content.decode()
    first.refresh_from_db()
    assert first.hall_table is None
    assert FixtureChange.objects.filter(fixture=first, kind__in=["called", "uncalled"]).count() == 2
    history = organiser.get(f"/fixtures/{first.pk}/").content.decode()
    assert "Called to a hall table" in history and "— → table 1" in history and "table 1 → —" in history


def test_a_refused_call_is_said_in_the_readers_language():
    competition, _api = hall(4, tables=2)
    first, second = first_two(competition)
    organiser = browser("day-organiser", "es")
    organiser.post(f"/manage/fixtures/{first.pk}/call/", {"hall_table": "1"})
    response = organiser.post(f"/manage/fixtures/{second.pk}/call/", {"hall_table": "1"}, follow=True)
    html = response.content.decode()
    assert "La mesa 1 está ocupada" in html
    assert "Las mesas ahora" in html and "Listos para llamar" in html and "Round 1" not in html
    second.refresh_from_db()
    assert second.hall_table is None


def test_the_day_page_is_the_organisers_only():
    competition, _api = hall(4, tables=2)
    fixture = first_two(competition)[0]
    player = browser("day-e1")
    assert player.get(f"/manage/{competition.slug}/day/").status_code == 403
    assert player.post(f"/manage/fixtures/{fixture.pk}/call/", {"hall_table": "1"}).status_code == 403
    fixture.refresh_from_db()
    assert fixture.hall_table is None


def test_the_call_shows_on_the_fixture_page_and_first_on_the_players_page():
    competition, api = hall(4, tables=2, time_zone="Europe/Lisbon")
    fixtures = list(competition.fixtures.order_by("round__number", "position"))
    mine = [f for f in fixtures if "E4" in (f.home.name, f.away.name)]
    called = mine[-1]  # their last fixture in the draw: the call puts it first
    assert api.post(f"/api/fixtures/{called.pk}/call/", {"hall_table": 2}, format="json").status_code == 200
    called.refresh_from_db()
    at = timezone.localtime(called.called_at, competition.zone).strftime("%H:%M")
    page = Client().get(f"/fixtures/{called.pk}/").content.decode()
    assert f"Table 2, called {at}" in page
    player = called.home.player if called.home.name == "E4" else called.away.player
    html = Client().get(f"/players/{player.pk}/").content.decode()
    assert "Table 2 now" in html
    positions = [html.find(f"/fixtures/{f.pk}/") for f in mine]
    assert positions[-1] != -1 and positions[-1] == min(p for p in positions if p != -1)


def test_the_round_sheet_and_the_fixtures_export_carry_the_hall_table():
    competition, api = hall(4, tables=2)
    first = first_two(competition)[0]
    assert api.post(f"/api/fixtures/{first.pk}/call/", {"hall_table": 2}, format="json").status_code == 200
    api.post(f"/api/fixtures/{first.pk}/result/", {"home_goals": 1, "away_goals": 0}, format="json")
    sheet = Client().get(f"/competitions/{competition.slug}/rounds/{first.round_id}/print/").content.decode()
    assert "Hall table" in sheet and '<td class="hall">2</td>' in sheet
    rows = list(csv.DictReader(io.StringIO(
        Client().get(f"/competitions/{competition.slug}/export/fixtures.csv").content.decode())))
    by_id = {int(float(row["id"])): row for row in rows}
    assert by_id[first.pk]["hall_table"] in ("2", "2.0")
    plain, _api = hall(2, tables=0, slug="plain")
    header = Client().get("/competitions/plain/export/fixtures.csv").content.decode().splitlines()[0]
    assert "hall_table" not in header
    assert "Hall table" not in Client().get(
        f"/competitions/plain/rounds/{plain.fixtures.first().round_id}/print/").content.decode()


def test_the_settings_form_sets_the_hall_and_refuses_too_many_table_names():
    competition, _api = hall(4, tables=0)
    organiser = browser("day-organiser")
    form = organiser.get(f"/manage/{competition.slug}/settings/").content.decode()
    for name in ("tables", "table_names", "min_rest_minutes", "auto_call"):
        assert f'name="{name}"' in form
    data = form_data(form, "")
    data.update(tables="2", table_names="Centre\nWindow\nDoor", min_rest_minutes="5")
    response = organiser.post(f"/manage/{competition.slug}/settings/", data)
    assert response.status_code == 200 and "3 names for 2 tables" in response.content.decode()
    data.update(table_names="Centre\n\n")
    response = organiser.post(f"/manage/{competition.slug}/settings/", data)
    assert response.status_code == 302
    competition.refresh_from_db()
    assert (competition.tables, competition.table_names, competition.min_rest_minutes) == (2, ["Centre"], 5)
    assert Competition.objects.get(pk=competition.pk).auto_call is False


def test_call_the_next_to_every_free_table_fills_them_in_order():
    competition, _api = hall(6, tables=2)
    organiser = browser("day-organiser")
    assert 'id="call-next"' in organiser.get(f"/manage/{competition.slug}/day/").content.decode()
    response = organiser.post(f"/manage/{competition.slug}/day/call-next/", follow=True)
    assert "2 fixtures are called." in response.content.decode()
    round_one = list(competition.fixtures.filter(round__number=1).order_by("position"))
    assert [f.hall_table for f in round_one] == [1, 2, None]
    assert FixtureChange.objects.get(fixture=round_one[0], kind="called").by.username == "day-organiser"
    response = organiser.post(f"/manage/{competition.slug}/day/call-next/", follow=True)
    assert "Nothing to call" in response.content.decode()


def test_the_day_page_says_each_fixtures_group_in_the_ready_list_and_at_its_table():
    competition, _api = hall(8, tables=2, slug="day-groups", format=Competition.Format.GROUPS_KNOCKOUT, group_count=2)
    organiser = browser("day-groups-organiser")
    fixture = competition.fixtures.filter(group__name="B").order_by("round__number", "position").first()
    ready = organiser.get(f"/manage/{competition.slug}/day/").content.decode()
    assert "Group B · Round 1" in ready
    organiser.post(f"/manage/fixtures/{fixture.pk}/call/", {"hall_table": "2"})
    html = organiser.get(f"/manage/{competition.slug}/day/").content.decode()
    table = html.split('id="table-2"', 1)[1].split("</li>", 1)[0]
    assert "Group B · Round 1" in table


def test_the_day_page_gives_the_call_and_the_rest_in_the_competitions_time_zone():
    # A hall three hours behind UTC: the wall clock, not the server's, says when a fixture was
    # called and when a resting player may be called again.
    competition, api = hall(4, tables=2, time_zone="America/Sao_Paulo", min_rest_minutes=30)
    first, second = first_two(competition)
    assert api.post(f"/api/fixtures/{first.pk}/call/", {"hall_table": 1}, format="json").status_code == 200
    first.refresh_from_db()
    local = timezone.localtime(first.called_at, competition.zone).strftime("%H:%M")
    utc = timezone.localtime(first.called_at, UTC).strftime("%H:%M")
    assert local != utc
    html = browser("day-organiser").get(f"/manage/{competition.slug}/day/").content.decode()
    assert f"called {local}" in html and f"called {utc}" not in html
    assert api.post(f"/api/fixtures/{first.pk}/result/", {"home_goals": 1, "away_goals": 0},
                    format="json").status_code in (200, 201)
    first.refresh_from_db()
    ended = first.result.recorded_at + timedelta(minutes=30)
    local = timezone.localtime(ended, competition.zone).strftime("%H:%M")
    utc = timezone.localtime(ended, UTC).strftime("%H:%M")
    html = browser("day-organiser").get(f"/manage/{competition.slug}/day/").content.decode()
    assert f"from {local}" in html and f"from {utc}" not in html


def test_a_result_recorded_from_the_day_page_goes_back_to_the_day_page():
    competition, api = hall(4, tables=2)
    first, _second = first_two(competition)
    assert api.post(f"/api/fixtures/{first.pk}/call/", {"hall_table": 1}, format="json").status_code == 200
    organiser = browser("day-organiser")
    day = f"/manage/{competition.slug}/day/"
    link = f"/manage/fixtures/{first.pk}/result/?from=day"
    assert link in organiser.get(day).content.decode()
    data = form_data(organiser.get(link).content.decode(), "")
    data.update(outcome="played", home_goals="2", away_goals="1")
    response = organiser.post(link, data)
    assert response.status_code == 302 and response["Location"] == day
    first.refresh_from_db()
    assert first.status == "played" and first.hall_table == 1
    assert organiser.post(link, data)["Location"] == day  # saved again untouched: back there too
    # opened from anywhere else, the form goes to the fixture's page as before
    form = f"/manage/fixtures/{first.pk}/result/"
    data = form_data(organiser.get(form).content.decode(), "")
    data.update(home_goals="3")
    assert organiser.post(form, data)["Location"] == f"/fixtures/{first.pk}/"


def test_a_call_from_a_page_opened_before_another_call_does_not_move_the_fixture():
    # Two tabs (or two organisers) show the same ready fixture: the first calls it to table 1,
    # the other, not reloaded, to table 2. The players were sent to table 1: it stays there.
    competition, _api = hall(4, tables=2)
    first, _second = first_two(competition)
    organiser = browser("day-organiser")
    organiser.post(f"/manage/fixtures/{first.pk}/call/", {"hall_table": "1"})
    response = organiser.post(f"/manage/fixtures/{first.pk}/call/", {"hall_table": "2"}, follow=True)
    assert "is at table 1 already: withdraw that call first" in response.content.decode()
    first.refresh_from_db()
    assert first.hall_table == 1
    assert FixtureChange.objects.filter(fixture=first, kind="called").count() == 1
    organiser.post(f"/manage/fixtures/{first.pk}/call/", {"hall_table": "1"})  # a double click: still one call
    assert FixtureChange.objects.filter(fixture=first, kind="called").count() == 1
