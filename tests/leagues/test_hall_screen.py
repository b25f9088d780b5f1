"""The hall screen (COMPETITIONS.md §12), through its pages as a TV in the hall reads them, not
signed in: what plays at each hall table (its number and name, the two players, the round or
group, when it was called), the next fixtures to call, the last official results (extra time
and shoot-out shown), the standings or the bracket; its parts URL; its queries bounded; in
the four languages. Results are recorded through the API; calls are set on the fixtures."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, Player, Standing
from leagues.services.fixtures import fixtures_generate

pytestmark = pytest.mark.django_db(transaction=True)  # results recompute the standings on commit


def day(n: int, *, slug: str = "open", tables: int = 4, **kwargs) -> tuple[Competition, APIClient]:
    """A competition of ``n`` players P1..Pn ("Ana 1".."Ana n" by name), drawn, on ``tables``
    hall tables; and its organiser's API client."""
    organiser = get_user_model().objects.create_user(username=f"{slug}-organiser")
    competition = Competition.objects.create(name=f"Open {slug}", slug=slug, lots_seed=7, tables=tables, **kwargs)
    competition.organisers.add(organiser)
    for i in range(1, n + 1):
        player = Player.objects.create(first_name="Ana", last_name=str(i), licence_number=f"{slug}-{i}")
        Entrant.objects.create(competition=competition, name=f"Ana {i}", seed=i, player=player)
    fixtures_generate(competition=competition)
    client = APIClient()
    client.force_authenticate(organiser)
    return competition, client


def open_fixtures(competition: Competition) -> list[Fixture]:
    return list(competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False, away__isnull=False)
                .order_by("round__stage__order", "round__number", "group__name", "position"))


def call(fixture: Fixture, table: int, minutes_ago: int = 0) -> None:
    Fixture.with_games.filter(pk=fixture.pk).update(hall_table=table, called_at=timezone.now() - timedelta(minutes=minutes_ago))


def record(client: APIClient, fixture: Fixture, home: int, away: int, **extra):
    answer = client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": home, "away_goals": away, **extra},
                         format="json")
    assert answer.status_code == 200, answer.json()
    return answer


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def section(html: str, name: str) -> str:
    match = re.search(rf'<section [^>]*id="hall-{name}".*?</section>', html, re.S)
    assert match, f"no {name} part"
    return text_of(match.group(0))


def test_an_anonymous_screen_shows_the_tables_their_names_the_calls_and_the_last_results(client):
    competition, api = day(6, table_names=["Centre table", "", "Window"])
    first, second, third, *rest = open_fixtures(competition)
    record(api, third, 3, 1)
    call(first, 1, minutes_ago=12)
    call(second, 3)
    answer = client.get(f"/competitions/{competition.slug}/hall/")
    assert answer.status_code == 200
    html = answer.content.decode()
    tables = re.findall(r'<li class="hall-table (?:busy|free)" data-table="(\d+)">', html)
    assert [int(n) for n in tables] == [1, 2, 3, 4]
    cards = {int(n): text_of(card) for n, card in re.findall(r'data-table="(\d+)">(.*?)</li>', html, re.S)}
    assert "Centre table" in cards[1] and "Window" in cards[3]
    first.refresh_from_db()
    assert f"Ana {first.home.seed}" in cards[1] and f"Ana {first.away.seed}" in cards[1]
    assert "Round 1" in cards[1] and "12 min ago" in cards[1]
    second.refresh_from_db()
    assert f"Ana {second.home.seed}" in cards[3]
    assert "Free" in cards[2] and "Free" in cards[4]
    results = section(html, "results")
    assert "3–1" in results and f"Ana {third.home.seed}" in results
    upcoming = section(html, "next")
    assert f"Ana {rest[0].home.seed} v Ana {rest[0].away.seed}" in upcoming
    assert f"Ana {first.home.seed} v Ana {first.away.seed}" not in upcoming  # at its table, no longer next
    assert "Standings" in html and 'id="hall-standings"' in html
    assert "site-header" not in html  # the site's chrome is not on a TV
    assert answer["Cache-Control"].startswith("max-age=0")


def test_a_result_leaves_its_table_and_joins_the_last_results_of_the_parts(client):
    competition, api = day(4)
    fixture = open_fixtures(competition)[0]
    call(fixture, 2)
    parts = client.get(f"/competitions/{competition.slug}/hall/parts/")
    assert parts.status_code == 200
    html = parts.content.decode()
    assert "<html" not in html and 'data-table="2"' in html
    assert re.search(r'class="hall-table busy" data-table="2"', html)
    assert "No result yet." in section(html, "results")
    record(api, fixture, 2, 2)
    html = client.get(f"/competitions/{competition.slug}/hall/parts/").content.decode()
    assert re.search(r'class="hall-table free" data-table="2"', html)
    assert "2–2" in section(html, "results") and "table 2" in section(html, "results")
    assert 'id="hall-standings"' in html and "Ana" in section(html, "standings")


