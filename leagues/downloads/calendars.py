"""iCalendar feeds (RFC 5545) of fixtures: per competition, per club, per player.

A feed is one ``VCALENDAR`` (``METHOD:PUBLISH``) with one ``VEVENT`` per fixture that has a day:
- ``DTSTART``/``DTEND`` carry the ``TZID`` of the fixture's competition (its ``time_zone``) and
  the calendar holds the ``VTIMEZONE`` of every zone used (``leagues.downloads.vtimezone``: yearly rules,
  right from a year before the first fixture to a year after the last); a fixture with a day and no kick-off
  time is an all-day event (``VALUE=DATE``).
- ``UID`` is ``fixture-<id>@<the site's host>`` (``SITE_URL``): the same event in every feed and
  every download, so a calendar updates its copy instead of adding one.
- ``SEQUENCE`` is derived from the fixture's history: the number of its accepted changes that
  move, place or call off the event (``SCHEDULE_KINDS``). A reschedule adds one; nothing counts
  by hand.
- ``STATUS`` is ``CANCELLED`` for a cancelled or annulled fixture, ``TENTATIVE`` for a postponed
  one, otherwise ``CONFIRMED``.
- ``DTSTAMP`` and ``LAST-MODIFIED`` are the time of the fixture's latest change (else its
  competition's creation), so two downloads of an unchanged feed are the same bytes.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import Count, Max, Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

from leagues.downloads.vtimezone import vtimezone
from leagues.models import Club, Competition, Fixture, FixtureChange, Player, Venue

PRODID = "-//Botonera//Button soccer fixtures//EN"
# the changes that move the event, place it elsewhere, or call it off (or back on)
SCHEDULE_KINDS = (
    FixtureChange.Kind.RESCHEDULED, FixtureChange.Kind.VENUE, FixtureChange.Kind.ENTRANTS,
    FixtureChange.Kind.STATUS, FixtureChange.Kind.WITHDRAWAL,
)
STATUS = {
    Fixture.Status.CANCELLED: "CANCELLED", Fixture.Status.ANNULLED: "CANCELLED",
    Fixture.Status.POSTPONED: "TENTATIVE",
}
# time around the match itself in the event: the break between halves, warming up, check-in
EVENT_MARGIN_MINUTES = 15
REFRESH = timedelta(hours=1)  # how often a subscribed calendar is asked to look again


def site_host() -> str:
    """The host part of ``SITE_URL``: the domain of every ``UID``."""
    return urlsplit(settings.SITE_URL).hostname or "localhost"


def fixture_uid(fixture_id: int) -> str:
    return f"fixture-{fixture_id}@{site_host()}"


def event_minutes(competition: Competition) -> int:
    """The event's length in minutes: the regular time of a match plus ``EVENT_MARGIN_MINUTES``."""
    return competition.halves * competition.half_minutes + EVENT_MARGIN_MINUTES


def feed_fixtures(fixtures: QuerySet[Fixture]) -> QuerySet[Fixture]:
    """``fixtures`` that have a day, with what the feed needs: ``sequence`` (the count of their
    ``SCHEDULE_KINDS`` changes) and ``last_change`` (the time of their latest change, or None)."""
    return (
        fixtures.exclude(status=Fixture.Status.BYE)
        .filter(Q(kickoff_at__isnull=False) | Q(date__isnull=False))
        .select_related("competition", "round__stage", "group", "home", "away", "result")
        .annotate(sequence=Count("changes", filter=Q(changes__kind__in=SCHEDULE_KINDS), distinct=True),
                  last_change=Max("changes__at"))
        .order_by("kickoff_at", "date", "pk")
    )


def _summary(fixture: Fixture) -> str:
    home = fixture.home.name if fixture.home_id else _("To be decided")
    away = fixture.away.name if fixture.away_id else _("To be decided")
    result = getattr(fixture, "result", None) if fixture.status in Fixture.RESULTED else None
    if result is not None:
        text = f"{home} {result.home_goals}–{result.away_goals} {away}"
    else:
        text = _("%(home)s v %(away)s") % {"home": home, "away": away}
    if fixture.status == Fixture.Status.POSTPONED:
        text = _("%(match)s (postponed)") % {"match": text}
    return text


