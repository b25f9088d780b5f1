"""Who may change what: one set of rules for the API, the organiser pages and the admin.

- A **federation administrator** is a superuser or a member of the group named
  ``FEDERATION_ADMINS_GROUP`` ("Federation administrators"). They change every competition
  and choose its organisers.
- An **organiser** of a competition is a user in ``Competition.organisers``. They change that
  competition only: its settings, its entrants, its fixtures and their results.
- A **referee** of a competition is a user in ``Competition.referees``. They record the official
  results of the fixtures called to their hall tables (``Competition.referee_tables``; none named:
  every table) and correct the results they recorded themselves; nothing else.
- Creating a competition takes the ``leagues.add_competition`` permission (give it to an
  "Organisers" group) or being a federation administrator; the creator becomes an organiser.
- Everyone, signed in or not, reads everything.

``is_staff`` only opens the Django admin; it gives no rights over competitions by itself.
"""
from __future__ import annotations

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leagues.models import Competition

FEDERATION_ADMINS_GROUP = "Federation administrators"


def is_federation_admin(user) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_botonera_federation_admin", None)
    if cached is None:
        cached = user.groups.filter(name=FEDERATION_ADMINS_GROUP).exists()
        user._botonera_federation_admin = cached
    return cached


def can_create_competition(user) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return is_federation_admin(user) or user.has_perm("leagues.add_competition")


def can_manage_competition(user, competition: Competition) -> bool:
    """True when ``user`` may change ``competition`` (settings, entrants, fixtures, results)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if is_federation_admin(user):
        return True
    return competition.organisers.filter(pk=user.pk).exists()


def managed_competitions(user, queryset: QuerySet | None = None) -> QuerySet:
    """The competitions ``user`` may change (none for an anonymous user)."""
    queryset = Competition.objects.all() if queryset is None else queryset
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return queryset.none()
    if is_federation_admin(user):
        return queryset
    return queryset.filter(organisers=user)


def managed_q(user, prefix: str = "") -> Q:
    """A filter for objects whose competition (reached through ``prefix``) ``user`` may change."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return Q(pk__in=[])
    if is_federation_admin(user):
        return Q()
    return Q(**{f"{prefix}organisers": user})


def organises_anything(user) -> bool:
    """True when ``user`` may create a competition or change at least one: the site shows
    them "Organise"."""
    return can_create_competition(user) or managed_competitions(user).exists()


def player_side(user, fixture) -> str | None:
    """The side (``home``/``away``) ``user`` answers for in ``fixture``; ``None``: neither.

    One of its two players: a single fixture's entrants' players, a team game's players at its
    table (``home_player``/``away_player``, from the line-ups); or, in a team competition, the
    captain (``Entrant.captain``) of one of its teams, on a tie and on each of its games
    (COMPETITIONS.md §10, §11). The one place this is decided: reports, their confirmation and
    dispute, kick-off proposals and the fixture page all ask here."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    for side in ("home", "away"):
        if fixture.tie_id is not None:
            player = getattr(fixture, f"{side}_player")
            if player is not None and player.user_id == user.pk:
                return side
            continue
        entrant = fixture.home if side == "home" else fixture.away
        if entrant is not None and entrant.player_id is not None and entrant.player.user_id == user.pk:
            return side
    for side in ("home", "away"):
        entrant = fixture.home if side == "home" else fixture.away
        if entrant is not None and entrant.player_id is None and entrant.captain_id == user.pk:
            return side
    return None


def is_referee(user, competition: Competition) -> bool:
    """True when ``user`` is one of ``competition``'s table referees (an active account)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return competition.referees.filter(pk=user.pk).exists()


def referee_tables_of(user, competition: Competition) -> list[int] | None:
    """The hall tables ``user`` may record at in ``competition`` (``referee_tables``, by username);
    ``None``: every table (no entry)."""
    tables = (competition.referee_tables or {}).get(user.get_username())
    return None if tables is None else sorted(int(t) for t in tables)


def referee_table(user, fixture) -> int | None:
    """The hall table a referee's result for ``fixture`` is recorded at: the table it is called
    to; once it is no longer at one, the table of the result ``user`` recorded there as a
    referee (to correct it); ``None``: not at a table."""
    if fixture.hall_table is not None:
        return fixture.hall_table
    change = (fixture.changes.filter(by_id=user.pk, kind__in=("result", "correction"),
                                     after__recorded_as__role="referee").order_by("-at", "-pk").first())
    return change.after["recorded_as"].get("table") if change is not None else None


def referee_refusal(user, fixture) -> str | None:
    """Why ``user``, a referee of the fixture's competition, may not record its result (a
    sentence in the reader's language), or ``None``: they may, for a fixture called to one of
    their hall tables (any table when they have none named). Correcting a result recorded by
    someone else is checked under the fixture's lock (``leagues.services.referees``)."""
    if not is_referee(user, fixture.competition):
        return _("you are not a referee of this competition")
    if player_side(user, fixture) is not None:
        return _("you play in this fixture: its result is reported by its players, not refereed by them")
    table = referee_table(user, fixture)
    if table is None:
        return _("this fixture is not called to a hall table: a referee records the results of the fixtures "
                 "called to their tables")
    tables = referee_tables_of(user, fixture.competition)
    if tables is not None and table not in tables:
        return ngettext(
            "this fixture is at table %(table)s; you referee table %(yours)s",
            "this fixture is at table %(table)s; you referee tables %(yours)s", len(tables),
        ) % {"table": table, "yours": ", ".join(str(t) for t in tables)}
    return None


def result_role(user, fixture) -> str | None:
    """What ``user``'s result for ``fixture`` is (COMPETITIONS.md §11, §12): ``"official"`` from an
    organiser of its competition or a federation administrator (even on a fixture they play),
    ``"report"`` from one of its two players or, in a team competition, a captain of one of its
    teams (``player_side``: for the other side to confirm), ``"referee"`` from a referee of its
    competition at the hall table it is called to (official, as an organiser's:
    ``leagues.services.referees``), ``None`` from anyone else (refused: 403; a referee at another
    table is told why by ``referee_refusal``). The one place this is decided."""
    if can_manage_competition(user, fixture.competition):
        return "official"
    if player_side(user, fixture) is not None:
        return "report"
    if referee_refusal(user, fixture) is None:
        return "referee"
    return None
