"""Tables other sites show in an ``<iframe>``: ``/embed/competitions/<slug>/standings/`` and
``/embed/competitions/<slug>/fixtures/``. The only pages that any site may frame
(``config.headers.embeddable``: no ``X-Frame-Options``, ``frame-ancestors`` from
``EMBED_FRAME_ANCESTORS``); they show what the competition's page shows, and their links open
the site in a new tab."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from config.headers import embeddable
from leagues.models import Competition, Fixture
from leagues.selectors.pages import fixtures_qs, tables_with_qualifiers

EMBED_FIXTURES = 40  # at most this many upcoming fixtures and as many latest results


@embeddable
@require_safe
def embed_standings(request: HttpRequest, slug: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    return render(request, "leagues/embed/standings.html", {
        "competition": competition, "tables": tables_with_qualifiers(competition), "zone": competition.zone,
    })


@embeddable
@require_safe
def embed_fixtures(request: HttpRequest, slug: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    fixtures = fixtures_qs().filter(competition=competition).exclude(status=Fixture.Status.BYE)
    upcoming = list(fixtures.filter(status__in=Fixture.OPEN).order_by(
        "kickoff_at", "date", "round__stage__order", "round__number", "position")[:EMBED_FIXTURES])
    results = list(fixtures.filter(status__in=Fixture.RESULTED).order_by(
        "-kickoff_at", "-date", "-round__number", "-position")[:EMBED_FIXTURES])
    return render(request, "leagues/embed/fixtures.html", {
        "competition": competition, "upcoming": upcoming, "results": results, "zone": competition.zone,
    })
