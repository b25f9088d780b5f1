"""The calendars (``leagues.calendars``) as feeds a calendar program subscribes to:
``/competitions/<slug>/calendar.ics``, ``/clubs/<slug>/calendar.ics``,
``/players/<id>/calendar.ics`` (``text/calendar``; the pages link them as ``webcal://`` and
``https://``)."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from leagues import calendars
from leagues.models import Club, Competition, Player

CACHE_SECONDS = 15 * 60


def _feed(body: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}.ics"'
    response["Cache-Control"] = f"public, max-age={CACHE_SECONDS}"
    return response


@require_GET
def competition_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    return _feed(calendars.competition_calendar(competition), competition.slug)


@require_GET
def club_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    club = get_object_or_404(Club, slug=slug)
    return _feed(calendars.club_calendar(club), club.slug)


@require_GET
def player_calendar(request: HttpRequest, pk: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=pk)
    return _feed(calendars.player_calendar(player), f"player-{player.pk}")
