"""The demo's year (issue 19): ratings with a history, a ranking, sign-up open, notifications."""
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from leagues.models import Competition, Placing, PlayerRating, SignUp
from leagues.notifications.models import Notification
from leagues.selectors.year import federation_ranking
from leagues.services.ratings import ratings_stale


@pytest.mark.django_db
def test_the_demo_has_ratings_a_ranking_a_competition_open_for_sign_up_and_notifications(
        django_capture_on_commit_callbacks, settings):
    settings.DEBUG = True  # load_demo runs on a development site
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=StringIO())
    assert not ratings_stale()
    assert PlayerRating.objects.values("period_start").distinct().count() >= 6  # months of history
    assert Placing.objects.values("competition").distinct().count() == 3
    rows = federation_ranking()
    assert len(rows) >= 12 and rows[0].row.explanation.startswith("from ")
    winter = Competition.objects.get(slug__startswith="open-inverno-")
    assert winter.registration.is_open(timezone.now())
    assert SignUp.objects.filter(competition=winter, status="confirmed").count() == 1
    ana = Notification.objects.filter(user__username="anaferreira")
    assert ana.filter(kind="fixture_scheduled").exists() and ana.filter(kind="checkin_open").exists()
    assert Notification.objects.count() < 60  # the past seasons are news to nobody
    autumn = Competition.objects.get(slug__startswith="open-outono-")
    assert autumn.seeding == "rating"
    client = Client()
    assert client.login(username="anaferreira", password="botonera-demo")
    page = client.get(f"/competitions/{winter.slug}/").content.decode()
    assert "Sign up" in page and "5 places free of 8" in page
    assert "Check in now" in client.get("/inbox/").content.decode()
