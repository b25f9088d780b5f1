"""The organiser's settings form's table referees (COMPETITIONS.md §12): the referees by username
(comma-separated, as the API's ``referees``) and which hall tables each records at (one line per
referee, ``rui: 1, 3``; a referee left out records at every table). Saved untouched, they change
nothing."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from leagues.rules.referee_tables import (
    referee_tables_clean,
    referee_tables_parse,
    referee_tables_text,
)


def _username(value) -> str:
    return value.get_username() if hasattr(value, "get_username") else str(value)


class UsernamesField(forms.CharField):
    """Users by username, comma-separated (``rui, ana``): cleans to the active users, in the order
    given; an unknown username is an error naming it."""

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return ", ".join(_username(v) for v in value)
        return value

    def names(self, value) -> list[str]:
        text = self.prepare_value(value) or ""
        seen: list[str] = []
        for name in (n.strip() for n in text.replace(";", ",").replace("\n", ",").split(",")):
            if name and name not in seen:
                seen.append(name)
        return seen

    def clean(self, value):
        names = self.names(super().clean(value))
        users = {u.get_username(): u for u in get_user_model().objects.filter(username__in=names, is_active=True)}
        unknown = [n for n in names if n not in users]
        if unknown:
            raise forms.ValidationError(_("No active user is named %(names)s."), params={"names": ", ".join(unknown)})
        return [users[n] for n in names]

    def has_changed(self, initial, data) -> bool:
        return set(self.names(initial)) != set(self.names(data))


class RefereeTablesField(forms.CharField):
    """``referee_tables`` as text, one line per referee (``rui: 1, 3``)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        return referee_tables_text(value) if isinstance(value, dict) else value

    def to_python(self, value):
        if isinstance(value, dict):
            return referee_tables_clean(value)
        try:
            return referee_tables_clean(referee_tables_parse(super().to_python(value)))
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def has_changed(self, initial, data) -> bool:
        try:
            return self.to_python(initial or {}) != self.to_python(data)
        except forms.ValidationError:
            return True
