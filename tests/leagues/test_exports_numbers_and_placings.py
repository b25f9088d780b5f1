"""The standings export: a position is a number (in XLSX a number cell, a shared one marked in
its own boolean column), and a knockout's export lists its final placings."""
from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from django.test import Client

from leagues.models import Fixture
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record

from .factories import competition_with_entrants

pytestmark = pytest.mark.django_db


def _play_round(capture, competition, number):
    for fixture in competition.fixtures.filter(round__number=number).exclude(status=Fixture.Status.BYE):
        home_wins = fixture.home.seed < fixture.away.seed
        with capture(execute=True):
            result_record(fixture=fixture, home_goals=2 if home_wins else 0, away_goals=0 if home_wins else 1)


def test_a_knockouts_standings_export_lists_its_final_placings_with_numbers(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(4, slug="copa-ko", format="knockout", third_place_match=True)
    fixtures_generate(competition=competition)
    _play_round(django_capture_on_commit_callbacks, competition, 1)
    _play_round(django_capture_on_commit_callbacks, competition, 2)
    assert not competition.fixtures.filter(status__in=Fixture.OPEN).exists()

    response = Client().get(f"/competitions/{competition.slug}/export/standings.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["group"], r["position"], r["entrant"]) for r in rows] == [
        ("Final placings", "1", "E1"), ("Final placings", "2", "E2"),
        ("Final placings", "3", "E3"), ("Final placings", "4", "E4")]

    response = Client().get(f"/competitions/{competition.slug}/export/standings.xlsx")
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    values = list(sheet.iter_rows(values_only=True))
    assert values[0][:4] == ("group", "position", "shared", "entrant")
    assert [row[1] for row in values[1:]] == [1, 2, 3, 4]  # numbers, not text
    assert [row[2] for row in values[1:]] == [False] * 4


def test_a_leagues_positions_are_numbers_in_xlsx(django_capture_on_commit_callbacks):
    competition = competition_with_entrants(3, slug="liga-n")
    fixtures_generate(competition=competition)
    for number in (1, 2, 3):
        _play_round(django_capture_on_commit_callbacks, competition, number)
    response = Client().get(f"/competitions/{competition.slug}/export/standings.xlsx")
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    cells = [row[1] for row in sheet.iter_rows(min_row=2)]
    assert [c.value for c in cells] == [1, 2, 3] and {c.data_type for c in cells} == {"n"}
