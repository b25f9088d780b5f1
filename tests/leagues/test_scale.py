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


# --- The read path ------------------------------------------------------------------------------


@pytest.fixture
def drawn(django_capture_on_commit_callbacks):
    from django.core.cache import cache

    cache.clear()
    world = build_world()
    with django_capture_on_commit_callbacks(execute=True):
        world.draw()
    standings_recompute(competition_id=world.competition.pk)
    return world


def test_an_anonymous_visitor_reads_the_cached_page_and_a_revalidation_is_a_304(
        drawn, django_assert_max_num_queries):
    from django.test import Client

    client = Client()
    first = client.get("/competitions/liga/")
    assert first.status_code == 200 and first["ETag"] and "public" in first["Cache-Control"]
    with django_assert_max_num_queries(1):  # the competition's versions; the page from the cache
        again = client.get("/competitions/liga/")
    assert again.content == first.content and again["ETag"] == first["ETag"]
    # answered before the session and the user are loaded, with the same security headers
    for header in ("Content-Security-Policy", "X-Frame-Options", "Permissions-Policy", "X-Content-Type-Options"):
        assert again[header] == first[header]
    with django_assert_max_num_queries(1):
        revalidated = client.get("/competitions/liga/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert revalidated.status_code == 304 and revalidated.content == b""
    assert client.get("/competitions/liga/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 304


def test_a_result_and_a_reschedule_show_at_once_on_the_cached_pages(drawn, django_capture_on_commit_callbacks):
    from datetime import UTC, datetime

    from django.test import Client

    from leagues.services.kickoffs import fixture_reschedule
    from leagues.services.results import result_record

    client = Client()
    fixture = drawn.competition.fixtures.filter(round__number=1).order_by("position").first()
    before = client.get("/competitions/liga/")
    fixture_page = client.get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "7–5" not in before.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=fixture, home_goals=7, away_goals=5)
    after = client.get("/competitions/liga/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and "7–5" in after.content.decode()
    assert "7–5" in client.get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "7–5" not in fixture_page

    later = drawn.competition.fixtures.filter(round__number=2).order_by("position").first()
    with django_capture_on_commit_callbacks(execute=True):
        fixture_reschedule(fixture=later, kickoff_at=datetime(2027, 3, 14, 18, 0, tzinfo=UTC))
    assert "14 Mar" in client.get("/competitions/liga/").content.decode()


def test_a_signed_in_visitor_is_never_served_the_shared_copy(drawn):
    from django.test import Client

    anonymous = Client().get("/competitions/liga/")
    organiser = Client()
    organiser.force_login(drawn.competition.organisers.first())
    page = organiser.get("/competitions/liga/")
    assert "private" in page["Cache-Control"] and "ETag" not in page
    assert "Sign out" in page.content.decode() and "Sign out" not in anonymous.content.decode()


def test_the_standings_api_is_answered_from_the_cache_until_the_standings_change(
        drawn, django_capture_on_commit_callbacks, django_assert_max_num_queries):
    from leagues.services.results import result_record

    client = APIClient()
    url = "/api/competitions/liga/standings/"
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"]
    with django_assert_max_num_queries(2):  # two requests, one query each: the versions
        assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
        assert client.get(url).json() == first.json()
    fixture = drawn.competition.fixtures.filter(round__number=1).order_by("position").first()
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=fixture, home_goals=3, away_goals=0)
    standings_recompute(competition_id=drawn.competition.pk)
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    points = {r["entrant"]: r["points"] for t in changed.json()["tables"] for r in t["rows"]}
    assert points[fixture.home.name] == 3
    assert client.get("/api/competitions/nothing-here/standings/").status_code == 404


def test_a_recomputation_writes_only_the_rows_that_moved(django_capture_on_commit_callbacks):
    from leagues.services.results import result_record

    competition = imported("moves", groups_csv(3), format=Competition.Format.GROUPS_KNOCKOUT)
    standings_recompute(competition_id=competition.pk, force=True)
    before = dict(Standing.objects.filter(competition=competition).values_list("entrant__name", "pk"))
    standings_recompute(competition_id=competition.pk, force=True)
    assert dict(Standing.objects.filter(competition=competition).values_list("entrant__name", "pk")) == before
    # a correction in group 00 moves its rows only
    fixture = competition.fixtures.filter(group__name="Group 00").order_by("position").first()
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=fixture, home_goals=9, away_goals=0)
    standings_recompute(competition_id=competition.pk, force=True)
    after = dict(Standing.objects.filter(competition=competition).values_list("entrant__name", "pk"))
    moved = {name for name in after if after[name] != before[name]}
    assert moved and all(name.startswith("G0 ") for name in moved)
    home = Standing.objects.get(competition=competition, entrant=fixture.home)
    assert home.goals_for >= 9 and home.played == 3
