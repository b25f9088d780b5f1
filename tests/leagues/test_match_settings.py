"""Match settings the referee would refuse are refused where they are entered: the organiser
Settings form and the model's own check (the API's is in test_api)."""
from __future__ import annotations

from html.parser import HTMLParser

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
    from leagues.rules.standings import validate_criteria

    validate_criteria(["goal_difference", "goals_for"])
    with pytest.raises(ValueError, match="twice"):
        validate_criteria(["goal_difference", "goals_for", "goal_difference"])


class _FormFields(HTMLParser):
    """What a browser submits from the page's settings form: every named field with its value
    as rendered (a checkbox only when ticked, a select's selected option)."""

    def __init__(self):
        super().__init__()
        self.data: dict[str, str] = {}
        self.names: set[str] = set()
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name:
            self.names.add(name)
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.data[name] = a.get("value") or "on"
            elif a.get("type") != "submit":
                self.data[name] = a.get("value") or ""
        elif tag == "select" and name:
            self.names.add(name)
            self._select = name
            self.data.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self.names.add(name)
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


def test_saving_the_settings_page_as_shown_keeps_rated_the_tier_and_the_online_settings():
    """An organiser who changes only the half's length keeps the competition rated, its ranking
    tier and its time zone, venue and check-in times: the page shows them all, and a field it
    did not show would be saved empty (a checkbox not sent is False)."""
    from leagues.models import RankingTier

    world = build_world()
    major = RankingTier.objects.create(name="Major", factor=2)
    Competition.objects.filter(slug="liga").update(
        rated=True, ranking_tier=major, time_zone="America/Sao_Paulo", venue="online", checkin_opens_minutes=45)
    client = Client()
    client.force_login(world.users["organiser"])
    page = client.get("/manage/liga/settings/")
    assert page.status_code == 200
    fields = _FormFields()
    fields.feed(page.content.decode())
    for name in ("rated", "ranking_tier", "time_zone", "venue", "kickoff_time", "checkin_opens_minutes",
                 "checkin_grace_minutes"):
        assert name in fields.names, f"the settings page does not show {name}"
    from leagues.forms import CompetitionForm
    assert set(CompetitionForm().fields) <= fields.names, set(CompetitionForm().fields) - fields.names
    response = client.post("/manage/liga/settings/", {**fields.data, "half_minutes": "10"})
    assert response.status_code == 302, response.context["form"].errors
    competition = Competition.objects.get(slug="liga")
    assert competition.half_minutes == 10
    assert competition.rated is True and competition.ranking_tier == major
    assert (competition.time_zone, competition.venue, competition.checkin_opens_minutes) == (
        "America/Sao_Paulo", "online", 45)
