"""Who may change what: one set of rules for the API, the organiser pages and the admin.

- A **federation administrator** is a superuser or a member of the group named
  ``FEDERATION_ADMINS_GROUP`` ("Federation administrators"). They change every competition
  and choose its organisers.
- An **organiser** of a competition is a user in ``Competition.organisers``. They change that
  competition only: its settings, its entrants, its fixtures and their results.
- Creating a competition takes the ``leagues.add_competition`` permission (give it to an
  "Organisers" group) or being a federation administrator; the creator becomes an organiser.
- Everyone, signed in or not, reads everything.

``is_staff`` only opens the Django admin; it gives no rights over competitions by itself.
"""
from __future__ import annotations

from django.db.models import Q, QuerySet

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


def result_role(user, fixture) -> str | None:
    """What ``user``'s result for ``fixture`` is (COMPETITIONS.md §11): ``"official"`` from an
    organiser of its competition or a federation administrator (even on a fixture they play),
    ``"report"`` from one of its two players or, in a team competition, a captain of one of its
    teams (``player_side``: for the other side to confirm), ``None`` from anyone
    else (refused: 403). The one place this is decided."""
    if can_manage_competition(user, fixture.competition):
        return "official"
    if player_side(user, fixture) is not None:
        return "report"
    return None
