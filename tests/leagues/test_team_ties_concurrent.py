"""Two games of one tie recorded (by two organisers) or confirmed (by their players) at the same
moment, on PostgreSQL: both are stored and the tie is derived once, from both (the competition's
lock orders them)."""
from __future__ import annotations

import threading

import pytest
from celery._state import _set_task_join_will_block
from django.contrib.auth import get_user_model
from django.db import connection

from leagues.models import Fixture, FixtureChange
from tests.leagues.team_world import as_user, team_world

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _celery_join_flag():
    """Eager tasks run by two threads at once can leave Celery's process-wide "joining a result
    would block" flag set (``denied_join_result`` saves and restores a global, not per thread):
    put it back, so that a later test's ``task.apply().get()`` is not refused."""
    yield
    _set_task_join_will_block(False)


def test_two_games_of_one_tie_recorded_at_once_are_both_stored_and_the_tie_derived_once():
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row locks")
    world = team_world(clubs=2, tables_per_tie=4)
    second = get_user_model().objects.create_user(username="second-organiser")
    world.competition.organisers.add(second)
    tie = world.ties()[0]
    world.lineups(tie)
    games = world.games(tie)
    for game, (home, away) in zip(games[:2], [(1, 0), (0, 1)], strict=True):
        assert world.record(game, home, away).status_code == 200
    barrier = threading.Barrier(2)
    answers = {}

    def record(client, game, home, away):
        try:
            barrier.wait(timeout=10)
            answers[game.pk] = client.post(f"/api/fixtures/{game.pk}/result/", {"home_goals": home, "away_goals": away},
                                           format="json").status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=record, args=(world.api, games[2], 2, 0)),
               threading.Thread(target=record, args=(as_user(second), games[3], 3, 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert answers == {games[2].pk: 200, games[3].pk: 200}
    tie.refresh_from_db()
    assert tie.status == Fixture.Status.PLAYED
    assert (tie.result.winner_side, tie.result.home_goals, tie.result.away_goals) == ("home", 6, 2)
    assert FixtureChange.objects.filter(fixture=tie, kind=FixtureChange.Kind.RESULT).count() == 1
    assert not FixtureChange.objects.filter(fixture=tie, kind=FixtureChange.Kind.CORRECTION).exists()


def test_two_games_of_one_tie_confirmed_at_once_by_their_players_derive_the_tie_once():
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row locks")
    world = team_world(clubs=2, tables_per_tie=2)
    tie = world.ties()[0]
    world.lineups(tie)
    games = world.games(tie)
    home, away = world.players[tie.home_id], world.players[tie.away_id]
    for table, (game, score) in enumerate(zip(games, [(2, 0), (1, 1)], strict=True)):
        answer = as_user(home[table].user).post(f"/api/fixtures/{game.pk}/result/",
                                                {"home_goals": score[0], "away_goals": score[1]}, format="json")
        assert answer.status_code == 202, answer.json()
    barrier = threading.Barrier(2)
    answers = {}

    def confirm(user, game):
        try:
            barrier.wait(timeout=10)
            answers[game.pk] = as_user(user).post(f"/api/fixtures/{game.pk}/confirm-result/", {},
                                                  format="json").status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=confirm, args=(away[table].user, game)) for table, game in enumerate(games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert answers == {games[0].pk: 200, games[1].pk: 200}
    tie.refresh_from_db()
    assert tie.status == Fixture.Status.PLAYED
    assert (tie.result.winner_side, tie.result.home_goals, tie.result.away_goals) == ("home", 3, 1)
    assert (tie.result.home_game_points, tie.result.away_game_points) == (1.5, 0.5)
    assert FixtureChange.objects.filter(fixture=tie, kind=FixtureChange.Kind.RESULT).count() == 1
    assert not FixtureChange.objects.filter(fixture=tie, kind=FixtureChange.Kind.CORRECTION).exists()
