"""More paths to an official result nobody meant, each closed: a venue changed under a match, a
form left open while the bracket moved, both finalists withdrawn, a shared group place, an
imported knockout that lets the beaten play on, withdrawals after the knockout began."""
from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from leagues.models import Fixture, FixtureChange, Result
from leagues.services.kickoffs import fixture_set_venue
from matches.models import Match
from matches.services.play import PlayError
from tests.leagues.test_results_through_the_api import (
    competition_of,
    kickoff,
    names,
    player,
    record,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_fixtures_venue_cannot_change_under_a_started_match_and_a_competitions_after_the_draw():
    competition, organiser = competition_of(2, venue="online", format="knockout", slug="venue")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=10))
    assert player(competition, 1).post(f"/api/fixtures/{fixture.pk}/check-in/").status_code == 200
    with pytest.raises(PlayError) as refused:
        fixture_set_venue(fixture=fixture, venue="table")
    assert refused.value.code == "online_match_started"
    response = organiser.patch(f"/api/competitions/{competition.slug}/", {"venue": "table"}, format="json")
    competition.refresh_from_db()
    assert competition.venue == "online"  # fixed once the fixtures are drawn (read-only)
    assert response.status_code == 200


def test_a_venue_change_annuls_a_match_nobody_started_and_is_in_the_history():
    competition, _ = competition_of(2, venue="online", format="knockout", slug="venue2")
    fixture = competition.fixtures.get()
    kickoff([fixture], timezone.now() + timedelta(minutes=10))
    from leagues.services.online import fixture_match_setup

    match = fixture_match_setup(fixture=fixture)
    fixture_set_venue(fixture=fixture, venue="table", reason="Played at the club")
    fixture.refresh_from_db()
    assert fixture.venue == "table" and fixture.match_id is None
    assert Match.objects.get(pk=match.pk).status == Match.Status.CANCELLED
    assert FixtureChange.objects.get(fixture=fixture, kind="venue").reason == "Played at the club"


def test_a_result_written_for_other_entrants_is_refused():
    competition, organiser = competition_of(4, format="knockout", slug="stale")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    final = competition.fixtures.get(label="Final")
    assert record(organiser, semis[0], 1, 0).status_code == 200
    assert record(organiser, semis[1], 1, 0).status_code == 200
    seen = (final.pk, *names(final))
    e1, e2 = competition.entrants.get(name="E1"), competition.entrants.get(name="E2")
    assert seen == (final.pk, "E1", "E2")
    assert record(organiser, semis[0], 0, 1, cascade=True).status_code == 200  # E4 now in the final
    def post(home_id, away_id):
        return organiser.post(f"/api/fixtures/{final.pk}/result/", {
            "home_goals": 5, "away_goals": 0, "home": home_id, "away": away_id}, format="json")

    response = post(e1.pk, e2.pk)  # written for the pairing seen before the correction
    assert response.status_code == 409 and response.json()["error"] == "entrants_changed"
    assert not Result.objects.filter(fixture=final).exists()
    final.refresh_from_db()
    assert post(final.home_id, final.away_id).status_code == 200


def test_both_finalists_withdrawn_makes_the_final_a_double_walkover():
    competition, organiser = competition_of(4, format="knockout", third_place_match=True, slug="nochamp")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    assert record(organiser, semis[0], 2, 0).status_code == 200  # E1
    assert record(organiser, semis[1], 2, 0).status_code == 200  # E2
    final = competition.fixtures.get(label="Final")
    for name in ("E1", "E2"):
        entrant = competition.entrants.get(name=name)
        assert organiser.post(f"/api/entrants/{entrant.pk}/withdraw/").status_code == 200
    result = Result.objects.get(fixture=final)
    assert result.is_double_no_show and result.winner_id is None


def test_a_shared_group_place_leaves_the_knockout_slot_pending():
    competition, organiser = competition_of(
        4, format="groups_knockout", group_count=1, qualifiers_per_group=2, slug="sharedko",
        tiebreak_preset="custom", tiebreak_criteria=["goal_difference"])
    # E1 wins all; E2, E3, E4 beat one another in a circle, 1-0 each: level on everything
    results = {("E1", "E2"): (1, 0), ("E1", "E3"): (1, 0), ("E1", "E4"): (1, 0),
               ("E2", "E3"): (1, 0), ("E3", "E4"): (1, 0), ("E4", "E2"): (1, 0)}
    for fixture in competition.fixtures.filter(group__isnull=False):
        pair = (fixture.home.name, fixture.away.name)
        goals = results.get(pair) or tuple(reversed(results[(pair[1], pair[0])]))
        assert record(organiser, fixture, *goals).status_code == 200
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    final = competition.fixtures.get(round__stage__kind="knockout")
    assert names(final) == ("E1", None) and final.status == Fixture.Status.SCHEDULED
    page = organiser.get(f"/competitions/{competition.slug}/").content.decode()
    assert "Shared places" in page


