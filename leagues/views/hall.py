"""The hall screen (COMPETITIONS.md §12): ``/competitions/<slug>/hall/`` for a big display in the
hall, readable across the room, without sign-in, and ``/competitions/<slug>/hall/parts/``: the
HTML of its changing parts, which the page fetches when its socket
(``/ws/competitions/<slug>/hall/``, ``leagues.consumers``) says the day moved, every
``LOOK_SECONDS`` in any case, and every ``POLL_SECONDS`` without the socket.

Language: ``?lang=es`` (a screen nobody signs in on), else the reader's as on every page (the
switcher's cookie, then the browser's)."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone, translation
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from leagues.models import Competition
from leagues.selectors.hall import hall_screen

POLL_SECONDS = 15  # without the socket
LOOK_SECONDS = 30  # with it: a message lost is caught by the next look


def _language(request: HttpRequest) -> str:
    """``?lang=`` when the site speaks it, else the request's language."""
    code = request.GET.get("lang", "")
    try:
        return translation.get_supported_language_variant(code) if code else translation.get_language()
    except LookupError:
        return translation.get_language()


def _context(request: HttpRequest, slug: str) -> dict:
    competition = get_object_or_404(Competition, slug=slug)
    now = timezone.now()
    return {"competition": competition, "screen": hall_screen(competition=competition, now=now), "now": now,
            "zone": competition.zone}


@never_cache
@require_safe
def hall(request: HttpRequest, slug: str) -> HttpResponse:
    language = _language(request)
    with translation.override(language):
        context = _context(request, slug)
        query = f"?lang={language}" if request.GET.get("lang") else ""
        context["config"] = {
            "partsUrl": request.path + "parts/" + query,
            "socketUrl": f"{settings.LIVE_URL}/ws/competitions/{slug}/hall/",  # leagues.routing
            "pollSeconds": POLL_SECONDS, "lookSeconds": LOOK_SECONDS,
            "timeZone": context["competition"].time_zone,  # the clock: the hall's time, not the display's
        }
        context["language"] = language
        return render(request, "leagues/hall/screen.html", context)


@never_cache
@require_safe
def hall_parts(request: HttpRequest, slug: str) -> HttpResponse:
    with translation.override(_language(request)):
        return render(request, "leagues/hall/_parts.html", _context(request, slug))
