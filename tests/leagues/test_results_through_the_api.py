"""Official results nobody meant, one situation each, through the API as organisers
and players use it. Time comes in as data: kick-offs are set relative to now; no test sleeps."""
from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, FixtureChange, Player, Result, Standing
from leagues.services.fixtures import fixtures_generate
from leagues.services.online import no_shows_record
from leagues.services.results import result_from_match
from matches.models import Match
from matches.services import online
from matches.services.adjudication import match_adjudicate

pytestmark = pytest.mark.django_db(transaction=True)


def competition_of(n, *, accounts=None, slug="cup", **kwargs) -> tuple[Competition, APIClient]:
    """A competition of ``n`` entrants E1..En (seeded in order), each a player with an account
    ``<slug>-e<i>`` unless ``accounts`` leaves them out; the fixtures drawn; and the API client
    of its organiser."""
    organiser = get_user_model().objects.create_user(username=f"{slug}-organiser")
    competition = Competition.objects.create(name=slug, slug=slug, lots_seed=5, **kwargs)
    competition.organisers.add(organiser)
    for i in range(1, n + 1):
        user = None
        if accounts is None or i in accounts:
            user = get_user_model().objects.create_user(username=f"{slug}-e{i}")
        player = Player.objects.create(first_name=f"E{i}", last_name=slug, licence_number=f"{slug}-{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i, player=player)
    fixtures_generate(competition=competition)
    return competition, as_user(organiser)


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def player(competition, i):
    return as_user(get_user_model().objects.get(username=f"{competition.slug}-e{i}"))


def names(fixture):
    fixture.refresh_from_db()
    return (fixture.home.name if fixture.home_id else None, fixture.away.name if fixture.away_id else None)


def record(client, fixture, home, away, **extra):
    return client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": home, "away_goals": away, **extra},
                       format="json")


def kickoff(fixtures, when):
    """Sets the fixtures' kick-off, as if they had been scheduled for it a week before."""
    Fixture.objects.filter(pk__in=[f.pk for f in fixtures]).update(kickoff_at=when,
                                                                    playable_since=when - timedelta(days=7))


# --- check-in: only online, only in its window, only between two accounts ----------------------------


def test_an_early_check_in_is_refused_and_says_when_the_window_opens():
    competition, organiser = competition_of(2, venue="online", format="knockout")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(days=5))
    response = player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/")
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "checkin_not_open" and "opens" in body["detail"] and body["opens_at"]
    fixture.refresh_from_db()
    assert fixture.match_id is None and fixture.status == Fixture.Status.SCHEDULED
    # the walkover clock runs from the kick-off, not from a check-in: nothing to sweep today
    assert no_shows_record() == 0
    # and the organiser's real score is taken
    assert record(organiser, fixture, 2, 1).status_code == 200
    assert Result.objects.get(fixture=fixture).home_goals == 2


def test_a_fixture_at_a_table_offers_no_check_in():
    competition, organiser = competition_of(2, format="knockout")  # venue: table, the default
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=5))
    response = player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/")
    assert response.status_code == 409 and response.json()["error"] == "at_table"
    assert record(organiser, fixture, 1, 0).status_code == 200


def test_no_check_in_against_an_entrant_without_an_account():
    competition, _ = competition_of(2, accounts={1}, venue="online", format="knockout")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=5))
    response = player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/")
    assert response.status_code == 409 and response.json()["error"] == "no_account"
    fixture.refresh_from_db()
    assert fixture.match_id is None


def test_check_in_inside_the_window_then_the_match_kicks_off():
    competition, _ = competition_of(2, venue="online", format="knockout")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=10))
    first = player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/")
    assert first.status_code == 200 and first.json()["status"] == "checked_in"
    second = player(competition, 2).post(f"/api/fixtures/{fixture.pk}/check-in/")
    assert second.status_code == 200 and second.json()["status"] == "live"
    body = APIClient().get(f"/api/fixtures/{fixture.pk}/").json()
    assert body["venue"] == "online" and body["match"] == second.json()["id"]
    assert body["kickoff_at"] and body["checkin_opens_at"]


