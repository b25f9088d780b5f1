"""Match settings the referee would refuse are refused where they are entered: the organiser
Settings form and the model's own check (the API's is in test_api)."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from leagues.models import Competition

from .site_world import build_world
from .test_permissions import _competition_form

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("change,field", [
    ({"halves": 3}, "halves"),
    ({"halves": 10**9}, "halves"),
    ({"half_minutes": 0}, "half_minutes"),
    ({"extra_time_minutes": 31}, "extra_time_minutes"),
    ({"shootout_kicks": 11}, "shootout_kicks"),
    ({"points_win": 11}, "points_win"),
    ({"days_between_rounds": 366}, "days_between_rounds"),
    ({"first_date": "9999-12-31"}, "first_date"),
])
def test_settings_form_refuses_bad_match_settings(change, field):
    world = build_world()
    client = Client()
    client.force_login(world.users["organiser"])
    response = client.post("/manage/liga/settings/", {**_competition_form("Liga", slug="liga"), **change})
    assert response.status_code == 200
    assert field in response.context["form"].errors, response.context["form"].errors
    competition = Competition.objects.get(slug="liga")
    assert competition.halves == 2 and competition.half_minutes == 25


def test_settings_form_refuses_stored_rule_params_the_referee_refuses():
    world = build_world()
    Competition.objects.filter(slug="liga").update(rule_params={"turn_seconds": "abc"})
    client = Client()
    client.force_login(world.users["organiser"])
    response = client.post("/manage/liga/settings/", _competition_form("Liga", slug="liga"))
    assert response.status_code == 200
    assert "turn_seconds" in str(response.context["form"].non_field_errors())


@pytest.mark.parametrize("change,field", [
    ({"halves": 3}, "halves"),
    ({"rule_params": {"turn_seconds": "abc"}}, "rule_params"),
    ({"rule_params": {"foo": 1}}, "rule_params"),
    ({"rule_params": {"half_minutes": 0}}, "rule_params"),
])
def test_model_clean_refuses_bad_match_settings(change, field):
    competition = build_world().competition
    for key, value in change.items():
        setattr(competition, key, value)
    with pytest.raises(ValidationError) as caught:
        competition.full_clean()
    assert field in caught.value.message_dict


def test_model_clean_accepts_the_defaults():
    build_world().competition.full_clean()


def test_settings_form_refuses_a_tie_break_criterion_given_twice():
    world = build_world()
    client = Client()
    client.force_login(world.users["organiser"])
    form = {**_competition_form("Liga", slug="liga"), "tiebreak_preset": "custom",
            "tiebreak_criteria": "goal_difference, goal_difference"}
    response = client.post("/manage/liga/settings/", form)
    assert response.status_code == 200
    assert "twice" in str(response.context["form"].errors["tiebreak_criteria"])


def test_validate_criteria_refuses_a_key_given_twice():
    from leagues.ranking import validate_criteria

    validate_criteria(["goal_difference", "goals_for"])
    with pytest.raises(ValueError, match="twice"):
        validate_criteria(["goal_difference", "goals_for", "goal_difference"])
