"""A NUL character anywhere a client writes text is a 400 naming the field, never a 500 (issue 15:
an entrant's ``competition`` with a NUL was the only 5xx in 17,000 fuzzed requests)."""
from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.leagues.site_world import build_world
from tests.leagues.test_api import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("fmt", ["json", "multipart"])
@pytest.mark.parametrize("body, field", [
    ({"competition": "liga\x00", "name": "X", "seed": 9}, "competition"),
    ({"competition": "liga", "name": "X\x00", "seed": 9}, "name"),
])
def test_a_nul_in_an_entrants_field_is_a_400_naming_it(body, field, fmt):
    world = build_world()
    response = client_for(world).post("/api/entrants/", body, format=fmt)
    assert response.status_code == 400, response.content
    assert "Null characters are not allowed." in response.json()[field]


def test_a_nul_nested_in_a_json_body_names_its_path():
    world = build_world()
    response = client_for(world).patch("/api/competitions/liga/", {"rule_params": {"turn\x00": 1}}, format="json")
    assert response.status_code == 400 and "rule_params.turn\x00" in response.json()


@pytest.mark.parametrize("url", ["/api/entrants/?competition=%00", "/api/competitions/?search=a%00b",
                                 "/api/fixtures/?competition=liga&round=%00", "/competitions/?q=%00"])
def test_a_nul_in_a_query_parameter_is_a_400(url):
    build_world()
    response = (APIClient() if url.startswith("/api/") else Client()).get(url)
    assert response.status_code == 400, response.content