def test_a_table_fixture_shows_no_check_in_window():
    competition, _ = competition_of(2, venue="table", format="knockout", slug="table-window")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=10))
    body = APIClient().get(f"/api/fixtures/{fixture.pk}/").json()
    assert body["venue"] == "table" and body["kickoff_at"]
    assert body["checkin_opens_at"] is None and body["checkin_closes_at"] is None


def test_a_fixture_paired_after_its_kick_off_is_no_no_show_and_offers_no_check_in():
    competition, organiser = competition_of(4, venue="online", format="knockout", slug="late")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    final = competition.fixtures.get(label="Final")
    kickoff(semis, timezone.now() - timedelta(days=2))
    kickoff([final], timezone.now() - timedelta(hours=1))  # its window closed before anyone knew who plays
    assert record(organiser, semis[0], 1, 0).status_code == 200  # played at a table after all
    assert record(organiser, semis[1], 1, 0).status_code == 200
    assert names(final) == ("E1", "E2")
    assert no_shows_record() == 0  # not a double no-show: it was paired after its kick-off
    response = player(competition, 1).post(f"/api/fixtures/{final.pk}/check-in/")
    assert response.status_code == 409 and response.json()["error"] == "paired_late"
    organiser.post(f"/api/fixtures/{final.pk}/reschedule/", {
        "kickoff_at": (timezone.now() + timedelta(minutes=10)).isoformat()}, format="json")
    assert player(competition, 1).post(f"/api/fixtures/{final.pk}/check-in/").status_code == 200


def test_nobody_checked_in_by_the_end_of_the_window_is_a_double_no_show():
    competition, _ = competition_of(4, venue="online")
    fixtures = list(competition.fixtures.filter(round__number=1))
    kickoff(fixtures, timezone.now() - timedelta(minutes=20))  # grace 15 min: closed
    assert no_shows_record() == 2
    for fixture in fixtures:
        result = Result.objects.get(fixture=fixture)
        assert result.is_double_no_show and (result.home_goals, result.away_goals) == (0, 0)
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    assert {(s.played, s.lost, s.points) for s in Standing.objects.filter(competition=competition)} == {(1, 1, 0)}


# --- one owner for each result ---------------------------------------------------------------------


def live_online_fixture(slug="online", n=2, **kwargs):
    competition, organiser = competition_of(n, venue="online", slug=slug, **kwargs)
    fixture = competition.fixtures.filter(round__number=1).order_by("position").first()
    kickoff([fixture], timezone.now() + timedelta(minutes=10))
    player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/")
    player(competition, n).post(f"/api/fixtures/{fixture.pk}/check-in/")
    fixture.refresh_from_db()
    assert fixture.match.status == Match.Status.LIVE
    return competition, organiser, fixture


def test_a_table_result_over_a_live_online_match_is_refused_and_the_match_goes_on():
    _, organiser, fixture = live_online_fixture()
    response = record(organiser, fixture, 3, 1)
    assert response.status_code == 409 and response.json()["error"] == "online_match_started"
    assert not Result.objects.filter(fixture=fixture).exists()
    assert Match.objects.get(pk=fixture.match_id).status == Match.Status.LIVE


def finish_with_score(match_id, home, away):
    """Ends a live match on the table at ``home``-``away`` (the log is empty: a test double of a
    played match is not needed to check who owns the result)."""
    match = Match.objects.get(pk=match_id)
    state = dict(match.state)
    state["score"] = {"home": home, "away": away}
    Match.objects.filter(pk=match_id).update(status=Match.Status.FINISHED, state=state)


