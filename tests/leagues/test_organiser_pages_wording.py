"""What a newcomer reads on the federation's pages: "Organise" only for those who
organise, the fixtures made counted as matches and byes, the result form's rules in words."""
from __future__ import annotations

import pytest
from django.test import Client

from leagues.models import Competition, Fixture

from .site_world import build_world

pytestmark = pytest.mark.django_db


def nav_of(user) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    page = client.get("/").content.decode()
    return page.split('<nav class="nav"', 1)[1].split("</nav>", 1)[0]


def test_organise_is_shown_only_to_who_organises_something():
    world = build_world()
    assert ">Organise<" not in nav_of(world.users["player"])
    assert ">Organise<" not in nav_of(None)
    for actor in ("organiser", "other_organiser", "federation_admin"):
        assert ">Organise<" in nav_of(world.users[actor]), actor
    # an organiser of one competition who may not create any still sees it
    world.users["player"].groups.clear()
    world.other_competition.organisers.add(world.users["player"])
    assert ">Organise<" in nav_of(world.users["player"])


def test_drawing_fixtures_counts_the_matches_and_the_byes_apart():
    world = build_world(entrants=5)
    client = Client()
    client.force_login(world.users["organiser"])
    page = client.post(f"/manage/{world.competition.slug}/generate/", follow=True).content.decode()
    fixtures = Fixture.objects.filter(competition=world.competition)
    byes = fixtures.filter(status=Fixture.Status.BYE).count()
    assert byes == 5 and fixtures.count() == 15
    assert "10 matches and 5 byes are made." in page


def test_the_result_form_says_the_result_rules_without_a_section_number():
    world = build_world()
    world.draw()
    client = Client()
    client.force_login(world.users["organiser"])
    fixture = Fixture.objects.filter(competition=world.competition, status="scheduled").first()
    page = client.get(f"/manage/fixtures/{fixture.pk}/result/").content.decode()
    assert "§" not in page
    competition = Competition.objects.get(pk=world.competition.pk)
    assert f"counts {competition.walkover_goals_for}–{competition.walkover_goals_against}" in page


def test_drawing_a_cup_counts_its_third_place_match():
    """Four entrants, a third-place match: two semi-finals, the final and the third-place match."""
    world = build_world(entrants=4)
    Competition.objects.filter(pk=world.competition.pk).update(format="knockout", third_place_match=True)
    client = Client()
    client.force_login(world.users["organiser"])
    page = client.post(f"/manage/{world.competition.slug}/generate/", follow=True).content.decode()
    fixtures = Fixture.objects.filter(competition=world.competition)
    assert fixtures.count() == 4 and fixtures.filter(label="Third-place match").count() == 1
    assert "4 matches are made." in page


def test_one_entrant_is_not_one_entrants():
    from leagues.models import Entrant

    world = build_world(entrants=2)
    Entrant.objects.filter(competition=world.competition).order_by("-pk").first().delete()
    page = Client().get(f"/competitions/{world.competition.slug}/").content.decode()
    assert "<span>1 entrant</span>" in page and "1 entrants" not in page
    client = Client()
    client.force_login(world.users["organiser"])
    assert "1 entrants" not in client.get(f"/manage/{world.competition.slug}/").content.decode()
