"""Which ready fixture goes to which free hall table (COMPETITIONS.md §12): pure, no Django.

A fixture is *ready* when its two sides are known, neither is at a table now nor resting. The
auto-caller sends the ready fixtures, in their order, to the free tables, lowest table first;
two ready fixtures sharing a person (a player, or a team) never go out in the same pass: the
second waits for the next free table.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from leagues.rules.i18n import gettext as _

TABLE_NAME_MAX = 40
UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})  # as the registry's names


@dataclass(frozen=True)
class Candidate:
    """A ready fixture: its id and the people it occupies (entrant and player keys)."""

    fixture_id: int
    people: frozenset[Hashable]


def rest_until(last_game_end: datetime | None, min_rest_minutes: int) -> datetime | None:
    """When a person who finished their last game at ``last_game_end`` may be called again
    (``None``: at once)."""
    if last_game_end is None or min_rest_minutes <= 0:
        return None
    return last_game_end + timedelta(minutes=min_rest_minutes)


def assign(candidates: Sequence[Candidate], free_tables: Iterable[int]) -> list[tuple[int, int]]:
    """``(fixture_id, table)`` pairs: each free table (ascending) takes the first candidate (in
    the given order) that shares no person with one already assigned in this pass."""
    taken: set[Hashable] = set()
    pairs: list[tuple[int, int]] = []
    remaining = list(candidates)
    for table in sorted(free_tables):
        for index, candidate in enumerate(remaining):
            if candidate.people & taken:
                continue
            pairs.append((candidate.fixture_id, table))
            taken |= candidate.people
            del remaining[index]
            break
        else:
            break  # nothing left that can go out now
    return pairs


def table_names_error(names, tables: int) -> str | None:
    """Why ``names`` cannot be a competition's ``table_names`` with ``tables`` tables (``None``:
    it can): a list of at most ``tables`` strings, each printable, at most 40 characters
    (an empty string leaves that table unnamed)."""
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return _("give a list of table names, in table order")
    if len(names) > max(tables, 0):
        return _("%(count)d names for %(tables)d tables: give at most one name per table") % {
            "count": len(names), "tables": max(tables, 0)}
    for number, name in enumerate(names, start=1):
        if len(name) > TABLE_NAME_MAX:
            return _("the name of table %(number)d is longer than %(max)d characters") % {
                "number": number, "max": TABLE_NAME_MAX}
        if any(unicodedata.category(char) in UNPRINTABLE for char in name):
            return _("the name of table %(number)d holds a tab, a line break or an invisible character") % {
                "number": number}
    return None