def test_results_whose_standings_are_not_recomputed_yet_do_not_say_there_is_no_result(client):
    # The worker has not recomputed the table after the first results (it is busy or down):
    # the screen says the standings are coming, not that they appear with the first result.
    competition, api = day(4)
    record(api, open_fixtures(competition)[0], 1, 0)
    Standing.objects.filter(competition=competition).delete()
    standings = section(client.get(f"/competitions/{competition.slug}/hall/parts/").content.decode(), "standings")
    assert "being recomputed from the latest results" in standings
    assert "they appear with the first result" not in standings
    empty, _api = day(4, slug="empty")
    Standing.objects.filter(competition=empty).delete()
    standings = section(client.get(f"/competitions/{empty.slug}/hall/parts/").content.decode(), "standings")
    assert "No standings yet: they appear with the first result." in standings


def test_a_knockout_shows_extra_time_and_the_shoot_out_and_its_bracket(client):
    competition, api = day(4, slug="ko", format=Competition.Format.KNOCKOUT)
    semi, other = open_fixtures(competition)
    record(api, semi, 1, 1, home_et_goals=0, away_et_goals=0, home_shootout=4, away_shootout=3)
    record(api, other, 1, 1, home_et_goals=0, away_et_goals=1)
    html = client.get(f"/competitions/{competition.slug}/hall/").content.decode()
    results = section(html, "results")
    assert "4–3 pens" in results and "a.e.t." in results
    bracket = section(html, "bracket")
    assert "Final" in bracket and 'id="hall-standings"' not in html
    final = open_fixtures(competition)[0]
    assert f"Ana {final.home.seed} v Ana {final.away.seed}" in section(html, "next")


def test_the_bracket_names_the_champion_once_the_final_is_played_and_not_before(client):
    competition, api = day(4, slug="ko-champion", format=Competition.Format.KNOCKOUT)
    for semi in open_fixtures(competition):
        record(api, semi, 2, 0)
    url = f"/competitions/{competition.slug}/hall/"
    assert "Champion" not in section(client.get(url).content.decode(), "bracket")
    final = open_fixtures(competition)[0]
    record(api, final, 0, 1)
    bracket = section(client.get(url).content.decode(), "bracket")
    assert f"Champion {final.away.name}" in bracket
    assert "Campeón" in section(client.get(url + "?lang=es").content.decode(), "bracket")


def test_groups_show_each_groups_table_then_the_bracket_once_the_groups_are_played(client):
    competition, api = day(8, slug="gk", format=Competition.Format.GROUPS_KNOCKOUT, group_count=2)
    html = client.get(f"/competitions/{competition.slug}/hall/").content.decode()
    assert 'id="hall-standings"' in html and "Group A" in section(html, "standings")
    for fixture in competition.fixtures.exclude(round__stage__kind="knockout").exclude(status=Fixture.Status.BYE):
        record(api, fixture, 1, 0)
    html = client.get(f"/competitions/{competition.slug}/hall/").content.decode()
    assert 'id="hall-standings"' not in html and 'id="hall-bracket"' in html


def test_a_competition_without_hall_tables_still_has_its_screen(client):
    competition, api = day(4, slug="no-tables", tables=0)
    record(api, open_fixtures(competition)[0], 1, 0)
    html = client.get(f"/competitions/{competition.slug}/hall/").content.decode()
    assert 'id="hall-tables"' not in html
    assert "1–0" in section(html, "results") and section(html, "next") and section(html, "standings")


def test_a_fixture_waiting_for_a_player_at_a_table_is_marked_and_the_ready_ones_come_first(client):
    competition, _api = day(6, slug="busy")
    first = open_fixtures(competition)[0]
    call(first, 1)
    playing = {first.home_id, first.away_id}
    html = client.get(f"/competitions/{competition.slug}/hall/parts/").content.decode()
    rows = re.findall(r'<li class="(waiting|)">\s*<div class="pair"><span class="who home">([^<]+)</span>'
                      r'<span class="v">v</span><span class="who away">([^<]+)</span>', section_html(html, "next"))
    later = [f for f in open_fixtures(competition) if f.hall_table is None]
    waiting = [bool({f.home_id, f.away_id} & playing) for f in later]
    assert waiting != sorted(waiting)  # in the draw's order a waiting one comes before a ready one
    expected = sorted(zip(waiting, later, strict=True), key=lambda pair: pair[0])[:8]
    assert [(state == "waiting", home, away) for state, home, away in rows] == [
        (busy, f"Ana {f.home.seed}", f"Ana {f.away.seed}") for busy, f in expected]
    assert "waiting for a player still at a table" in html


