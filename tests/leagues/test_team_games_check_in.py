"""A game of an online team tie: checked in by its two players (the line-ups' players at its
table), its check-in notices sent to them, and the sweeps that end it when one or both are
absent (COMPETITIONS.md §8, §10). Time comes in as data: the sweeps are given a moment past
the grace; no test sleeps."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Fixture, Result
from leagues.notifications.models import Kind, Notification
from leagues.services import notices
from leagues.services.online import no_shows_record
from leagues.services.results import result_from_match
from matches.models import Match
from matches.services import deadlines
from matches.services.adjudication import match_adjudicate
from tests.leagues.team_world import as_user, team_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def online_tie():
    """An online tie of two tables, lined up, kicking off in ten minutes (its check-in open)."""
    world = team_world(clubs=2, tables_per_tie=2, venue="online")
    tie = world.ties()[0]
    world.lineups(tie)
    kickoff = timezone.now() + timedelta(minutes=10)
    Fixture.with_games.filter(pk=tie.pk).update(kickoff_at=kickoff)
    Fixture.with_games.filter(tie=tie).update(kickoff_at=kickoff)
    return world, tie


def test_a_squad_member_not_in_that_game_cannot_check_in_to_it(online_tie):
    world, tie = online_tie
    second = world.games(tie)[1]
    captain = world.players[tie.home_id][0]  # the captain plays table 1, not table 2
    bench = world.players[tie.home_id][4]  # in the squad, at no table
    for player in (captain, bench):
        answer = as_user(player.user).post(f"/api/fixtures/{second.pk}/check-in/")
        assert answer.status_code == 403 and answer.json()["error"] == "not_a_player"
    second.refresh_from_db()
    assert second.match_id is None
    answer = as_user(world.players[tie.home_id][1].user).post(f"/api/fixtures/{second.pk}/check-in/")
    assert answer.status_code == 200, answer.json()


def test_the_check_in_notices_go_to_the_games_players(online_tie):
    world, tie = online_tie
    first = world.games(tie)[0]
    home, away = world.players[tie.home_id][0], world.players[tie.away_id][0]
    opens = first.checkin_opens_at
    assert notices.checkin_open_due(now=opens + timedelta(minutes=1)) == 4  # two tables, two players each
    told = set(Notification.objects.filter(kind=Kind.CHECKIN_OPEN).values_list("user_id", flat=True))
    assert told == {world.players[team][n].user_id for team in (tie.home_id, tie.away_id) for n in (0, 1)}
    assert as_user(home.user).post(f"/api/fixtures/{first.pk}/check-in/").status_code == 200
    waiting = Notification.objects.get(kind=Kind.OPPONENT_CHECKED_IN)
    assert waiting.user_id == away.user_id and home.full_name in waiting.subject
    assert notices.walkover_warnings_due(now=first.kickoff_at + timedelta(minutes=1)) == 1
    assert Notification.objects.get(kind=Kind.WALKOVER_WARNING).user_id == away.user_id


def test_an_absent_game_player_loses_his_game_by_walkover_after_the_grace(online_tie):
    world, tie = online_tie
    first, second = world.games(tie)
    assert as_user(world.players[tie.home_id][0].user).post(f"/api/fixtures/{first.pk}/check-in/").status_code == 200
    first.refresh_from_db()
    after_grace = first.checkin_closes_at + timedelta(seconds=5)
    assert deadlines.tick_due(now=after_grace) == 1
    match = Match.objects.get(pk=first.match_id)
    assert (match.status, match.walkover_side) == (Match.Status.WALKOVER, "away")
    match_adjudicate(match_id=match.pk)  # what the worker does after commit
    result_from_match(match_id=match.pk, now=after_grace)
    first.refresh_from_db()
    assert first.status == Fixture.Status.WALKOVER
    assert (first.result.outcome, first.result.outcome_side, first.result.winner_side) == ("walkover", "away", "home")
    # nobody at table 2: the no-show sweep makes it a double no-show, and the tie is derived
    assert no_shows_record(now=after_grace) == 1
    second.refresh_from_db()
    assert second.status == Fixture.Status.WALKOVER and second.result.is_double_no_show
    tie.refresh_from_db()
    assert tie.status == Fixture.Status.PLAYED and tie.result.winner_side == "home"
    assert not Result.objects.filter(fixture=tie, source=Result.Source.TABLE).exists()


def test_the_no_show_sweep_leaves_a_game_whose_window_is_open(online_tie):
    world, tie = online_tie
    first = world.games(tie)[0]
    assert no_shows_record(now=first.kickoff_at + timedelta(minutes=1)) == 0  # the grace still runs
    assert no_shows_record(now=first.checkin_closes_at + timedelta(seconds=1)) == 2
