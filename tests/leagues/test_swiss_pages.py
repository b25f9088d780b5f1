"""A Swiss's pages as its organiser and its readers see them between rounds (what the browser
run in ``test_swiss_browser`` showed): "Pair round 1" before the first round, the rounds counted
("Round 1 of 3") and the open still in progress while rounds remain, no empty sign-up card once
paired, and the add-an-entrant form in the reader's language. On PostgreSQL."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from leagues.models import Competition, Entrant, Fixture
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def open_of_five():
    user = get_user_model().objects.create_user(username="swiss-pages", password="pw-swiss-pages-1")
    competition = Competition.objects.create(name="Open Páginas", slug="open-paginas", format="swiss", rounds=3,
                                             first_date="2027-02-06", lots_seed=2)
    competition.organisers.add(user)
    for i in range(1, 6):
        Entrant.objects.create(competition=competition, name=f"P{i}", seed=i)
    client = Client()
    client.force_login(user)
    return competition, client


def _play_open(competition):
    for fixture in competition.fixtures.filter(status=Fixture.Status.SCHEDULED):
        result_record(fixture=fixture, home_goals=1, away_goals=0)


def test_the_organiser_pairs_round_one_and_the_page_counts_the_rounds(open_of_five):
    competition, client = open_of_five
    manage = client.get(f"/manage/{competition.slug}/").content.decode()
    assert "Pair round 1" in manage and "Generate the fixtures" not in manage
    assert "a Swiss system of 3 rounds" in manage

    fixtures_generate(competition=competition)
    _play_open(competition)  # round 1 played, rounds 2 and 3 to pair
    page = Client().get(f"/competitions/{competition.slug}/").content.decode()
    assert "Round 1 of 3" in page
    assert "In progress" in page and "Finished" not in page
    manage = client.get(f"/manage/{competition.slug}/").content.decode()
    assert 'id="sign-ups"' not in manage  # no registration, nothing to show once paired


def test_the_add_an_entrant_form_speaks_the_readers_language(open_of_five):
    competition, client = open_of_five
    client.post("/i18n/setlang/", {"language": "pt-br", "next": "/"})
    manage = client.get(f"/manage/{competition.slug}/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert '<label for="id_seed">Cabeça de chave' in manage or ">Cabeça de chave<" in manage, manage[-3000:]
    assert ">Seed<" not in manage and ">Name<" not in manage
