"""``load_demo``: the demo federation ``make run`` serves."""
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from leagues.models import Club, Competition, Fixture, Player, Standing

pytestmark = pytest.mark.django_db


def test_load_demo_builds_a_part_played_league_and_cup_once():
    call_command("load_demo", "--if-empty", stdout=StringIO())
    assert Club.objects.count() >= 4 and Player.objects.filter(user__isnull=False).count() >= 12
    assert get_user_model().objects.get(username="admin").is_superuser
    league = Competition.objects.get(format=Competition.Format.LEAGUE)
    cup = Competition.objects.get(format=Competition.Format.KNOCKOUT)
    for competition in (league, cup):
        assert competition.fixtures.filter(status=Fixture.Status.PLAYED).exists()
        assert competition.fixtures.filter(status=Fixture.Status.SCHEDULED).exists()
    assert Standing.objects.filter(competition=league).count() == league.entrants.count()
    out = StringIO()
    call_command("load_demo", "--if-empty", stdout=out)
    assert "not loaded" in out.getvalue()
    assert Competition.objects.count() == 2
