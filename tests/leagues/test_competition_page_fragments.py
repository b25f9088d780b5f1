"""A signed-in reader's competition page: its shared parts (the standings, the rounds shown, the
latest results, the entrants) come from the cache as fragments of the page's versions and
language, and only the reader's own parts (the organisers' buttons, the referees' link, their
sign-up) are rendered for them; a result shows at once, to every reader."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from leagues.services.results import result_record
from tests.leagues.site_world import build_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def shared_reads(client: Client, path: str) -> list[str]:
    """The queries of ``path`` that read the shared parts: standings, fixtures, entrants."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    tables = ('"leagues_standing"', '"leagues_fixture"', '"leagues_entrant"', '"leagues_round"', '"leagues_stage"')
    return [q["sql"] for q in queries.captured_queries if any(q["sql"].startswith(f'SELECT {t}.') for t in tables)]


def test_a_signed_in_readers_second_view_reads_no_standings_fixtures_or_entrants():
    world = build_world(entrants=6)
    world.draw()
    player = signed_in(world.users["player"])
    assert shared_reads(player, "/competitions/liga/")  # the first view renders the parts
    assert shared_reads(player, "/competitions/liga/") == []
    # another reader, in the same language, is served the same fragments
    assert shared_reads(signed_in(world.users["other_organiser"]), "/competitions/liga/") == []


def test_the_fragments_are_shared_but_the_readers_own_parts_are_their_own():
    world = build_world(entrants=6)
    world.draw()
    player_page = signed_in(world.users["player"]).get("/competitions/liga/").content.decode()
    organiser_page = signed_in(world.users["organiser"]).get("/competitions/liga/").content.decode()
    assert 'href="/manage/liga/"' in organiser_page and 'href="/manage/liga/"' not in player_page
    assert 'id="fixtures"' in organiser_page and 'id="entrants"' in player_page
    visitor = Client().get("/competitions/liga/").content.decode()
    assert 'href="/manage/liga/"' not in visitor


def test_a_result_shows_at_once_to_a_signed_in_reader_whose_fragments_were_cached(
        django_capture_on_commit_callbacks):
    world = build_world(entrants=6)
    with django_capture_on_commit_callbacks(execute=True):
        world.draw()
    player = signed_in(world.users["player"])
    assert "7–6" not in player.get("/competitions/liga/").content.decode()
    fixture = world.competition.fixtures.filter(round__number=1).order_by("position").first()
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=fixture, home_goals=7, away_goals=6)
    page = player.get("/competitions/liga/").content.decode()
    assert "7–6" in page  # the latest results and the round's row
    standings = page.split('id="standings"', 1)[1].split("</section>", 1)[0]
    assert fixture.home.name in standings and ">3<" in standings  # the winner's 3 points


def test_the_fragments_are_in_the_readers_language():
    world = build_world(entrants=6)
    world.draw()
    english = signed_in(world.users["player"]).get("/competitions/liga/").content.decode()
    spanish_reader = signed_in(world.users["other_organiser"])
    spanish = spanish_reader.get("/competitions/liga/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Clasificación" in spanish and "Clasificación" not in english
