"""What players and organisers are told of the players' own part (COMPETITIONS.md §11): overdue
fixtures (listed for the organisers, a reminder to both players) and the sign-ups waiting for
the organisers' decision, both found by beat's sweeper."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues import tasks
from leagues.models import Fixture, Player, SignUp
from leagues.notifications.models import Kind, Notification
from tests.leagues.test_result_reports import league, post_result, side_client

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_overdue_fixture_is_listed_for_the_organisers_and_both_players_are_reminded():
    competition, _organiser = league(n=4)
    fixtures = list(competition.fixtures.filter(round__number=1).order_by("pk"))
    overdue, reported = fixtures
    Fixture.objects.filter(pk__in=[f.pk for f in fixtures]).update(kickoff_at=timezone.now() - timedelta(days=4))
    assert post_result(side_client(reported, "home"), reported, 1, 0).status_code == 202
    Fixture.objects.filter(round__number=2).update(kickoff_at=timezone.now() - timedelta(days=2))  # not yet

    tasks.sweep()
    reminded = set(Notification.objects.filter(kind=Kind.FIXTURE_OVERDUE).values_list("user__username", flat=True))
    assert reminded == {overdue.home.player.user.username, overdue.away.player.user.username}
    tasks.sweep()
    assert Notification.objects.filter(kind=Kind.FIXTURE_OVERDUE).count() == 2  # once

    client = Client()
    client.force_login(competition.organisers.get())
    page = client.get(f"/manage/{competition.slug}/").content.decode()
    section = page[page.index('id="overdue"'):page.index("</section>", page.index('id="overdue"'))]
    assert overdue.home.name in section and f"/fixtures/{overdue.pk}/" in section
    assert f"/fixtures/{reported.pk}/" not in section


def test_the_organisers_are_told_of_sign_ups_waiting_for_their_decision():
    competition, _organiser = league(slug="open", n=2)
    newcomer = Player.objects.create(first_name="New", last_name="Comer", licence_number="nc-1")
    SignUp.objects.create(competition=competition, player=newcomer, status=SignUp.Status.PENDING)
    tasks.sweep()
    told = Notification.objects.filter(kind=Kind.SIGN_UPS_WAITING)
    assert list(told.values_list("user__username", flat=True)) == ["open-organiser"]
    assert "1 sign-up " in told.get().body
    tasks.sweep()
    assert told.count() == 1
    another = Player.objects.create(first_name="Other", last_name="Comer", licence_number="nc-2")
    SignUp.objects.create(competition=competition, player=another, status=SignUp.Status.PENDING)
    tasks.sweep()
    assert told.count() == 2 and "2 sign-ups" in told.order_by("-pk").first().body
