"""A team tie's games reported by the players and captains (COMPETITIONS.md §10, §11): a game's
report comes from one of its two players (the line-ups' players at its table) or from either
team's captain, and is confirmed or disputed by the other side; confirmed, it is official and
the tie is derived again. Through the API, as players and captains use it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from leagues.models import Fixture, Result, ResultReport
from leagues.notifications.models import Kind, Notification
from tests.leagues.team_world import as_user, team_world

pytestmark = pytest.mark.django_db


def post_result(client, fixture, home, away):
    return client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": home, "away_goals": away},
                       format="json")


@pytest.fixture
def world():
    world = team_world(clubs=3, tables_per_tie=2)
    return world


def lined_up_tie(world):
    tie = world.ties()[0]
    world.lineups(tie)
    return tie


class TestGameReports:
    def test_a_game_reported_by_its_home_player_and_confirmed_by_its_away_player(self, world):
        tie = lined_up_tie(world)
        game = world.games(tie)[0]
        home, away = world.players[tie.home_id][0], world.players[tie.away_id][0]
        answer = post_result(as_user(home.user), game, 2, 1)
        assert answer.status_code == 202, answer.json()
        assert answer.json()["report"]["by"] == "home" and answer.json()["status"] == "scheduled"
        assert not Result.objects.filter(fixture=game).exists()
        assert Notification.objects.filter(user=away.user, kind=Kind.REPORT_WAITING).exists()
        answer = as_user(away.user).post(f"/api/fixtures/{game.pk}/confirm-result/", {}, format="json")
        assert answer.status_code == 200, answer.json()
        game.refresh_from_db()
        assert game.status == Fixture.Status.PLAYED
        assert (game.result.home_goals, game.result.away_goals) == (2, 1)
        assert ResultReport.objects.get(fixture=game).status == ResultReport.Status.OFFICIAL

    def test_the_last_game_confirmed_derives_the_tie(self, world):
        tie = lined_up_tie(world)
        first, second = world.games(tie)
        assert world.record(first, 1, 0).status_code == 200
        home, away = world.players[tie.home_id][1], world.players[tie.away_id][1]  # table 2's players
        assert post_result(as_user(away.user), second, 0, 3).status_code == 202
        tie.refresh_from_db()
        assert tie.status == Fixture.Status.SCHEDULED
        answer = as_user(home.user).post(f"/api/fixtures/{second.pk}/confirm-result/", {}, format="json")
        assert answer.status_code == 200, answer.json()
        tie.refresh_from_db()
        assert tie.status == Fixture.Status.PLAYED
        assert (tie.result.home_goals, tie.result.away_goals, tie.result.winner_side) == (1, 3, "")  # 1-1 on games

    def test_a_game_reported_by_a_captain_and_confirmed_by_the_other_captain(self, world):
        tie = lined_up_tie(world)
        game = world.games(tie)[1]  # table 2: neither captain plays it
        home_team, away_team = tie.home, tie.away
        answer = post_result(world.captain(home_team), game, 0, 0)
        assert answer.status_code == 202, answer.json()
        assert Notification.objects.filter(user=away_team.captain, kind=Kind.REPORT_WAITING).exists()
        assert Notification.objects.filter(user=world.players[away_team.pk][1].user, kind=Kind.REPORT_WAITING).exists()
        answer = world.captain(away_team).post(f"/api/fixtures/{game.pk}/confirm-result/", {}, format="json")
        assert answer.status_code == 200, answer.json()
        game.refresh_from_db()
        assert game.status == Fixture.Status.PLAYED and (game.result.home_goals, game.result.away_goals) == (0, 0)

    def test_a_captain_may_not_confirm_his_own_sides_report(self, world):
        tie = lined_up_tie(world)
        game = world.games(tie)[1]
        player = world.players[tie.home_id][1]
        assert post_result(as_user(player.user), game, 1, 0).status_code == 202
        answer = world.captain(tie.home).post(f"/api/fixtures/{game.pk}/confirm-result/", {}, format="json")
        assert answer.status_code == 409 and answer.json()["error"] == "no_report"

    def test_the_other_captain_disputes_a_players_report(self, world):
        tie = lined_up_tie(world)
        game = world.games(tie)[1]
        assert post_result(as_user(world.players[tie.home_id][1].user), game, 3, 0).status_code == 202
        answer = world.captain(tie.away).post(f"/api/fixtures/{game.pk}/dispute-result/", {"reason": "it was 0-3"},
                                              format="json")
        assert answer.status_code == 200, answer.json()
        assert ResultReport.objects.get(fixture=game).status == ResultReport.Status.DISPUTED
        assert not Result.objects.filter(fixture=game).exists()

    def test_a_captain_of_a_third_team_is_refused(self, world):
        tie = lined_up_tie(world)
        game = world.games(tie)[0]
        third = next(t for t in world.teams if t.pk not in (tie.home_id, tie.away_id))
        answer = post_result(world.captain(third), game, 1, 0)
        assert answer.status_code == 403
        assert not ResultReport.objects.filter(fixture=game).exists()

    def test_a_squad_member_not_at_the_games_table_is_refused(self, world):
        tie = lined_up_tie(world)
        game = world.games(tie)[0]
        bench = world.players[tie.home_id][3]  # in the squad, lined up at no table
        answer = post_result(as_user(bench.user), game, 1, 0)
        assert answer.status_code == 403
        stranger = get_user_model().objects.create_user(username="stranger")
        assert post_result(as_user(stranger), game, 1, 0).status_code == 403

    def test_a_report_on_the_tie_itself_is_refused(self, world):
        tie = lined_up_tie(world)
        answer = post_result(world.captain(tie.home), tie, 4, 0)
        assert answer.status_code == 409 and answer.json()["error"] == "tie_result_derived"
        assert not ResultReport.objects.filter(fixture=tie).exists()

    def test_the_tie_page_offers_no_report_form_to_a_captain(self, world):
        tie = lined_up_tie(world)
        world.captain(tie.home)  # refreshes the captain
        client = as_user(tie.home.captain)
        client.force_login(tie.home.captain)
        html = client.get(f"/fixtures/{tie.pk}/").content.decode()
        assert f'action="/fixtures/{tie.pk}/report/"' not in html


def test_a_games_player_reports_it_from_the_games_page(world):
    tie = lined_up_tie(world)
    game = world.games(tie)[0]
    home, away = world.players[tie.home_id][0], world.players[tie.away_id][0]
    client = as_user(home.user)
    client.force_login(home.user)
    html = client.get(f"/fixtures/{game.pk}/").content.decode()
    assert f'action="/fixtures/{game.pk}/report/"' in html
    assert f"<label>{home.full_name} <input" in html and f'id="report-away"> {away.full_name}</label>' in html
    answer = client.post(f"/fixtures/{game.pk}/report/", {"home_goals": 1, "away_goals": 1})
    assert answer.status_code == 302
    other = as_user(away.user)
    other.force_login(away.user)
    html = other.get(f"/fixtures/{game.pk}/").content.decode()  # the players, not their teams, by name
    assert f"{home.full_name} reported 1-1 on " in html and f"waiting for {away.full_name}&#x27;s confirmation" in html
    assert other.post(f"/fixtures/{game.pk}/confirm-result/").status_code == 302
    game.refresh_from_db()
    assert game.status == Fixture.Status.PLAYED


def test_a_tie_kick_off_is_proposed_by_a_captain_not_on_a_game(world):
    tie = lined_up_tie(world)
    game = world.games(tie)[0]
    when = (tie.kickoff_at + timedelta(days=1)).isoformat()
    answer = as_user(world.players[tie.home_id][0].user).post(
        f"/api/fixtures/{game.pk}/propose-kickoff/", {"kickoff_at": when, "reason": "rain"}, format="json")
    assert answer.status_code == 409 and answer.json()["error"] == "game_of_tie"
    answer = world.captain(tie.home).post(f"/api/fixtures/{tie.pk}/propose-kickoff/",
                                          {"kickoff_at": when, "reason": "rain"}, format="json")
    assert answer.status_code == 200, answer.json()
