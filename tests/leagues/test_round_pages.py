"""A competition's page costs one round, not a season: it lists the round under way and the next
(the rest one click away, a page per round: ``/competitions/<slug>/rounds/<n>/``, a group's with
``?group=``), and every list page is bounded."""
from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client

from leagues.models import Club, Competition, Entrant, Fixture, Round
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from tests.leagues.factories import ClubFactory
from tests.leagues.site_world import build_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()


def league(slug: str, entrants: int, **settings) -> Competition:
    competition = Competition.objects.create(name=slug, slug=slug, first_date="2027-01-09", **settings)
    Entrant.objects.bulk_create([Entrant(competition=competition, name=f"Entrant {i:03d}", seed=i)
                                 for i in range(1, entrants + 1)])
    fixtures_generate(competition=competition)
    return competition


def fixture_links(html: str) -> set[int]:
    return {int(pk) for pk in re.findall(r'href="/fixtures/(\d+)/"', html)}


def match_rows(html: str) -> int:
    return html.count('<li class="match">')


def round_of(competition: Competition, number: int) -> Round:
    """The round ``number`` of the competition's first stage."""
    return Round.objects.filter(stage__competition=competition, number=number).order_by("stage__order").first()


def test_a_double_round_robins_page_holds_the_round_under_way_and_round_30_is_on_its_own_page():
    competition = league("twenty", 20, double_round_robin=True)
    assert competition.fixtures.count() == 380
    first = set(competition.fixtures.filter(round=round_of(competition, 1)).values_list("pk", flat=True))
    thirtieth = set(competition.fixtures.filter(round=round_of(competition, 30)).values_list("pk", flat=True))
    page = Client().get("/competitions/twenty/").content.decode()
    assert first <= fixture_links(page)
    assert not thirtieth & fixture_links(page)
    assert 'href="/competitions/twenty/rounds/30/"' in page  # one click away
    round_page = Client().get("/competitions/twenty/rounds/30/")
    assert round_page.status_code == 200
    assert fixture_links(round_page.content.decode()) == thirtieth
    assert round_page["ETag"] and "public" in round_page["Cache-Control"]


def test_the_page_moves_on_with_the_season_and_shows_the_latest_results():
    competition = league("moving", 6)
    played = list(competition.fixtures.filter(round=round_of(competition, 1)).exclude(status=Fixture.Status.BYE))
    for fixture in played:
        result_record(fixture=fixture, home_goals=1, away_goals=0)
    third = set(competition.fixtures.filter(round=round_of(competition, 3)).values_list("pk", flat=True))
    fourth = set(competition.fixtures.filter(round=round_of(competition, 4)).values_list("pk", flat=True))
    page = Client().get("/competitions/moving/").content.decode()
    links = fixture_links(page)
    assert third <= links and not fourth & links  # rounds 2 and 3 under way, 4 a click away
    latest = page.split('id="latest-results"', 1)[1]
    assert {f.pk for f in played} <= fixture_links(latest)
    assert 'href="/competitions/moving/rounds/1/"' in page


def test_the_competition_pages_fixtures_grow_with_a_round_not_with_the_season():
    small = league("twenty-entrants", 20, double_round_robin=True)
    large = league("sixty-entrants", 60, double_round_robin=True)
    assert (small.fixtures.count(), large.fixtures.count()) == (380, 3540)
    rows = {c.slug: match_rows(Client().get(f"/competitions/{c.slug}/").content.decode()) for c in (small, large)}
    # two rounds of 10 and two rounds of 30 fixtures: not 380 and 3,540
    assert rows == {"twenty-entrants": 20, "sixty-entrants": 60}


def test_a_round_page_costs_the_same_few_queries_for_a_short_season_or_a_long_one(django_assert_max_num_queries):
    league("short", 4, double_round_robin=True)
    league("long", 40, double_round_robin=True)
    for slug, n in (("short", 6), ("long", 78)):
        cache.clear()
        with django_assert_max_num_queries(8):
            response = Client().get(f"/competitions/{slug}/rounds/{n}/")
        assert response.status_code == 200


def test_a_round_page_of_a_group_keeps_that_groups_fixtures():
    competition = league("cup", 8, format=Competition.Format.GROUPS_KNOCKOUT, group_count=2)
    group_a = competition.stages.get(kind="groups").groups.get(name="A")
    first = round_of(competition, 1)
    in_a = set(competition.fixtures.filter(round=first, group=group_a).values_list("pk", flat=True))
    everyone = set(competition.fixtures.filter(round=first).values_list("pk", flat=True))
    assert in_a and in_a != everyone
    whole = Client().get("/competitions/cup/rounds/1/").content.decode()
    assert fixture_links(whole) == everyone and 'href="?group=B"' in whole
    response = Client().get("/competitions/cup/rounds/1/?group=A")
    assert response.status_code == 200
    assert fixture_links(response.content.decode()) == in_a
    assert Client().get("/competitions/cup/rounds/1/?group=Z").status_code == 404