def _description(fixture: Fixture) -> str:
    parts = [fixture.competition.name, str(fixture.round)]
    if fixture.group_id:
        parts.append(_("Group %(name)s") % {"name": fixture.group.name})
    if fixture.label and fixture.label != str(fixture.round):
        parts.append(fixture.label)
    return " · ".join(parts)


def fixture_event(fixture: Fixture, *, stamp: datetime) -> Event:
    """The ``VEVENT`` of ``fixture`` (from ``feed_fixtures``, or with ``sequence`` and
    ``last_change`` set); ``stamp`` is used when it has no change yet."""
    competition = fixture.competition
    event = Event()
    event.add("uid", fixture_uid(fixture.pk))
    changed = getattr(fixture, "last_change", None) or stamp
    event.add("dtstamp", changed)
    event.add("last-modified", changed)
    event.add("sequence", getattr(fixture, "sequence", 0) or 0)
    event.add("summary", _summary(fixture))
    event.add("description", _description(fixture))
    if fixture.kickoff_at is not None:
        start = fixture.kickoff_at.astimezone(competition.zone)
        event.add("dtstart", start)
        event.add("dtend", start + timedelta(minutes=event_minutes(competition)))
    else:
        event.add("dtstart", fixture.date)
        event.add("dtend", fixture.date + timedelta(days=1))
    event.add("location", _("Online, on the simulated table") if fixture.effective_venue == Venue.ONLINE
              else _("At a real table"))
    event.add("status", STATUS.get(fixture.status, "CONFIRMED"))
    event.add("url", settings.SITE_URL.rstrip("/") + reverse("site:fixture", args=[fixture.pk]))
    event.add("categories", [competition.name])
    return event


def calendar_of(fixtures: Iterable[Fixture], *, name: str, zone: str | None = None,
                stamp: datetime) -> bytes:
    """One ``VCALENDAR`` (``text/calendar``, UTF-8 bytes) of ``fixtures`` named ``name``; ``zone``
    (an IANA name) is the calendar's own (``X-WR-TIMEZONE``), when it has one."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", REFRESH)
    if zone:
        calendar.add("x-wr-timezone", zone)
    fixtures = list(fixtures)
    zones = sorted({f.competition.time_zone for f in fixtures if f.kickoff_at is not None})
    if zones:
        days = [f.kickoff_at.date() for f in fixtures if f.kickoff_at is not None]
        start, end = min(days) - timedelta(days=366), max(days) + timedelta(days=366)
        for name in zones:
            calendar.add_component(vtimezone(name, date(start.year, 1, 1), date(end.year + 1, 1, 1)))
    for fixture in fixtures:
        calendar.add_component(fixture_event(fixture, stamp=stamp))
    return calendar.to_ical()


def competition_calendar(competition: Competition) -> bytes:
    """The fixtures of ``competition``, in its time zone."""
    fixtures = feed_fixtures(Fixture.objects.filter(competition=competition))
    return calendar_of(fixtures, name=competition.name, zone=competition.time_zone, stamp=competition.created_at)


def club_calendar(club: Club) -> bytes:
    """The fixtures of the entrants representing ``club``, each in its competition's zone."""
    fixtures = feed_fixtures(Fixture.objects.filter(Q(home__club=club) | Q(away__club=club)))
    return calendar_of(fixtures, name=club.name, stamp=club.created_at)


def player_calendar(player: Player) -> bytes:
    """The fixtures of ``player``'s entries, each in its competition's zone."""
    fixtures = feed_fixtures(Fixture.objects.filter(Q(home__player=player) | Q(away__player=player)))
    return calendar_of(fixtures, name=str(player), stamp=player.created_at)
