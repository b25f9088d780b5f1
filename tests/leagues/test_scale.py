"""Federation scale (issue 20): the standings of any shape from a fixed number of queries, the
organiser's repair button, the import in bulk, and the read path's caches."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from leagues.models import Competition, Standing
from leagues.services.imports import competition_new, results_import
from leagues.services.standings import standings_recompute

from .site_world import build_world

pytestmark = pytest.mark.django_db


def groups_csv(groups: int) -> str:
    """``groups`` groups of four, each a single round robin (six results)."""
    lines = ["stage,group,round,home,away,home_goals,away_goals"]
    for g in range(groups):
        teams = [f"G{g} T{i}" for i in range(4)]
        for n, (a, b) in enumerate(((0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2))):
            lines.append(f"Groups,Group {g:02d},{n // 2 + 1},{teams[a]},{teams[b]},{(a + g) % 3},{b % 2}")
    return "\n".join(lines) + "\n"


def imported(slug: str, text: str, **kwargs) -> Competition:
    competition = competition_new(slug=slug, name=slug, **kwargs)
    return results_import(text=text, competition=competition, progress=lambda rows: rows).competition


def recompute_queries(competition: Competition) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert standings_recompute(competition_id=competition.pk, force=True) is True
    return len(queries)


def test_recomputation_reads_the_same_few_queries_for_two_groups_or_twelve():
    small = imported("two-groups", groups_csv(2), format=Competition.Format.GROUPS_KNOCKOUT)
    large = imported("twelve-groups", groups_csv(12), format=Competition.Format.GROUPS_KNOCKOUT)
    assert recompute_queries(small) == recompute_queries(large)
    # each group's table holds its own four entrants and their three matches each, nothing else
    rows = Standing.objects.filter(competition=large)
    assert rows.count() == 48
    assert set(rows.values_list("played", flat=True)) == {3}
    for group in large.stages.get().groups.all():
        names = set(rows.filter(group=group).values_list("entrant__name", flat=True))
        assert names == {f"G{int(group.name.split()[1])} T{i}" for i in range(4)}


def test_a_league_table_takes_every_result_of_its_stage():
    text = "home,away,home_goals,away_goals,round\nA,B,2,0,1\nC,D,1,1,1\nA,C,0,3,2\nB,D,1,0,2\n"
    competition = imported("small-league", text)
    standings_recompute(competition_id=competition.pk, force=True)
    table = {s.entrant.name: (s.position, s.played, s.points) for s in Standing.objects.filter(competition=competition)}
    assert table == {"C": (1, 2, 4), "A": (2, 2, 3), "B": (3, 2, 3), "D": (4, 2, 1)}


def test_the_repair_button_recomputes_from_the_results_whatever_is_stored():
    world = build_world()
    world.draw()
    competition = world.competition
    standings_recompute(competition_id=competition.pk, force=True)
    right = dict(Standing.objects.filter(competition=competition).values_list("entrant_id", "points"))
    # the stored rows damaged, and marked as computed from the current results
    Standing.objects.filter(competition=competition).update(points=99, position=1)
    Competition.objects.filter(pk=competition.pk).update(derived_version=competition.results_version + 5)
    assert standings_recompute(competition_id=competition.pk) is False  # the worker sees nothing to do
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {world.token('organiser')}")
    response = client.post(f"/api/competitions/{competition.slug}/recompute-standings/")
    assert response.status_code == 200, response.content
    assert dict(Standing.objects.filter(competition=competition).values_list("entrant_id", "points")) == right
    assert {r["points"] for t in response.json()["tables"] for r in t["rows"]} != {99}


def import_queries(slug: str, text: str) -> int:
    competition = competition_new(slug=slug, name=slug, format=Competition.Format.GROUPS_KNOCKOUT)
    with CaptureQueriesContext(connection) as queries:
        results_import(text=text, competition=competition, progress=lambda rows: rows)
    return len(queries)


def test_an_import_writes_in_batches_whatever_the_number_of_groups_and_entrants():
    # 2 groups (8 entrants, 12 results) and 40 groups (160 entrants, 240 results): the same statements
    assert import_queries("two", groups_csv(2)) == import_queries("forty", groups_csv(40))
    competition = Competition.objects.get(slug="forty")
    assert competition.entrants.count() == 160
    assert competition.fixtures.count() == 240
    group = competition.stages.get().groups.get(name="Group 07")
    assert sorted(group.entrants.values_list("name", flat=True)) == [f"G7 T{i}" for i in range(4)]
    fixture = competition.fixtures.filter(group=group).order_by("position").first()
    assert (fixture.home.name, fixture.away.name, str(fixture.result)) == ("G7 T0", "G7 T1", "1-1")
    assert fixture.changes.get().after["result"]["text"] == "1-1"


def test_a_second_file_adds_to_the_groups_and_rounds_the_first_made():
    competition = imported("twice", groups_csv(2), format=Competition.Format.GROUPS_KNOCKOUT)
    more = "stage,group,round,home,away,home_goals,away_goals\nGroups,Group 01,3,G1 T3,G1 T0,4,0\n"
    results_import(text=more, competition=competition, progress=lambda rows: rows)
    group = competition.stages.get().groups.get(name="Group 01")
    assert group.fixtures.count() == 7
    last = group.fixtures.order_by("-position").first()
    assert (last.home.name, last.away.name, last.round.number, last.position) == ("G1 T3", "G1 T0", 3, 2)


def test_the_progress_bar_stays_quiet_when_the_output_is_not_a_terminal(tmp_path, capsys):
    from io import StringIO

    from django.core.management import call_command

    path = tmp_path / "big.csv"
    path.write_text(groups_csv(100), encoding="utf-8")  # 600 results: a file long enough for a bar
    call_command("import_results", str(path), "--competition", "big", "--create", "--name", "Big",
                 "--format", "groups_knockout", stdout=StringIO())
    assert "results:" not in capsys.readouterr().err
    assert Competition.objects.get(slug="big").fixtures.count() == 600
