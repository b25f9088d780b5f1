"""Time zones (issue 18): times are stored in UTC and shown in the competition's zone (with the
reader's own beside them, by static/js/local-time.js); the board's clocks and deadlines count
real seconds, so a daylight-saving change of the competition's zone in the middle of a match,
or of a check-in window, moves nothing. Time comes in as data."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test import Client

from leagues.models import Competition, Entrant, Fixture
from leagues.services.fixtures import fixtures_generate
from leagues.services.kickoffs import fixture_reschedule
from matches.models import Match, MatchAction
from matches.services import deadlines, online, play
from tests.matches.conftest import make_league, result_of, setup_match, users_of

UTC = dt.UTC
MADRID = ZoneInfo("Europe/Madrid")
# Madrid's clocks: 02:00 CET -> 03:00 CEST at 01:00 UTC on 29 March 2026; 03:00 CEST -> 02:00 CET
# at 01:00 UTC on 25 October 2026
SPRING = dt.datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
AUTUMN = dt.datetime(2026, 10, 25, 1, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_kick_offs_keep_the_local_time_across_a_change_and_are_stored_in_utc():
    competition = Competition.objects.create(
        name="Liga de Madrid", slug="liga-madrid", time_zone="Europe/Madrid", first_date=dt.date(2026, 3, 21),
        kickoff_time=dt.time(18, 0), days_between_rounds=7, lots_seed=1)
    for i in range(1, 5):
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i)
    fixtures_generate(competition=competition)
    by_round = {f.round.number: f for f in competition.fixtures.select_related("round").order_by("position")}
    # 18:00 in Madrid every round: 17:00 UTC before the change, 16:00 UTC after it
    assert by_round[1].kickoff_at == dt.datetime(2026, 3, 21, 17, 0, tzinfo=UTC)
    assert by_round[2].kickoff_at == dt.datetime(2026, 3, 28, 17, 0, tzinfo=UTC)
    assert by_round[3].kickoff_at == dt.datetime(2026, 4, 4, 16, 0, tzinfo=UTC)

    # a reschedule given in another zone is stored as the instant, in UTC
    moved = fixture_reschedule(fixture=by_round[1], kickoff_at=dt.datetime(2026, 3, 29, 2, 30, tzinfo=ZoneInfo("Asia/Tokyo")))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT kickoff_at AT TIME ZONE 'UTC' FROM leagues_fixture WHERE id = %s", [moved.pk])
            assert cursor.fetchone()[0] == dt.datetime(2026, 3, 28, 17, 30)
        else:
            cursor.execute("SELECT kickoff_at FROM leagues_fixture WHERE id = %s", [moved.pk])
            assert str(cursor.fetchone()[0]).startswith("2026-03-28 17:30:00")
    assert Fixture.objects.get(pk=moved.pk).date == dt.date(2026, 3, 28)  # the day in Madrid


@pytest.mark.django_db
def test_pages_show_kick_offs_in_the_competitions_zone_marked_for_the_readers_own():
    competition = Competition.objects.create(
        name="Taça", slug="taca-sp", time_zone="America/Sao_Paulo", first_date=dt.date(2026, 12, 5),
        kickoff_time=dt.time(15, 30), lots_seed=1)
    for i in range(1, 3):
        Entrant.objects.create(competition=competition, name=f"Time {i}", seed=i)
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.get()
    assert fixture.kickoff_at == dt.datetime(2026, 12, 5, 18, 30, tzinfo=UTC)
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    # the time there, the instant in UTC for the browser, and the zone's offset at that moment
    assert 'datetime="2026-12-05T18:30:00+00:00"' in page and 'data-offset="-180"' in page
    assert "Sat 5 Dec, 15:30 (America/Sao_Paulo)" in page
    assert "js/local-time.js" in page
    home = Client().get("/").content.decode()
    assert "Sat 5 Dec, 15:30 (America/Sao_Paulo)" in home


def paired_before(competition, kickoff: dt.datetime) -> Fixture:
    """The league's one fixture, its entrants known a day before ``kickoff``."""
    competition.fixtures.update(playable_since=kickoff - dt.timedelta(days=1))
    return competition.fixtures.get()


def live(competition_zone: str, kickoff: dt.datetime):
    competition = make_league(2, slug=f"dst-{kickoff:%m%d}", time_zone=competition_zone)
    fixture = paired_before(competition, kickoff)
    home, away = users_of(fixture)
    match = setup_match(fixture, kickoff)
    online.check_in(match_id=match.pk, user=home, now=kickoff)
    match = online.check_in(match_id=match.pk, user=away, now=kickoff + dt.timedelta(seconds=1))
    assert match.status == Match.Status.LIVE
    return match


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", [SPRING, AUTUMN], ids=["clocks-forward", "clocks-back"])
def test_a_turn_deadline_across_a_daylight_saving_change_counts_real_seconds(stub_referee, change):
    kickoff = change - dt.timedelta(seconds=20)  # the first turn's deadline falls after the change
    match = live("Europe/Madrid", kickoff)
    match.refresh_from_db()
    assert match.deadline_at == kickoff + dt.timedelta(seconds=31)  # 30 s of turn, in real time
    assert (match.deadline_at.astimezone(MADRID).utcoffset() != kickoff.astimezone(MADRID).utcoffset())
    assert deadlines.tick_due(now=kickoff + dt.timedelta(seconds=20)) == 0  # past the change, not the deadline
    assert deadlines.tick_due(now=kickoff + dt.timedelta(seconds=33)) == 1
    match.refresh_from_db()
    tick = MatchAction.objects.get(match=match, seq=1)
    assert tick.action["type"] == "tick" and tick.action["t"] == 30.0  # not 30 s plus or minus an hour
    assert match.deadline_at == kickoff + dt.timedelta(seconds=61)
    assert play.clock_at(match, kickoff + dt.timedelta(seconds=61)) == pytest.approx(60.0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", [SPRING, AUTUMN], ids=["clocks-forward", "clocks-back"])
def test_a_check_in_window_across_a_daylight_saving_change_lasts_its_minutes(stub_referee, change):
    kickoff = change - dt.timedelta(minutes=15)
    competition = make_league(2, slug=f"dst-checkin-{change:%m}", time_zone="Europe/Madrid", checkin_grace_minutes=30)
    fixture = paired_before(competition, kickoff)
    home, away = users_of(fixture)
    match = setup_match(fixture, kickoff)
    deadline = kickoff + dt.timedelta(minutes=30)
    assert match.checkin_deadline_at == deadline
    # on the wall in Madrid the window looks 90 or -30 minutes long; it is 30
    wall = deadline.astimezone(MADRID).replace(tzinfo=None) - kickoff.astimezone(MADRID).replace(tzinfo=None)
    assert wall == dt.timedelta(minutes=90 if change == SPRING else -30)
    online.check_in(match_id=match.pk, user=away, now=kickoff + dt.timedelta(minutes=5))
    deadlines.tick_due(now=deadline - dt.timedelta(seconds=30))
    match.refresh_from_db()
    assert match.status in (Match.Status.SCHEDULED, Match.Status.CHECKED_IN)
    deadlines.tick_due(now=deadline + dt.timedelta(seconds=5))
    match.refresh_from_db()
    assert match.walkover_side == "home"
    assert result_of(match).outcome == "walkover"
