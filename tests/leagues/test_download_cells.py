"""Downloads that cannot run code (``leagues.downloads.cells``): every text cell of the CSV and
XLSX the site serves that a spreadsheet would read as a formula is guarded, numbers stay
numbers, and the results CSV imports back unchanged for every hostile name."""
from __future__ import annotations

import csv
import io

import openpyxl
import pytest
import tablib
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from leagues.downloads.cells import csv_read, csv_value
from leagues.downloads.tables import csv_bytes, xlsx_bytes
from leagues.models import Competition, validate_printable
from tests.bench.hostile_downloads import (
    HOSTILE_NAMES,
    UNPRINTABLE_HOSTILE_TEXTS,
    audit_csv,
    audit_xlsx,
    entrant_names,
)
from tests.leagues.hostile_world import hostile_league, standings_rows


def hostile_dataset() -> tablib.Dataset:
    data = tablib.Dataset(headers=["name", "goal_difference", "points"], title="Standings")
    for index, name in enumerate(HOSTILE_NAMES + UNPRINTABLE_HOSTILE_TEXTS):
        data.append([name, index - 15, index])
    return data


def test_the_guard_quotes_every_text_a_spreadsheet_would_run_and_is_undone_by_the_import():
    for name in HOSTILE_NAMES + UNPRINTABLE_HOSTILE_TEXTS:
        guarded = csv_value(name)
        assert csv_read(guarded) == name
        assert not guarded.startswith(("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20"))
    assert csv_value("=1+1") == "'=1+1" and csv_value("'Ana") == "''Ana" and csv_value("Ana") == "Ana"
    assert csv_value(-3) == -3 and csv_value("") == ""


def test_a_csv_of_hostile_names_holds_no_cell_a_spreadsheet_would_run_and_its_numbers_bare():
    body = csv_bytes(hostile_dataset())
    assert audit_csv("csv", body).unguarded == 0
    rows = list(csv.reader(io.StringIO(body.decode())))
    assert [csv_read(row[0]) for row in rows[1:]] == [*HOSTILE_NAMES, *UNPRINTABLE_HOSTILE_TEXTS]
    first = body.decode().split("\n")[1]
    # text quoted (a ";" never starts a cell in a locale that splits on it), numbers bare
    assert first == "\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"Click\"\")\",-15,0"


def test_an_xlsx_of_hostile_names_holds_text_cells_never_formulas_and_numbers_as_numbers():
    body = xlsx_bytes(hostile_dataset())
    audit = audit_xlsx("xlsx", body)
    assert audit.formulas == 0 and audit.unguarded == 0
    sheet = openpyxl.load_workbook(io.BytesIO(body)).active
    assert sheet.title == "Standings" and sheet.freeze_panes == "A2" and sheet["A1"].font.b
    names = [row[0] for row in sheet.iter_rows(min_row=2)]
    # the text as it is, no quote added (XML reads a carriage return back as a line feed)
    assert [cell.value for cell in names] == [*HOSTILE_NAMES, *(t.replace("\r", "\n") for t in UNPRINTABLE_HOSTILE_TEXTS)]
    assert all(cell.data_type == "s" for cell in names)
    assert sheet["A2"].quotePrefix and not sheet.cell(row=2 + HOSTILE_NAMES.index("\u2212" + "1+1"), column=1).quotePrefix
    assert sheet["B2"].value == -15 and sheet["B2"].data_type == "n"


@pytest.mark.django_db
def test_every_download_of_a_league_of_hostile_names_is_guarded_and_the_results_import_back(tmp_path):
    original = hostile_league()
    client = Client()
    for what in ("standings", "fixtures", "results"):
        csv_body = client.get(f"/competitions/{original.slug}/export/{what}.csv").content
        xlsx_body = client.get(f"/competitions/{original.slug}/export/{what}.xlsx").content
        assert audit_csv(what, csv_body).unguarded == 0
        xlsx = audit_xlsx(what, xlsx_body)
        assert (xlsx.formulas, xlsx.unguarded) == (0, 0) and xlsx.cells > 30
    standings = list(csv.DictReader(io.StringIO(
        client.get(f"/competitions/{original.slug}/export/standings.csv").content.decode())))
    assert sorted(csv_read(row["entrant"]) for row in standings) == sorted(entrant_names())
    assert {int(row["goal_difference"]) for row in standings} & {-1, -2, -3, -4}  # numbers, signed

    body = client.get(f"/competitions/{original.slug}/export/results.csv").content
    path = tmp_path / "results.csv"
    path.write_bytes(body)
    call_command("import_results", str(path), "--competition", "hostile-copy", "--create", "--name", "Copy",
                 "--preset", original.tiebreak_preset, "--points", "3,1,0", verbosity=0)
    copy = Competition.objects.get(slug="hostile-copy")
    assert sorted(copy.entrants.values_list("name", flat=True)) == sorted(entrant_names())
    assert standings_rows(copy) == standings_rows(original) and len(standings_rows(copy)) == 30
    assert client.get(f"/competitions/{copy.slug}/export/results.csv").content == body


@pytest.mark.django_db
@pytest.mark.parametrize("text", UNPRINTABLE_HOSTILE_TEXTS)
def test_a_name_with_a_control_or_invisible_character_is_refused_as_the_import_refuses_it(text):
    competition = Competition.objects.create(name="Liga", slug="liga")
    with pytest.raises(ValidationError) as refused:
        validate_printable(text)
    assert refused.value.code == "not_printable"
    user = get_user_model().objects.create_user("organiser", password="pw-organiser-1")
    competition.organisers.add(user)
    client = APIClient()
    client.force_authenticate(user)
    response = client.post("/api/entrants/", {"competition": competition.slug, "name": f"Ana{text}"}, format="json")
    assert response.status_code == 400 and "name" in response.json()
    assert not competition.entrants.exists()
