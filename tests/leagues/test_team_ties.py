"""Team ties and their games, line-ups, the tie's derived result and the team standings, through
the API as organisers and captains use it (COMPETITIONS.md §10). Time comes in as data."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Fixture, Result, Standing
from leagues.services.standings import standings_recompute
from leagues.services.teams import lineups_due, lineups_sweep
from leagues.tasks import sweep as leagues_sweep
from tests.leagues.team_world import make_player, team_world

pytestmark = pytest.mark.django_db


def fetch(world, fixture, client=None):
    return (client or world.api).get(f"/api/fixtures/{fixture.pk}/").json()


class TestTiesAndGames:
    def test_each_tie_of_a_league_holds_a_game_per_table(self):
        world = team_world(clubs=4)
        ties = world.ties()
        assert len(ties) == 6  # a single round robin of four teams
        for tie in ties:
            games = world.games(tie)
            assert [g.table for g in games] == [1, 2, 3, 4]
            assert all((g.home_id, g.away_id, g.round_id, g.kickoff_at) == (tie.home_id, tie.away_id, tie.round_id,
                                                                              tie.kickoff_at) for g in games)
        data = fetch(world, ties[0])
        assert [g["table"] for g in data["games"]] == [1, 2, 3, 4]
        assert {"id", "table", "home_player", "away_player"} <= set(data["games"][0])

    def test_a_tie_list_leaves_the_games_out_of_the_rounds_and_standings(self):
        world = team_world(clubs=3, tables_per_tie=2)
        assert Fixture.objects.filter(competition=world.competition).count() == 6  # 3 ties + 3 byes
        assert Fixture.with_games.filter(competition=world.competition, tie__isnull=False).count() == 6

    def test_a_result_on_the_tie_itself_is_refused(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        answer = world.record(tie, 2, 1)
        assert answer.status_code == 409 and answer.json()["error"] == "tie_result_derived"
        assert not Result.objects.filter(fixture=tie).exists()

    def test_a_game_takes_its_result_walkover_and_correction_with_history_as_a_single_fixture(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        game = world.games(tie)[0]
        assert world.record(game, 3, 1).status_code == 200
        answer = world.record(game, 1, 3, reason="the sheet was read upside down")
        assert answer.status_code == 200 and answer.json()["result"]["winner_side"] == "away"
        walkover = world.api.post(f"/api/fixtures/{world.games(tie)[1].pk}/result/",
                                  {"outcome": "walkover", "outcome_side": "home"}, format="json")
        assert walkover.status_code == 200 and walkover.json()["result"]["away_goals"] == 2
        history = world.api.get(f"/api/fixtures/{game.pk}/history/").json()
        assert [h["kind"] for h in history] == ["correction", "result"]
        data = fetch(world, game)
        assert (data["tie"], data["table"]) == (tie.pk, 1)
        assert data["home_player"]["id"] == world.players[tie.home_id][0].pk

    def test_the_knockout_ties_have_their_games_and_the_winner_goes_on(self):
        world = team_world(clubs=4, format="knockout", tables_per_tie=2)
        first = world.ties(1)
        final = world.ties(2)[0]
        assert len(world.games(final)) == 2 and final.home_id is None
        for tie in first:
            world.lineups(tie)
            world.play(tie, [(2, 0), (1, 0)])
        final.refresh_from_db()
        assert (final.home_id, final.away_id) == (first[0].home_id, first[1].home_id)
        assert [(g.home_id, g.away_id) for g in world.games(final)] == [(final.home_id, final.away_id)] * 2

    def test_groups_then_knockout_make_the_games_of_every_tie(self):
        world = team_world(clubs=4, format="groups_knockout", group_count=2, qualifiers_per_group=1,
                           tables_per_tie=2)
        assert all(len(world.games(t)) == 2 for t in world.ties())


class TestLineups:
    def test_a_lineup_is_hidden_from_the_other_team_until_both_are_in(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        home, away = tie.home, tie.away
        assert world.lineup(tie, "home", client=world.captain(home)).status_code == 200
        seen_by_away = fetch(world, tie, world.captain(away))
        assert all(g["home_player"] is None for g in seen_by_away["games"])
        assert seen_by_away["lineups"]["home"] == {"submitted": True, "visible": False}
        seen_by_home = fetch(world, tie, world.captain(home))
        assert [g["home_player"]["id"] for g in seen_by_home["games"]] == [p.pk for p in world.players[home.pk][:4]]
        assert world.lineup(tie, "away", client=world.captain(away)).status_code == 200
        seen_by_away = fetch(world, tie, world.captain(away))
        assert all(g["home_player"] is not None for g in seen_by_away["games"])

    def test_a_captain_lines_up_his_own_team_only(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        assert world.lineup(tie, "away", client=world.captain(tie.home)).status_code == 403

    def test_another_clubs_player_or_one_of_another_competitions_squad_is_refused(self):
        world = team_world(clubs=2)
        other = team_world(clubs=2, slug="cup")
        tie = world.ties()[0]
        home = tie.home
        mine = world.players[home.pk][:3]
        theirs = world.players[tie.away_id][0]
        answer = world.lineup(tie, "home", [*mine, theirs], client=world.captain(home))
        assert answer.status_code == 400 and "players" in answer.json()
        elsewhere = other.players[other.teams[0].pk][0]
        answer = world.lineup(tie, "home", [*mine, elsewhere], client=world.captain(home))
        assert answer.status_code == 400 and "players" in answer.json()
        unlisted = make_player(world.clubs[0], 20)  # of the club, not of the squad
        assert world.lineup(tie, "home", [*mine, unlisted], client=world.captain(home)).status_code == 400
        assert all(g.home_player_id is None for g in world.games(tie))

    def test_a_lineup_after_the_deadline_is_refused(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        tie.kickoff_at = timezone.now() + timedelta(minutes=29)  # the deadline is 30 minutes before
        tie.save(update_fields=["kickoff_at"])
        answer = world.lineup(tie, "home", client=world.captain(tie.home))
        assert answer.status_code == 409 and answer.json()["error"] == "lineup_closed"
        assert all(g.home_player_id is None for g in world.games(tie))

    def test_a_side_that_lines_up_three_of_four_loses_the_fourth_table_at_the_deadline(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        assert world.lineup(tie, "home", world.players[tie.home_id][:3]).status_code == 200
        assert world.lineup(tie, "away").status_code == 200
        now = tie.kickoff_at - timedelta(minutes=30)
        assert lineups_due(now=now - timedelta(seconds=1)) == []
        assert lineups_sweep(now=now) == 1
        fourth = world.games(tie)[3]
        assert fourth.status == Fixture.Status.WALKOVER
        assert (fourth.result.outcome_side, fourth.result.away_goals, fourth.result.home_goals) == ("home", 2, 0)
        assert all(g.status == Fixture.Status.SCHEDULED for g in world.games(tie)[:3])
        assert lineups_sweep(now=now) == 0  # done once

    def test_a_missing_lineup_makes_every_game_of_that_side_a_walkover(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        assert world.lineup(tie, "away").status_code == 200
        assert lineups_sweep(now=tie.kickoff_at) == 4
        tie.refresh_from_db()
        assert [g.result.outcome_side for g in world.games(tie)] == ["home"] * 4
        assert tie.status == Fixture.Status.PLAYED and tie.result.winner_side == "away"


class TestDerivedTie:
    def test_the_tie_is_won_on_game_points_and_the_table_counts_tie_then_game_points(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 1), (0, 3), (4, 1)])
        tie.refresh_from_db()
        assert tie.status == Fixture.Status.PLAYED
        assert (tie.result.source, tie.result.winner_side, tie.result.home_goals, tie.result.away_goals) == (
            "tie", "home", 7, 5)
        data = fetch(world, tie)
        assert (data["home_game_points"], data["away_game_points"]) == (2.5, 1.5)
        standings_recompute(competition_id=world.competition.pk)
        rows = {r.entrant_id: r for r in Standing.objects.filter(competition=world.competition)}
        home, away = rows[tie.home_id], rows[tie.away_id]
        assert (home.position, home.points, float(home.game_points), home.goals_for, home.goals_against) == (
            1, 3, 2.5, 7, 5)
        assert (away.position, away.points, float(away.game_points), away.won, away.lost) == (2, 0, 1.5, 0, 1)
        table = world.api.get(f"/api/competitions/{world.competition.slug}/standings/").json()["tables"][0]
        assert [(r["entrant_id"], r["points"], r["game_points"]) for r in table["rows"]] == [
            (tie.home_id, 3, 2.5), (tie.away_id, 0, 1.5)]

    def test_the_sweeper_finds_the_lineup_walkovers(self):
        world = team_world(clubs=2, days_ahead=0)
        tie = world.ties()[0]
        tie.kickoff_at = timezone.now() - timedelta(minutes=1)
        tie.save(update_fields=["kickoff_at"])
        Fixture.with_games.filter(tie=tie).update(kickoff_at=tie.kickoff_at)
        assert leagues_sweep()["lineup_walkovers"] == 4
        tie.refresh_from_db()
        assert all(g.result.is_double_no_show for g in world.games(tie))
        assert tie.result.is_double_no_show and tie.status == Fixture.Status.WALKOVER  # lost by both

    def test_a_tie_drawn_on_game_points_in_a_league_is_a_draw(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 0), (0, 3), (0, 1)])
        tie.refresh_from_db()
        assert tie.result.winner_side == "" and tie.status == Fixture.Status.PLAYED
        standings_recompute(competition_id=world.competition.pk)
        assert sorted(Standing.objects.filter(competition=world.competition).values_list("points", flat=True)) == [1, 1]

    def test_teams_level_on_tie_points_are_separated_by_game_points_with_a_sentence(self):
        world = team_world(clubs=4, tables_per_tie=2)
        scores = {1: [[(1, 0), (1, 0)], [(1, 0), (0, 1)]], 2: [[(0, 1), (0, 1)], [(1, 0), (1, 0)]],
                  3: [[(1, 0), (1, 1)], [(0, 1), (0, 0)]]}
        for number, per_tie in scores.items():
            for tie, played in zip(world.ties(number), per_tie, strict=True):
                world.lineups(tie)
                world.play(tie, played)
        standings_recompute(competition_id=world.competition.pk)
        rows = list(Standing.objects.filter(competition=world.competition).order_by("position"))
        level = [r for r in rows if r.tiebreak]
        assert level and all("game points" in r.tiebreak or "goal difference" in r.tiebreak or "head-to-head"
                             in r.tiebreak for r in level)
        answer = world.api.get(f"/api/competitions/{world.competition.slug}/standings/").json()
        assert answer["criteria"][1]["key"] == "game_points"

    def test_a_game_corrected_after_the_next_round_re_derives_tie_and_standings(self):
        world = team_world(clubs=2, double_round_robin=True, tables_per_tie=2)
        first, second = world.ties(1)[0], world.ties(2)[0]
        for tie in (first, second):
            world.lineups(tie)
            world.play(tie, [(1, 0), (1, 0)])
        first.refresh_from_db()
        assert first.result.winner_side == "home"
        game = world.games(first)[0]
        assert world.record(game, 0, 2, reason="the referee's sheet").status_code == 200
        first.refresh_from_db()
        assert first.result.winner_side == "" and (first.result.home_goals, first.result.away_goals) == (1, 2)
        assert [h["kind"] for h in world.api.get(f"/api/fixtures/{first.pk}/history/").json()][:2] == [
            "correction", "result"]
        standings_recompute(competition_id=world.competition.pk)
        points = dict(Standing.objects.filter(competition=world.competition).values_list("entrant_id", "points"))
        assert points[first.home_id] == 1 + 0 and points[first.away_id] == 1 + 3

    def test_a_knockout_tie_level_on_games_is_decided_by_goal_difference(self):
        world = team_world(clubs=2, format="knockout")
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(3, 0), (2, 0), (0, 1), (0, 1)])
        tie.refresh_from_db()
        assert tie.result.winner_side == "home" and tie.status == Fixture.Status.PLAYED

    def test_a_knockout_tie_level_on_goal_difference_waits_for_its_shootout(self):
        world = team_world(clubs=4, format="knockout", tables_per_tie=2)
        tie = world.ties(1)[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (0, 2)])
        tie.refresh_from_db()
        assert tie.status == Fixture.Status.SCHEDULED and not Result.objects.filter(fixture=tie).exists()
        answer = world.api.post(f"/api/fixtures/{tie.pk}/tie-shootout/", {"home_shootout": 2, "away_shootout": 3},
                                format="json")
        assert answer.status_code == 200, answer.json()
        tie.refresh_from_db()
        assert (tie.result.winner_side, tie.result.home_shootout, tie.result.away_shootout) == ("away", 2, 3)
        final = world.ties(2)[0]
        assert final.home_id == tie.away_id
        other = world.ties(1)[1]
        answer = world.api.post(f"/api/fixtures/{other.pk}/tie-shootout/", {"home_shootout": 2, "away_shootout": 3},
                                format="json")
        assert answer.status_code == 409 and answer.json()["error"] == "no_shootout_needed"

    def test_the_shootout_decider_skips_the_goal_difference(self):
        world = team_world(clubs=2, format="knockout", tables_per_tie=2, tie_decider="shootout")
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(5, 0), (0, 1)])
        tie.refresh_from_db()
        assert tie.status == Fixture.Status.SCHEDULED
        assert world.api.post(f"/api/fixtures/{tie.pk}/tie-shootout/", {"home_shootout": 4, "away_shootout": 3},
                              format="json").status_code == 200
        tie.refresh_from_db()
        assert tie.result.winner_side == "home"

    def test_a_knockout_game_corrected_after_the_next_round_is_refused_unless_it_cascades(self):
        world = team_world(clubs=4, format="knockout", tables_per_tie=2)
        first = world.ties(1)
        for tie in first:
            world.lineups(tie)
            world.play(tie, [(1, 0), (1, 0)])
        final = world.ties(2)[0]
        world.lineups(final)
        world.play(final, [(1, 0), (0, 0)])
        game = world.games(first[0])[0]
        answer = world.record(game, 0, 3)  # 1-1 on games, the away side ahead on goals: the final is played
        assert answer.status_code == 409 and answer.json()["error"] == "played_on"
        assert game.result.home_goals == 1
        answer = world.record(game, 0, 3, cascade=True)
        assert answer.status_code == 200, answer.json()
        final.refresh_from_db()
        assert final.home_id == first[0].away_id and final.status == Fixture.Status.SCHEDULED
        assert all(not Result.objects.filter(fixture=g).exists() for g in world.games(final))
        assert all(g.home_id == first[0].away_id for g in world.games(final))


class TestWithdrawals:
    @pytest.mark.parametrize("policy", ["annul", "forfeit_remaining"])
    def test_a_team_withdrawn_midway(self, policy):
        world = team_world(clubs=3, tables_per_tie=2, withdrawal_policy=policy)
        played = world.ties(1)[0]
        world.lineups(played)
        world.play(played, [(1, 0), (1, 0)])
        leaving = played.home
        answer = world.api.post(f"/api/entrants/{leaving.pk}/withdraw/", {}, format="json")
        assert answer.status_code == 200, answer.json()
        later = [t for t in world.ties() if leaving.pk in (t.home_id, t.away_id) and t.pk != played.pk]
        played.refresh_from_db()
        standings_recompute(competition_id=world.competition.pk)
        rows = dict(Standing.objects.filter(competition=world.competition).values_list("entrant_id", "points"))
        if policy == "annul":
            assert played.status == Fixture.Status.ANNULLED
            assert all(g.status == Fixture.Status.ANNULLED for g in world.games(played))
            assert leaving.pk not in rows
        else:
            assert played.status == Fixture.Status.PLAYED
            for tie in later:
                tie.refresh_from_db()
                assert tie.status == Fixture.Status.WALKOVER and tie.result.winner_id != leaving.pk
                assert all(g.status == Fixture.Status.CANCELLED for g in world.games(tie))
            winner = [t for t in later][0]
            beneficiary = winner.away_id if winner.home_id == leaving.pk else winner.home_id
            assert rows[beneficiary] >= 3


class TestOtherFormats:
    def test_a_double_elimination_of_teams_has_the_games_of_every_tie_and_moves_the_loser_down(self):
        world = team_world(clubs=4, format="double_elimination", tables_per_tie=2)
        ties = world.ties()
        assert ties and all(len(world.games(t)) == 2 for t in ties)
        first = [t for t in ties if t.home_id and t.away_id][0]
        world.lineups(first)
        world.play(first, [(0, 1), (0, 1)])
        first.refresh_from_db()
        assert first.result.winner_side == "away"
        assert Fixture.objects.filter(competition=world.competition, round__stage__order=2).filter(
            home_id=first.home_id).exists() or Fixture.objects.filter(
            competition=world.competition, away_id=first.home_id).exclude(pk=first.pk).exists()

    def test_a_swiss_of_teams_pairs_its_next_round_on_tie_points(self):
        world = team_world(clubs=4, format="swiss", rounds=3, tables_per_tie=2)
        for tie in world.ties(1):
            world.lineups(tie)
            world.play(tie, [(1, 0), (1, 0)])
        answer = world.api.post(f"/api/competitions/{world.competition.slug}/generate-fixtures/", {}, format="json")
        assert answer.status_code == 201, answer.json()
        second = world.ties(2)
        winners = {t.home_id for t in world.ties(1)}
        assert len(second) == 2 and all(len(world.games(t)) == 2 for t in second)
        assert any({t.home_id, t.away_id} == winners for t in second)  # the two winners meet

    def test_placement_matches_of_teams(self):
        world = team_world(clubs=4, format="knockout", placement_matches=True, tables_per_tie=2)
        assert len(world.ties()) == 4 and all(len(world.games(t)) == 2 for t in world.ties())


def test_a_tie_rescheduled_moves_its_games():
    world = team_world(clubs=2)
    tie = world.ties()[0]
    later = (tie.kickoff_at + timedelta(days=2)).isoformat()
    answer = world.api.post(f"/api/fixtures/{tie.pk}/reschedule/", {"kickoff_at": later, "reason": "hall"},
                            format="json")
    assert answer.status_code == 200, answer.json()
    tie.refresh_from_db()
    assert all(g.kickoff_at == tie.kickoff_at for g in world.games(tie))