def test_an_imported_knockout_lets_nobody_beaten_play_on(tmp_path):
    path = tmp_path / "ko.csv"
    path.write_text("stage,round,home,away,home_goals,away_goals\n"
                    "Knockout,1,A,B,2,0\nKnockout,1,C,D,1,0\nKnockout,2,A,C,1,0\n")
    call_command("import_results", str(path), "--competition", "impko", "--create", "--name", "K",
                 "--format", "knockout", stdout=StringIO())
    fix = tmp_path / "fix.csv"
    fix.write_text("stage,round,home,away,home_goals,away_goals\nKnockout,1,A,B,0,2\n")
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(fix), "--competition", "impko", "--update", stdout=StringIO())
    assert "A was beaten" in str(refused.value) and "line 2" in str(refused.value)
    assert Result.objects.get(fixture__home__name="A", fixture__round__number=1).home_goals == 2
    more = tmp_path / "more.csv"
    more.write_text("stage,round,home,away,home_goals,away_goals\nKnockout,2,D,B,1,0\n")
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(more), "--competition", "impko", stdout=StringIO())
    assert "was beaten" in str(refused.value)
    twice = tmp_path / "twice.csv"
    twice.write_text("stage,round,home,away,home_goals,away_goals\nKnockout,1,A,B,1,0\nKnockout,1,A,C,1,0\n")
    with pytest.raises(CommandError) as refused:
        call_command("import_results", str(twice), "--competition", "twice", "--create", "--name", "T",
                     "--format", "knockout", stdout=StringIO())
    assert "plays twice" in str(refused.value)


def test_an_import_refuses_a_round_number_out_of_range(tmp_path):
    path = tmp_path / "round.csv"
    for bad in ("99999999999999999999", "0", "-1"):
        path.write_text(f"home,away,home_goals,away_goals,round\nA,B,1,0,{bad}\n")
        with pytest.raises(CommandError) as refused:
            call_command("import_results", str(path), "--competition", "rounds", "--create", "--name", "R",
                         stdout=StringIO())
        assert "line 2, column round" in str(refused.value)


def test_named_and_numbered_rounds_of_a_file_do_not_mix(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("home,away,home_goals,away_goals,round\nA,B,1,0,1\nA,C,1,0,abc\nB,C,1,0,2\n")
    call_command("import_results", str(path), "--competition", "mixed", "--create", "--name", "M", stdout=StringIO())
    rounds = {f.round.name or str(f.round.number): f.round.number
              for f in Fixture.objects.filter(competition__slug="mixed").select_related("round")}
    assert rounds["abc"] == 3 and len(set(rounds.values())) == 3


def test_withdrawals_after_the_knockout_began_are_taken_and_leave_played_fixtures_alone():
    competition, organiser = competition_of(8, format="groups_knockout", group_count=2, qualifiers_per_group=2,
                                            withdrawal_policy="annul", slug="late-wd")
    for fixture in competition.fixtures.filter(group__isnull=False, status="scheduled"):
        better_home = fixture.home.seed < fixture.away.seed
        assert record(organiser, fixture, *((1, 0) if better_home else (0, 1))).status_code == 200
    call_command("standings", competition.slug, "--recompute", stdout=StringIO())
    semis = list(competition.fixtures.filter(round__stage__kind="knockout", round__number=1).order_by("position"))
    assert record(organiser, semis[0], 1, 0).status_code == 200
    played = names(semis[0])
    last = competition.entrants.get(name="E8")  # last in its group: annul strikes its results
    assert organiser.post(f"/api/entrants/{last.pk}/withdraw/").status_code == 200
    loser = competition.entrants.get(name=played[1])  # a qualifier who has played the knockout
    assert organiser.post(f"/api/entrants/{loser.pk}/withdraw/").status_code == 200
    assert names(semis[0]) == played and Result.objects.get(fixture=semis[0]).home_goals == 1


def test_a_cascade_names_every_fixture_it_reaches():
    competition, organiser = competition_of(8, format="knockout", third_place_match=True, slug="reach")
    for number in (1, 2, 3):
        for fixture in competition.fixtures.filter(round__number=number, status="scheduled").order_by("position"):
            if fixture.home_id and fixture.away_id:
                assert record(organiser, fixture, 1, 0).status_code == 200
    quarter = competition.fixtures.filter(round__number=1).order_by("position").first()
    response = record(organiser, quarter, 0, 1)
    assert response.status_code == 409
    labels = {Fixture.objects.get(pk=pk).label or "semi" for pk in response.json()["fixtures"]}
    assert labels == {"semi", "Final", "Third-place match"}


def test_a_kick_off_that_does_not_exist_in_the_competitions_zone_is_refused():
    competition, organiser = competition_of(2, slug="dst", time_zone="Europe/Lisbon")
    fixture = competition.fixtures.get()
    response = organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": "2027-03-28T01:30"},
                              format="json")
    assert response.status_code == 400 and "kickoff_at" in response.json()
    assert organiser.post(f"/api/fixtures/{fixture.pk}/reschedule/", {"kickoff_at": "2027-03-28T02:30"},
                          format="json").status_code == 200