def test_a_decision_on_a_finished_online_match_stands_when_its_log_is_adjudicated():
    _, organiser, fixture = live_online_fixture(slug="dq")
    finish_with_score(fixture.match_id, 6, 2)
    assert record(organiser, fixture, 0, 3).status_code == 409  # not a table result
    response = organiser.post(f"/api/fixtures/{fixture.pk}/decision/", {
        "outcome": "disqualification", "outcome_side": "home", "reason": "Four buttons expelled (report)."},
        format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["result"]["home_goals"], response.json()["result"]["away_goals"]) == (0, 2)
    # the worker's adjudication of the log comes later: the decision stands
    Match.objects.filter(pk=fixture.match_id).update(status=Match.Status.ADJUDICATED, log_result={
        "outcome": "played", "outcome_side": "", "home_goals": 6, "away_goals": 2})
    assert result_from_match(match_id=fixture.match_id) is None
    result = Result.objects.get(fixture=fixture)
    assert (result.home_goals, result.away_goals, result.source) == (0, 2, "decision")
    assert "report" in result.reason
    assert FixtureChange.objects.filter(fixture=fixture, kind="decision").count() == 1


def test_a_decision_needs_a_reason_and_a_side():
    _, organiser, fixture = live_online_fixture(slug="dqr")
    response = organiser.post(f"/api/fixtures/{fixture.pk}/decision/", {"outcome": "walkover"}, format="json")
    assert response.status_code == 400 and {"outcome_side", "reason"} <= set(response.json())


def test_annul_the_match_then_record_a_table_result():
    _, organiser, fixture = live_online_fixture(slug="annul")
    response = organiser.post(f"/api/fixtures/{fixture.pk}/annul-match/", {"reason": "Server trouble."},
                              format="json")
    assert response.status_code == 200 and response.json()["match"] is None
    annulled = Match.objects.filter(status=Match.Status.CANCELLED).get()
    assert record(organiser, fixture, 2, 2).status_code == 200
    assert Result.objects.get(fixture=fixture).source == "table"
    # the annulled match can no longer be played or adjudicated into the fixture
    assert annulled.status == Match.Status.CANCELLED and match_adjudicate(match_id=annulled.pk) is None


def test_the_log_of_an_online_match_becomes_its_official_result():
    _, _, fixture = live_online_fixture(slug="log")
    match = Match.objects.get(pk=fixture.match_id)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.WALKOVER, walkover_side="away")
    match_adjudicate(match_id=match.pk)
    result = Result.objects.get(fixture=fixture)
    assert (result.source, result.outcome, result.home_goals, result.away_goals) == ("online", "walkover", 2, 0)
    assert Match.objects.get(pk=match.pk).official["home"] == 2


# --- a correction is checked before anything is saved -------------------------------------------------


def cup_played_to_the_final(slug="ko"):
    """Four entrants: E1 beats E4, E2 beats E3, then E1 beats E2 in the final."""
    competition, organiser = competition_of(4, format="knockout", slug=slug)
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    assert record(organiser, semis[0], 2, 0).status_code == 200
    assert record(organiser, semis[1], 1, 0).status_code == 200
    final = competition.fixtures.get(label="Final")
    assert names(final) == ("E1", "E2")
    assert record(organiser, final, 3, 1).status_code == 200
    return competition, organiser, semis, final


def test_a_correction_whose_winner_played_on_is_refused_and_changes_nothing():
    _, organiser, semis, final = cup_played_to_the_final()
    response = record(organiser, semis[0], 0, 2)  # E4 won it after all
    assert response.status_code == 409 and response.json()["error"] == "played_on"
    assert response.json()["fixtures"] == [final.pk]
    result = Result.objects.get(fixture=semis[0])
    assert (result.home_goals, result.away_goals) == (2, 0)  # the earlier official result stands
    assert names(final) == ("E1", "E2") and Result.objects.get(fixture=final).home_goals == 3


def test_a_correction_that_cascades_puts_the_final_back_with_the_new_entrant():
    _, organiser, semis, final = cup_played_to_the_final(slug="ko2")
    response = record(organiser, semis[0], 0, 2, cascade=True, reason="Wrong score on the sheet.")
    assert response.status_code == 200, response.content
    final.refresh_from_db()
    assert names(final) == ("E4", "E2") and final.status == Fixture.Status.SCHEDULED
    assert not Result.objects.filter(fixture=final).exists()
    struck = FixtureChange.objects.get(fixture=final, kind="struck")
    assert struck.before["result"]["home_goals"] == 3
    history = organiser.get(f"/api/fixtures/{semis[0].pk}/history/").json()
    assert [h["kind"] for h in history] == ["correction", "result"]
    assert history[0]["reason"] == "Wrong score on the sheet."


