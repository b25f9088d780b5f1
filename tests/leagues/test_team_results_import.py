"""A team competition's results file (COMPETITIONS.md §6, §10; docs/competitions.md): one row
per game, through ``import_results`` and the upload, all or nothing, idempotent, each refusal
with its line and column."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from leagues.models import Club, Competition, Entrant, Fixture, Result, SquadMember, Standing
from leagues.services.ties import games_of
from tests.leagues.team_world import make_player, team_world

pytestmark = pytest.mark.django_db

HEADER = ["round", "home", "away", "table", "home_player", "away_player", "home_goals", "away_goals"]
# four clubs, two tables, a single round robin: A 7 points, D 5, B 2, C 1
GAMES = [
    (1, "A", "B", [(2, 0), (1, 1)]), (1, "C", "D", [(0, 1), (0, 2)]),
    (2, "A", "C", [(1, 0), (1, 0)]), (2, "B", "D", [(1, 1), (0, 0)]),
    (3, "D", "A", [(1, 0), (0, 1)]), (3, "B", "C", [(3, 0), (0, 1)]),
]


@pytest.fixture
def clubs():
    made = {}
    for letter in "ABCD":
        club = Club.objects.create(name=f"Club {letter}", slug=f"club-{letter.lower()}")
        made[letter] = (club, [make_player(club, n) for n in (1, 2)])
    return made


def team_csv(rows=GAMES, *, change=None) -> str:
    """The file of ``rows``; ``change``: {(line, column): value} written over the file's cells."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    line = 2
    for round_number, home, away, scores in rows:
        for table, (home_goals, away_goals) in enumerate(scores, start=1):
            cells = dict(zip(HEADER, [round_number, f"Club {home}", f"Club {away}", table, f"P{table} Club {home}",
                                      f"P{table} Club {away}", home_goals, away_goals], strict=True))
            for (at, column), value in (change or {}).items():
                if at == line:
                    cells[column] = value
            writer.writerow([cells[name] for name in HEADER])
            line += 1
    return out.getvalue()


def import_file(tmp_path, text: str, *args: str):
    path = tmp_path / "interclub.csv"
    path.write_text(text, encoding="utf-8")
    call_command("import_results", str(path), "--competition", "interclub-2025", *args, stdout=io.StringIO())


def standings_json() -> dict:
    out = io.StringIO()
    call_command("standings", "interclub-2025", "--json", stdout=out)
    return json.loads(out.getvalue())


class TestTeamFileWithCreate:
    def test_a_four_team_file_imports_and_gives_the_team_standings(self, tmp_path, clubs):
        import_file(tmp_path, team_csv(), "--create", "--name", "Interclub 2025")
        competition = Competition.objects.get(slug="interclub-2025")
        assert competition.is_team and competition.tables_per_tie == 2
        assert Fixture.objects.filter(competition=competition).count() == 6
        assert Fixture.with_games.filter(competition=competition, tie__isnull=False).count() == 12
        assert all(t.status == Fixture.Status.PLAYED for t in Fixture.objects.filter(competition=competition))
        rows = standings_json()["tables"][0]["rows"]
        assert [(r["entrant"], r["points"]) for r in rows] == [("Club A", 7), ("Club D", 5), ("Club B", 2),
                                                               ("Club C", 1)]
        team_a = Entrant.objects.get(competition=competition, name="Club A")
        assert team_a.club == clubs["A"][0]
        assert set(SquadMember.objects.filter(entrant=team_a).values_list("player_id", flat=True)) == {
            p.pk for p in clubs["A"][1]}
        tie = Fixture.objects.get(competition=competition, round__number=1, home=team_a)
        first = games_of(tie).first()
        assert (first.home_player, first.away_player) == (clubs["A"][1][0], clubs["B"][1][0])
        assert (first.result.home_goals, first.result.away_goals) == (2, 0)
        assert (tie.result.home_game_points, tie.result.away_game_points) == (1.5, 0.5)

    def test_one_bad_row_refuses_the_whole_file_with_its_line_and_column(self, tmp_path, clubs):
        with pytest.raises(CommandError, match="line 9, column away_goals"):
            import_file(tmp_path, team_csv(change={(9, "away_goals"): "two"}), "--create", "--name", "Interclub")
        assert not Competition.objects.filter(slug="interclub-2025").exists()
        with pytest.raises(CommandError, match="line 5, column table"):
            import_file(tmp_path, team_csv(change={(5, "table"): "9"}), "--create", "--name", "Interclub")
        assert not Competition.objects.filter(slug="interclub-2025").exists()

    def test_the_same_file_twice_is_refused_and_nothing_is_doubled(self, tmp_path, clubs):
        import_file(tmp_path, team_csv(), "--create", "--name", "Interclub 2025")
        with pytest.raises(CommandError, match="line 2, column home: .*already has a result"):
            import_file(tmp_path, team_csv())
        competition = Competition.objects.get(slug="interclub-2025")
        assert Result.objects.filter(fixture__competition=competition, fixture__tie__isnull=False).count() == 12
        assert Fixture.with_games.filter(competition=competition).count() == 18

    def test_update_corrects_a_game_and_the_tie_is_derived_again(self, tmp_path, clubs):
        import_file(tmp_path, team_csv(), "--create", "--name", "Interclub 2025")
        import_file(tmp_path, team_csv(GAMES[:1], change={(3, "home_goals"): "0", (3, "away_goals"): "4"}),
                    "--update")
        competition = Competition.objects.get(slug="interclub-2025")
        tie = Fixture.objects.get(competition=competition, round__number=1, home__name="Club A")
        assert tie.result.winner_side == ""  # 1-1 on games now
        assert (tie.result.home_goals, tie.result.away_goals) == (2, 4)

    def test_a_player_of_another_team_is_refused(self, tmp_path, clubs):
        # line 6 (round 2, A v C, table 1) names Club C's first player for Club A, after line 4 gave him to C
        with pytest.raises(CommandError, match=r"line 6, column home_player: P1 Club C plays for Club C on line 4"):
            import_file(tmp_path, team_csv(change={(6, "home_player"): "P1 Club C"}), "--create", "--name", "I")
        assert not Competition.objects.filter(slug="interclub-2025").exists()

    def test_an_unknown_player_or_one_twice_in_a_tie_is_refused(self, tmp_path, clubs):
        with pytest.raises(CommandError, match=r"line 3, column away_player: no player of the registry"):
            import_file(tmp_path, team_csv(change={(3, "away_player"): "Nobody Here"}), "--create", "--name", "I")
        with pytest.raises(CommandError, match=r"line 3, column home_player: P1 Club A already plays in this tie"):
            import_file(tmp_path, team_csv(change={(3, "home_player"): "P1 Club A"}), "--create", "--name", "I")

    def test_a_licence_number_names_a_player(self, tmp_path, clubs):
        player = clubs["A"][1][0]
        import_file(tmp_path, team_csv(change={(2, "home_player"): player.licence_number}), "--create", "--name", "I")
        game = Fixture.with_games.filter(competition__slug="interclub-2025", tie__isnull=False).order_by("pk").first()
        assert game.home_player == player


