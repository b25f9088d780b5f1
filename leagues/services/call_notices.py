"""What ``leagues`` tells the people of a hall table (COMPETITIONS.md §12): a fixture called to
a table, and a call withdrawn. Written in the transaction of the call (``notify``); texts
translated in each reader's language, times in the competition's zone.

Who is told: the fixture's two players (in a team competition, a game's two players), and the
table's referee: the referees whose ``referee_tables`` list that table; when none lists it, the
referees with no list of their own (they may record at every table). A competition without
referees tells only the players.
"""
from __future__ import annotations

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues.models import Competition, Fixture
from leagues.notifications.models import Kind
from leagues.notifications.services import notify, speaking_to
from leagues.selectors.calls import table_label
from leagues.services.notices import _names, fixture_url, user_of


def _players(fixture: Fixture) -> list:
    if fixture.tie_id is not None:
        people = [fixture.home_player, fixture.away_player]
        return [p.user for p in people if p is not None and p.user_id is not None]
    return [user for user in (user_of(fixture.home), user_of(fixture.away)) if user is not None]


def table_referees(competition: Competition, table: int) -> list:
    """The referees told of a call to ``table`` (see the module)."""
    referees = list(competition.referees.filter(is_active=True))
    tables = competition.referee_tables if isinstance(competition.referee_tables, dict) else {}

    def listed(user) -> list:
        value = tables.get(user.username)
        return value if isinstance(value, list) else []

    named = [user for user in referees if table in listed(user)]
    return named or [user for user in referees if not listed(user)]


def _told(fixture: Fixture, table: int) -> list:
    seen, told = set(), []
    for user in [*_players(fixture), *table_referees(fixture.competition, table)]:
        if user.pk not in seen:
            seen.add(user.pk)
            told.append(user)
    return told


def fixture_called(*, fixture: Fixture, table: int) -> int:
    """Tells the players and the table's referee that ``fixture`` is called to ``table``; once
    per fixture, table and call. Returns how many were told."""
    competition = fixture.competition
    at = timezone.localtime(fixture.called_at, competition.zone)
    written = 0
    for user in _told(fixture, table):
        with speaking_to(user):
            values = {"fixture": _names(fixture), "table": table_label(competition, table),
                      "competition": competition.name, "time": date_format(at, "H:i")}
            written += notify(
                user=user, kind=Kind.FIXTURE_CALLED, url=fixture_url(fixture),
                key=f"called:{fixture.pk}:{table}:{fixture.called_at.isoformat()}:{user.pk}",
                subject=_("Table %(table)s now: %(fixture)s") % values,
                body=_("%(fixture)s (%(competition)s) is called to table %(table)s at %(time)s. Go to the table now.")
                % values) is not None
    return written


def call_withdrawn(*, fixture: Fixture, table: int, reason: str = "") -> int:
    """Tells the players and the table's referee that the call of ``fixture`` to ``table`` is
    withdrawn: it waits for another call. Returns how many were told."""
    competition = fixture.competition
    written = 0
    for user in _told(fixture, table):
        with speaking_to(user):
            values = {"fixture": _names(fixture), "table": table_label(competition, table),
                      "competition": competition.name}
            body = _("The call of %(fixture)s (%(competition)s) to table %(table)s is withdrawn: wait for the "
                     "next call.") % values
            if reason:
                body += "\n" + _("Reason: %(reason)s") % {"reason": reason}
            written += notify(user=user, kind=Kind.FIXTURE_CALLED, url=fixture_url(fixture), body=body,
                              subject=_("Call withdrawn: %(fixture)s") % values) is not None
    return written
