"""The competition JSON's table referees (COMPETITIONS.md §12): ``referees`` (usernames, like
``organisers``) and ``referee_tables`` (``{username: [hall table numbers]}``; a referee without an
entry records at every table). Checked as one: every username of ``referee_tables`` among the
referees, every table a whole number from 1 to the competition's ``tables``; a 400 names the field.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework import serializers

from leagues.models import Competition
from leagues.rules.referee_tables import referee_tables_clean, referee_tables_errors


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
