"""Which hall tables each table referee records at (COMPETITIONS.md §12): a competition's
``referee_tables``, ``{username: [table numbers]}``; a referee without an entry records at every
table. The one check of the API and the organiser's settings form, and the text form's format
(one line per referee: ``rui: 1, 3``)."""
from __future__ import annotations

from typing import Any

from leagues.rules.i18n import gettext as _


def referee_tables_errors(value: Any, *, referees: set[str], tables: int) -> str | None:
    """Why ``value`` is not a valid ``referee_tables`` for ``referees`` (usernames) in a hall of
    ``tables`` numbered tables (a sentence), or ``None``."""
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


def referee_tables_text(value: dict | None) -> str:
    """``referee_tables`` as the settings form shows it: ``rui: 1, 3``, one line per referee."""
    return "\n".join(f"{username}: {', '.join(str(n) for n in numbers)}"
                     for username, numbers in sorted((value or {}).items()))


def referee_tables_parse(text: str) -> dict[str, list[int]]:
    """The settings form's text (``username: 1, 3``, one line per referee; blank lines skipped)
    as ``referee_tables``. Raises ``ValueError`` with the line's number and why."""
    value: dict[str, list[int]] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        username, colon, tables = line.partition(":")
        username = username.strip()
        parts = [p.strip() for p in tables.replace(";", ",").replace(" ", ",").split(",") if p.strip()]
        if not colon or not username or not parts or not all(p.isdigit() for p in parts):
            raise ValueError(_("line %(line)s: write a username, a colon and table numbers, e.g. rui: 1, 3")
                             % {"line": number})
        if username in value:
            raise ValueError(_("line %(line)s: %(username)s is named twice") % {"line": number, "username": username})
        value[username] = [int(p) for p in parts]
    return value