# --- the bracket is derived -----------------------------------------------------------------------------


def test_a_withdrawal_before_the_next_opponent_is_known_sends_that_opponent_through():
    competition, organiser = competition_of(4, format="knockout", slug="wd")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    assert record(organiser, semis[0], 2, 0).status_code == 200  # E1 through
    e1 = competition.entrants.get(name="E1")
    assert organiser.post(f"/api/entrants/{e1.pk}/withdraw/").status_code == 200
    final = competition.fixtures.get(label="Final")
    assert names(final) == (None, None) and final.status == Fixture.Status.SCHEDULED
    assert record(organiser, semis[1], 0, 1).status_code == 200  # E3 beats E2
    final.refresh_from_db()
    assert names(final) == (None, "E3") and final.status == Fixture.Status.BYE
    assert record(organiser, final, 1, 0).status_code == 400  # nobody plays a bye


def test_a_withdrawn_group_winner_does_not_qualify_under_forfeit_remaining():
    competition, organiser = competition_of(6, format="groups_knockout", group_count=2, qualifiers_per_group=1,
                                            withdrawal_policy="forfeit_remaining", slug="grp")
    # group A: E1, E4, E5; group B: E2, E3, E6. The better seed wins every match.
    for fixture in competition.fixtures.filter(group__isnull=False, status="scheduled"):
        better_home = fixture.home.seed < fixture.away.seed
        assert record(organiser, fixture, *((2, 0) if better_home else (0, 2))).status_code == 200
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    final = competition.fixtures.get(label="A1 v B1")
    assert names(final) == ("E1", "E2")
    e1 = competition.entrants.get(name="E1")
    assert organiser.post(f"/api/entrants/{e1.pk}/withdraw/").status_code == 200
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    assert Standing.objects.get(entrant=e1).points == 6  # its results stand in the table
    assert names(final) == ("E4", "E2") and final.status == Fixture.Status.SCHEDULED


def test_a_group_correction_after_the_knockout_was_filled_changes_the_qualifier():
    competition, organiser = competition_of(4, format="groups_knockout", group_count=1, qualifiers_per_group=2,
                                            slug="grp2")
    fixtures = list(competition.fixtures.filter(group__isnull=False).order_by("round__number", "position"))
    for fixture in fixtures:
        better = "home" if fixture.home.seed < fixture.away.seed else "away"
        assert record(organiser, fixture, *((1, 0) if better == "home" else (0, 1))).status_code == 200
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    final = competition.fixtures.get(round__stage__kind="knockout", round__number=1)
    assert names(final) == ("E1", "E2")
    e2_e3 = next(f for f in fixtures if {f.home.name, f.away.name} == {"E2", "E3"})
    winner_e3 = (0, 3) if e2_e3.home.name == "E2" else (3, 0)
    assert record(organiser, e2_e3, *winner_e3).status_code == 200  # E3 now second on goal difference
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    assert names(final) in (("E1", "E3"), ("E3", "E1"))


def test_a_three_entrant_knockout_with_a_third_place_match_ends():
    competition, organiser = competition_of(3, format="knockout", third_place_match=True, slug="three")
    semi = competition.fixtures.get(round__number=1, status="scheduled")
    assert names(semi) == ("E2", "E3")
    assert record(organiser, semi, 0, 1).status_code == 200  # E3 through, E2 loses
    third = competition.fixtures.get(label="Third-place match")
    final = competition.fixtures.get(label="Final")
    assert third.status == Fixture.Status.CANCELLED and "E2" in names(third)
    assert names(final) == ("E1", "E3") and final.status == Fixture.Status.SCHEDULED
    assert APIClient().get(f"/api/fixtures/?competition={competition.slug}&open=true").json()["count"] == 1


# --- the import ------------------------------------------------------------------------------------------


