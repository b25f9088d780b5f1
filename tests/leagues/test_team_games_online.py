"""A team tie's game played online: its two players (from the line-ups) check in, the match is
set up between them and goes live, and its adjudicated log is the game's result."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from leagues.models import Fixture
from leagues.services.kickoffs import fixture_set_venue
from matches.models import Match
from matches.names import title_shown
from matches.services.play import PlayError
from tests.leagues.team_world import as_user, team_world

pytestmark = pytest.mark.django_db


def test_a_games_two_players_check_in_and_play_it_online():
    world = team_world(clubs=2, tables_per_tie=2, venue="online")
    tie = world.ties()[0]
    world.lineups(tie)
    kickoff = timezone.now() + timedelta(minutes=10)
    Fixture.with_games.filter(pk=tie.pk).update(kickoff_at=kickoff)
    Fixture.with_games.filter(tie=tie).update(kickoff_at=kickoff)
    game = world.games(tie)[0]
    home, away = world.players[tie.home_id][0], world.players[tie.away_id][0]
    outsider = world.players[tie.home_id][1]  # at table 2, not this game's
    answer = as_user(outsider.user).post(f"/api/fixtures/{game.pk}/check-in/")
    assert answer.status_code == 403
    assert as_user(home.user).post(f"/api/fixtures/{game.pk}/check-in/").status_code == 200
    assert as_user(away.user).post(f"/api/fixtures/{game.pk}/check-in/").status_code == 200
    game.refresh_from_db()
    match = Match.objects.get(pk=game.match_id)
    assert match.status == Match.Status.LIVE
    assert (match.home_user_id, match.away_user_id) == (home.user_id, away.user_id)
    answer = as_user(home.user).post(f"/api/fixtures/{tie.pk}/check-in/")  # the tie itself is not played
    assert answer.status_code in (403, 409)
    html = world.api.get(f"/fixtures/{tie.pk}/").content.decode()  # the tie page marks the live table
    assert 'class="card tie-table live"' in html and "Watch live" in html


def test_a_tie_moved_online_takes_its_games_not_yet_decided_with_it():
    """The admin (``fixture_set_venue``) sets one tie of a table championship online: its games
    are played online (checked in by their players), the game already decided keeps its venue,
    the other ties stay at the table; a game whose match started refuses the move, whole."""
    world = team_world(clubs=4, tables_per_tie=2)
    tie, other = world.ties(1)
    world.lineups(tie)
    decided = world.games(tie)[0]
    assert world.record(decided, 1, 0).status_code == 200
    fixture_set_venue(fixture=tie, venue="online", by=world.organiser, reason="Played online")
    games = {g.table: g for g in world.games(tie)}
    assert (games[1].is_online, games[2].is_online) == (False, True)
    assert not any(g.is_online for g in world.games(other))
    kickoff = timezone.now() + timedelta(minutes=10)
    Fixture.with_games.filter(pk=tie.pk).update(kickoff_at=kickoff)
    Fixture.with_games.filter(tie=tie).update(kickoff_at=kickoff)
    home, away = world.players[tie.home_id][1], world.players[tie.away_id][1]  # table 2
    for player in (home, away):
        assert as_user(player.user).post(f"/api/fixtures/{games[2].pk}/check-in/").status_code == 200
    assert Match.objects.get(pk=Fixture.with_games.get(pk=games[2].pk).match_id).status == Match.Status.LIVE
    with pytest.raises(PlayError) as refused:
        fixture_set_venue(fixture=tie, venue="table", by=world.organiser)
    assert refused.value.code == "online_match_started"
    assert Fixture.with_games.get(pk=tie.pk).venue == "online"  # refused whole


def test_a_games_match_is_titled_by_its_round_and_table_in_the_readers_language():
    """The board of a tie's game says which table of the round it is, as the tie page does."""
    world = team_world(clubs=2, tables_per_tie=2, venue="online", slug="copa")
    tie = world.ties()[0]
    world.lineups(tie)
    kickoff = timezone.now() + timedelta(minutes=10)
    Fixture.with_games.filter(pk=tie.pk).update(kickoff_at=kickoff)
    Fixture.with_games.filter(tie=tie).update(kickoff_at=kickoff)
    game = world.games(tie)[1]
    assert as_user(world.players[tie.home_id][1].user).post(f"/api/fixtures/{game.pk}/check-in/").status_code == 200
    match = Match.objects.get(pk=Fixture.with_games.get(pk=game.pk).match_id)
    assert match.title == "Copa, Round 1, Table 2"
    board = world.api.get(f"/matches/{match.pk}/").content.decode()
    assert f'<a href="/fixtures/{game.pk}/">Copa, Round 1, Table 2</a>' in board
    with translation.override("es"):
        assert title_shown(match.title) == "Copa, Jornada 1, Mesa 2"
