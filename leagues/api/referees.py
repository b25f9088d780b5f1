"""The competition JSON's table referees (COMPETITIONS.md §12): ``referees`` (usernames, like
``organisers``) and ``referee_tables`` (``{username: [hall table numbers]}``; a referee without an
entry records at every table). Checked as one: every username of ``referee_tables`` among the
referees, every table a whole number from 1 to the competition's ``tables``; a 400 names the field.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from leagues.models import Competition


def referee_tables_errors(value: Any, *, referees: set[str], tables: int) -> str | None:
    """Why ``value`` is not a valid ``referee_tables`` for ``referees`` (usernames) in a hall of
    ``tables`` tables (a sentence), or ``None``. The one check of the API and the settings form."""
    if not isinstance(value, dict):
        return _('give an object: {"username": [table numbers]}')
    for username, numbers in value.items():
        if username not in referees:
            return _("%(username)s is not one of the referees: name them in referees first") % {"username": username}
        if (not isinstance(numbers, list) or not numbers
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers)):
            return _("give %(username)s a list of table numbers (leave them out to let them record at every "
                     "table)") % {"username": username}
        wrong = [n for n in numbers if not 1 <= n <= tables]
        if wrong:
            if not tables:
                return _("the hall has no numbered tables: set tables first")
            return _("table %(table)s is not one of the hall's tables (1 to %(tables)s)") % {
                "table": wrong[0], "tables": tables}
    return None


def referee_tables_clean(value: dict) -> dict[str, list[int]]:
    """``value`` with each referee's tables in order, once each."""
    return {username: sorted(set(numbers)) for username, numbers in value.items()}


def referees_validate(attrs: dict, get: Callable[[str], Any], instance: Competition | None) -> dict:
    """Checks the referees and their tables as they will stand after ``attrs`` (``get``: a
    setting's value after the change). A referee taken off the list loses their tables. Raises
    ``serializers.ValidationError`` naming ``referee_tables`` (or ``tables``, when fewer tables
    leave a referee's table out)."""
    if "referees" in attrs:
        referees = {user.get_username() for user in attrs["referees"]}
    elif instance is not None and instance.pk:
        referees = set(instance.referees.values_list("username", flat=True))
    else:
        referees = set()
    if "referee_tables" in attrs:
        field, value = "referee_tables", attrs["referee_tables"]
    else:
        current = (instance.referee_tables if instance is not None else None) or {}
        field, value = "tables", {u: t for u, t in current.items() if u in referees}
        if value != current:
            attrs["referee_tables"] = value
    error = referee_tables_errors(value, referees=referees, tables=get("tables") or 0)
    if error:
        raise serializers.ValidationError({field: [error]})
    if field == "referee_tables":
        attrs["referee_tables"] = referee_tables_clean(value)
    return attrs