def test_importing_the_same_file_twice_is_refused_and_doubles_nothing(tmp_path):
    path = tmp_path / "rr.csv"
    path.write_text("home,away,home_goals,away_goals,round\nA,B,1,0,1\nC,D,2,2,1\nA,C,0,1,2\nB,D,1,1,2\n")
    call_command("import_results", str(path), "--competition", "rr", "--create", "--name", "RR", stdout=StringIO())
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(path), "--competition", "rr", stdout=StringIO())
    assert "line 2" in str(refused.value) and "already has a result" in str(refused.value)
    assert Result.objects.count() == 4
    assert {s.played for s in Standing.objects.filter(competition__slug="rr")} == {2}
    path.write_text("home,away,home_goals,away_goals,round\nA,B,3,0,1\n")
    call_command("import_results", str(path), "--competition", "rr", "--update", stdout=StringIO())
    assert Result.objects.count() == 4 and Result.objects.get(fixture__home__name="A", fixture__round__number=1).home_goals == 3


def test_the_same_pairing_twice_in_one_round_of_a_file_is_refused(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("home,away,home_goals,away_goals,round\nA,B,1,0,1\nC,D,0,0,1\nA,B,2,0,1\n")
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(path), "--competition", "dup", "--create", "--name", "D",
                     stdout=StringIO())
    assert "line 4" in str(refused.value) and "column away" in str(refused.value)
    assert not Competition.objects.filter(slug="dup").exists()


def test_an_entrant_may_play_twice_in_a_round_of_a_file(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("home,away,home_goals,away_goals,round\nA,B,1,0,1\nB,A,2,0,1\n")
    call_command("import_results", str(path), "--competition", "twice", "--create", "--name", "T", stdout=StringIO())
    assert Result.objects.filter(fixture__competition__slug="twice").count() == 2


def test_an_import_takes_the_venue_table_and_the_season_of_its_dates(tmp_path):
    from tests.leagues.factories import SeasonFactory

    season = SeasonFactory(slug="s2012", start_date="2011-08-01", end_date="2012-07-31")
    path = tmp_path / "dated.csv"
    path.write_text("home,away,home_goals,away_goals,date\nA,B,1,0,2012-03-04\n")
    call_command("import_results", str(path), "--competition", "dated", "--create", "--name", "D", stdout=StringIO())
    competition = Competition.objects.get(slug="dated")
    assert competition.venue == "table" and competition.season == season


# --- results that could have happened ----------------------------------------------------------------------


def test_an_impossible_shoot_out_is_refused_naming_the_field():
    competition, organiser = competition_of(2, format="knockout", slug="pens")
    fixture = competition.fixtures.get()
    response = record(organiser, fixture, 1, 1, home_shootout=5, away_shootout=0)
    assert response.status_code == 400 and "home_shootout" in response.json()
    assert record(organiser, fixture, 1, 1, home_shootout=3, away_shootout=0).status_code == 200


def test_a_double_no_show_is_lost_by_both_and_sends_nobody_on():
    competition, organiser = competition_of(4, format="knockout", slug="dns")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    response = organiser.post(f"/api/fixtures/{semis[0].pk}/result/", {"outcome": "walkover", "outcome_side": "both"},
                              format="json")
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    assert (result["home_goals"], result["away_goals"], result["winner_side"]) == (0, 0, "")
    assert record(organiser, semis[1], 2, 1).status_code == 200  # E2 through
    final = competition.fixtures.get(label="Final")
    assert names(final) == (None, "E2") and final.status == Fixture.Status.BYE


def test_a_walkover_needs_no_goals():
    competition, organiser = competition_of(2, slug="wo")
    fixture = competition.fixtures.get()
    response = organiser.post(f"/api/fixtures/{fixture.pk}/result/", {"outcome": "walkover", "outcome_side": "away"},
                              format="json")
    assert response.status_code == 200 and response.json()["result"]["home_goals"] == 2
    assert record(organiser, fixture, 1, 1, outcome_side="both").status_code == 400


# --- history and reschedule -------------------------------------------------------------------------------


def test_a_reschedule_moves_the_kick_off_and_is_kept_in_the_history():
    competition, organiser = competition_of(2, slug="move", time_zone="America/Sao_Paulo")
    fixture = competition.fixtures.get()
    response = organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {
        "kickoff_at": "2026-12-05T23:30:00-03:00", "reason": "Venue unavailable."}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kickoff_at"].startswith("2026-12-06T02:30:00") and body["date"] == "2026-12-05"
    change = FixtureChange.objects.get(fixture=fixture, kind="rescheduled")
    assert change.reason == "Venue unavailable." and change.after["kickoff_at"].startswith("2026-12-06T02:30")
    local = organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": "2026-12-07T20:00"},
                           format="json")  # no offset: the competition's own time
    assert local.status_code == 200 and local.json()["kickoff_at"].startswith("2026-12-07T23:00:00")
    assert organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": "next friday"},
                          format="json").status_code == 400
    assert APIClient().post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": "2026-12-05T23:30:00Z"},
                            format="json").status_code in (401, 403)


