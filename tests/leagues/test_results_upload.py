"""Results files from the site and the API (COMPETITIONS.md §6): CSV or XLSX, a preview that
writes nothing, an import on confirmation through the command's service and limits; a refused
file names its line and column, in the reader's language, and imports nothing."""
from __future__ import annotations

import csv
import io
import itertools

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, Result
from tests.leagues.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/competitions/{slug}/import-results/"


def league_csv(entrants: int = 25, bad_line: int | None = None) -> bytes:
    """A single round robin of ``entrants`` (25: 300 rows), the ``bad_line``'s home goals not a number."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["home", "away", "home_goals", "away_goals", "round"])
    for line, (a, b) in enumerate(itertools.combinations(range(1, entrants + 1), 2), start=2):
        writer.writerow([f"E{a}", f"E{b}", "x" if line == bad_line else (a + b) % 4, (a * b) % 3, a])
    return out.getvalue().encode()


@pytest.fixture
def organised():
    competition = Competition.objects.create(name="Liga", slug="liga-up", points_win=3)
    organiser = UserFactory(username="org")
    competition.organisers.add(organiser)
    api = APIClient()
    api.force_authenticate(organiser)
    site = Client()
    site.force_login(organiser)
    return competition, api, site


def upload(api, competition, content: bytes, name="results.csv", **fields):
    return api.post(URL.format(slug=competition.slug), {"file": SimpleUploadedFile(name, content), **fields},
                    format="multipart")


def test_one_bad_row_in_300_imports_nothing_and_names_the_row(organised):
    competition, api, _site = organised
    response = upload(api, competition, league_csv(bad_line=151))
    assert response.status_code == 400
    assert response.json() == {"errors": [{"line": 151, "column": "home_goals",
                                           "detail": "must be a whole number of 0 or more, not 'x'"}]}
    assert not Fixture.objects.filter(competition=competition).exists()
    assert not Entrant.objects.filter(competition=competition).exists()
    # in the reader's language
    response = api.post(URL.format(slug=competition.slug), {"file": SimpleUploadedFile("r.csv", league_csv(
        bad_line=151))}, format="multipart", HTTP_ACCEPT_LANGUAGE="es")
    assert response.json()["errors"][0]["detail"] == "debe ser un número entero igual o mayor que 0, no 'x'"


def test_the_preview_writes_nothing_then_the_import_writes_all(organised):
    competition, api, _site = organised
    response = upload(api, competition, league_csv(), dry_run="true")
    assert response.status_code == 200
    preview = response.json()
    assert preview["total"] == 300 and len(preview["rows"]) == 300 and preview["corrections"] == 0
    assert preview["rows"][0] == {"line": 2, "stage": "", "group": "", "round": "1", "home": "E1", "away": "E2",
                                  "given": "3–2", "kind": "new", "official": "3–2", "outcome": "played",
                                  "outcome_side": "", "winner": "E1"}
    assert len(preview["new_entrants"]) == 25
    assert sum(row["played"] for row in preview["tables"][0]["rows"]) == 600
    assert not Fixture.objects.filter(competition=competition).exists()
    assert not Entrant.objects.filter(competition=competition).exists()

    response = upload(api, competition, league_csv())
    assert response.status_code == 201
    assert response.json() == {"competition": "liga-up", "results": 300, "entrants_created": 25}
    assert Result.objects.filter(fixture__competition=competition).count() == 300


def test_the_same_file_twice_is_refused_and_nothing_is_doubled(organised):
    competition, api, _site = organised
    assert upload(api, competition, league_csv(6)).status_code == 201
    response = upload(api, competition, league_csv(6))
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert (error["line"], error["column"]) == (2, "home") and "already has a result" in error["detail"]
    assert Result.objects.filter(fixture__competition=competition).count() == 15
    assert Fixture.objects.filter(competition=competition).count() == 15


def test_an_xlsx_export_edited_and_uploaded_back(organised):
    competition, api, _site = organised
    assert upload(api, competition, league_csv(6)).status_code == 201
    book = openpyxl.load_workbook(io.BytesIO(Client().get(f"/competitions/{competition.slug}/export/results.xlsx")
                                             .content))
    sheet = book.active
    header = [c.value for c in sheet[1]]
    home, away, goals = header.index("home") + 1, header.index("away") + 1, header.index("home_goals") + 1
    row = next(r for r in range(2, sheet.max_row + 1)
               if (sheet.cell(r, home).value, sheet.cell(r, away).value) == ("E1", "E2"))
    sheet.cell(row, goals).value = 7
    edited = io.BytesIO()
    book.save(edited)

    preview = upload(api, competition, edited.getvalue(), name="liga.xlsx", dry_run="true", update="true").json()
    assert preview["corrections"] == 15
    assert next(r for r in preview["rows"] if r["home"] == "E1" and r["away"] == "E2")["official"].startswith("7–")
    fixture = Fixture.objects.get(competition=competition, home__name="E1", away__name="E2")
    assert fixture.result.home_goals == 3  # the preview wrote nothing

    refused = upload(api, competition, edited.getvalue(), name="liga.xlsx")
    assert refused.status_code == 400 and refused.json()["errors"][0]["column"] == "home"
    done = upload(api, competition, edited.getvalue(), name="liga.xlsx", update="true")
    assert done.status_code == 201, done.json()
    fixture.refresh_from_db()
    assert Result.objects.get(fixture=fixture).home_goals == 7
    assert Result.objects.filter(fixture__competition=competition).count() == 15


def test_only_the_organisers_import_and_a_file_is_needed(organised):
    competition, api, _site = organised
    stranger = APIClient()
    stranger.force_authenticate(UserFactory(username="stranger"))
    assert upload(stranger, competition, league_csv(4)).status_code == 403
    response = api.post(URL.format(slug=competition.slug), {"dry_run": "true"}, format="multipart")
    assert response.status_code == 400 and response.json()["errors"][0]["column"] == "file"
    response = upload(api, competition, b"PK\x03\x04 not a workbook", name="x.xlsx")
    assert response.status_code == 400 and response.json()["errors"][0]["line"] is None


def test_the_site_previews_then_imports_on_confirmation(organised):
    competition, _api, site = organised
    page = site.get(f"/manage/{competition.slug}/").content.decode()
    assert f'action="/manage/{competition.slug}/import-results/" enctype="multipart/form-data"' in page
    action = f"/manage/{competition.slug}/import-results/"
    response = site.post(action, {"file": SimpleUploadedFile("liga.csv", league_csv(6))})
    assert response.status_code == 200
    html = response.content.decode()
    assert "15 rows become official at once when you confirm." in html and 'id="import-rows"' in html
    assert "The standings after the import" in html
    assert not Fixture.objects.filter(competition=competition).exists()
    token = response.context["token"]
    assert site.post(action, {"token": token, "confirm": "1"}).status_code == 302
    assert Result.objects.filter(fixture__competition=competition).count() == 15
    # confirmed once: the token is spent, nothing doubled
    site.post(action, {"token": token, "confirm": "1"})
    assert Result.objects.filter(fixture__competition=competition).count() == 15


def test_the_site_names_the_refused_line_in_the_readers_language(organised):
    competition, _api, site = organised
    response = site.post(f"/manage/{competition.slug}/import-results/",
                         {"file": SimpleUploadedFile("liga.csv", league_csv(bad_line=151))},
                         HTTP_ACCEPT_LANGUAGE="pt-br")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="import-refused"' in html and "Linha 151, coluna home_goals:" in html
    assert "deve ser um número inteiro" in html
    assert not Fixture.objects.filter(competition=competition).exists()
