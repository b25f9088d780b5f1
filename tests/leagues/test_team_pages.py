"""The pages of a club championship: the tie page (its tables side by side, the line-ups as far
as the reader may see them, the games' results, the derived tie result), a game's page, and the
competition page's team standings and ties."""
from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from leagues.models import Competition, Fixture, PlayerRating, Standing
from leagues.services.ratings import ratings_recompute
from leagues.services.standings import standings_recompute
from tests.leagues.team_world import team_world

pytestmark = pytest.mark.django_db


def page(client, fixture) -> str:
    answer = client.get(f"/fixtures/{fixture.pk}/")
    assert answer.status_code == 200
    return answer.content.decode()


class TestTiePage:
    def test_the_tables_side_by_side_with_the_lineups_hidden_until_both_are_in(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        home_players = world.players[tie.home_id][:4]
        assert world.lineup(tie, "home").status_code == 200
        html = page(Client(), tie)
        assert html.count('class="card tie-table') == 4
        assert "line-up in, hidden until both are in" in html
        assert home_players[0].full_name not in html
        world.lineup(tie, "away")
        html = page(Client(), tie)
        assert all(p.full_name in html for p in home_players)

    def test_a_captain_is_told_his_line_up_is_not_yet_shown_to_the_other_team(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        assert world.lineup(tie, "home").status_code == 200
        captain = Client()
        captain.force_login(tie.home.captain)
        assert "line-up in, shown to you; the other team sees it once both are in" in page(captain, tie)
        world.lineup(tie, "away")
        html = page(captain, tie)
        assert "shown to you" not in html and f"{tie.home.name}: line-up in</span>" in html

    def test_a_line_up_deadline_passed_says_the_line_ups_are_closed(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        assert "Line-ups until " in page(Client(), tie)
        Fixture.objects.filter(pk=tie.pk).update(kickoff_at=timezone.now() + timedelta(minutes=10))
        html = page(Client(), tie)
        assert "Line-ups closed at " in html and "Line-ups until " not in html

    def test_the_competition_page_scores_each_tie_by_its_game_points_as_the_tie_page(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(3, 0), (3, 0), (0, 1), (0, 1)])  # 2-2 on game points, goals 6-2
        html = Client().get(f"/competitions/{world.competition.slug}/").content.decode()
        assert '<span class="score" title="">2–2</span>' in html and "6–2" not in html
        assert "2–2" in page(Client(), tie)

    def test_the_team_standings_name_their_column_team(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 1), (0, 3), (4, 1)])
        standings_recompute(competition_id=world.competition.pk)
        html = Client().get(f"/competitions/{world.competition.slug}/").content.decode()
        assert 'id="standings"' in html and "<th>Team</th>" in html and "<th>Entrant</th>" not in html

    def test_the_games_results_and_the_derived_tie_result(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 1), (0, 3), (4, 1)])
        html = page(Client(), tie)
        assert "2½–1½" in html and "Derived from its games" in html and "(goals 7–5)" in html


    def test_a_games_page_names_its_table_and_players(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        game = world.games(tie)[1]
        html = page(Client(), game)
        assert "Table 2 of the tie" in html
        assert world.players[tie.home_id][1].full_name in html

    def test_the_organiser_records_games_not_the_tie(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        client = Client()
        client.force_login(world.organiser)
        assert "Record a table result" not in page(client, tie)
        assert "Record a table result" in page(client, world.games(tie)[0])


class TestCompetitionPage:
    def test_team_standings_with_game_points_and_the_ties(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 1), (0, 3), (4, 1)])
        standings_recompute(competition_id=world.competition.pk)
        html = Client().get(f"/competitions/{world.competition.slug}/").content.decode()
        assert 'title="Game points"' in html and "2½" in html
        assert "Club ties over 4 tables" in html
        assert html.count(f'href="/fixtures/{tie.pk}/"') >= 1


