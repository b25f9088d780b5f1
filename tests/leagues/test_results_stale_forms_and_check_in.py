"""Paths to an official result nobody meant met by an organiser and a player,
each closed: a decision taken on a page left open while the bracket moved, a withdrawal in one
click, a kick-off set in the past for an online fixture. Time comes in as data."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from leagues.models import Result
from tests.leagues.test_results_through_the_api import competition_of, kickoff, record

pytestmark = pytest.mark.django_db(transaction=True)


def page_client(competition) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=f"{competition.slug}-organiser"))
    return client


def online_final_moved_on(slug):
    """An online cup of four whose semi-finals were recorded (E1, E2 in the final), then the first
    corrected with a cascade: E4 is now in the final. Returns the competition, the organiser's
    API client, the final and the entrants it was shown with before the correction."""
    competition, organiser = competition_of(4, venue="online", format="knockout", slug=slug)
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    final = competition.fixtures.get(label="Final")
    kickoff([final], timezone.now() + timedelta(minutes=10))
    assert record(organiser, semis[0], 1, 0).status_code == 200
    assert record(organiser, semis[1], 1, 0).status_code == 200
    final.refresh_from_db()
    seen = (final.home_id, final.away_id)
    assert record(organiser, semis[0], 0, 1, cascade=True).status_code == 200
    final.refresh_from_db()
    assert (final.home_id, final.away_id) != seen
    return competition, organiser, final, seen


def test_a_decision_written_for_other_entrants_is_refused_in_the_api():
    _, organiser, final, seen = online_final_moved_on("dec-api")
    response = organiser.post(f"/api/fixtures/{final.pk}/decision/", {
        "outcome": "walkover", "outcome_side": "home", "reason": "E1 did not come", "home": seen[0],
        "away": seen[1]}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "entrants_changed"
    assert not Result.objects.filter(fixture=final).exists()


def test_a_decision_from_a_page_left_open_while_the_bracket_moved_is_refused():
    competition, _, final, seen = online_final_moved_on("dec-page")
    client = page_client(competition)
    page = client.get(f"/fixtures/{final.pk}/").content.decode()
    assert f'name="home_entrant" value="{final.home_id}"' in page  # the form carries what it was shown for
    response = client.post(f"/manage/fixtures/{final.pk}/decision/", {
        "outcome": "walkover", "outcome_side": "home", "reason": "E1 did not come",
        "home_entrant": seen[0], "away_entrant": seen[1]}, follow=True)
    assert not Result.objects.filter(fixture=final).exists()
    assert "entrants changed" in response.content.decode()


def test_a_withdrawal_from_the_page_says_what_it_makes_official_and_waits_for_a_confirmation():
    competition, _ = competition_of(4, format="knockout", slug="wd-page")
    client = page_client(competition)
    e1 = competition.entrants.get(name="E1")
    semi = competition.fixtures.filter(round__number=1).get(home=e1)
    url = f"/manage/{competition.slug}/entrants/{e1.pk}/withdraw/"
    shown = client.post(url)  # the Withdraw button of the list: nothing happens yet
    assert shown.status_code == 200
    page = shown.content.decode()
    assert "E1 v E4" in page and "0-2 (walkover)" in page  # what would become official
    e1.refresh_from_db()
    assert e1.withdrawn_at is None and not Result.objects.filter(fixture=semi).exists()
    done = client.post(url, {"confirm": "1", "reason": "Moved abroad"})
    assert done.status_code == 302
    e1.refresh_from_db()
    result = Result.objects.get(fixture=semi)
    assert e1.withdrawn_at is not None and result.reason == "Moved abroad"
    assert semi.changes.get(kind="withdrawal").reason == "Moved abroad"


def test_a_withdrawal_through_the_api_keeps_its_reason():
    competition, organiser = competition_of(4, format="knockout", slug="wd-api")
    e1 = competition.entrants.get(name="E1")
    semi = competition.fixtures.filter(round__number=1).get(home=e1)
    response = organiser.post(f"/api/entrants/{e1.pk}/withdraw/", {"reason": "Moved abroad"}, format="json")
    assert response.status_code == 200
    assert Result.objects.get(fixture=semi).reason == "Moved abroad"
    too_long = organiser.post(f"/api/entrants/{competition.entrants.get(name='E2').pk}/withdraw/",
                              {"reason": "x" * 1001}, format="json")
    assert too_long.status_code == 400 and "reason" in too_long.json()


def test_an_online_fixture_is_not_rescheduled_into_the_past():
    """A kick-off in the past leaves an online fixture nobody can check in to (and the page then
    blamed the organisers for it): refused, naming the field; a table fixture may record when it
    was really played."""
    competition, organiser = competition_of(4, venue="online", slug="past")
    fixture = competition.fixtures.filter(round__number=1).order_by("position").first()
    before = fixture.kickoff_at
    past = (timezone.now() - timedelta(hours=1)).isoformat()
    response = organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": past, "reason": "x"},
                              format="json")
    assert response.status_code == 400 and response.json()["field"] == "kickoff_at", response.content
    fixture.refresh_from_db()
    assert fixture.kickoff_at == before and not fixture.changes.filter(kind="rescheduled").exists()
    client = page_client(competition)
    local = timezone.localtime(timezone.now() - timedelta(hours=1), competition.zone).strftime("%Y-%m-%dT%H:%M")
    shown = client.post(f"/manage/{competition.slug}/reschedule-round/", {
        "round": fixture.round_id, "kickoff": local, "reason": "x"}, follow=True).content.decode()
    assert "in the future" in shown
    assert not competition.fixtures.filter(changes__kind="rescheduled").exists()
    competition.venue = "table"
    competition.save(update_fields=["venue"])
    assert organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": past, "reason": "played then"},
                          format="json").status_code == 200


def test_a_result_form_left_open_while_another_result_was_recorded_does_not_overwrite_it():
    """Two tabs (or two organisers) open the result form of one fixture; the first saves 2-1, the
    second 1-2 for the result it had not seen: refused, the first result stands."""
    competition, organiser = competition_of(4, slug="two-tabs")
    fixture = competition.fixtures.filter(round__number=1).order_by("position").first()
    client = page_client(competition)
    form = client.get(f"/manage/fixtures/{fixture.pk}/result/").content.decode()
    assert 'name="previous"' in form  # the form carries the result it was opened on (none)
    assert record(organiser, fixture, 2, 1).status_code == 200  # the other tab
    late = client.post(f"/manage/fixtures/{fixture.pk}/result/", {
        "outcome": "played", "home_goals": 1, "away_goals": 2, "home_entrant": fixture.home_id,
        "away_entrant": fixture.away_id, "previous": ""}, follow=True)
    result = Result.objects.get(fixture=fixture)
    assert (result.home_goals, result.away_goals) == (2, 1)
    assert "changed since you opened" in late.content.decode()
    assert fixture.changes.filter(kind="correction").count() == 0
    # the form shown again carries the result now in force: a correction from it is taken
    again = client.get(f"/manage/fixtures/{fixture.pk}/result/").content.decode()
    previous = again.split('name="previous" value="')[1].split('"')[0]
    assert client.post(f"/manage/fixtures/{fixture.pk}/result/", {
        "outcome": "played", "home_goals": 1, "away_goals": 2, "home_entrant": fixture.home_id,
        "away_entrant": fixture.away_id, "previous": previous}).status_code == 302
    result.refresh_from_db()
    assert (result.home_goals, result.away_goals) == (1, 2)


def test_a_cancelled_third_place_match_says_who_is_third_not_to_be_decided():
    competition, organiser = competition_of(3, format="knockout", third_place_match=True, slug="three")
    semi = competition.fixtures.filter(round__number=1, home__isnull=False, away__isnull=False).get()
    assert record(organiser, semi, 1, 0).status_code == 200
    third = competition.fixtures.get(label="Third-place match")
    third.refresh_from_db()
    assert third.status == "cancelled"
    bracket = Client().get(f"/competitions/{competition.slug}/").content.decode()
    box = bracket.split('class="lone-match"')[1].split("</section>")[0]
    assert "To be decided" not in box and "nobody" in box
    page = Client().get(f"/fixtures/{third.pk}/").content.decode()
    assert "To be decided" not in page and "E3 three is third without playing" in page


def test_a_final_lost_by_both_crowns_nobody():
    competition, organiser = competition_of(2, format="knockout", slug="nochamp-page")
    final = competition.fixtures.get()
    assert record(organiser, final, 0, 0, outcome="walkover", outcome_side="both").status_code == 200
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    bracket = page.split('id="bracket"')[1].split("</section>")[0]
    assert "double no-show" in bracket and "champion-box" not in bracket


def test_the_history_of_a_result_struck_by_a_cascade_names_the_pairing_it_was_for():
    competition, organiser = competition_of(4, format="knockout", slug="struck")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    final = competition.fixtures.get(label="Final")
    assert record(organiser, semis[0], 1, 0).status_code == 200
    assert record(organiser, semis[1], 1, 0).status_code == 200
    assert record(organiser, final, 3, 0).status_code == 200
    final.refresh_from_db()
    before = f"{final.home.name} v {final.away.name} 3-0"
    assert record(organiser, semis[0], 0, 1, cascade=True).status_code == 200
    final.refresh_from_db()
    after = f"{final.home.name} v {final.away.name}"
    page = page_client(competition).get(f"/fixtures/{final.pk}/").content.decode()
    assert f"{before} → {after}" in page
    moved = organiser.post(f"/api/fixtures/{final.pk}/reschedule/", {
        "kickoff_at": (timezone.now() + timedelta(days=3)).isoformat(), "reason": "Hall booked"}, format="json")
    assert moved.status_code == 200
    page = page_client(competition).get(f"/fixtures/{final.pk}/").content.decode()
    entry = page.split("Hall booked")[0].rsplit("<li>", 1)[1]
    assert f"{after} → {after}" not in entry  # a reschedule shows the kick-offs, not the pairing twice


def test_a_rounds_heading_follows_its_fixtures_kick_offs():
    competition, _ = competition_of(4, slug="heading", first_date=timezone.now().date() + timedelta(days=10))
    first = competition.fixtures.filter(round__number=1).order_by("position").first()
    planned = first.round.date
    moved_to = timezone.now() + timedelta(days=30)
    shown = page_client(competition).post(f"/manage/{competition.slug}/reschedule-round/", {
        "round": first.round_id, "kickoff": timezone.localtime(moved_to, competition.zone).strftime("%Y-%m-%dT%H:%M"),
        "reason": "Hall booked"}, follow=True).content.decode()
    assert "2 fixture(s)" in shown
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    head = page.split(f'id="round-{first.round_id}"')[1].split("</div>")[0]
    local = timezone.localtime(moved_to, competition.zone).date()
    assert f"{local:%a} {local.day} {local:%b} {local.year}" in head
    assert f"{planned.day} {planned:%b} {planned.year}" not in head


def test_a_longer_check_in_grace_set_while_one_player_is_in_holds_for_the_other():
    """The page tells the second player the new grace; the match set up at the first check-in
    walked them over at the old one."""
    from django.contrib.auth import get_user_model as users

    from leagues.services.online import fixture_check_in
    from matches.models import Match
    from matches.services import deadlines

    competition, organiser = competition_of(2, venue="online", slug="grace", checkin_grace_minutes=15)
    fixture = competition.fixtures.get()
    start = timezone.now()
    kickoff([fixture], start + timedelta(minutes=10))
    fixture_check_in(fixture=fixture, user=users().objects.get(username="grace-e1"), now=start)
    assert organiser.patch(f"/api/competitions/{competition.slug}/", {"checkin_grace_minutes": 30},
                           format="json").status_code == 200
    fixture.refresh_from_db()
    deadlines.tick(match_id=fixture.match_id, now=fixture.kickoff_at + timedelta(minutes=15, seconds=10))  # beat
    late = fixture.kickoff_at + timedelta(minutes=20)  # inside the new grace, past the old one
    match = fixture_check_in(fixture=fixture, user=users().objects.get(username="grace-e2"), now=late)
    assert match.status == Match.Status.LIVE
    assert not Result.objects.filter(fixture=fixture).exists()


def test_check_in_at_the_window_edges():
    """Open from exactly checkin_opens_at, closed from exactly the kick-off plus the grace; the
    match's own window (the API's /api/matches/{id}/check-in/) has the same edges."""
    from django.contrib.auth import get_user_model as users

    from leagues.services.online import fixture_check_in
    from matches.models import Match
    from matches.services import deadlines
    from matches.services.play import PlayError

    competition, _ = competition_of(4, venue="online", slug="edges")
    first, second = competition.fixtures.filter(round__number=1).order_by("position")[:2]
    start = timezone.now() + timedelta(days=1)
    kickoff([first, second], start)
    first.refresh_from_db()
    second.refresh_from_db()
    e = {i: users().objects.get(username=f"edges-e{i}") for i in range(1, 5)}
    home_first = e[int(first.home.name[1:])]
    with pytest.raises(PlayError) as early:
        fixture_check_in(fixture=first, user=home_first, now=first.checkin_opens_at - timedelta(microseconds=1))
    assert early.value.code == "checkin_not_open"
    assert fixture_check_in(fixture=first, user=home_first, now=first.checkin_opens_at).status == Match.Status.CHECKED_IN
    home_second = e[int(second.home.name[1:])]
    with pytest.raises(PlayError) as late:
        fixture_check_in(fixture=second, user=home_second, now=second.checkin_closes_at)
    assert late.value.code == "checkin_closed"
    away_first = e[int(first.away.name[1:])]
    with pytest.raises(PlayError):
        fixture_check_in(fixture=first, user=away_first, now=first.checkin_closes_at)
    first.refresh_from_db()
    deadlines.tick(match_id=first.match_id, now=first.checkin_closes_at)  # beat, at the deadline
    result = Result.objects.get(fixture=first)  # the one in wins, made official from the match
    assert (result.outcome, result.outcome_side, result.winner_side) == ("walkover", "away", "home")


def test_a_fixture_cancelled_by_the_bracket_or_a_withdrawal_is_not_reopened_by_a_reschedule():
    """Rescheduling a cancelled fixture reopened it: a third-place match nobody can fill was
    "? v E3" open forever again, a withdrawn entrant's fixture playable again."""
    competition, organiser = competition_of(3, format="knockout", third_place_match=True, slug="reopen")
    semi = competition.fixtures.filter(round__number=1, home__isnull=False, away__isnull=False).get()
    assert record(organiser, semi, 1, 0).status_code == 200
    third = competition.fixtures.get(label="Third-place match")
    when = (timezone.now() + timedelta(days=3)).isoformat()
    response = organiser.post(f"/api/fixtures/{third.pk}/reschedule/", {"kickoff_at": when}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "fixture_closed"
    third.refresh_from_db()
    assert third.status == "cancelled"
    league, organiser = competition_of(4, slug="reopen-league", withdrawal_policy="annul")
    e1 = league.entrants.get(name="E1")
    assert organiser.post(f"/api/entrants/{e1.pk}/withdraw/").status_code == 200
    cancelled = league.fixtures.filter(home=e1, status="cancelled").first() or league.fixtures.filter(
        away=e1, status="cancelled").first()
    response = organiser.post(f"/api/fixtures/{cancelled.pk}/reschedule/", {"kickoff_at": when}, format="json")
    assert response.status_code == 409
    cancelled.refresh_from_db()
    assert cancelled.status == "cancelled"


def test_a_disqualification_decision_without_an_online_match_is_refused_not_scored_0_0():
    """With no online match (none set up, or annulled) the decision took the score as 0-0: a
    table result of 0-4 became a 0-2 disqualification, the fixture page saying the table was 0-0."""
    competition, organiser = competition_of(2, venue="online", slug="dq-table")
    fixture = competition.fixtures.get()
    assert record(organiser, fixture, 0, 4).status_code == 200
    response = organiser.post(f"/api/fixtures/{fixture.pk}/decision/", {
        "outcome": "disqualification", "outcome_side": "home", "reason": "Unsporting"}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "no_match"
    result = Result.objects.get(fixture=fixture)
    assert (result.home_goals, result.away_goals, result.source) == (0, 4, "table")
    walkover = organiser.post(f"/api/fixtures/{fixture.pk}/decision/", {
        "outcome": "walkover", "outcome_side": "home", "reason": "Did not come"}, format="json")
    assert walkover.status_code == 200  # a walkover needs no score