def test_an_unchanged_online_match_follows_a_reschedule():
    competition, _ = competition_of(2, venue="online", slug="follow")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=10))
    assert player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/").status_code == 200
    fixture.refresh_from_db()
    match = Match.objects.get(pk=fixture.match_id)
    assert match.status == Match.Status.CHECKED_IN
    online.check_in(match_id=match.pk, user=get_user_model().objects.get(username="follow-e2"))
    assert Match.objects.get(pk=match.pk).status == Match.Status.LIVE


def test_ties_the_criteria_cannot_break_share_a_place_everywhere(tmp_path):
    import json

    path = tmp_path / "tie.csv"
    path.write_text("home,away,home_goals,away_goals\nA,C,1,0\nB,C,1,0\nA,B,1,1\nD,C,3,0\nD,A,1,0\nD,B,1,0\n")
    call_command("import_results", str(path), "--competition", "tie", "--create", "--name", "Tie",
                 "--preset", "custom", "--criteria", "goal_difference", stdout=StringIO())
    out = StringIO()
    call_command("standings", "tie", "--json", stdout=out)
    rows = json.loads(out.getvalue())["tables"][0]["rows"]
    assert [(r["entrant"], r["position"], r.get("shared", False)) for r in rows] == [
        ("D", 1, False), ("A", 2, True), ("B", 2, True), ("C", 4, False)]
    api = APIClient().get("/api/competitions/tie/standings/").json()["tables"][0]["rows"]
    assert [r["shared"] for r in api] == [False, True, True, False]
    page = APIClient().get("/competitions/tie/").content.decode()
    assert page.count('<td class="pos">2=</td>') == 2


def test_a_result_that_takes_an_unstarted_online_match_s_place_annuls_it():
    competition, organiser = competition_of(4, venue="online", format="knockout", slug="unstarted")
    semi = competition.fixtures.filter(round__number=1).order_by("position").first()
    kickoff([semi], timezone.now() + timedelta(minutes=10))
    from leagues.services.online import fixture_match_setup

    match = fixture_match_setup(fixture=semi)  # set up, nobody checked in yet
    assert match.status == Match.Status.SCHEDULED
    e4 = competition.entrants.get(name="E4")
    assert organiser.post(f"/api/entrants/{e4.pk}/withdraw/").status_code == 200
    semi.refresh_from_db()
    assert semi.status == Fixture.Status.WALKOVER and semi.match_id is None
    assert Match.objects.get(pk=match.pk).status == Match.Status.CANCELLED


def test_a_board_of_a_match_stopped_by_a_decision_shows_it_over_with_the_official_result():
    _, organiser, fixture = live_online_fixture(slug="stopped")
    assert organiser.post(f"/api/fixtures/{fixture.pk}/decision/", {
        "outcome": "walkover", "outcome_side": "away", "reason": "Left the table."}, format="json").status_code == 200
    header = APIClient().get(f"/matches/{fixture.match_id}/feed/?after=0").json()["match"]
    assert header["status"] == "cancelled" and header["finished"] is True
    assert header["official"]["home"] == 2 and header["official"]["reason"] == "Left the table."
