"""The standings answer (``GET .../standings/`` and the recompute's) reads its rows as values,
and they are exactly what the row serializer gives for the stored rows: group by group, a
club's slug or null, a withdrawn entrant, a shared place, the latest ``computed_at``."""
from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient

from leagues.api import serializers
from leagues.api.views import standings_data
from leagues.models import Competition, Fixture, Standing
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute

from ..factories import ClubFactory, UserFactory, competition_with_entrants

pytestmark = pytest.mark.django_db


def played_groups(capture) -> Competition:
    competition = competition_with_entrants(8, slug="groups-answer", format=Competition.Format.GROUPS_KNOCKOUT,
                                            group_count=2, qualifiers_per_group=2)
    competition.entrants.filter(name__in=["E1", "E6"]).update(club=ClubFactory(name="Mesa", slug="mesa"))
    fixtures_generate(competition=competition)
    for index, fixture in enumerate(competition.fixtures.exclude(status=Fixture.Status.BYE).order_by("pk")[:8]):
        with capture(execute=True):
            result_record(fixture=fixture, home_goals=index % 3, away_goals=1)
    standings_recompute(competition_id=competition.pk, force=True)
    competition.entrants.filter(name="E8").update(withdrawn_at=timezone.now())  # kept in the table (a policy)
    Standing.objects.filter(competition=competition, entrant__name="E2").update(
        computed_at=timezone.now() + dt.timedelta(minutes=5))
    return competition


def serialized(competition: Competition) -> dict:
    """The answer as the serializers give it from the stored rows, model by model."""
    rows = list(Standing.objects.filter(competition=competition).select_related("entrant__club", "group")
                .order_by("group__name", "position", "entrant__name"))
    tables: dict = {}
    for row in rows:
        tables.setdefault(row.group.name if row.group_id else None, []).append(row)
    return serializers.StandingsSerializer({
        "competition": competition.slug, "criteria": serializers.criteria_info(competition),
        "computed_at": max(r.computed_at for r in rows),
        "tables": [{"group": group, "rows": members} for group, members in tables.items()],
    }).data


def test_the_answer_read_as_values_is_the_serializers_answer(django_capture_on_commit_callbacks):
    competition = played_groups(django_capture_on_commit_callbacks)
    expected = serialized(competition)
    with CaptureQueriesContext(connection) as queries:
        answer = standings_data(competition)
    assert answer == expected
    assert [t["group"] for t in answer["tables"]] == ["A", "B"]
    rows = [r for t in answer["tables"] for r in t["rows"]]
    assert {r["club"] for r in rows} == {"mesa", None} and sum(r["withdrawn"] for r in rows) == 1
    assert len(queries) == 1  # the rows, in one query


def test_the_recompute_answers_the_same_standings_as_the_standings_read(django_capture_on_commit_callbacks):
    competition = played_groups(django_capture_on_commit_callbacks)
    organiser = UserFactory()
    competition.organisers.add(organiser)
    client = APIClient()
    client.force_authenticate(organiser)
    recomputed = client.post(f"/api/competitions/{competition.slug}/recompute-standings/")
    read = client.get(f"/api/competitions/{competition.slug}/standings/")
    assert recomputed.status_code == read.status_code == 200
    assert recomputed.json()["tables"] == read.json()["tables"] == serialized(competition)["tables"]


def test_a_signed_in_reader_is_served_the_bytes_rendered_once(django_capture_on_commit_callbacks, monkeypatch):
    competition = played_groups(django_capture_on_commit_callbacks)
    path = f"/api/competitions/{competition.slug}/standings/"
    anonymous = APIClient().get(path)
    reader = APIClient()
    reader.force_login(UserFactory())  # a session: the site's signed-in reader
    renders = []
    real = JSONRenderer.render
    monkeypatch.setattr(JSONRenderer, "render", lambda self, *a, **k: renders.append(1) or real(self, *a, **k))
    answer = reader.get(path)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    assert answer.content == anonymous.content and renders == []  # nothing rendered again
    assert "private" in answer["Cache-Control"]
    browsable = reader.get(path, HTTP_ACCEPT="text/html")
    assert browsable.status_code == 200 and b"<html" in browsable.content.lower()
