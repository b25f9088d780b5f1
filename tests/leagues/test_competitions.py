"""Storing schedules, the fixture status table, results through the services, knockout
progression, withdrawal under both policies, and the stored standings."""
import datetime

import pytest
from django.db import IntegrityError, transaction

from leagues.models import Competition, Fixture, InvalidTransition, Result, Stage, Standing
from leagues.rules.official import ResultError
from leagues.services.entrants import entrant_withdraw
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute
from leagues.tasks import recompute_standings

from .factories import ClubFactory, PlayerFactory, competition_with_entrants

pytestmark = pytest.mark.django_db


def pairs(fixtures):
    return [(f.home.name if f.home else None, f.away.name if f.away else None) for f in fixtures]


def record(capture, fixture, home, away, **kwargs):
    with capture(execute=True):
        return result_record(fixture=fixture, home_goals=home, away_goals=away, **kwargs)


def test_league_of_six_is_stored_as_the_berger_table_with_dates():
    competition = competition_with_entrants(6, first_date=datetime.date(2025, 9, 6), days_between_rounds=7)
    fixtures_generate(competition=competition)
    rounds = []
    for number in range(1, 6):
        fixtures = competition.fixtures.filter(round__number=number).order_by("position")
        rounds.append(" ".join(f"{f.home.name[1:]}-{f.away.name[1:]}" for f in fixtures))
        assert {f.date for f in fixtures} == {datetime.date(2025, 9, 6) + datetime.timedelta(days=7 * (number - 1))}
    assert rounds == ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"]


def test_odd_league_stores_byes_and_double_round_robin_swaps():
    competition = competition_with_entrants(5, double_round_robin=True)
    fixtures_generate(competition=competition)
    assert competition.fixtures.count() == 10 * 3
    byes = competition.fixtures.filter(status=Fixture.Status.BYE)
    assert byes.count() == 10 and all(f.away is None for f in byes)


def test_fixture_status_transitions_refuse_the_rest():
    competition = competition_with_entrants(2)
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.get()
    fixture.set_status(Fixture.Status.POSTPONED)
    fixture.set_status(Fixture.Status.SCHEDULED)
    fixture.set_status(Fixture.Status.PLAYED)
    with pytest.raises(InvalidTransition):
        fixture.set_status(Fixture.Status.BYE)
    fixture.set_status(Fixture.Status.ANNULLED)
    with pytest.raises(InvalidTransition):
        fixture.set_status(Fixture.Status.PLAYED)
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.ANNULLED


def test_a_fixtures_two_entrants_differ():
    competition = competition_with_entrants(2)
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.get()
    fixture.away = fixture.home
    with pytest.raises(IntegrityError), transaction.atomic():
        fixture.save()


def test_a_transfer_keeps_the_past():
    from leagues.models import ClubMembership

    old, new = ClubFactory(), ClubFactory()
    player = PlayerFactory()
    ClubMembership.objects.create(player=player, club=old, start_date=datetime.date(2020, 1, 1),
                                  end_date=datetime.date(2024, 6, 30))
    ClubMembership.objects.create(player=player, club=new, start_date=datetime.date(2024, 7, 1))
    assert player.club_on(datetime.date(2022, 5, 1)) == old
    assert player.current_club == new