def section_html(html: str, name: str) -> str:
    return re.search(rf'<section [^>]*id="hall-{name}".*?</section>', html, re.S).group(0)


def test_the_screen_reads_a_day_of_sixteen_tables_in_few_queries(client, django_assert_max_num_queries):
    competition, api = day(32, slug="big", tables=16, format=Competition.Format.GROUPS_KNOCKOUT, group_count=8)
    fixtures = open_fixtures(competition)
    for fixture in fixtures[:8]:
        record(api, fixture, 2, 1)
    for table, fixture in enumerate(fixtures[8:24], start=1):
        call(fixture, table)
    with django_assert_max_num_queries(9):
        html = client.get(f"/competitions/{competition.slug}/hall/parts/").content.decode()
    assert html.count('class="hall-table busy"') == 16 and html.count("Group ") >= 8
    with django_assert_max_num_queries(9):
        assert client.get(f"/competitions/{competition.slug}/hall/").status_code == 200


def test_a_team_tie_at_a_table_shows_the_tie_and_a_game_at_a_table_its_players(client):
    from tests.leagues.team_world import team_world

    world = team_world(slug="hallteams", tables_per_tie=2)
    Competition.objects.filter(pk=world.competition.pk).update(tables=6)
    tie, other = world.ties(1)[:2]
    world.lineups(other)
    call(tie, 1)
    game = world.games(other)[0]
    call(game, 2)
    html = client.get(f"/competitions/{world.competition.slug}/hall/").content.decode()
    cards = {int(n): text_of(card) for n, card in re.findall(r'data-table="(\d+)">(.*?)</li>', html, re.S)}
    assert f"{tie.home.name} v {tie.away.name}" in cards[1] and "0 of 2 games played" in cards[1]
    game.refresh_from_db()
    assert game.home_player.full_name in cards[2] and f"Tie {other.home.name} v {other.away.name}, game 1" in cards[2]
    upcoming = section(html, "next")
    for under_way in (tie, other):  # the one at a table, the one with a game at a table
        assert f"{under_way.home.name} v {under_way.away.name}" not in upcoming


@pytest.mark.parametrize("code, words", [
    ("es", ("En las mesas ahora", "Últimos resultados")),
    ("pt-br", ("Nas mesas agora", "Últimos resultados")),
    ("it", ("Ai tavoli ora", "Ultimi risultati")),
    ("en", ("At the tables now", "Last results")),
])
def test_the_screen_speaks_the_language_asked_in_its_address_or_by_the_switcher(client, code, words):
    competition, _api = day(4, slug=f"lang-{code}")
    html = client.get(f"/competitions/{competition.slug}/hall/?lang={code}").content.decode()
    for word in words:
        assert word in html
    assert f"/hall/parts/?lang={code}" in html  # its parts in the same language
    assert f'name="next" value="/competitions/{competition.slug}/hall/"' in html  # the switcher's choice then wins
    parts = client.get(f"/competitions/{competition.slug}/hall/parts/?lang={code}").content.decode()
    assert words[0] in parts
    client.cookies["django_language"] = code
    assert words[1] in client.get(f"/competitions/{competition.slug}/hall/").content.decode()


def test_no_such_competition_is_a_404(client):
    assert client.get("/competitions/nothing-here/hall/").status_code == 404
    assert client.get("/competitions/nothing-here/hall/parts/").status_code == 404


def test_the_competition_and_organiser_pages_link_the_hall_screen_when_it_has_hall_tables(client):
    with_tables, _api = day(4, slug="linked")
    without, _api = day(4, slug="unlinked", tables=0)
    assert f"/competitions/{with_tables.slug}/hall/" in client.get(f"/competitions/{with_tables.slug}/").content.decode()
    assert "/hall/" not in client.get(f"/competitions/{without.slug}/").content.decode()
    client.force_login(get_user_model().objects.get(username="linked-organiser"))
    assert 'id="hall-screen"' in client.get(f"/manage/{with_tables.slug}/").content.decode()
    client.force_login(get_user_model().objects.get(username="unlinked-organiser"))
    assert 'id="hall-screen"' not in client.get(f"/manage/{without.slug}/").content.decode()
