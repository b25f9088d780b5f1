"""Kick-offs moved by agreement of the two players, through the organisers' reschedule service
(COMPETITIONS.md §11): accepted, declined, outside the organisers' limits, and two proposals
crossing. Time comes in as data: kick-offs relative to now."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import FixtureChange, KickoffProposal
from leagues.notifications.models import Kind, Notification
from tests.leagues.test_result_reports import as_user, first_fixture, league, side_client

pytestmark = pytest.mark.django_db(transaction=True)


def propose(client, fixture, when, reason="my club is closed that day"):
    return client.post(f"/api/fixtures/{fixture.pk}/propose-kickoff/", {"kickoff_at": when.isoformat(),
                                                                        "reason": reason}, format="json")


def answer(client, fixture, verb, **body):
    return client.post(f"/api/fixtures/{fixture.pk}/{verb}-kickoff/", body, format="json")


def soon(days=2):
    return (timezone.now() + timedelta(days=days)).replace(microsecond=0, second=0)


def test_a_proposal_accepted_moves_the_kick_off_through_the_reschedule_service():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    home, away = side_client(fixture, "home"), side_client(fixture, "away")
    when = soon()
    response = propose(home, fixture, when)
    assert response.status_code == 200, response.content
    proposal = response.json()["kickoff_proposal"]
    assert proposal["status"] == "open" and proposal["by"] == "home"
    assert Notification.objects.filter(user=fixture.away.player.user, kind=Kind.KICKOFF_PROPOSED).exists()
    assert answer(home, fixture, "accept").json()["error"] == "no_proposal"  # not one's own

    response = answer(away, fixture, "accept", proposal=proposal["id"])
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kickoff_proposal"]["status"] == "accepted"
    fixture.refresh_from_db()
    assert fixture.kickoff_at == when
    assert fixture.changes.filter(kind=FixtureChange.Kind.RESCHEDULED, reason__contains="agreed").exists()
    assert Notification.objects.filter(kind=Kind.FIXTURE_RESCHEDULED).count() == 2
    assert Notification.objects.filter(kind=Kind.KICKOFF_ANSWERED).count() == 2


def test_a_proposal_declined_keeps_the_kick_off():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    before = fixture.kickoff_at
    assert propose(side_client(fixture, "home"), fixture, soon()).status_code == 200
    response = answer(side_client(fixture, "away"), fixture, "decline")
    assert response.status_code == 200 and response.json()["kickoff_proposal"]["status"] == "declined"
    fixture.refresh_from_db()
    assert fixture.kickoff_at == before
    assert Notification.objects.filter(kind=Kind.KICKOFF_ANSWERED).count() == 2


def test_a_proposal_outside_the_organisers_limits_is_refused_with_the_reason():
    competition, _organiser = league(reschedule_latest_days=3)
    fixture = first_fixture(competition)
    late = timezone.now() + timedelta(days=4 + (fixture.round.date - timezone.localdate()).days)
    response = propose(side_client(fixture, "home"), fixture, late)
    assert response.status_code == 400 and response.json()["field"] == "kickoff_at"
    assert response.json()["error"] == "too_late" and "at the latest" in response.json()["detail"]
    assert propose(side_client(fixture, "home"), fixture, timezone.now() - timedelta(days=1)).status_code == 400
    competition.reschedule_by_players = False
    competition.save()
    response = propose(side_client(fixture, "home"), fixture, soon(1))
    assert response.status_code == 400 and "only the organisers" in str(response.json())
    assert not KickoffProposal.objects.exists()


def test_two_proposals_crossing():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    home, away = side_client(fixture, "home"), side_client(fixture, "away")
    # different kick-offs: the later proposal stands and the earlier is declined by it
    earlier, later = soon(2), soon(3)  # once: a minute turning between two calls would part them
    assert propose(home, fixture, earlier).status_code == 200
    response = propose(away, fixture, later)
    assert response.status_code == 200 and response.json()["kickoff_proposal"]["by"] == "away"
    assert list(KickoffProposal.objects.order_by("pk").values_list("status", flat=True)) == ["declined", "open"]
    # the same kick-off: they agree, and it moves
    response = propose(home, fixture, later)
    assert response.status_code == 200, response.content
    assert response.json()["kickoff_proposal"]["status"] == "accepted"
    fixture.refresh_from_db()
    assert fixture.kickoff_at == later


def test_the_organiser_sees_the_proposal_and_may_override_it():
    competition, organiser = league()
    fixture = first_fixture(competition)
    assert propose(side_client(fixture, "home"), fixture, soon(2)).status_code == 200
    assert organiser.get(f"/api/fixtures/{fixture.pk}/").json()["kickoff_proposal"]["status"] == "open"
    response = organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": soon(4).isoformat(),
                                                                           "reason": "the hall"}, format="json")
    assert response.status_code == 200 and response.json()["kickoff_proposal"]["status"] == "withdrawn"
    assert answer(side_client(fixture, "away"), fixture, "accept").json()["error"] == "no_proposal"


def test_a_proposal_by_someone_not_in_the_fixture_is_refused():
    competition, _organiser = league(n=4)
    fixture = first_fixture(competition)
    stranger = competition.entrants.exclude(pk__in=[fixture.home_id, fixture.away_id]).first().player.user
    assert propose(as_user(stranger), fixture, soon()).status_code == 403