def test_result_reaches_stored_standings_after_commit(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(4, tiebreak_preset="fistf")
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.filter(round__number=1).order_by("position").first()  # E1 v E4
    result = record(django_capture_on_commit_callbacks, fixture, 3, 1)
    result.refresh_from_db()
    assert (result.home_goals, result.away_goals, result.winner.name) == (3, 1, "E1")
    assert result.source == Result.Source.TABLE and result.is_official and result.match is None
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    top = Standing.objects.get(competition=competition, position=1)
    assert (top.entrant.name, top.points, top.goals_for, top.goals_against) == ("E1", 3, 3, 1)
    # Idempotent: the task finds the work done.
    assert recompute_standings(competition.pk) is False
    # A correction is official at once, and recomputed.
    record(django_capture_on_commit_callbacks, fixture, 0, 2)
    top = Standing.objects.get(competition=competition, position=1)
    assert (top.entrant.name, top.points) == ("E4", 3)


def test_the_progressive_score_reads_the_round_of_each_stored_result(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(4, tiebreak_preset="custom", tiebreak_criteria=["progressive"])
    fixtures_generate(competition=competition)
    # Berger: 1-4 2-3, 4-3 1-2, 2-4 3-1; E1 and E4 win twice, E2 and E3 once, at other times
    for number, scores in ((1, [(1, 0), (1, 0)]), (2, [(1, 0), (1, 0)]), (3, [(0, 1), (1, 0)])):
        fixtures = competition.fixtures.filter(round__number=number).order_by("position")
        for fixture, (home, away) in zip(fixtures, scores, strict=True):
            record(django_capture_on_commit_callbacks, fixture, home, away)
    rows = list(Standing.objects.filter(competition=competition).order_by("position"))
    # running scores: E1 3 6 6, E4 0 3 6, E2 3 3 3, E3 0 0 3
    assert [(r.entrant.name, r.points) for r in rows] == [("E1", 6), ("E4", 6), ("E2", 3), ("E3", 3)]
    assert rows[0].tiebreak == "level on 6 points with E4; ahead on progressive score, 15 against 9"
    assert rows[2].tiebreak == "level on 3 points with E3; ahead on progressive score, 9 against 3"


def test_a_knockout_draw_needs_a_shoot_out_and_the_winner_fills_the_next_round(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(8, format=Competition.Format.KNOCKOUT, third_place_match=True)
    fixtures_generate(competition=competition)
    first = list(competition.fixtures.filter(round__number=1).order_by("position"))
    assert pairs(first) == [("E1", "E8"), ("E4", "E5"), ("E2", "E7"), ("E3", "E6")]
    with pytest.raises(ResultError):
        record(django_capture_on_commit_callbacks, first[0], 1, 1)
    record(django_capture_on_commit_callbacks, first[0], 1, 1, home_shootout=3, away_shootout=4)
    record(django_capture_on_commit_callbacks, first[1], 2, 0)
    record(django_capture_on_commit_callbacks, first[2], 0, 0, home_et_goals=1)
    record(django_capture_on_commit_callbacks, first[3], 0, 1)
    semis = list(competition.fixtures.filter(round__number=2).order_by("position"))
    assert pairs(semis) == [("E8", "E4"), ("E2", "E6")]
    record(django_capture_on_commit_callbacks, semis[0], 2, 1)
    record(django_capture_on_commit_callbacks, semis[1], 0, 3)
    final = competition.fixtures.get(label="Final")
    third = competition.fixtures.get(label="Third-place match")
    assert pairs([final, third]) == [("E8", "E6"), ("E4", "E2")]
    assert not Standing.objects.filter(competition=competition).exists()


def test_byes_go_straight_through():
    competition = competition_with_entrants(6, format=Competition.Format.KNOCKOUT)
    fixtures_generate(competition=competition)
    first = list(competition.fixtures.filter(round__number=1).order_by("position"))
    assert pairs(first) == [("E1", None), ("E4", "E5"), ("E2", None), ("E3", "E6")]
    assert [f.status for f in first] == ["bye", "scheduled", "bye", "scheduled"]
    semis = list(competition.fixtures.filter(round__number=2).order_by("position"))
    assert pairs(semis) == [("E1", None), ("E2", None)]


def test_groups_then_knockout_snake_seeding_and_crossover(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(
        8, format=Competition.Format.GROUPS_KNOCKOUT, group_count=2, qualifiers_per_group=2,
    )
    fixtures_generate(competition=competition)
    groups = competition.stages.get(kind=Stage.Kind.GROUPS).groups.order_by("name")
    assert [sorted(e.name for e in g.entrants.all()) for g in groups] == [
        ["E1", "E4", "E5", "E8"], ["E2", "E3", "E6", "E7"],
    ]
    # The better seed wins every group match.
    for fixture in competition.fixtures.filter(round__stage__kind=Stage.Kind.GROUPS):
        home_better = fixture.home.seed < fixture.away.seed
        record(django_capture_on_commit_callbacks, fixture, 1 if home_better else 0, 0 if home_better else 1)
    semis = list(competition.fixtures.filter(round__stage__kind=Stage.Kind.KNOCKOUT, round__number=1).order_by("position"))
    assert [f.label for f in semis] == ["A1 v B2", "B1 v A2"]
    assert pairs(semis) == [("E1", "E3"), ("E2", "E4")]


@pytest.mark.parametrize("policy", ["annul", "forfeit_remaining"])
def test_withdrawal_applies_the_policy(policy, django_capture_on_commit_callbacks):
    competition = competition_with_entrants(4, withdrawal_policy=policy)
    fixtures_generate(competition=competition)
    # Round 1: E1 v E4, E2 v E3. E4 beats E1, then withdraws.
    r1 = list(competition.fixtures.filter(round__number=1).order_by("position"))
    record(django_capture_on_commit_callbacks, r1[0], 0, 1)
    record(django_capture_on_commit_callbacks, r1[1], 1, 1)
    e4 = competition.entrants.get(name="E4")
    with django_capture_on_commit_callbacks(execute=True):
        entrant_withdraw(entrant=e4)
    rows = {s.entrant.name: s for s in Standing.objects.filter(competition=competition)}
    remaining = competition.fixtures.filter(round__number__gt=1).filter(home=e4) | competition.fixtures.filter(
        round__number__gt=1, away=e4)
    if policy == "annul":
        assert "E4" not in rows
        assert rows["E1"].played == 0
        assert competition.fixtures.get(pk=r1[0].pk).status == Fixture.Status.ANNULLED
        assert {f.status for f in remaining} == {Fixture.Status.CANCELLED}
    else:
        # The past result stands; its two remaining fixtures are 2-0 walkovers against it.
        assert rows["E4"].played == 3 and rows["E4"].points == 3
        assert (rows["E4"].goals_for, rows["E4"].goals_against) == (1, 4)
        assert {f.status for f in remaining} == {Fixture.Status.WALKOVER}
        assert (rows["E2"].points, rows["E2"].played) == (4, 2)  # the draw, then the walkover


def test_withdrawal_in_a_knockout_sends_the_opponent_through(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(4, format=Competition.Format.KNOCKOUT)
    fixtures_generate(competition=competition)
    with django_capture_on_commit_callbacks(execute=True):
        entrant_withdraw(entrant=competition.entrants.get(name="E4"))
    final = competition.fixtures.get(label="Final")
    assert final.home.name == "E1"


def test_standings_record_lots_once_drawn():
    competition = competition_with_entrants(3)
    fixtures_generate(competition=competition)
    assert standings_recompute(competition_id=competition.pk) is True
    competition.refresh_from_db()
    drawn = dict(competition.lots_drawn)
    assert set(drawn) == {str(e.pk) for e in competition.entrants.all()}
    # A new seed later does not redraw lots already made.
    order = list(Standing.objects.filter(competition=competition).values_list("entrant__name", flat=True))
    Competition.objects.filter(pk=competition.pk).update(lots_seed=999, derived_version=0)
    standings_recompute(competition_id=competition.pk)
    assert list(Standing.objects.filter(competition=competition).values_list("entrant__name", flat=True)) == order
