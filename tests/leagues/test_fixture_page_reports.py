"""The fixture's page tells each stage of a reported result and of a proposed kick-off in words,
and gives the opponent (only) Confirm and Dispute, Accept and Decline (COMPETITIONS.md §11)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues import tasks
from leagues.models import ResultReport
from tests.leagues.test_result_reports import first_fixture, league, post_result, side_client

pytestmark = pytest.mark.django_db(transaction=True)


def page_for(user, fixture) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(f"/fixtures/{fixture.pk}/").content.decode()


def test_each_stage_in_words_and_the_buttons_for_the_opponent_only():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    home_user, away_user = fixture.home.player.user, fixture.away.player.user
    assert 'id="report-result"' in page_for(home_user, fixture)
    assert post_result(side_client(fixture, "home"), fixture, 2, 1).status_code == 202

    theirs = page_for(away_user, fixture)
    assert f"{fixture.home.player.full_name} reported 2-1 on" in theirs
    assert f"waiting for {fixture.away.player.full_name}&#x27;s confirmation until" in theirs
    assert 'id="confirm-result"' in theirs and 'id="dispute-result"' in theirs
    mine = page_for(home_user, fixture)
    assert 'id="confirm-result"' not in mine and "Correct your report" in mine
    anonymous = page_for(None, fixture)
    assert "reported 2-1" in anonymous and 'id="confirm-result"' not in anonymous

    client = Client()
    client.force_login(away_user)
    report = ResultReport.objects.get(fixture=fixture, status="waiting")
    response = client.post(f"/fixtures/{fixture.pk}/confirm-result/", {"report": report.pk}, follow=True)
    page = response.content.decode()
    assert "You confirmed the result: it is official." in page
    assert f"{fixture.away.player.full_name} confirmed it on" in page and "Official result" in page


def test_the_dispute_and_the_clock_in_words():
    competition, _organiser = league(n=4)
    disputed, clocked = list(competition.fixtures.filter(round__number=1).select_related(
        "home__player__user", "away__player__user").order_by("pk"))
    assert post_result(side_client(disputed, "home"), disputed, 3, 0).status_code == 202
    client = Client()
    client.force_login(disputed.away.player.user)
    page = client.post(f"/fixtures/{disputed.pk}/dispute-result/", {"reason": "it was 1-1"}, follow=True)
    assert f"{disputed.away.player.full_name} disputed it on" in page.content.decode() and "the organisers decide" in \
        page.content.decode()

    assert post_result(side_client(clocked, "home"), clocked, 1, 0).status_code == 202
    ResultReport.objects.filter(fixture=clocked).update(confirm_by=timezone.now() - timedelta(minutes=1))
    tasks.sweep()
    page = page_for(clocked.away.player.user, clocked)
    assert "nobody answered by" in page and "may dispute it until" in page and 'id="dispute-result"' in page
