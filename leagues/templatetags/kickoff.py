"""Kick-off times and the links to take a competition away.

- ``{% kickoff fixture %}``: the fixture's kick-off in its competition's time zone, as a
  ``<time>`` that ``static/js/local-time.js`` completes with the reader's own time when their
  zone's offset differs at that moment ("Sat 5 Dec, 18:00 (Europe/Lisbon) · Sat 5 Dec, 15:00
  (America/Sao_Paulo)"); ``short=True`` for a narrow place (the zone, and the reader's time,
  go to its title). A fixture with a day and no time shows the day; neither, nothing.
- ``{% webcal path %}``: the absolute ``webcal://`` address of a feed's ``path``.
- ``{% absolute path %}``: the absolute ``https://`` (or ``http://`` in development) address.
"""
from __future__ import annotations

import zoneinfo
from datetime import UTC
from functools import lru_cache

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import get_language

register = template.Library()


def zone_offset_minutes(when, zone) -> int:
    """The offset of ``zone`` from UTC at ``when``, in minutes (east positive, as in ISO 8601)."""
    return int(timezone.localtime(when, zone).utcoffset().total_seconds() // 60)


@register.simple_tag
def kickoff(fixture, fmt: str = "D j M, H:i", short: bool = False) -> str:
    if fixture.kickoff_at is None:
        return date_format(fixture.date, "D j M") if fixture.date else ""
    return _kickoff(fixture.kickoff_at, fixture.competition.time_zone, fmt, short, get_language())


@lru_cache(maxsize=1024)
def _kickoff(at, time_zone: str, fmt: str, short: bool, language: str) -> str:
    """``kickoff``'s ``<time>``, once per moment, zone, format and language: a round's fixtures
    mostly kick off together, and a page lists hundreds (``language``: the key's part that
    ``date_format`` reads from the active language)."""
    try:
        zone = zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):  # as ``Competition.zone``
        zone = zoneinfo.ZoneInfo("UTC")
    text = date_format(timezone.localtime(at, zone), fmt)
    iso = at.astimezone(UTC).isoformat()
    offset = zone_offset_minutes(at, zone)
    if short:
        return format_html('<time datetime="{}" data-local-time="title" data-offset="{}" title="{} ({})">{}</time>',
                           iso, offset, text, time_zone, text)
    return format_html('<time datetime="{}" data-local-time data-offset="{}">{} ({})</time>',
                       iso, offset, text, time_zone)


@register.simple_tag(takes_context=True)
def absolute(context, path: str) -> str:
    return context["request"].build_absolute_uri(path)


@register.simple_tag(takes_context=True)
def webcal(context, path: str) -> str:
    url = context["request"].build_absolute_uri(path)
    return "webcal://" + url.split("://", 1)[1]
