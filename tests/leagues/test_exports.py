"""Exports (issue 18): standings, fixtures and results as CSV and XLSX; the results CSV in the
import's format, so that an export imports into a fresh competition and gives the same
standings (COMPETITIONS.md §6-7); a printable sheet per round."""
from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import openpyxl
import pytest
from django.core.management import call_command
from django.test import Client

from leagues.models import Competition, Fixture, Stage, Standing
from leagues.services.fixtures import fixtures_generate
from leagues.services.imports import OPTIONAL, REQUIRED
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute

from .factories import ClubFactory, competition_with_entrants

pytestmark = pytest.mark.django_db

STATIC = Path(__file__).resolve().parents[2] / "static"


def record(capture, fixture, home, away, **kwargs):
    with capture(execute=True):
        return result_record(fixture=fixture, home_goals=home, away_goals=away, **kwargs)


def table(competition) -> list[tuple]:
    """The stored standings as comparable rows (by entrant name)."""
    rows = Standing.objects.filter(competition=competition).select_related("entrant", "group")
    return sorted((r.group.name if r.group_id else "", r.position, r.entrant.name, r.played, r.won, r.drawn, r.lost,
                   r.goals_for, r.goals_against, r.goal_difference, r.points, r.discipline, r.shared, r.tiebreak)
                  for r in rows)


def played_league(capture):
    """A double round robin of five (a bye a round), with a walkover, a disqualification, draws,
    discipline points and a tie on points broken head to head."""
    competition = competition_with_entrants(
        5, slug="liga-export", double_round_robin=True, tiebreak_preset="fifa_2018",
        first_date=dt.date(2026, 3, 28), kickoff_time=dt.time(18, 0), time_zone="Europe/Madrid")
    fixtures_generate(competition=competition)
    fixtures = list(competition.fixtures.exclude(status=Fixture.Status.BYE).order_by("round__number", "position"))
    for index, fixture in enumerate(fixtures[:-3]):
        home, away = int(fixture.home.name[1:]), int(fixture.away.name[1:])
        if index == 2:
            record(capture, fixture, 0, 0, outcome="walkover", outcome_side="away")
        elif index == 5:
            record(capture, fixture, 1, 3, outcome="disqualification", outcome_side="home")
        elif (home + away + index) % 4 == 0:
            record(capture, fixture, 1, 1, home_discipline=index % 3)
        else:
            record(capture, fixture, (home * 3 + index) % 4, (away * 2 + index) % 3, away_discipline=index % 2)
    standings_recompute(competition_id=competition.pk, force=True)
    return competition


def download(competition, what, fmt) -> bytes:
    response = Client().get(f"/competitions/{competition.slug}/export/{what}.{fmt}")
    assert response.status_code == 200
    assert f'filename="{competition.slug}-{what}.{fmt}"' in response["Content-Disposition"]
    return response.content


def test_the_results_csv_is_the_imports_format_and_imports_back_to_the_same_standings(
        django_capture_on_commit_callbacks, tmp_path):
    original = played_league(django_capture_on_commit_callbacks)
    body = download(original, "results", "csv")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    assert rows[0] == [*REQUIRED, *OPTIONAL]
    assert len(rows) - 1 == original.fixtures.filter(status__in=("played", "walkover")).count() == 17
    path = tmp_path / "results.csv"
    path.write_bytes(body)

    call_command("import_results", str(path), "--competition", "liga-copy", "--create", "--name", "Copy",
                 "--preset", original.tiebreak_preset, "--points", "3,1,0")
    copy = Competition.objects.get(slug="liga-copy")
    assert table(copy) == table(original)
    assert len(table(copy)) == 5

    # and the copy exports the same file again
    assert download(copy, "results", "csv") == body


def test_a_groups_and_knockout_competition_round_trips_with_its_third_place_match(
        django_capture_on_commit_callbacks, tmp_path):
    original = competition_with_entrants(8, slug="cup-export", format=Competition.Format.GROUPS_KNOCKOUT,
                                         group_count=2, qualifiers_per_group=2, third_place_match=True)
    fixtures_generate(competition=original)
    for fixture in original.fixtures.filter(round__stage__kind=Stage.Kind.GROUPS):
        better = fixture.home.seed < fixture.away.seed
        record(django_capture_on_commit_callbacks, fixture, 2 if better else 1, 1 if better else 2)
    for number in (1, 2):
        for fixture in original.fixtures.filter(round__stage__kind=Stage.Kind.KNOCKOUT, round__number=number):
            fixture.refresh_from_db()
            if number == 2 and fixture.label.lower().startswith("third"):
                record(django_capture_on_commit_callbacks, fixture, 1, 1, home_et_goals=0, away_et_goals=0,
                       home_shootout=4, away_shootout=3)
            else:
                record(django_capture_on_commit_callbacks, fixture, 3, 0)
    standings_recompute(competition_id=original.pk, force=True)
    body = download(original, "results", "csv")
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert {r["stage"] for r in rows} == {"Groups", "Knockout"}
    assert any(r["home_shootout"] == "4" for r in rows)
    path = tmp_path / "cup.csv"
    path.write_bytes(body)
    call_command("import_results", str(path), "--competition", "cup-copy", "--create", "--name", "Cup copy",
                 "--format", "groups_knockout")
    copy = Competition.objects.get(slug="cup-copy")
    assert table(copy) == table(original) and len(table(copy)) == 8
    assert copy.fixtures.filter(round__stage__kind=Stage.Kind.KNOCKOUT).count() == 4


