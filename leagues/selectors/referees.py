"""Reads of a table referee's day (COMPETITIONS.md §12): the fixtures called to their hall tables
that wait for a result, and the results they recorded (to correct)."""
from __future__ import annotations

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from leagues.models import Competition, Fixture, FixtureChange
from leagues.permissions import can_manage_competition, is_referee, referee_tables_of


def referee_fixtures_qs() -> QuerySet:
    """Fixtures with what the referee's pages read."""
    return Fixture.with_games.select_related("competition", "round__stage", "group", "home__player", "away__player",
                                             "result", "result__recorded_by")


def may_referee(user, competition: Competition) -> bool:
    """Whether ``user`` opens the referee's pages of ``competition``: one of its referees, or an
    organiser (who records at every table)."""
    return is_referee(user, competition) or can_manage_competition(user, competition)


def tables_of(user, competition: Competition) -> list[int] | None:
    """The hall tables ``user`` records at; ``None``: every table (an organiser, or a referee
    without tables named)."""
    if can_manage_competition(user, competition):
        return None
    return referee_tables_of(user, competition)


def called_fixtures(user, competition: Competition) -> list[Fixture]:
    """The open fixtures called to ``user``'s tables, by table (those they play left out)."""
    tables = tables_of(user, competition)
    fixtures = referee_fixtures_qs().filter(competition=competition, status__in=Fixture.OPEN,
                                            hall_table__isnull=False)
    if tables is not None:
        fixtures = fixtures.filter(hall_table__in=tables)
    played_by_user = Q(home__player__user=user) | Q(away__player__user=user)
    return list(fixtures.exclude(played_by_user).order_by("hall_table", "called_at", "pk"))


def recorded_fixtures(user, competition: Competition, *, limit: int = 30) -> list[Fixture]:
    """The fixtures whose standing result ``user`` recorded, the latest first."""
    return list(referee_fixtures_qs().filter(competition=competition, result__recorded_by=user)
                .order_by("-result__recorded_at", "-pk")[:limit])


def recorder_sentence(change: FixtureChange) -> str:
    """Who recorded a history entry's result in a capacity of their own: "recorded by referee Rui
    Costa at table 3" (``after["recorded_as"]``, ``leagues.services.referees``); ``""`` otherwise."""
    recorded_as = (change.after or {}).get("recorded_as") or {}
    if recorded_as.get("role") != "referee":
        return ""
    by = change.by
    name = ((by.get_full_name() or "").strip() or by.get_username()) if by is not None else "?"
    if recorded_as.get("table") is None:
        return _("recorded by referee %(name)s") % {"name": name}
    return _("recorded by referee %(name)s at table %(table)s") % {"name": name, "table": recorded_as["table"]}


def result_recorder(fixture: Fixture) -> str:
    """How the fixture's standing result was recorded, when a referee recorded it (its latest
    result or correction entry): "recorded by referee Rui Costa at table 3"; ``""`` otherwise."""
    change = (FixtureChange.objects.filter(fixture=fixture, kind__in=(FixtureChange.Kind.RESULT,
                                                                      FixtureChange.Kind.CORRECTION))
              .select_related("by").order_by("-at", "-pk").first())
    return recorder_sentence(change) if change is not None else ""
