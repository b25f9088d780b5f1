"""The site's pages render with the demo federation and with an empty database, and the
organiser pages create a competition, add entrants, draw the fixtures and record a result,
showing validation errors on the form."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from leagues.models import Club, Competition, Fixture, Player

from .site_world import build_world
from .test_permissions import _competition_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(django_capture_on_commit_callbacks, settings):
    settings.DEBUG = True  # load_demo runs on a development site
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=StringIO())
    settings.DEBUG = False


def get(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response.content.decode()


def test_every_page_renders_with_the_demo(demo):
    client = Client()
    home = get(client, "/")
    assert "Competitions in progress" in home and "Latest results" in home and "Next fixtures" in home
    assert 'class="score"' in home  # a result is shown
    get(client, "/competitions/")
    league = Competition.objects.get(format="league", season__is_current=True)
    page = get(client, f"/competitions/{league.slug}/")
    assert "Standings" in page and 'class="standings"' in page and "Ties on points are broken by" in page
    assert 'class="tiebreak"' in page or "level on" not in page
    assert 'id="fixtures"' in page
    cup = Competition.objects.get(slug__startswith="taca-", season__is_current=True)
    page = get(client, f"/competitions/{cup.slug}/")
    assert 'class="bracket"' in page and "Final" in page
    get(client, "/clubs/")
    for club in Club.objects.all():
        assert club.name in get(client, f"/clubs/{club.slug}/").replace("&#x27;", "'")
    get(client, "/players/")
    get(client, "/players/?q=a")
    for player in Player.objects.all():
        get(client, f"/players/{player.pk}/")
    assert "Sign in" in get(client, "/accounts/login/")
    get(client, "/api/docs/")
    from django.contrib.staticfiles import finders

    assert finders.find("css/site.css")


def test_demo_organiser_pages_render(demo):
    client = Client()
    client.force_login(__import__("django.contrib.auth", fromlist=["get_user_model"]).get_user_model()
                       .objects.get(username="admin"))
    get(client, "/manage/")
    for competition in Competition.objects.all():
        get(client, f"/manage/{competition.slug}/")
        get(client, f"/manage/{competition.slug}/settings/")
        fixture = competition.fixtures.filter(status__in=Fixture.OPEN, home__isnull=False, away__isnull=False).first()
        if fixture is not None:  # the demo's past competitions are finished
            get(client, f"/manage/fixtures/{fixture.pk}/result/")
    get(client, "/admin/")
    for model in ("competition", "entrant", "fixture", "club", "player", "standing", "playerrating", "placing",
                  "rankingtier", "rankingscale", "registration", "signup"):
        get(client, f"/admin/leagues/{model}/")
    get(client, "/admin/notifications/notification/")


def test_every_page_renders_with_no_data():
    client = Client()
    assert "No competition is under way" in get(client, "/")
    assert "No competition yet" in get(client, "/competitions/")
    assert "No club is registered yet" in get(client, "/clubs/")
    assert "No player is registered yet" in get(client, "/players/")
    get(client, "/competitions/nothing/", status=404)
    get(client, "/clubs/nothing/", status=404)
    get(client, "/players/999/", status=404)


def test_pages_of_a_competition_not_yet_drawn_and_of_a_lone_club_and_player():
    world = build_world()
    client = Client()
    page = get(client, "/competitions/liga/")
    assert "The fixtures are not drawn yet" in page and "Standings" not in page.split("<main>")[1].split("Entrants")[0]
    lone = Club.objects.create(name="Lone", slug="lone")
    assert "No member" in get(client, f"/clubs/{lone.slug}/")
    player = Player.objects.create(first_name="Solo", last_name="Player", licence_number="X-1")
    assert "No club" in get(client, f"/players/{player.pk}/")
    assert world.players[0].full_name in get(client, f"/players/{world.players[0].pk}/")


def test_groups_then_knockout_page_shows_group_tables_and_a_labelled_bracket():
    world = build_world(entrants=8, fmt=Competition.Format.GROUPS_KNOCKOUT)
    world.draw()
    from leagues.services.standings import standings_recompute

    standings_recompute(competition_id=world.competition.pk)
    page = get(Client(), "/competitions/liga/")
    assert "Group A" in page and "Group B" in page and 'class="bracket"' in page and "A1 v B2" in page


def test_organiser_runs_a_competition_without_the_admin(django_capture_on_commit_callbacks):
    world = build_world(entrants=0)
    client = Client()
    client.force_login(world.users["organiser"])
    # Create: a bad form shows the errors on the fields, nothing is saved.
    bad = _competition_form("")
    bad.update(points_win=0, points_draw=1, qualifiers_per_group=0)
    page = client.post("/manage/new/", bad)
    assert page.status_code == 200
    html = page.content.decode()
    assert "This field is required." in html and "Points must be win" in html and "At least one qualifier per group." in html
    assert Competition.objects.count() == 2
    response = client.post("/manage/new/", _competition_form("Copa da Liga"))
    assert response.status_code == 302 and response["Location"] == "/manage/copa-da-liga/"
    competition = Competition.objects.get(slug="copa-da-liga")
    assert list(competition.organisers.all()) == [world.users["organiser"]]
    # Entrants: players and names; a duplicate is refused on the form.
    for player in world.players or []:
        client.post("/manage/copa-da-liga/", {"player": player.pk})
    for name in ("Uno", "Dos", "Tres"):
        assert client.post("/manage/copa-da-liga/", {"name": name}).status_code == 302
    dup = client.post("/manage/copa-da-liga/", {"name": "Uno"})
    assert dup.status_code == 200 and "Another entrant has this name." in dup.content.decode()
    empty = client.post("/manage/copa-da-liga/", {})
    assert "Give a name or choose a player." in empty.content.decode()
    # Draw the fixtures, then record a result; a bad one is shown on the form.
    assert client.post("/manage/copa-da-liga/generate/").status_code == 302
    assert competition.fixtures.count() == 6  # 3 entrants and a bye: 3 rounds of 2
    fixture = competition.fixtures.filter(status="scheduled").first()
    url = f"/manage/fixtures/{fixture.pk}/result/"
    assert "Record the result" in get(client, url)
    bad = client.post(url, {"outcome": "walkover", "home_goals": 0, "away_goals": 0})
    assert bad.status_code == 200 and "needs the side" in bad.content.decode()
    bad = client.post(url, {"outcome": "played", "home_goals": -1, "away_goals": 0})
    assert bad.status_code == 200 and "greater than or equal to 0" in bad.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        ok = client.post(url, {"outcome": "played", "home_goals": 3, "away_goals": 1})
    assert ok.status_code == 302
    fixture.refresh_from_db()
    assert fixture.status == "played" and fixture.result.home_goals == 3
    # Generating twice says why, without an error page.
    again = client.post("/manage/copa-da-liga/generate/", follow=True)
    assert "cannot be made" in again.content.decode()
    # Settings, withdrawal, standings.
    assert client.post("/manage/copa-da-liga/recompute/").status_code == 302
    public = get(Client(), "/competitions/copa-da-liga/")
    assert "3–1" in public
    entrant = competition.entrants.get(name="Tres")
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/manage/copa-da-liga/entrants/{entrant.pk}/withdraw/").status_code == 200  # says what
        italian = client.post(f"/manage/copa-da-liga/entrants/{entrant.pk}/withdraw/", HTTP_ACCEPT_LANGUAGE="it")
        assert "Vuoto: “Tres si è ritirato.”" in italian.content.decode()  # the reason's help, translated
        assert client.post(f"/manage/copa-da-liga/entrants/{entrant.pk}/withdraw/",
                           {"confirm": "1"}).status_code == 302
    entrant.refresh_from_db()
    assert entrant.withdrawn


def test_login_page_signs_in_and_out():
    world = build_world()
    user = world.users["organiser"]
    user.set_password("s3cret-Password")
    user.save()
    client = Client()
    bad = client.post("/accounts/login/", {"username": "organiser", "password": "wrong"})
    assert bad.status_code == 200 and "errorlist" in bad.content.decode()
    ok = client.post("/accounts/login/", {"username": "organiser", "password": "s3cret-Password", "next": "/manage/"})
    assert ok.status_code == 302 and ok["Location"] == "/manage/"
    assert "Liga" in get(client, "/manage/")
    assert client.post("/accounts/logout/").status_code in (200, 302)