class TestTeamFileUpload:
    URL = "/api/competitions/{slug}/import-results/"

    def world_file(self, world, *, change=None):
        """The first round of the drawn championship, as a file (the squads' first two players)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADER)
        for tie in world.ties(1):
            home, away = world.players[tie.home_id], world.players[tie.away_id]
            for table in (1, 2):
                writer.writerow([1, tie.home.name, tie.away.name, table, home[table - 1].full_name,
                                 away[table - 1].full_name, table, 0])
        text = out.getvalue()
        for old, new in (change or {}).items():
            text = text.replace(old, new, 1)
        return text.encode()

    def upload(self, world, content: bytes, **fields):
        return world.api.post(self.URL.format(slug=world.competition.slug),
                              {"file": SimpleUploadedFile("teams.csv", content), **fields}, format="multipart")

    def test_the_preview_shows_the_games_then_the_import_fills_the_drawn_ties(self):
        world = team_world(clubs=4, tables_per_tie=2)
        answer = self.upload(world, self.world_file(world), dry_run="true")
        assert answer.status_code == 200, answer.json()
        first = answer.json()["rows"][0]
        assert (first["table"], first["kind"], first["official"]) == (1, "result", "1–0")
        assert first["home_player"] == world.players[world.ties(1)[0].home_id][0].full_name
        assert not Result.objects.filter(fixture__competition=world.competition).exists()
        answer = self.upload(world, self.world_file(world))
        assert answer.status_code == 201, answer.json()
        for tie in world.ties(1):
            tie.refresh_from_db()
            assert tie.status == Fixture.Status.PLAYED and tie.result.winner_side == "home"
        assert Standing.objects.filter(competition=world.competition).exists()

    def test_a_game_naming_a_player_of_another_teams_squad_is_refused(self):
        world = team_world(clubs=4, tables_per_tie=2)
        tie = world.ties(1)[0]
        other = next(t for t in world.teams if t.pk not in (tie.home_id, tie.away_id))
        stranger = world.players[other.pk][2]  # in its squad, not in the file
        text = self.world_file(world, change={world.players[tie.home_id][0].full_name: stranger.full_name})
        answer = self.upload(world, text)
        assert answer.status_code == 400
        error = answer.json()["errors"][0]
        assert (error["line"], error["column"]) == (2, "home_player")
        assert f"is in the squad of {other.name}" in error["detail"]
        assert not Result.objects.filter(fixture__competition=world.competition).exists()

    def test_a_single_file_is_refused_by_a_team_competition_naming_the_missing_column(self):
        world = team_world(clubs=2, tables_per_tie=2)
        answer = self.upload(world, b"home,away,home_goals,away_goals\nClub A,Club B,1,0\n")
        assert answer.status_code == 400
        assert answer.json()["errors"][0]["column"] == "round"

    def test_the_site_previews_the_games_then_imports_on_confirmation(self):
        world = team_world(clubs=4, tables_per_tie=2)
        site = Client()
        site.force_login(world.organiser)
        action = f"/manage/{world.competition.slug}/import-results/"
        response = site.post(action, {"file": SimpleUploadedFile("teams.csv", self.world_file(world))})
        assert response.status_code == 200
        html = response.content.decode()
        tie = world.ties(1)[0]
        home, away = world.players[tie.home_id][0], world.players[tie.away_id][0]
        assert f"Table 1: {home.full_name} v {away.full_name}" in html
        assert not Result.objects.filter(fixture__competition=world.competition).exists()
        assert site.post(action, {"token": response.context["token"], "confirm": "1"}).status_code == 302
        assert Result.objects.filter(fixture__competition=world.competition, fixture__tie__isnull=False).count() == 4