def test_the_rounds_are_numbered_across_the_stages():
    competition = league("groups-then-cup", 8, format=Competition.Format.GROUPS_KNOCKOUT, group_count=2)
    group_rounds = Round.objects.filter(stage__competition=competition, stage__kind="groups").count()
    knockout = Round.objects.filter(stage__competition=competition, stage__kind="knockout").order_by("number").first()
    page = Client().get(f"/competitions/groups-then-cup/rounds/{group_rounds + 1}/").content.decode()
    assert f'id="round-{knockout.pk}"' in page


@pytest.mark.parametrize("path", ["/competitions/liga/rounds/0/", "/competitions/liga/rounds/7/",
                                  "/competitions/nowhere/rounds/1/", "/competitions/liga/rounds/99999999999/"])
def test_a_round_that_does_not_exist_is_a_404(path):
    world = build_world()
    world.draw()  # four entrants: three rounds
    assert Client().get("/competitions/liga/rounds/3/").status_code == 200
    assert Client().get(path).status_code == 404


def test_a_round_page_shows_a_signed_in_organiser_their_buttons_and_a_visitor_none():
    world = build_world()
    world.draw()
    fixture = world.competition.fixtures.filter(round=round_of(world.competition, 2)).first()
    button = f'href="/manage/fixtures/{fixture.pk}/result/"'
    anonymous = Client().get("/competitions/liga/rounds/2/").content.decode()  # cached for visitors
    assert button not in anonymous and 'href="/manage/liga/"' not in anonymous
    organiser = Client()
    organiser.force_login(world.users["organiser"])
    response = organiser.get("/competitions/liga/rounds/2/")
    assert "private" in response["Cache-Control"]
    page = response.content.decode()
    assert button in page and 'href="/manage/liga/"' in page
    other = Client()
    other.force_login(world.users["other_organiser"])
    assert button not in other.get("/competitions/liga/rounds/2/").content.decode()


def test_a_round_page_is_stale_once_a_result_is_recorded(django_capture_on_commit_callbacks):
    world = build_world()
    with django_capture_on_commit_callbacks(execute=True):
        world.draw()
    fixture = world.competition.fixtures.filter(round=round_of(world.competition, 1)).first()
    before = Client().get("/competitions/liga/rounds/1/").content.decode()
    assert "3–1" not in before
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=fixture, home_goals=3, away_goals=1)
    assert "3–1" in Client().get("/competitions/liga/rounds/1/").content.decode()


def test_a_round_longer_than_a_page_is_paged(monkeypatch):
    monkeypatch.setattr("leagues.views.rounds.ROUND_PAGE_SIZE", 4)
    monkeypatch.setattr("leagues.selectors.rounds.ROUND_PAGE_SIZE", 4)
    competition = league("wide", 20)  # rounds of ten fixtures
    ten = list(competition.fixtures.filter(round=round_of(competition, 5)).order_by("position")
               .values_list("pk", flat=True))
    pages = [Client().get(f"/competitions/wide/rounds/5/?page={n}").content.decode() for n in (1, 2, 3)]
    assert [fixture_links(p) for p in pages] == [set(ten[:4]), set(ten[4:8]), set(ten[8:])]
    assert 'href="?page=2"' in pages[0]
    # the competition's page lists the first four of the round under way, and links to the rest
    page = Client().get("/competitions/wide/").content.decode()
    assert match_rows(page) == 8 and 'href="/competitions/wide/rounds/1/"' in page


def test_the_club_and_competition_lists_are_paged(monkeypatch):
    monkeypatch.setattr("leagues.views.pages.LIST_PAGE_SIZE", 2)
    for name in ("Alfa", "Bravo", "Charlie"):
        ClubFactory(name=name, slug=name.lower())
        Competition.objects.create(name=f"Cup {name}", slug=f"cup-{name.lower()}")
    assert Club.objects.count() == 3
    first, second = (Client().get(f"/clubs/?page={n}").content.decode() for n in (1, 2))
    assert "Alfa" in first and "Bravo" in first and "Charlie" not in first and 'href="?page=2"' in first
    assert "Charlie" in second and "Alfa" not in second
    first, second = (Client().get(f"/competitions/?page={n}").content.decode() for n in (1, 2))
    assert first.count('href="/competitions/cup-') == 2 and second.count('href="/competitions/cup-') == 1


def test_the_organisers_page_lists_the_next_fixtures_to_play_not_the_whole_season(monkeypatch):
    monkeypatch.setattr("leagues.views.pages.ORGANISER_OPEN_FIXTURES", 2)
    world = build_world()
    world.draw()  # four entrants: six fixtures to play
    first_two = list(world.competition.fixtures.order_by("round__number", "position")[:2])
    organiser = Client()
    organiser.force_login(world.users["organiser"])
    page = organiser.get("/manage/liga/").content.decode()
    page = page.split("Fixtures waiting for a result", 1)[1].split("</section>", 1)[0]
    assert page.count('/result/"') == 2
    assert all(f'href="/manage/fixtures/{f.pk}/result/"' in page for f in first_two)
    assert 'id="open-more"' in page and "4 more fixtures to play" in page
