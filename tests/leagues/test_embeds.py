"""Embeddable tables (issue 18): /embed/competitions/<slug>/standings/ and .../fixtures/ are the
only pages another site may frame (no X-Frame-Options, frame-ancestors from
EMBED_FRAME_ANCESTORS, any site by default); every other page, the feeds and downloads
included, still refuses; the competition's page gives the snippet to copy."""
from __future__ import annotations

import datetime as dt
import html

import pytest
from django.test import Client

from leagues.models import Competition, Entrant, Fixture, Standing
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute

pytestmark = pytest.mark.django_db


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.fixture
def competition(django_capture_on_commit_callbacks):
    competition = Competition.objects.create(
        name="Liga Embebida", slug="liga-embed", time_zone="America/Sao_Paulo", first_date=dt.date(2026, 12, 5),
        kickoff_time=dt.time(15, 30), lots_seed=1)
    for i in range(1, 5):
        Entrant.objects.create(competition=competition, name=f"Time {i}", seed=i)
    fixtures_generate(competition=competition)
    first = competition.fixtures.order_by("round__number", "position").first()
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=first, home_goals=3, away_goals=1)
    standings_recompute(competition_id=competition.pk, force=True)
    return competition


def test_the_embed_pages_may_be_framed_by_any_site_and_show_the_tables(competition):
    client = Client()
    standings = client.get(f"/embed/competitions/{competition.slug}/standings/")
    assert standings.status_code == 200 and "X-Frame-Options" not in standings
    csp = directives(standings)
    assert csp["frame-ancestors"] == ["*"] and csp["script-src"] == ["'self'"] and csp["default-src"] == ["'self'"]
    text = standings.content.decode()
    for row in Standing.objects.filter(competition=competition):
        assert row.entrant.name in text
    assert 'target="_blank" rel="noopener"' in text and "site-header" not in text

    fixtures = client.get(f"/embed/competitions/{competition.slug}/fixtures/")
    assert fixtures.status_code == 200 and "X-Frame-Options" not in fixtures
    assert directives(fixtures)["frame-ancestors"] == ["*"]
    text = fixtures.content.decode()
    assert "3–1" in text
    # kick-offs in the competition's zone: 15:30 in São Paulo, marked for the reader's own time
    assert "15:30 (America/Sao_Paulo)" in text and 'data-offset="-180"' in text
    assert "js/local-time.js" in text


def test_every_other_page_still_refuses_to_be_framed(competition):
    fixture = competition.fixtures.first()
    rnd = fixture.round
    client = Client()
    for path in ("/", f"/competitions/{competition.slug}/", f"/competitions/{competition.slug}/calendar.ics",
                 f"/competitions/{competition.slug}/export/standings.csv",
                 f"/competitions/{competition.slug}/rounds/{rnd.pk}/print/", f"/fixtures/{fixture.pk}/",
                 "/embed/competitions/no-such-competition/standings/"):
        response = client.get(path)
        assert response["X-Frame-Options"] == "DENY", path
        assert directives(response)["frame-ancestors"] == ["'none'"], path


def test_the_sites_allowed_to_frame_come_from_the_setting_at_each_request(competition, settings):
    settings.EMBED_FRAME_ANCESTORS = ["https://clube.example", "https://*.federacao.example"]
    response = Client().get(f"/embed/competitions/{competition.slug}/standings/")
    assert directives(response)["frame-ancestors"] == ["https://clube.example", "https://*.federacao.example"]


def test_the_competition_page_gives_the_snippets_to_copy(competition):
    page = Client().get(f"/competitions/{competition.slug}/", secure=True).content.decode()
    for kind in ("standings", "fixtures"):
        src = f"https://testserver/embed/competitions/{competition.slug}/{kind}/"
        snippet = f'<iframe src="{src}"'
        assert html.escape(snippet, quote=False) in page or snippet.replace('"', "&quot;").replace("<", "&lt;") in page


def test_a_postponed_fixture_is_listed_as_such(competition):
    fixture = competition.fixtures.filter(status=Fixture.Status.SCHEDULED).first()
    fixture.set_status(Fixture.Status.POSTPONED)
    text = Client().get(f"/embed/competitions/{competition.slug}/fixtures/").content.decode()
    assert "postponed" in text


def test_the_fixtures_embed_says_walkover_aet_and_pens_as_the_competition_page(django_capture_on_commit_callbacks):
    cup = Competition.objects.create(name="Taça Embebida", slug="taca-embed", format=Competition.Format.KNOCKOUT,
                                     first_date=dt.date(2026, 12, 5), lots_seed=1)
    for i in range(1, 5):
        Entrant.objects.create(competition=cup, name=f"Time {i}", seed=i)
    fixtures_generate(competition=cup)
    first, second = cup.fixtures.filter(round__number=1).order_by("position")
    with django_capture_on_commit_callbacks(execute=True):
        result_record(fixture=first, outcome="walkover", outcome_side="away", home_goals=2, away_goals=0)
        result_record(fixture=second, home_goals=1, away_goals=1, home_et_goals=0, away_et_goals=1)
    page = html.unescape(Client().get(f"/embed/competitions/{cup.slug}/fixtures/").content.decode())
    shown = html.unescape(Client().get(f"/competitions/{cup.slug}/").content.decode())
    for note in ("walkover", "a.e.t."):
        assert note in shown  # the competition's page says it
        assert f'<span class="note">{note}</span>' in page, note  # and the embed, visibly
