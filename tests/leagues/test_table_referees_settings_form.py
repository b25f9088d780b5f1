"""The organiser's settings page names the table referees and their tables (COMPETITIONS.md §12):
usernames like the API's ``referees``, one line per referee for the tables; saved untouched, it
changes nothing."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from leagues.models import Competition
from tests.leagues.forms_html import form_data

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def settings_page():
    organiser = User.objects.create_user(username="organiser")
    for name in ("rui", "ana"):
        User.objects.create_user(username=name)
    competition = Competition.objects.create(name="Open", slug="open", lots_seed=5, tables=6)
    competition.organisers.add(organiser)
    client = Client()
    client.force_login(organiser)
    return competition, client


def post_settings(client, competition, **changes):
    page = client.get(f"/manage/{competition.slug}/settings/").content.decode()
    data = form_data(page, "")
    data.update(changes)
    return client.post(f"/manage/{competition.slug}/settings/", data)


def test_the_settings_name_the_referees_and_their_tables(settings_page):
    competition, client = settings_page
    response = post_settings(client, competition, referees="rui, ana", referee_tables="rui: 3, 1\n\nana: 6")
    assert response.status_code == 302, response.content.decode()[:2000]
    competition.refresh_from_db()
    assert set(competition.referees.values_list("username", flat=True)) == {"rui", "ana"}
    assert competition.referee_tables == {"rui": [1, 3], "ana": [6]}
    page = client.get(f"/manage/{competition.slug}/settings/").content.decode()
    assert form_data(page, "")["referee_tables"].strip() == "ana: 6\nrui: 1, 3"


def test_the_settings_saved_untouched_keep_the_referees(settings_page):
    competition, client = settings_page
    competition.referees.add(*User.objects.filter(username__in=["rui", "ana"]))
    Competition.objects.filter(pk=competition.pk).update(referee_tables={"rui": [2]})
    for _save in range(2):
        assert post_settings(client, competition).status_code == 302
    competition.refresh_from_db()
    assert set(competition.referees.values_list("username", flat=True)) == {"rui", "ana"}
    assert competition.referee_tables == {"rui": [2]}


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"referees": "rui, nobody"}, "referees", "nobody"),
    ({"referees": "rui", "referee_tables": "ana: 1"}, "referee_tables", "not one of the referees"),
    ({"referees": "rui", "referee_tables": "rui: 7"}, "referee_tables", "1 to 6"),
    ({"referees": "rui", "referee_tables": "rui 1"}, "referee_tables", "line 1"),
])
def test_the_settings_refuse_wrong_referees_naming_the_field(settings_page, changes, field, words):
    competition, client = settings_page
    response = post_settings(client, competition, **changes)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert words in " ".join(errors[field])
    competition.refresh_from_db()
    assert competition.referees.count() == 0 and competition.referee_tables == {}
