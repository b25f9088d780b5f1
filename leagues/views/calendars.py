"""The calendars (``leagues.downloads.calendars``) as feeds a calendar program subscribes to:
``/competitions/<slug>/calendar.ics``, ``/clubs/<slug>/calendar.ics``,
``/players/<id>/calendar.ics`` (``text/calendar``; the pages link them as ``webcal://`` and
``https://``)."""
from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import get_conditional_response
from django.utils.http import quote_etag
from django.views.decorators.http import require_safe

from leagues.downloads import calendars
from leagues.models import Club, Competition, Player

CACHE_SECONDS = 15 * 60


def _feed(request: HttpRequest, body: bytes, filename: str) -> HttpResponse:
    """The feed, with an ``ETag`` of its bytes: a calendar asking again with ``If-None-Match``
    for an unchanged feed gets a 304 (the feed's bytes depend only on the fixtures)."""
    etag = quote_etag(hashlib.sha256(body).hexdigest()[:32])
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}.ics"'
    response["Cache-Control"] = f"public, max-age={CACHE_SECONDS}"
    response["ETag"] = etag
    return get_conditional_response(request, etag=etag, response=response)


@require_safe
def competition_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    return _feed(request, calendars.competition_calendar(competition), competition.slug)


@require_safe
def club_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    club = get_object_or_404(Club, slug=slug)
    return _feed(request, calendars.club_calendar(club), club.slug)


@require_safe
def player_calendar(request: HttpRequest, pk: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=pk)
    return _feed(request, calendars.player_calendar(player), f"player-{player.pk}")
