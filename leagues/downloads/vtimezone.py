"""The ``VTIMEZONE`` of an IANA zone (RFC 5545 §3.6.5), from the zone's own transitions.

Each change of offset between two dates is found in ``zoneinfo`` (to the minute), and its onset
written as the RFC says, in the local time of the offset in force before it (Madrid's summer
time begins at 02:00 CET). A yearly pattern ("the last Sunday of March at 02:00") is written as
an ``RRULE``, as calendar programs expect; a change that follows no such pattern gets a
sub-component of its own (not an ``RDATE`` list, which some readers take wrong: dateutil's,
and so vobject's); a pattern that stopped (a zone that gave up summer time) ends with ``UNTIL``.
"""
from __future__ import annotations

import calendar as month_calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from icalendar import Timezone, TimezoneDaylight, TimezoneStandard, vRecur


@dataclass(frozen=True)
class Transition:
    at: datetime  # the instant, in UTC
    before: timedelta  # the offsets from UTC before and after it
    after: timedelta
    name: str  # the abbreviation after it ("CEST")
    daylight: bool  # summer time after it

    @property
    def onset(self) -> datetime:
        """The local time of the onset, in the offset before it (naive)."""
        return (self.at + self.before).replace(tzinfo=None)


def transitions(zone: ZoneInfo, start: date, end: date) -> list[Transition]:
    """The changes of ``zone``'s offset from ``start`` to ``end`` (days, in UTC)."""
    found = []
    day = datetime(start.year, start.month, start.day, tzinfo=UTC)
    stop = datetime(end.year, end.month, end.day, tzinfo=UTC)
    offset = day.astimezone(zone).utcoffset()
    while day < stop:
        following = day + timedelta(days=1)
        if following.astimezone(zone).utcoffset() != offset:
            low, high = day, following  # the offset changes in (low, high]: to the minute
            while high - low > timedelta(minutes=1):
                middle = low + (high - low) / 2
                middle = middle.replace(second=0, microsecond=0)
                if middle == low:
                    middle = low + timedelta(minutes=1)
                if middle.astimezone(zone).utcoffset() == offset:
                    low = middle
                else:
                    high = middle
            local = high.astimezone(zone)
            found.append(Transition(at=high, before=offset, after=local.utcoffset(), name=local.tzname() or "",
                                    daylight=bool(local.dst())))
            offset = local.utcoffset()
        day = following
    return found


def _yearly_rule(onsets: list[datetime]) -> str | None:
    """``FREQ=YEARLY;BYMONTH=..;BYDAY=..`` when every onset (one a year, in a row) is the same
    weekday of the same month (the n-th, or the last) at the same time; else None."""
    first = onsets[0]
    years = [o.year for o in onsets]
    if years != list(range(first.year, first.year + len(onsets))):
        return None
    if any((o.month, o.weekday(), o.time()) != (first.month, first.weekday(), first.time()) for o in onsets):
        return None
    day_code = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")[first.weekday()]
    if all(o.day + 7 > month_calendar.monthrange(o.year, o.month)[1] for o in onsets):
        return f"FREQ=YEARLY;BYMONTH={first.month};BYDAY=-1{day_code}"
    nth = {(o.day - 1) // 7 + 1 for o in onsets}
    if len(nth) == 1:
        return f"FREQ=YEARLY;BYMONTH={first.month};BYDAY={nth.pop()}{day_code}"
    return None


def vtimezone(name: str, start: date, end: date) -> Timezone:
    """The ``VTIMEZONE`` of the IANA zone ``name``, right for every time from ``start`` to ``end``
    (and, where the zone keeps a yearly pattern, after). Raises ``ZoneInfoNotFoundError``."""
    zone = ZoneInfo(name)
    component = Timezone()
    component.add("tzid", name)
    first = datetime(start.year, start.month, start.day, tzinfo=UTC).astimezone(zone)
    opening = TimezoneDaylight() if first.dst() else TimezoneStandard()
    opening.add("dtstart", first.replace(tzinfo=None))
    opening.add("tzoffsetfrom", first.utcoffset())
    opening.add("tzoffsetto", first.utcoffset())
    opening.add("tzname", first.tzname() or name)
    component.add_component(opening)
    changes = transitions(zone, start, end)
    groups: dict[tuple, list[Transition]] = {}
    for change in changes:
        groups.setdefault((change.daylight, change.before, change.after, change.name), []).append(change)
    for (daylight, before, after, abbreviation), group in groups.items():
        onsets = [change.onset for change in group]
        rule = _yearly_rule(onsets) if len(onsets) > 1 else None
        if rule and group[-1].at.year < end.year - 1:  # a later year of the range has none: it stopped
            rule += ";UNTIL=" + group[-1].at.strftime("%Y%m%dT%H%M%SZ")
        for onset in onsets[:1] if rule else onsets:  # no pattern: a component for each change
            sub = TimezoneDaylight() if daylight else TimezoneStandard()
            sub.add("dtstart", onset)
            sub.add("tzoffsetfrom", before)
            sub.add("tzoffsetto", after)
            sub.add("tzname", abbreviation or name)
            if rule:
                sub.add("rrule", vRecur.from_ical(rule))
            component.add_component(sub)
    return component

