"""``load_demo``: the demo federation ``make run`` serves."""
from datetime import datetime
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from leagues.models import Club, Competition, Fixture, Player, Standing

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def development(settings):
    """The demo with the README's passwords is a development site's (DEBUG on); the tests that
    play a production site turn it off."""
    settings.DEBUG = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_load_demo_builds_a_part_played_league_and_cup_once():
    call_command("load_demo", "--if-empty", stdout=StringIO())
    assert Club.objects.count() >= 4 and Player.objects.filter(user__isnull=False).count() >= 12
    assert get_user_model().objects.get(username="admin").is_superuser
    league = Competition.objects.get(format=Competition.Format.LEAGUE, season__is_current=True)
    cup = Competition.objects.get(slug__startswith="taca-", season__is_current=True)
    for competition in (league, cup):
        assert competition.fixtures.filter(status=Fixture.Status.PLAYED).exists()
        assert competition.fixtures.filter(status=Fixture.Status.SCHEDULED).exists()
    assert Standing.objects.filter(competition=league).count() == league.entrants.count()
    count = Competition.objects.count()
    out = StringIO()
    call_command("load_demo", "--if-empty", stdout=out)
    assert "not loaded" in out.getvalue()
    assert Competition.objects.count() == count


def test_load_demo_makes_the_organisers_group_and_a_demo_organiser():
    from django.test import Client

    from leagues.permissions import can_create_competition, can_manage_competition

    out = StringIO()
    call_command("load_demo", stdout=out)
    assert "organiser / organiser-demo" in out.getvalue()
    organiser = get_user_model().objects.get(username="organiser")
    assert not organiser.is_superuser and not organiser.is_staff
    assert organiser.groups.filter(name="Organisers").exists()
    assert can_create_competition(organiser)
    league = Competition.objects.get(format=Competition.Format.LEAGUE, season__is_current=True)
    cup = Competition.objects.get(slug__startswith="taca-", season__is_current=True)
    assert can_manage_competition(organiser, league) and not can_manage_competition(organiser, cup)
    client = Client()
    assert client.login(username="organiser", password="organiser-demo")
    token = client.post("/api/auth/token/", {"username": "organiser", "password": "organiser-demo"})
    assert token.status_code == 200 and token.json()["token"]


def test_load_demo_refuses_to_run_with_debug_off(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--i-know-this-is-not-production"):
        call_command("load_demo", stdout=StringIO())
    assert not get_user_model().objects.exists() and not Competition.objects.exists()


def test_with_debug_off_and_the_flag_no_demo_account_keeps_a_default_password(settings):
    call_command("load_demo", stdout=StringIO())  # an earlier run, on a development site
    settings.DEBUG = False
    out = StringIO()
    call_command("load_demo", "--i-know-this-is-not-production", stdout=out)
    printed = dict(line.strip().split(" / ") for line in out.getvalue().splitlines() if " / " in line)
    users = get_user_model().objects.filter(username__in=["admin", "organiser", "anaferreira", "ruicosta"])
    assert users.count() == 4
    for user in users:
        for default in ("admin", "organiser-demo", "botonera-demo"):
            assert not user.check_password(default), (user.username, default)
        assert user.check_password(printed[user.username])
    assert len(set(printed.values())) == len(printed) >= 16
    assert "admin / admin" not in out.getvalue()


def test_load_demo_has_a_swiss_open_half_played():
    call_command("load_demo", "--if-empty", stdout=StringIO())
    swiss = Competition.objects.get(format=Competition.Format.SWISS, season__is_current=True)
    assert swiss.rounds == 5 and swiss.entrants.count() == 11 and swiss.tiebreak_preset == "fide_swiss"
    rounds = sorted(set(swiss.fixtures.values_list("round__number", flat=True)))
    assert rounds == [1, 2, 3, 4]
    for number in (1, 2, 3):
        assert not swiss.fixtures.filter(round__number=number, status__in=Fixture.OPEN).exists()
    fourth = swiss.fixtures.filter(round__number=4)
    assert fourth.filter(status=Fixture.Status.SCHEDULED).count() == 5
    assert swiss.fixtures.filter(status=Fixture.Status.BYE, away__isnull=True).count() == 4  # one a round
    byes = list(swiss.fixtures.filter(status=Fixture.Status.BYE).values_list("home_id", flat=True))
    assert len(set(byes)) == 4  # nobody rests twice
    assert Standing.objects.filter(competition=swiss).count() == 11
    met = [frozenset((f.home_id, f.away_id)) for f in swiss.fixtures.filter(away__isnull=False)]
    assert len(met) == len(set(met))


@pytest.mark.parametrize("lisbon_time", ["00:20", "17:50", "21:30", "23:55"])
def test_load_demo_lines_up_the_live_tie_at_any_hour(time_machine, lisbon_time):
    # the live tie's generated kick-off is 18:00 in Lisbon, its line-up deadline 30 minutes before
    hour, minute = map(int, lisbon_time.split(":"))
    time_machine.move_to(datetime(2026, 12, 4, hour, minute, tzinfo=ZoneInfo("Europe/Lisbon")), tick=True)
    call_command("load_demo", "--if-empty", stdout=StringIO())
    championship = Competition.objects.get(entrant_kind="team")
    tie = championship.fixtures.filter(round__number=2).order_by("position").first()
    assert tie.home_lineup_at and tie.away_lineup_at
    assert Fixture.with_games.filter(tie=tie, match__isnull=False).exists()  # its first game live online
