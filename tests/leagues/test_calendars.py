"""iCal feeds (issue 18): per competition, club and player; valid for two independent parsers
(icalendar and vobject), with the competition's VTIMEZONE and TZID, stable UIDs, a SEQUENCE
derived from the fixture's history of reschedules, a cancelled fixture as STATUS:CANCELLED;
linked from the pages as webcal:// and https://."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
import vobject
from django.test import Client
from icalendar import Calendar

from leagues.downloads.vtimezone import transitions, vtimezone
from leagues.models import ClubMembership, Competition, Entrant, Fixture
from leagues.services.entrants import entrant_withdraw
from leagues.services.fixtures import fixtures_generate
from leagues.services.kickoffs import fixture_reschedule
from leagues.services.results import result_record

from .factories import ClubFactory, PlayerFactory

pytestmark = pytest.mark.django_db

MADRID = ZoneInfo("Europe/Madrid")
UTC = dt.UTC
T0 = dt.datetime(2026, 3, 20, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SITE_URL = "https://botonera.example"


def league(slug="liga-cal", zone="Europe/Madrid", n=4, clubs=None, players=None, **kwargs):
    """A league of ``n`` entrants (E1..En) with its fixtures, round 1 on 2026-03-28 at 18:00 local."""
    competition = Competition.objects.create(
        name=f"Liga {slug}", slug=slug, time_zone=zone, first_date=dt.date(2026, 3, 28),
        kickoff_time=dt.time(18, 0), days_between_rounds=7, lots_seed=3, **kwargs)
    for i in range(1, n + 1):
        Entrant.objects.create(competition=competition, name=f"E{i} {slug}", seed=i,
                               club=(clubs or {}).get(i), player=(players or {}).get(i))
    fixtures_generate(competition=competition, now=T0)
    return competition


def fetch(path: str) -> bytes:
    response = Client().get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return response.content


def events(body: bytes) -> dict[str, object]:
    calendar = Calendar.from_ical(body)
    return {str(e["UID"]): e for e in calendar.walk("VEVENT")}


def test_a_competition_feed_is_valid_for_two_parsers_with_its_zone_and_stable_uids():
    competition = league()
    body = fetch(f"/competitions/{competition.slug}/calendar.ics")

    calendar = Calendar.from_ical(body)
    assert [str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE")] == ["Europe/Madrid"]
    assert str(calendar["X-WR-TIMEZONE"]) == "Europe/Madrid" and str(calendar["METHOD"]) == "PUBLISH"
    fixtures = list(competition.fixtures.exclude(status=Fixture.Status.BYE))
    found = events(body)
    assert set(found) == {f"fixture-{f.pk}@botonera.example" for f in fixtures}
    for fixture in fixtures:
        event = found[f"fixture-{fixture.pk}@botonera.example"]
        assert event["DTSTART"].params["TZID"] == "Europe/Madrid"
        assert event.decoded("DTSTART") == fixture.kickoff_at  # the same instant
        assert event.decoded("DTSTART").astimezone(MADRID).hour == 18  # 18:00 there, CET or CEST
        assert int(event["SEQUENCE"]) == 0 and str(event["STATUS"]) == "CONFIRMED"
        assert str(event["URL"]) == f"https://botonera.example/fixtures/{fixture.pk}/"

    # a second, independent parser reads the same events at the same instants
    parsed = vobject.readOne(body.decode("utf-8"))
    by_uid = {e.uid.value: e for e in parsed.vevent_list}
    assert set(by_uid) == set(found)
    for uid, event in by_uid.items():
        assert event.dtstart.value == found[uid].decoded("DTSTART")
        assert event.dtstart.value.utcoffset() == found[uid].decoded("DTSTART").utcoffset()
        assert int(event.sequence.value) == 0

    # the same feed twice: the same bytes (nothing in it depends on the moment it is asked)
    assert fetch(f"/competitions/{competition.slug}/calendar.ics") == body


def test_a_reschedule_bumps_the_sequence_and_keeps_the_uid():
    competition = league()
    fixture = competition.fixtures.order_by("pk").first()
    uid = f"fixture-{fixture.pk}@botonera.example"
    path = f"/competitions/{competition.slug}/calendar.ics"
    assert int(events(fetch(path))[uid]["SEQUENCE"]) == 0

    new = dt.datetime(2026, 4, 2, 20, 30, tzinfo=MADRID)
    fixture_reschedule(fixture=fixture, kickoff_at=new, reason="the hall is taken", now=T0)
    event = events(fetch(path))[uid]
    assert int(event["SEQUENCE"]) == 1 and event.decoded("DTSTART") == new
    assert event.decoded("DTSTAMP") == T0  # the time of the change, not of the download

    fixture_reschedule(fixture=fixture, kickoff_at=new + dt.timedelta(days=1), now=T0 + dt.timedelta(hours=1))
    body = fetch(path)
    assert int(events(body)[uid]["SEQUENCE"]) == 2
    assert int({e.uid.value: e for e in vobject.readOne(body.decode()).vevent_list}[uid].sequence.value) == 2
    # the other fixtures were not moved: still sequence 0
    others = [e for u, e in events(body).items() if u != uid]
    assert others and {int(e["SEQUENCE"]) for e in others} == {0}


def test_a_result_is_no_reschedule_but_shows_the_score():
    competition = league()
    fixture = competition.fixtures.order_by("pk").first()
    result_record(fixture=fixture, home_goals=2, away_goals=1)
    event = events(fetch(f"/competitions/{competition.slug}/calendar.ics"))[f"fixture-{fixture.pk}@botonera.example"]
    assert int(event["SEQUENCE"]) == 0
    assert str(event["SUMMARY"]) == f"{fixture.home.name} 2–1 {fixture.away.name}"


def test_a_cancelled_fixture_is_sent_as_cancelled_with_a_new_sequence():
    competition = league(withdrawal_policy=Competition.WithdrawalPolicy.ANNUL)
    withdrawn = competition.entrants.get(seed=4)
    entrant_withdraw(entrant=withdrawn, now=T0)
    cancelled = list(competition.fixtures.filter(status=Fixture.Status.CANCELLED))
    assert len(cancelled) == 3
    body = fetch(f"/competitions/{competition.slug}/calendar.ics")
    found = events(body)
    parsed = {e.uid.value: e for e in vobject.readOne(body.decode()).vevent_list}
    for fixture in cancelled:
        uid = f"fixture-{fixture.pk}@botonera.example"
        assert str(found[uid]["STATUS"]) == "CANCELLED" and int(found[uid]["SEQUENCE"]) == 1
        assert parsed[uid].status.value == "CANCELLED"
    playing = [e for e in found.values() if str(e["STATUS"]) != "CANCELLED"]
    assert len(playing) == 3 and all(int(e["SEQUENCE"]) == 0 for e in playing)


def test_a_fixture_with_a_day_and_no_time_is_an_all_day_event():
    competition = league(n=2)
    fixture = competition.fixtures.get()
    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=None, date=dt.date(2026, 5, 1))
    event = events(fetch(f"/competitions/{competition.slug}/calendar.ics"))[f"fixture-{fixture.pk}@botonera.example"]
    assert event.decoded("DTSTART") == dt.date(2026, 5, 1) and event.decoded("DTEND") == dt.date(2026, 5, 2)


def test_club_and_player_feeds_hold_their_fixtures_each_in_its_competitions_zone():
    club = ClubFactory(slug="mesa-verde")
    player = PlayerFactory()
    ClubMembership.objects.create(player=player, club=club, start_date=dt.date(2020, 1, 1))
    madrid = league("liga-madrid", "Europe/Madrid", clubs={1: club}, players={1: player})
    sao_paulo = league("liga-sp", "America/Sao_Paulo", clubs={2: club})
    league("liga-other", "Europe/Lisbon")

    body = fetch(f"/clubs/{club.slug}/calendar.ics")
    ours = set(Fixture.objects.filter(competition__in=[madrid, sao_paulo]).filter(
        home__club=club).values_list("pk", flat=True)) | set(Fixture.objects.filter(away__club=club).values_list("pk", flat=True))
    assert set(events(body)) == {f"fixture-{pk}@botonera.example" for pk in ours}
    calendar = Calendar.from_ical(body)
    assert sorted(str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE")) == ["America/Sao_Paulo", "Europe/Madrid"]
    for event in calendar.walk("VEVENT"):
        fixture = Fixture.objects.select_related("competition").get(pk=int(str(event["UID"]).split("-")[1].split("@")[0]))
        assert event["DTSTART"].params["TZID"] == fixture.competition.time_zone
    assert len(vobject.readOne(body.decode()).vevent_list) == len(ours)

    body = fetch(f"/players/{player.pk}/calendar.ics")
    theirs = madrid.fixtures.filter(home__player=player) | madrid.fixtures.filter(away__player=player)
    assert set(events(body)) == {f"fixture-{f.pk}@botonera.example" for f in theirs}
    assert str(Calendar.from_ical(body)["X-WR-CALNAME"]) == player.full_name


def test_the_pages_link_their_feeds_as_webcal_and_https():
    club = ClubFactory(slug="flick-united")
    player = PlayerFactory()
    competition = league(clubs={1: club}, players={1: player})
    client = Client()
    for page, feed in ((f"/competitions/{competition.slug}/", f"/competitions/{competition.slug}/calendar.ics"),
                       (f"/clubs/{club.slug}/", f"/clubs/{club.slug}/calendar.ics"),
                       (f"/players/{player.pk}/", f"/players/{player.pk}/calendar.ics")):
        html = client.get(page, secure=True).content.decode()
        assert f'href="webcal://testserver{feed}"' in html, page
        assert f'value="https://testserver{feed}"' in html, page


@pytest.mark.parametrize("path", ["/competitions/nope/calendar.ics", "/clubs/nope/calendar.ics",
                                  "/players/999999/calendar.ics"])
def test_an_unknown_feed_is_a_404(path):
    assert Client().get(path).status_code == 404


@pytest.mark.parametrize("name", ["Europe/Madrid", "America/Sao_Paulo", "Asia/Tehran", "Australia/Lord_Howe", "UTC"])
def test_the_vtimezone_gives_the_zones_offset_at_every_moment_to_an_independent_reader(name):
    """Our VTIMEZONE read by vobject (dateutil's reader) gives zoneinfo's offset around every
    change of 2017-2027 (summer time kept, given up, on fixed days, by half an hour) and at noon
    every day; only the hour repeated when clocks go back is ambiguous in local time."""
    start, end = dt.date(2017, 1, 1), dt.date(2028, 1, 1)
    text = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
            + vtimezone(name, start, end).to_ical().decode() + "END:VCALENDAR\r\n")
    theirs = vobject.readOne(text).vtimezone.gettzinfo()
    zone = ZoneInfo(name)
    moments = [dt.datetime(2017, 1, 1, 12, tzinfo=UTC) + dt.timedelta(days=d) for d in range(0, 4000)]
    for change in transitions(zone, start, end):
        moments += [change.at + dt.timedelta(minutes=m) for m in (-61, -1, 0, 1, 61)]
    checked = 0
    for moment in moments:
        local = moment.astimezone(zone)
        naive = local.replace(tzinfo=None)
        if naive.replace(fold=0, tzinfo=zone).utcoffset() != naive.replace(fold=1, tzinfo=zone).utcoffset():
            continue  # in the gap or the repeated hour: local time alone does not say
        assert naive.replace(tzinfo=theirs).utcoffset() == local.utcoffset(), (name, moment)
        checked += 1
    assert checked >= 3990


def test_a_calendar_asking_again_for_an_unchanged_feed_gets_a_304_and_a_changed_one_the_feed():
    competition = league(n=2)
    path = f"/competitions/{competition.slug}/calendar.ics"
    client = Client()
    first = client.get(path)
    assert client.head(path).status_code == 200  # some calendar programs ask with HEAD first
    assert client.get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    fixture_reschedule(fixture=competition.fixtures.get(), kickoff_at=dt.datetime(2026, 4, 1, 19, 0, tzinfo=MADRID))
    again = client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]
