"""Every date-time of an organiser's form is shown and read in the competition's time zone,
with the zone beside it, so a form saved as it was shown changes nothing: the settings, the
registration (opened with its defaults, then saved again), a fixture's kick-off (a time in the
hour the clocks repeat too) and a round's; in three zones, before and after a daylight-saving
change (London's clocks go forward at 01:00 UTC on 28 March 2027 and back at 01:00 UTC on
31 October 2027). The time zone is one of the IANA names, the federation's by default."""
from __future__ import annotations

import datetime as dt

import pytest
from django.forms.models import model_to_dict
from django.test import Client

from leagues.form_fields import time_zone_names
from leagues.models import Competition, Entrant, Fixture, FixtureChange, Registration, Result
from leagues.services.fixtures import fixtures_generate
from leagues.services.registration import registration_open
from tests.leagues.factories import UserFactory
from tests.leagues.forms_html import form_data

UTC = dt.UTC
ZONES = ["America/Sao_Paulo", "Asia/Tokyo", "Europe/London"]
# before London's spring change, and after it
NOWS = [dt.datetime(2027, 3, 20, 10, 7, 41, tzinfo=UTC), dt.datetime(2027, 4, 10, 10, 7, 41, tzinfo=UTC)]


def closes(now: dt.datetime) -> dt.datetime:
    """A closing time with seconds (shown to the minute, kept to the second), 8 days on: after
    the spring change from before it."""
    return now.replace(hour=5, minute=57, second=23) + dt.timedelta(days=8)


# 01:30 in London's repeated hour, its second time (GMT): shown "01:30" like the first (BST)
REPEATED = dt.datetime(2027, 10, 31, 1, 30, tzinfo=UTC)


def _setup(zone: str, now: dt.datetime):
    competition = Competition.objects.create(
        name="Taça", slug="taca", time_zone=zone, first_date=dt.date(2027, 11, 6), kickoff_time=dt.time(15, 30),
        lots_seed=1)
    organiser = UserFactory(username="org")
    competition.organisers.add(organiser)
    for i in range(1, 5):
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i)
    client = Client()
    client.force_login(organiser)
    return competition, client


def _competition_state(competition: Competition) -> dict:
    state = model_to_dict(Competition.objects.get(pk=competition.pk))
    state.pop("organisers", None)
    return state


@pytest.mark.django_db
@pytest.mark.parametrize("now", NOWS, ids=["before-dst", "after-dst"])
@pytest.mark.parametrize("zone", ZONES)
def test_every_organiser_form_saved_untouched_changes_nothing(zone, now, time_machine):
    time_machine.move_to(now, tick=False)
    competition, client = _setup(zone, now)

    # registration opened with the form's defaults: from now (to the minute), for two weeks
    page = client.get(f"/manage/{competition.slug}/").content.decode()
    action = f"/manage/{competition.slug}/registration/"
    data = form_data(page, action)
    assert client.post(action, data).status_code == 302
    registration = Registration.objects.get(competition=competition)
    assert registration.opens_at == now.replace(second=0)
    assert registration.closes_at == now.replace(second=0) + dt.timedelta(days=14)
    assert f'<span class="zone-name">{zone}</span>' in page

    # saved again untouched, with a closing time that has seconds
    registration_open(competition=competition, opens_at=registration.opens_at, closes_at=closes(now), capacity=16)
    for _save in range(2):
        page = client.get(f"/manage/{competition.slug}/").content.decode()
        data = form_data(page, action)
        assert data["closes_at"] == closes(now).astimezone(competition.zone).strftime("%Y-%m-%dT%H:%M")
        assert client.post(action, data).status_code == 302
        registration = Registration.objects.get(competition=competition)
        assert (registration.opens_at, registration.closes_at) == (now.replace(second=0), closes(now))

    # the settings
    before = _competition_state(competition)
    page = client.get(f"/manage/{competition.slug}/settings/").content.decode()
    data = form_data(page, "")
    assert data["time_zone"] == zone
    response = client.post(f"/manage/{competition.slug}/settings/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert _competition_state(competition) == before

    # a fixture's kick-off, in London's repeated hour
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.exclude(status=Fixture.Status.BYE).order_by("pk").first()
    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=REPEATED)
    changes = FixtureChange.objects.count()
    page = client.get(f"/fixtures/{fixture.pk}/").content.decode()
    action = f"/manage/fixtures/{fixture.pk}/reschedule/"
    data = form_data(page, action)
    assert data["kickoff"] == REPEATED.astimezone(competition.zone).strftime("%Y-%m-%dT%H:%M")
    assert client.post(action, data).status_code == 302
    assert Fixture.objects.get(pk=fixture.pk).kickoff_at == REPEATED
    assert FixtureChange.objects.count() == changes

    # a round's kick-off: untouched, it has none to give, and nothing moves
    kickoffs = dict(Fixture.objects.values_list("pk", "kickoff_at"))
    page = client.get(f"/manage/{competition.slug}/").content.decode()
    action = f"/manage/{competition.slug}/reschedule-round/"
    assert client.post(action, form_data(page, action)).status_code == 302
    assert dict(Fixture.objects.values_list("pk", "kickoff_at")) == kickoffs
    assert FixtureChange.objects.count() == changes