def test_standings_and_fixtures_as_csv_and_xlsx(django_capture_on_commit_callbacks):
    competition = played_league(django_capture_on_commit_callbacks)
    club = ClubFactory(name="Mesa Verde")
    competition.entrants.filter(name="E1").update(club=club)

    standings = list(csv.DictReader(io.StringIO(download(competition, "standings", "csv").decode())))
    stored = Standing.objects.filter(competition=competition).order_by("position", "entrant__name")
    assert [(r["position"], r["shared"], r["entrant"], r["points"]) for r in standings] == [
        (str(s.position), str(bool(s.shared)), s.entrant.name, str(s.points)) for s in stored]
    assert next(r for r in standings if r["entrant"] == "E1")["club"] == "Mesa Verde"

    book = openpyxl.load_workbook(io.BytesIO(download(competition, "standings", "xlsx")))
    sheet = book.active
    assert sheet.title == "Standings"
    values = list(sheet.iter_rows(values_only=True))
    assert [str(v) for v in values[0]] == list(standings[0].keys())
    assert [(v[1], v[3], v[12]) for v in values[1:]] == [(int(r["position"]), r["entrant"], int(r["points"]))
                                                          for r in standings]

    fixtures = list(csv.DictReader(io.StringIO(download(competition, "fixtures", "csv").decode())))
    assert len(fixtures) == competition.fixtures.exclude(status=Fixture.Status.BYE).count() == 20
    first = competition.fixtures.exclude(status="bye").order_by("round__number", "position").first()
    row = next(r for r in fixtures if r["id"] == str(first.pk))
    # the kick-off in the competition's zone, with its offset: 18:00 in Madrid (CET on 28 March)
    assert row["kickoff"] == "2026-03-28T18:00+01:00" and row["time_zone"] == "Europe/Madrid"
    later = next(r for r in fixtures if r["date"] == "2026-04-04")
    assert later["kickoff"] == "2026-04-04T18:00+02:00"  # summer time from 29 March
    assert {r["status"] for r in fixtures} == {"played", "walkover", "scheduled"}
    assert openpyxl.load_workbook(io.BytesIO(download(competition, "results", "xlsx"))).active.max_row == 18


@pytest.mark.parametrize("path", ["/competitions/nope/export/results.csv",
                                  "/competitions/liga-export/export/results.pdf",
                                  "/competitions/liga-export/export/secrets.csv"])
def test_an_unknown_export_is_a_404(path, django_capture_on_commit_callbacks):
    played_league(django_capture_on_commit_callbacks)
    assert Client().get(path).status_code == 404


def test_the_printable_round_sheet(django_capture_on_commit_callbacks):
    competition = played_league(django_capture_on_commit_callbacks)
    rnd = competition.stages.get().rounds.get(number=10)
    response = Client().get(f"/competitions/{competition.slug}/rounds/{rnd.pk}/print/")
    assert response.status_code == 200
    html = response.content.decode()
    playing = rnd.fixtures.exclude(status=Fixture.Status.BYE)
    assert html.count('<td class="box">') == 2 * playing.count() == 4
    assert html.count('<td class="box"></td>') == 2 * playing.filter(status="scheduled").count()
    assert html.count('<td class="kickoff">18:00') == 2  # 18:00 in Madrid (16:00 UTC in summer time)
    assert "Times in Europe/Madrid" in html and "Bye:" in html
    assert "css/print.css" in html and "<script src=" in html and "onclick" not in html
    css = (STATIC / "css" / "print.css").read_text()
    assert "@page { size: A4" in css and "break-inside: avoid" in css
    # the competition's page links every round's sheet
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    assert f"/competitions/{competition.slug}/rounds/{rnd.pk}/print/" in page
    other = competition_with_entrants(2, slug="other")
    fixtures_generate(competition=other)
    foreign = other.stages.get().rounds.get()
    assert Client().get(f"/competitions/{competition.slug}/rounds/{foreign.pk}/print/").status_code == 404


def test_the_round_sheets_are_named_in_the_readers_language(django_capture_on_commit_callbacks):
    competition = played_league(django_capture_on_commit_callbacks)
    page = Client(HTTP_ACCEPT_LANGUAGE="it").get(f"/competitions/{competition.slug}/").content.decode()
    links = page.split('class="round-nav print-links">', 1)[1].split("</p>", 1)[0]
    assert ">Giornata 1</a>" in links and "Round" not in links


def test_a_competition_without_fixtures_exports_its_headers_alone():
    competition = competition_with_entrants(3, slug="not-drawn")
    for what in ("standings", "fixtures", "results"):
        rows = list(csv.reader(io.StringIO(download(competition, what, "csv").decode())))
        assert len(rows) == 1 and rows[0]
        sheet = openpyxl.load_workbook(io.BytesIO(download(competition, what, "xlsx"))).active
        assert [c.value for c in sheet[1]] == rows[0] and sheet.max_row == 1
