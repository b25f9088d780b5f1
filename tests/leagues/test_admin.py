"""Every model of leagues and matches is in the admin, and its pages open on the demo data."""
from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.urls import reverse

from leagues import models as league_models
from matches import models as match_models

pytestmark = pytest.mark.django_db

MODELS = [
    league_models.Club, league_models.Player, league_models.ClubMembership, league_models.Season,
    league_models.Competition, league_models.Entrant, league_models.Stage, league_models.Group,
    league_models.Round, league_models.Fixture, league_models.Standing, league_models.Result,
    league_models.FixtureChange, match_models.Match,
]


def test_admin_pages_open(client, settings):
    settings.DEBUG = True  # the demo with its README passwords is a development site's
    call_command("load_demo", stdout=StringIO())
    settings.DEBUG = False
    client.login(username="admin", password="admin")
    for model in MODELS:
        assert admin.site.is_registered(model), model
        opts = model._meta
        changelist = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        assert changelist.status_code == 200, model
        obj = model.objects.first()
        if obj is not None:
            change = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
            assert change.status_code == 200, model