@pytest.mark.django_db
def test_a_time_given_in_the_form_is_read_in_the_competitions_zone(time_machine):
    time_machine.move_to(NOWS[0], tick=False)
    competition, client = _setup("America/Sao_Paulo", NOWS[0])
    response = client.post(f"/manage/{competition.slug}/registration/", {
        "opens_at": "2027-03-20T09:00", "closes_at": "2027-04-03T21:30", "capacity": 8})
    assert response.status_code == 302
    registration = Registration.objects.get(competition=competition)
    assert registration.opens_at == dt.datetime(2027, 3, 20, 12, 0, tzinfo=UTC)
    assert registration.closes_at == dt.datetime(2027, 4, 4, 0, 30, tzinfo=UTC)


@pytest.mark.django_db
def test_the_time_zone_is_chosen_from_the_iana_names_the_federations_by_default(settings):
    settings.FEDERATION_TIME_ZONE = "Europe/Lisbon"
    organiser = UserFactory(username="boss", is_superuser=True, is_staff=True)
    client = Client()
    client.force_login(organiser)
    page = client.get("/manage/new/").content.decode()
    data = form_data(page, "")
    assert data["time_zone"] == "Europe/Lisbon"
    assert '<datalist id="id_time_zone-choices">' in page and '<option value="Asia/Tokyo">' in page
    assert "Europe/Lisbon" in time_zone_names() and "UTC" in time_zone_names()
    data.update(name="Open de Lisboa", time_zone="Mars/Olympus")
    response = client.post("/manage/new/", data)
    assert response.status_code == 200 and "Mars/Olympus is not a time zone" in response.content.decode()
    assert not Competition.objects.filter(name="Open de Lisboa").exists()
    assert Competition.objects.create(name="X", slug="x").time_zone == "Europe/Lisbon"


@pytest.mark.django_db
def test_the_result_form_saved_untouched_records_nothing_again(django_capture_on_commit_callbacks):
    competition, client = _setup("Asia/Tokyo", NOWS[0])
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.exclude(status=Fixture.Status.BYE).order_by("pk").first()
    action = f"/manage/fixtures/{fixture.pk}/result/"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(action, {**form_data(client.get(action).content.decode(), ""), "home_goals": 2, "away_goals": 1})
    result = Result.objects.get(fixture=fixture)
    changes = FixtureChange.objects.filter(fixture=fixture).count()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(action, form_data(client.get(action).content.decode(), ""))
    assert response.status_code in (200, 302)
    again = Result.objects.get(fixture=fixture)
    assert (again.home_goals, again.away_goals, again.recorded_at) == (2, 1, result.recorded_at)
    assert FixtureChange.objects.filter(fixture=fixture).count() == changes