class TestPlayersTeamGames:
    def test_the_player_page_shows_his_team_games_and_for_which_team(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 1), (0, 3), (4, 1)])
        first = world.players[tie.home_id][0]
        html = Client().get(f"/players/{first.pk}/").content.decode()
        assert 'id="team-games"' in html and f"for {tie.home.name}" in html
        assert "1 played · 1 won · 0 drawn · 0 lost" in html

    def test_each_team_game_counts_for_its_two_players_ratings(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        world.lineups(tie)
        world.play(tie, [(2, 0), (1, 1), (0, 3), (4, 1)])
        ratings_recompute(force=True)
        home, away = world.players[tie.home_id], world.players[tie.away_id]
        rated = {r.player_id: r for r in PlayerRating.objects.filter(player__in=[*home, *away])}
        assert set(rated) == {p.pk for p in home[:4] + away[:4]}
        assert rated[home[0].pk].rating > 1500 > rated[away[0].pk].rating
        assert (rated[home[1].pk].games, rated[home[1].pk].draws) == (1, 1)


class TestLineupForm:
    def test_a_captain_lines_up_his_team_from_the_tie_page(self):
        world = team_world(clubs=2)
        tie = world.ties()[0]
        captain = Client()
        captain.force_login(tie.home.captain)
        html = page(captain, tie)
        assert 'id="lineup-home"' in html and 'id="lineup-away"' not in html
        squad = world.players[tie.home_id]
        answer = captain.post(f"/fixtures/{tie.pk}/lineup/", {"side": "home", **{
            f"table_{n}": squad[n - 1].pk for n in range(1, 4)}})
        assert answer.status_code == 302
        assert [g.home_player_id for g in world.games(tie)] == [squad[0].pk, squad[1].pk, squad[2].pk, None]
        refused = captain.post(f"/fixtures/{tie.pk}/lineup/", {"side": "away", "table_1": squad[0].pk})
        assert refused.status_code == 403


class TestDemoClubChampionship:
    def test_the_demo_has_a_part_played_club_championship_with_a_game_live(self, settings):
        settings.DEBUG = True
        call_command("load_demo", stdout=StringIO())
        championship = Competition.objects.get(entrant_kind="team")
        assert championship.entrants.count() == 4 and championship.tables_per_tie == 2
        first_round = Fixture.objects.filter(competition=championship, round__number=1)
        assert first_round.count() == 2 and all(t.status == Fixture.Status.PLAYED for t in first_round)
        live = Fixture.with_games.filter(competition=championship, tie__isnull=False, match__status="live")
        assert live.count() == 1
        assert Standing.objects.filter(competition=championship).count() == 4
        latest = Competition.objects.filter(format="league").order_by("-created_at").first()
        assert latest.entrant_kind == "player"
        assert Competition.objects.get(format="league", season__is_current=True).entrant_kind == "player"


class TestCalendarAndRoundSheet:
    def test_one_calendar_event_per_tie_and_a_sheet_line_per_table(self):
        world = team_world(clubs=4, tables_per_tie=2)
        ics = Client().get(f"/competitions/{world.competition.slug}/calendar.ics").content.decode()
        assert ics.count("BEGIN:VEVENT") == len(world.ties()) == 6
        tie = world.ties(1)[0]
        world.lineups(tie)
        sheet = Client().get(f"/competitions/{world.competition.slug}/rounds/{tie.round_id}/print/").content.decode()
        assert sheet.count('class="game-row"') == 4  # two ties of two tables
        assert world.players[tie.home_id][0].full_name in sheet
        assert world.players[world.ties(1)[1].home_id][0].full_name not in sheet  # not lined up yet


def test_the_standings_embed_has_the_game_points():
    world = team_world(clubs=2, tables_per_tie=2)
    tie = world.ties()[0]
    world.lineups(tie)
    world.play(tie, [(1, 0), (1, 1)])
    standings_recompute(competition_id=world.competition.pk)
    html = Client().get(f"/embed/competitions/{world.competition.slug}/standings/").content.decode()
    assert 'title="Game points"' in html and "1½" in html
