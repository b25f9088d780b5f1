"""One rule for every slug (issue 15): ASCII letters, digits, hyphens, underscores. A name in any
script is made into one; a slug in another form is refused (the import, the API, the admin and
the database alike), so no name can break a page (``--competition taça-2012`` made ``/`` and
``/competitions/`` answer 500)."""
from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.test import Client

from leagues.models import Club, Competition, Season
from leagues.slugs import unique_slug
from tests.leagues.site_world import build_world
from tests.leagues.test_api import client_for

pytestmark = pytest.mark.django_db

CSV = "home,away,home_goals,away_goals\nBrasil,Portugal,2,1\n"


def pages_answer():
    client = Client()
    for path in ["/", "/competitions/", "/clubs/", "/manage/"]:
        assert client.get(path).status_code in (200, 302), path
    for competition in Competition.objects.all():
        assert client.get(f"/competitions/{competition.slug}/").status_code == 200


def test_the_import_refuses_a_slug_that_is_not_ascii_and_names_the_one_to_use(tmp_path):
    path = tmp_path / "taca.csv"
    path.write_text(CSV, encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        call_command("import_results", str(path), "--competition", "taça-2012", "--create", "--name", "Taça 2012",
                     stdout=StringIO())
    assert exc.value.returncode == 2
    assert str(exc.value).startswith("--competition:") and "'taca-2012'" in str(exc.value)
    assert "\n" not in str(exc.value)
    assert not Competition.objects.exists()
    call_command("import_results", str(path), "--competition", "taca-2012", "--create", "--name", "Taça 2012",
                 stdout=StringIO())
    assert Competition.objects.get().name == "Taça 2012"
    pages_answer()


def test_a_name_in_any_script_gets_an_ascii_slug_in_the_api_and_the_pages():
    world = build_world()
    api = client_for(world, "federation_admin")
    made = api.post("/api/competitions/", {"name": "Taça da Liga 2026"}, format="json")
    assert made.status_code == 201 and made.json()["slug"] == "taca-da-liga-2026"
    greek = api.post("/api/competitions/", {"name": "Πρωτάθλημα"}, format="json")
    assert greek.status_code == 201 and greek.json()["slug"] == "competition"
    refused = api.post("/api/competitions/", {"name": "Taça", "slug": "taça"}, format="json")
    assert refused.status_code == 400 and "slug" in refused.json()
    assert unique_slug("Copa São Paulo", model=Competition, max_length=80, fallback="competition") == "copa-sao-paulo"
    assert unique_slug("Πρωτάθλημα", model=Competition, max_length=80, fallback="competition") == "competition-2"
    pages_answer()


def test_the_database_refuses_a_slug_that_is_not_ascii():
    for model, fields in ((Competition, {"name": "Taça"}), (Club, {"name": "Botões"}),
                          (Season, {"name": "Época", "start_date": "2026-08-01", "end_date": "2027-07-31"})):
        with pytest.raises(IntegrityError), transaction.atomic():
            model.objects.create(slug="taça-2012", **fields)


def test_the_admin_refuses_a_slug_that_is_not_ascii():
    admin = get_user_model().objects.create_superuser("root", password="x")
    client = Client()
    client.force_login(admin)
    response = client.post("/admin/leagues/club/add/", {
        "name": "Botões de Lisboa", "slug": "botões", "memberships-TOTAL_FORMS": 0,
        "memberships-INITIAL_FORMS": 0})
    assert response.status_code == 200 and "slug" in response.context["adminform"].form.errors
    assert not Club.objects.exists()
