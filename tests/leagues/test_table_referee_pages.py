"""The table referee's phone pages (COMPETITIONS.md §12): the fixtures called to their tables,
the result form (sent twice, stored once), the confirmation, refusals in the reader's language."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from leagues.models import Competition, Entrant, Fixture, FixtureChange, Player, Result
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from tests.leagues.forms_html import form_data

pytestmark = pytest.mark.django_db

User = get_user_model()


def hall(n=4, *, referee_tables=None, **kwargs):
    organiser = User.objects.create_user(username="organiser")
    rui = User.objects.create_user(username="rui", first_name="Rui", last_name="Costa")
    competition = Competition.objects.create(name="Open", slug="open", lots_seed=5, tables=4,
                                             referee_tables=referee_tables or {}, **kwargs)
    competition.organisers.add(organiser)
    competition.referees.add(rui)
    for i in range(1, n + 1):
        player = Player.objects.create(first_name=f"Player{i}", last_name="Hall", licence_number=f"H-{i}")
        Entrant.objects.create(competition=competition, name=f"P{i}", seed=i, player=player)
    fixtures_generate(competition=competition)
    client = Client()
    client.force_login(rui)
    return competition, organiser, rui, client


def called(fixture, table):
    Fixture.objects.filter(pk=fixture.pk).update(hall_table=table, called_at=timezone.now())
    fixture.refresh_from_db()
    return fixture


def form_url(fixture):
    return f"/competitions/{fixture.competition.slug}/referee/fixtures/{fixture.pk}/"


def the_form(client, fixture, **changes):
    page = client.get(form_url(fixture)).content.decode()
    data = form_data(page, "")
    data.update(changes)
    return data


def test_the_referees_page_lists_the_fixtures_at_their_tables_then_their_results():
    competition, organiser, rui, client = hall(referee_tables={"rui": [1, 2]})
    one, two, three, four = competition.fixtures.order_by("pk")[:4]
    called(one, 2), called(two, 3), called(three, 1)
    result_record(fixture=four, home_goals=4, away_goals=0, recorded_by=rui)
    page = client.get("/competitions/open/referee/").content.decode()
    assert "You record the results at tables 1, 2." in page
    waiting, recorded = page.split("Recorded by you")
    assert waiting.index(form_url(three)) < waiting.index(form_url(one))  # by table
    assert form_url(two) not in page  # table 3 is not his
    assert form_url(four) in recorded and "4-0" in recorded


def test_the_form_records_an_official_result_and_confirms_it():
    competition, organiser, rui, client = hall()
    fixture = called(competition.fixtures.order_by("pk").first(), 1)
    page = client.get(form_url(fixture)).content.decode()
    assert 'inputmode="numeric"' in page and "Player1 Hall" in page
    assert "home_et_goals" not in page and "home_shootout" not in page  # a league: no extra time
    response = client.post(form_url(fixture), the_form(client, fixture, home_goals="3", away_goals="1",
                                                       reason="clean game"), follow=True)
    assert response.redirect_chain[-1][0] == form_url(fixture) + "saved/"
    page = response.content.decode()
    assert "Saved: this is the official result." in page and "3-1" in page
    result = Result.objects.get(fixture=fixture)
    assert result.recorded_by == rui and result.reason == "clean game"
    change = FixtureChange.objects.get(fixture=fixture, kind="result")
    assert change.after["recorded_as"] == {"role": "referee", "table": 1}


def test_a_walkover_from_the_form_names_who_did_not_show():
    competition, organiser, rui, client = hall()
    fixture = called(competition.fixtures.order_by("pk").first(), 1)
    data = the_form(client, fixture, outcome="walkover", walkover_side="away")
    assert client.post(form_url(fixture), data).status_code == 302
    result = Result.objects.get(fixture=fixture)
    assert (result.outcome, result.outcome_side, result.winner_side) == ("walkover", "away", "home")


def test_the_form_sent_twice_stores_one_result_with_one_history_entry():
    competition, organiser, rui, client = hall()
    fixture = called(competition.fixtures.order_by("pk").first(), 1)
    data = the_form(client, fixture, home_goals="2", away_goals="2")
    assert client.post(form_url(fixture), data).status_code == 302
    again = client.post(form_url(fixture), data, follow=True)  # the answer was lost: the phone sends it again
    page = again.content.decode()
    assert again.redirect_chain[-1][0] == form_url(fixture) + "saved/"
    assert "This result was saved already; it is stored once." in page and "2-2" in page
    assert FixtureChange.objects.filter(fixture=fixture, kind__in=["result", "correction"]).count() == 1


def test_the_same_form_sent_with_another_score_shows_the_stored_result_and_changes_nothing():
    competition, organiser, rui, client = hall()
    fixture = called(competition.fixtures.order_by("pk").first(), 1)
    data = the_form(client, fixture, home_goals="2", away_goals="0")
    assert client.post(form_url(fixture), data).status_code == 302
    response = client.post(form_url(fixture), {**data, "home_goals": "5"}, follow=True)
    assert "This form was sent already, with another result" in response.content.decode()
    assert Result.objects.get(fixture=fixture).home_goals == 2
    # a new form (a new key) corrects it
    assert client.post(form_url(fixture), the_form(client, fixture, home_goals="5")).status_code == 302
    assert Result.objects.get(fixture=fixture).home_goals == 5


def test_a_knockout_form_has_extra_time_and_the_shoot_out():
    competition, organiser, rui, client = hall(n=2, format="knockout", extra_time=True, shootout=True)
    fixture = called(competition.fixtures.get(), 1)
    page = client.get(form_url(fixture)).content.decode()
    assert 'name="home_et_goals"' in page and 'name="away_shootout"' in page
    data = the_form(client, fixture, home_goals="1", away_goals="1", home_et_goals="0", away_et_goals="0",
                    home_shootout="3", away_shootout="2")
    assert client.post(form_url(fixture), data).status_code == 302
    result = Result.objects.get(fixture=fixture)
    assert (result.home_shootout, result.away_shootout, result.winner_side) == (3, 2, "home")


def test_a_refusal_is_said_in_the_readers_language():
    competition, organiser, rui, client = hall(referee_tables={"rui": [1]})
    fixture = called(competition.fixtures.order_by("pk").first(), 2)
    response = client.get(form_url(fixture), HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 403
    assert re.search(r"mesa 2.*mesa 1", response.content.decode())
    assert 'name="home_goals"' not in response.content.decode()


def test_the_form_refuses_a_correction_of_someone_elses_result():
    competition, organiser, rui, client = hall()
    fixture = called(competition.fixtures.order_by("pk").first(), 1)
    data = the_form(client, fixture, home_goals="1", away_goals="0")
    result_record(fixture=fixture, home_goals=0, away_goals=3, recorded_by=organiser)
    response = client.post(form_url(fixture), data)
    assert response.status_code == 403 and "organisers" in response.content.decode()
    assert Result.objects.get(fixture=fixture).away_goals == 3


def test_only_referees_and_organisers_open_the_referees_pages():
    competition, organiser, rui, client = hall()
    stranger = Client()
    stranger.force_login(User.objects.create_user(username="stranger"))
    assert stranger.get("/competitions/open/referee/").status_code == 403
    assert Client().get("/competitions/open/referee/").status_code == 302  # to sign in
    boss = Client()
    boss.force_login(organiser)
    assert boss.get("/competitions/open/referee/").status_code == 200


def test_the_competition_and_settings_pages_link_the_referees_page():
    competition, organiser, rui, client = hall()
    assert 'href="/competitions/open/referee/"' in client.get("/competitions/open/").content.decode()
    boss = Client()
    boss.force_login(organiser)
    assert 'href="/competitions/open/referee/"' in boss.get("/manage/open/settings/").content.decode()


def test_the_fixture_page_says_a_referee_recorded_the_result_at_their_table():
    competition, organiser, rui, client = hall()
    fixture = called(competition.fixtures.order_by("pk").first(), 2)
    assert client.post(form_url(fixture), the_form(client, fixture, home_goals="1", away_goals="0")).status_code == 302
    page = Client().get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "Recorded by referee Rui Costa at table 2." in page
    result_record(fixture=Fixture.objects.get(pk=fixture.pk), home_goals=2, away_goals=0, recorded_by=organiser)
    page = Client().get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "Recorded by referee" not in page and "Recorded by the organisers from the table." in page


def test_the_referees_pages_name_the_hall_table_as_the_organiser_named_it():
    competition, organiser, rui, client = hall(table_names=["Centre table"])
    fixture = called(competition.fixtures.order_by("pk").first(), 1)
    assert "Centre table" in client.get("/competitions/open/referee/").content.decode()
    assert "Table 1 · Centre table" in client.get(form_url(fixture)).content.decode()


def test_a_refused_form_is_headed_as_a_refusal_not_as_a_form():
    competition, organiser, rui, client = hall(referee_tables={"rui": [1]})
    fixture = called(competition.fixtures.order_by("pk").first(), 2)
    page = client.get(form_url(fixture)).content.decode()
    assert "You cannot record this result" in page and "Record the result" not in page


def test_a_fixture_not_at_a_table_is_headed_by_its_round_without_a_stray_separator():
    # The call was withdrawn while the referee had the page open: no table to name.
    competition, organiser, rui, client = hall()
    fixture = competition.fixtures.order_by("pk").first()
    page = client.get(form_url(fixture)).content.decode()
    heading = re.search(r'<p class="ref-table">(.*?)</p>', page, re.S).group(1)
    text = re.sub(r"<[^>]+>", "", heading).strip()
    assert text.startswith("Round 1") and "·" not in text.split("Round")[0]
    called(fixture, 2)
    heading = re.search(r'<p class="ref-table">(.*?)</p>', client.get(form_url(fixture)).content.decode(), re.S).group(1)
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", heading)).strip().startswith("Table 2 · Round 1")


def test_a_signed_in_person_who_is_no_referee_is_told_why_in_their_language():
    competition, organiser, rui, client = hall()
    stranger = Client(HTTP_ACCEPT_LANGUAGE="es")
    stranger.force_login(User.objects.create_user(username="stranger"))
    answer = stranger.get("/competitions/open/referee/")
    assert answer.status_code == 403
    page = answer.content.decode()
    assert 'id="forbidden"' in page and "/accounts/login/?next=/competitions/open/referee/" in page
    assert "Not for this account" not in page and "403 Forbidden" not in page  # in Spanish, not Django's bare page
