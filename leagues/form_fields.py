"""Form fields for the organiser pages' times: shown and read in the competition's time zone,
the zone written beside them; and the time zone itself, chosen from the IANA names."""
from __future__ import annotations

import zoneinfo
from datetime import datetime
from functools import cache

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from leagues.models import aware_in

INPUT_FORMAT = "%Y-%m-%dT%H:%M"


@cache
def time_zone_names() -> tuple[str, ...]:
    """Every IANA zone name ``zoneinfo`` knows, sorted ("Africa/Abidjan", ..., "UTC", ...)."""
    return tuple(sorted(name for name in zoneinfo.available_timezones() if "/" in name or name == "UTC"))


class ZonedDateTimeInput(forms.DateTimeInput):
    """A ``datetime-local`` input with the zone's name after it."""

    input_type = "datetime-local"

    def __init__(self, zone: zoneinfo.ZoneInfo, attrs=None):
        super().__init__(attrs=attrs, format=INPUT_FORMAT)
        self.zone = zone

    def render(self, name, value, attrs=None, renderer=None):
        return format_html('<span class="zoned">{} <span class="zone-name">{}</span></span>',
                           super().render(name, value, attrs, renderer), str(self.zone))


class ZonedDateTimeField(forms.DateTimeField):
    """A date-time given and shown as a wall-clock time in ``zone`` (whatever the active time
    zone): an aware value is shown as its local time there; the input is read there (a time the
    clocks skip is refused). Cleaned: an aware ``datetime``."""

    def __init__(self, *, zone: zoneinfo.ZoneInfo, **kwargs):
        self.zone = zone
        kwargs.setdefault("input_formats", [INPUT_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"])
        kwargs.setdefault("widget", ZonedDateTimeInput(zone))
        super().__init__(**kwargs)  # the zone is written beside the input (ZonedDateTimeInput)

    def prepare_value(self, value):
        if isinstance(value, datetime) and value.tzinfo is not None:
            return value.astimezone(self.zone).replace(tzinfo=None)
        return value

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            return value if value.tzinfo is not None else aware_in(self.zone, value)
        local = forms.fields.BaseTemporalField.to_python(self, value)
        if not 1900 <= local.year <= 2200:
            raise forms.ValidationError(_("Give a year from 1900 to 2200."))
        return aware_in(self.zone, local)

    def shown(self, value) -> str:
        """``value`` (aware) as the input shows it."""
        return self.prepare_value(value).strftime(INPUT_FORMAT) if isinstance(value, datetime) else ""


class ZonedTimesForm:
    """Mixin for a form with ``ZonedDateTimeField``s: a time sent back as it was shown keeps
    the instant it was shown for (its seconds, and the right one of a repeated hour when the
    clocks go back), so a form saved untouched changes nothing."""

    def keep_untouched_times(self, data: dict) -> dict:
        for name, field in self.fields.items():
            if not isinstance(field, ZonedDateTimeField) or name not in data:
                continue
            initial = self.get_initial_for_field(field, name)
            if isinstance(initial, datetime) and initial.tzinfo is not None:
                sent = (self.data.get(self.add_prefix(name)) or "").strip()
                if sent and sent in (field.shown(initial), field.shown(initial).replace("T", " ")):
                    data[name] = initial
        return data


class TimeZoneInput(forms.TextInput):
    """A text input with the IANA names as its ``<datalist>``: the browser filters them as the
    organiser types."""

    def render(self, name, value, attrs=None, renderer=None):
        list_id = f"{(attrs or {}).get('id') or name}-choices"
        self.attrs["list"] = list_id
        options = format_html_join("", '<option value="{}">', ((n,) for n in time_zone_names()))
        return format_html('{}<datalist id="{}">{}</datalist>', super().render(name, value, attrs, renderer),
                           list_id, options)


class TimeZoneField(forms.CharField):
    """An IANA time zone name from ``time_zone_names()``; anything else is refused."""

    def __init__(self, **kwargs):
        kwargs.setdefault("widget", TimeZoneInput(attrs={"autocomplete": "off", "spellcheck": "false"}))
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)

    def validate(self, value):
        super().validate(value)
        if value and value not in time_zone_names():
            raise forms.ValidationError(
                _("%(value)s is not a time zone; choose one of the list, such as Europe/Lisbon."),
                code="time_zone", params={"value": value})
