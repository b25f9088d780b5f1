"""Results reported by the players and confirmed by the opponent, one situation each, through
the API as players and organisers use it (COMPETITIONS.md §11). Time comes in as data: a report
left to the clock has its deadline moved into the past; no test sleeps."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from leagues import tasks
from leagues.models import (
    Competition,
    Entrant,
    Fixture,
    FixtureChange,
    Player,
    Result,
    ResultReport,
)
from leagues.notifications.models import Kind, Notification
from leagues.services.fixtures import fixtures_generate

pytestmark = pytest.mark.django_db(transaction=True)


def league(slug="liga", n=2, **kwargs) -> tuple[Competition, APIClient]:
    """A league at a table of ``n`` players P1..Pn, each with an account ``<slug>-p<i>``, drawn;
    and the API client of its organiser."""
    organiser = get_user_model().objects.create_user(username=f"{slug}-organiser")
    competition = Competition.objects.create(name=slug, slug=slug, lots_seed=5, first_date=date.today(), **kwargs)
    competition.organisers.add(organiser)
    for i in range(1, n + 1):
        user = get_user_model().objects.create_user(username=f"{slug}-p{i}")
        player = Player.objects.create(first_name=f"P{i}", last_name=slug, licence_number=f"{slug}-{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"P{i}", seed=i, player=player)
    fixtures_generate(competition=competition)
    return competition, as_user(organiser)


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def side_client(fixture: Fixture, side: str) -> APIClient:
    return as_user(fixture.entrant(side).player.user)


def first_fixture(competition) -> Fixture:
    return competition.fixtures.select_related("home__player__user", "away__player__user").order_by("pk").first()


def post_result(client, fixture, home, away, **extra):
    return client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": home, "away_goals": away, **extra},
                       format="json")


def confirm(client, fixture, **body):
    return client.post(f"/api/fixtures/{fixture.pk}/confirm-result/", body, format="json")


def dispute(client, fixture, reason="that is not the score"):
    return client.post(f"/api/fixtures/{fixture.pk}/dispute-result/", {"reason": reason}, format="json")


def test_a_report_then_a_confirmation_makes_it_official_with_both_players_in_the_history():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    home, away = side_client(fixture, "home"), side_client(fixture, "away")
    response = post_result(home, fixture, 2, 1)
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "scheduled" and body["result"] is None
    assert body["report"]["by"] == "home" and body["report"]["status"] == "waiting"
    assert (body["report"]["home_goals"], body["report"]["away_goals"]) == (2, 1)
    assert not Result.objects.filter(fixture=fixture).exists()
    assert Notification.objects.filter(user=fixture.away.player.user, kind=Kind.REPORT_WAITING).exists()

    response = confirm(away, fixture, report=body["report"]["id"])
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "played" and response.json()["report"]["status"] == "official"
    result = Result.objects.get(fixture=fixture)
    assert (result.home_goals, result.away_goals) == (2, 1)
    by = set(fixture.changes.exclude(by=None).values_list("by__username", flat=True))
    assert {fixture.home.player.user.username, fixture.away.player.user.username} <= by
    assert fixture.changes.filter(kind=FixtureChange.Kind.RESULT, reason__contains="confirmed by").exists()


def test_a_report_then_a_dispute_then_the_organisers_result():
    competition, organiser = league()
    fixture = first_fixture(competition)
    home, away = side_client(fixture, "home"), side_client(fixture, "away")
    assert post_result(home, fixture, 3, 0).status_code == 202
    response = dispute(away, fixture, "it was 1-1")
    assert response.status_code == 200, response.content
    assert response.json()["report"]["status"] == "disputed" and response.json()["status"] == "scheduled"
    assert Notification.objects.filter(user__username="liga-organiser", kind=Kind.REPORT_DISPUTED).exists()
    assert confirm(away, fixture).json()["error"] == "report_disputed"

    response = post_result(organiser, fixture, 1, 1, reason="both players heard")
    assert response.status_code == 200 and response.json()["status"] == "played"
    assert response.json()["report"]["status"] == "closed"
    assert (Result.objects.get(fixture=fixture).home_goals, Result.objects.get(fixture=fixture).away_goals) == (1, 1)


def test_both_players_reporting_the_same_score_is_official_at_once():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    assert post_result(side_client(fixture, "home"), fixture, 2, 2).status_code == 202
    response = post_result(side_client(fixture, "away"), fixture, 2, 2)
    assert response.status_code == 202
    assert response.json()["status"] == "played" and response.json()["report"]["status"] == "official"
    assert Result.objects.get(fixture=fixture).home_goals == 2


def test_both_players_reporting_different_scores_is_disputed_at_once():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    assert post_result(side_client(fixture, "home"), fixture, 2, 0).status_code == 202
    response = post_result(side_client(fixture, "away"), fixture, 0, 2)
    assert response.status_code == 202
    assert response.json()["status"] == "scheduled" and response.json()["report"]["status"] == "disputed"
    assert set(ResultReport.objects.filter(fixture=fixture).values_list("status", flat=True)) == {"disputed"}
    assert Notification.objects.filter(user__username="liga-organiser", kind=Kind.REPORT_DISPUTED).exists()
    assert not Result.objects.filter(fixture=fixture).exists()


def _leave_unanswered(fixture, hours):
    ResultReport.objects.filter(fixture=fixture).update(reported_at=timezone.now() - timedelta(hours=hours),
                                                        confirm_by=timezone.now() - timedelta(hours=hours - 48))


def test_a_report_left_48_hours_is_made_official_by_the_sweeper_and_the_history_says_so():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    assert post_result(side_client(fixture, "home"), fixture, 1, 0).status_code == 202
    tasks.sweep()
    assert not Result.objects.filter(fixture=fixture).exists()  # not before its time
    _leave_unanswered(fixture, 49)
    assert tasks.sweep()["reported"] == 1
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    assert fixture.changes.filter(kind=FixtureChange.Kind.RESULT, by=None, reason__contains="clock").exists()
    assert Notification.objects.filter(kind=Kind.REPORT_OFFICIAL).count() == 2
    assert tasks.sweep()["reported"] == 0  # idempotent

    # the opponent may still dispute it for report_dispute_days: the organisers told, the result stands
    response = dispute(side_client(fixture, "away"), fixture, "I never played")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "played" and response.json()["report"]["disputed_at"]
    assert Notification.objects.filter(user__username="liga-organiser", kind=Kind.REPORT_DISPUTED).exists()


def test_a_report_is_made_official_after_the_worker_and_redis_were_down_for_days():
    # nothing was queued for it: the sweeper's first run after the outage finds it by a query
    competition, _organiser = league()
    fixture = first_fixture(competition)
    assert post_result(side_client(fixture, "home"), fixture, 4, 2).status_code == 202
    _leave_unanswered(fixture, 24 * 5)
    assert tasks.sweep.apply().get()["reported"] == 1
    assert Result.objects.get(fixture=fixture).home_goals == 4
    # and the dispute window counts from when it became official, not from the deadline missed
    assert dispute(side_client(fixture, "away"), fixture).status_code == 200


def test_the_dispute_window_closes_after_report_dispute_days():
    competition, _organiser = league(report_dispute_days=2)
    fixture = first_fixture(competition)
    assert post_result(side_client(fixture, "home"), fixture, 1, 0).status_code == 202
    _leave_unanswered(fixture, 49)
    tasks.sweep()
    ResultReport.objects.filter(fixture=fixture).update(official_at=timezone.now() - timedelta(days=3))
    response = dispute(side_client(fixture, "away"), fixture)
    assert response.status_code == 409 and response.json()["error"] == "dispute_window_closed"


def test_a_report_on_an_online_fixture_is_refused():
    competition, _organiser = league(venue="online")
    fixture = first_fixture(competition)
    response = post_result(side_client(fixture, "home"), fixture, 2, 1)
    assert response.status_code == 409 and response.json()["error"] == "online_fixture"
    assert not ResultReport.objects.exists()


def test_a_report_by_someone_not_in_the_fixture_is_refused():
    competition, _organiser = league(n=4)
    fixture = first_fixture(competition)
    playing = {fixture.home_id, fixture.away_id}
    stranger = competition.entrants.exclude(pk__in=playing).first().player.user
    response = post_result(as_user(stranger), fixture, 2, 1)
    assert response.status_code == 403
    assert confirm(as_user(stranger), fixture).status_code == 403
    assert not ResultReport.objects.exists()


def test_the_opponent_confirming_a_report_since_replaced_is_refused():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    home, away = side_client(fixture, "home"), side_client(fixture, "away")
    seen = post_result(home, fixture, 2, 1).json()["report"]["id"]
    replaced = post_result(home, fixture, 3, 1).json()["report"]
    response = confirm(away, fixture, report=seen)
    assert response.status_code == 409 and response.json()["error"] == "report_changed"
    assert response.json()["report"] == replaced["id"]
    assert not Result.objects.filter(fixture=fixture).exists()
    assert confirm(away, fixture, report=replaced["id"]).json()["result"]["home_goals"] == 3


def test_a_report_after_the_organiser_recorded_a_result_is_refused():
    competition, organiser = league()
    fixture = first_fixture(competition)
    assert post_result(organiser, fixture, 1, 0).status_code == 200
    response = post_result(side_client(fixture, "away"), fixture, 0, 1)
    assert response.status_code == 409 and response.json()["error"] == "result_official"
    assert not ResultReport.objects.exists()


def test_a_report_is_checked_as_an_organisers_result_before_it_is_stored():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    response = post_result(side_client(fixture, "home"), fixture, 1, 1, home_shootout=5, away_shootout=4)
    assert response.status_code == 400 and "home_shootout" in response.json()
    assert not ResultReport.objects.exists()


def test_with_player_reports_off_only_the_organisers_record():
    competition, organiser = league(player_reports=False)
    fixture = first_fixture(competition)
    assert post_result(side_client(fixture, "home"), fixture, 2, 1).status_code == 403
    assert post_result(organiser, fixture, 2, 1).status_code == 200


def test_an_organiser_who_plays_records_officially():
    competition, _organiser = league()
    fixture = first_fixture(competition)
    competition.organisers.add(fixture.home.player.user)
    response = post_result(side_client(fixture, "home"), fixture, 2, 1)
    assert response.status_code == 200 and response.json()["status"] == "played"


def test_a_report_the_clock_cannot_make_official_goes_to_the_organisers_and_the_sweeper_goes_on(monkeypatch):
    from leagues.services import reports
    from leagues.services.results import ResultConflict

    competition, _organiser = league(n=4)
    blocked, fine = list(competition.fixtures.filter(round__number=1).select_related(
        "home__player__user", "away__player__user").order_by("pk"))
    assert post_result(side_client(blocked, "home"), blocked, 1, 0).status_code == 202
    assert post_result(side_client(fine, "home"), fine, 2, 0).status_code == 202
    ResultReport.objects.filter(fixture=fine).update(confirm_by=timezone.now() - timedelta(minutes=2))
    ResultReport.objects.filter(fixture=blocked).update(confirm_by=timezone.now() - timedelta(minutes=3))
    real = reports.result_record

    def refusing(**kwargs):
        if kwargs["fixture"].pk == blocked.pk:
            raise ResultConflict("played_on", "the winner has played on")
        return real(**kwargs)

    monkeypatch.setattr(reports, "result_record", refusing)
    assert tasks.sweep()["reported"] == 1
    assert ResultReport.objects.get(fixture=blocked).status == "disputed"
    assert Notification.objects.filter(user__username="liga-organiser", kind=Kind.REPORT_DISPUTED).exists()
    assert Result.objects.filter(fixture=fine).exists()
