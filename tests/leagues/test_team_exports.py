"""A team competition's downloads carry its games (docs/competitions.md): the fixtures export a
row per game under its tie (table, players, score), the results export the import's team file
(a row per game), in CSV and XLSX, no cell a formula; the results CSV imports back into a fresh
competition with the same team standings."""
from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from django.core.management import call_command
from django.test import Client

from leagues.models import Competition, Fixture, Player, Standing
from leagues.services.standings import standings_recompute
from leagues.services.team_imports import TEAM_COLUMNS
from tests.leagues.team_world import team_world

pytestmark = pytest.mark.django_db


def download(competition, what: str, fmt: str) -> bytes:
    answer = Client().get(f"/competitions/{competition.slug}/export/{what}.{fmt}")
    assert answer.status_code == 200
    return answer.content


def rows_of(content: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(content.decode())))


@pytest.fixture
def played():
    """Four teams at two tables: round 1 played, round 2 lined up by one side only."""
    world = team_world(clubs=4, tables_per_tie=2)
    for tie, scores in zip(world.ties(1), ([(2, 0), (1, 1)], [(0, 1), (0, 3)]), strict=True):
        world.lineups(tie)
        world.play(tie, scores)
    world.lineup(world.ties(2)[0], "home")
    standings_recompute(competition_id=world.competition.pk)
    return world


def test_the_fixtures_export_has_a_row_per_game_under_its_tie(played):
    rows = rows_of(download(played.competition, "fixtures", "csv"))
    tie = played.ties(1)[0]
    at = next(i for i, r in enumerate(rows) if r["id"] == str(tie.pk))
    assert rows[at]["tie"] == "" and rows[at]["home_goals"] == "3"
    games = rows[at + 1:at + 3]
    assert [(g["tie"], g["table"], g["home_goals"], g["away_goals"], g["status"]) for g in games] == [
        (str(tie.pk), "1", "2", "0", "played"), (str(tie.pk), "2", "1", "1", "played")]
    home, away = played.players[tie.home_id], played.players[tie.away_id]
    assert (games[0]["home_player"], games[0]["away_player"]) == (home[0].full_name, away[0].full_name)
    assert games[0]["home"] == tie.home.name and games[0]["round"] == rows[at]["round"]
    # round 2: one line-up in, hidden from the public until the other is in or the deadline passes
    later = played.ties(2)[0]
    at = next(i for i, r in enumerate(rows) if r["id"] == str(later.pk))
    assert [(g["table"], g["home_player"], g["away_player"]) for g in rows[at + 1:at + 3]] == [
        ("1", "", ""), ("2", "", "")]
    assert len(rows) == Fixture.with_games.filter(competition=played.competition).count()


def test_the_results_export_is_the_team_file_and_imports_back_to_the_same_standings(played, tmp_path):
    content = download(played.competition, "results", "csv")
    rows = rows_of(content)
    assert list(rows[0]) == list(TEAM_COLUMNS)
    assert len(rows) == 4 and [r["table"] for r in rows] == ["1", "2", "1", "2"]
    path = tmp_path / "interclub-results.csv"
    path.write_bytes(content)
    call_command("import_results", str(path), "--competition", "interclub-copy", "--create", "--name", "Copy",
                 stdout=io.StringIO())
    copy = Competition.objects.get(slug="interclub-copy")
    assert copy.is_team and copy.tables_per_tie == 2
    standings_recompute(competition_id=copy.pk)

    def table(competition):
        return sorted((s.entrant.name, s.played, s.won, s.drawn, s.lost, s.points, s.game_points)
                      for s in Standing.objects.filter(competition=competition).select_related("entrant")
                      if s.played)
    assert table(copy) == table(played.competition)


def test_the_xlsx_exports_carry_the_games_and_no_cell_is_a_formula(played):
    player = played.players[played.ties(1)[0].home_id][0]
    Player.objects.filter(pk=player.pk).update(first_name="=HYPERLINK(1)")
    rows = rows_of(download(played.competition, "results", "csv"))
    assert rows[0]["home_player"] == "'=HYPERLINK(1) " + player.last_name
    book = openpyxl.load_workbook(io.BytesIO(download(played.competition, "results", "xlsx")))
    values = list(book.active.iter_rows(values_only=True))
    assert values[0][:4] == ("round", "home", "away", "table") and len(values) == 5
    cell = book.active.cell(row=2, column=5)
    assert cell.data_type == "s" and cell.value == "=HYPERLINK(1) " + player.last_name
    fixtures = openpyxl.load_workbook(io.BytesIO(download(played.competition, "fixtures", "xlsx"))).active
    header = [c.value for c in next(fixtures.iter_rows(max_row=1))]
    assert header[-4:] == ["tie", "table", "home_player", "away_player"]
    assert fixtures.max_row == 1 + Fixture.with_games.filter(competition=played.competition).count()
