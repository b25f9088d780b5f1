"""Team entrants' squads and the line-ups of their ties (COMPETITIONS.md §10).

- ``squad_set``: a team's squad (licensed players with an open membership in its club on the
  competition's dates, at least ``tables_per_tie``, each in one squad per competition) and its
  captain, by an organiser or that captain, until the competition's first tie (then 409
  ``squad_locked``; an organiser may still add players, never take one out).
- ``lineup_set``: a side's players of a tie in table order, by an organiser or that side's
  captain, until ``lineup_deadline_minutes`` before the tie's kick-off (409 ``lineup_closed``).
  A line-up is hidden from the other team until both are in or the deadline has passed
  (``lineup_visible``).
- ``lineups_sweep``: at the deadline, each empty table of a side (no line-up, or a short one) is
  a walkover against it (a double walkover when both sides left it empty). Found by a query, so
  the sweeper can always finish it.
- ``tie_shootout_record``: the shoot-out of a knockout tie level after its games.

User errors are ``EntrantError`` (a 400 naming the field); refusals of the current state are
``ResultConflict`` (409 with ``{"error", "detail"}``); ``PermissionError`` is a 403.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import (
    Competition,
    Entrant,
    Fixture,
    FixtureChange,
    Outcome,
    Player,
    SquadMember,
)
from leagues.permissions import can_manage_competition
from leagues.services.entrants import EntrantError
from leagues.services.history import change_record, fixture_state
from leagues.services.locks import lock_competition, retry_conflicts
from leagues.services.registration import licence_day
from leagues.services.results import (
    ResultConflict,
    ResultError,
    lock_fixture,
    result_record,
    settle,
)
from leagues.services.ties import games_of, tie_outcome_of

logger = logging.getLogger(__name__)

HOME, AWAY = "home", "away"


def squad_locked(competition: Competition, *, now: datetime) -> bool:
    """Whether the squads are fixed: the competition's first tie has kicked off, or a game of it
    has a result."""
    fixtures = Fixture.with_games.filter(competition=competition)
    return (fixtures.filter(status__in=Fixture.RESULTED).exists()
            or fixtures.filter(tie__isnull=True, kickoff_at__lte=now).exclude(status=Fixture.Status.BYE).exists())


def _member_of_club_on(player: Player, club_id: int, day) -> bool:
    return player.memberships.filter(club_id=club_id, start_date__lte=day).filter(
        Q(end_date__isnull=True) | Q(end_date__gte=day)).exists()


def is_captain(user, entrant: Entrant) -> bool:
    return bool(getattr(user, "pk", None)) and entrant.captain_id == user.pk


@retry_conflicts
def squad_set(*, entrant: Entrant, players: Sequence[int], captain: int | None, by, now: datetime | None = None
              ) -> list[SquadMember]:
    """Sets the squad of the team ``entrant`` to ``players`` (player ids) and its captain
    (``captain``: a user id; ``None`` keeps the current one). Raises ``PermissionError`` (403)
    for someone neither an organiser nor its captain, ``EntrantError`` on ``players`` or
    ``captain`` (a player unknown, twice, without a licence or an open membership in the club on
    the competition's dates, already in another squad of the competition; too few players; an
    unknown user), and ``ResultConflict`` ("squad_locked") once the first tie has begun for a
    captain, or for an organiser taking a player out. Nothing is saved then."""
    now = now or timezone.now()
    with transaction.atomic():
        competition = lock_competition(entrant.competition_id)
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        organiser = can_manage_competition(by, competition)
        if not (organiser or is_captain(by, entrant)):
            raise PermissionError(_("only this competition's organisers or the team's captain set its squad"))
        if not competition.is_team or entrant.club_id is None:
            raise EntrantError(_("only a team entrant of a team competition has a squad"), field="players")
        ids = list(players)
        if len(set(ids)) != len(ids):
            raise EntrantError(_("a player is given twice"), field="players")
        if len(ids) < competition.tables_per_tie:
            raise EntrantError(_("a squad needs at least %(count)s players, one per table of a tie")
                               % {"count": competition.tables_per_tie}, field="players")
        found = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
        missing = [pk for pk in ids if pk not in found]
        if missing:
            raise EntrantError(_("no player has the id %(id)s") % {"id": missing[0]}, field="players")
        current = set(SquadMember.objects.filter(entrant=entrant).values_list("player_id", flat=True))
        added = [pk for pk in ids if pk not in current]
        removed = current - set(ids)
        if squad_locked(competition, now=now):
            if not organiser:
                raise ResultConflict("squad_locked", _("the squads are fixed: the first tie has begun; only an "
                                                       "organiser may add a player now"))
            if removed:
                raise ResultConflict("squad_locked", _("the squads are fixed: the first tie has begun; players can "
                                                       "be added, not taken out"))
        day = licence_day(competition, now)
        elsewhere = dict(SquadMember.objects.filter(competition=competition, player_id__in=added)
                         .exclude(entrant=entrant).values_list("player_id", "entrant__name"))
        for pk in added:
            player = found[pk]
            if pk in elsewhere:
                raise EntrantError(_("%(player)s is in the squad of %(team)s already: a player is in one squad per "
                                     "competition") % {"player": player.full_name, "team": elsewhere[pk]},
                                   field="players")
            if not (player.licence_number or "").strip() or not _member_of_club_on(player, entrant.club_id, day):
                raise EntrantError(_("%(player)s has no valid licence with %(club)s on %(day)s: a licence number and "
                                     "a membership of the club open that day") % {
                    "player": player.full_name, "club": entrant.club.name, "day": day.isoformat()}, field="players")
        if captain is not None:
            user = get_user_model().objects.filter(pk=captain).first() if isinstance(captain, int) else None
            if user is None:
                raise EntrantError(_("no user has the id %(id)s") % {"id": captain}, field="captain")
            if entrant.captain_id != user.pk:
                entrant.captain = user
                entrant.save(update_fields=["captain"])
        SquadMember.objects.filter(entrant=entrant, player_id__in=removed).delete()
        try:
            with transaction.atomic():
                SquadMember.objects.bulk_create([SquadMember(competition=competition, entrant=entrant, player_id=pk,
                                                             added_at=now) for pk in added])
        except IntegrityError as exc:  # another squad took the player at the same moment
            raise EntrantError(_("a player is in another squad of this competition already"), field="players") from exc
    return list(SquadMember.objects.filter(entrant=entrant).select_related("player"))


def lineup_deadline(tie: Fixture) -> datetime | None:
    if tie.kickoff_at is None:
        return None
    return tie.kickoff_at - timedelta(minutes=tie.competition.lineup_deadline_minutes)


def lineup_closed(tie: Fixture, *, now: datetime) -> bool:
    deadline = lineup_deadline(tie)
    return deadline is not None and now >= deadline


def lineup_visible(tie: Fixture, side: str, *, user, now: datetime) -> bool:
    """Whether ``user`` may read ``side``'s line-up of ``tie``: once both are in or the deadline
    has passed, everyone; before, the organisers and that side's captain only."""
    if tie.home_lineup_at and tie.away_lineup_at or lineup_closed(tie, now=now):
        return True
    entrant = tie.entrant(side)
    if entrant is not None and is_captain(user, entrant):
        return True
    return can_manage_competition(user, tie.competition)


@retry_conflicts
def lineup_set(*, tie: Fixture, side: str, players: Sequence[int], by, now: datetime | None = None) -> Fixture:
    """Puts ``players`` (ids, in table order: the first at table 1) at the tables of ``side``
    of ``tie``; fewer players than tables leaves the last tables empty (walkovers at the
    deadline). Raises ``PermissionError`` (403) for someone neither an organiser nor that side's
    captain, ``EntrantError`` on ``side`` or ``players`` (not a side, more players than tables,
    a player twice, not in the side's squad), and ``ResultConflict``: ``not_a_tie``,
    ``lineup_closed`` (the deadline has passed, or a game of the side has a result)."""
    now = now or timezone.now()
    if side not in (HOME, AWAY):
        raise EntrantError(_('the side is "home" or "away"'), field="side")
    with transaction.atomic():
        competition, tie = lock_fixture(tie.pk)
        if not competition.is_team or tie.tie_id is not None:
            raise ResultConflict("not_a_tie", _("this fixture is not a team tie: it has no line-ups"))
        entrant = tie.entrant(side)
        if entrant is None:
            raise ResultConflict("not_a_tie", _("this tie does not have its %(side)s team yet") % {"side": side})
        if not (can_manage_competition(by, competition) or is_captain(by, entrant)):
            raise PermissionError(_("only this competition's organisers or the team's captain give its line-up"))
        if lineup_closed(tie, now=now):
            raise ResultConflict("lineup_closed", _("the line-ups closed %(minutes)s minutes before the kick-off")
                                 % {"minutes": competition.lineup_deadline_minutes})
        games = list(games_of(tie).select_for_update())
        if any(g.status in Fixture.RESULTED for g in games):
            raise ResultConflict("lineup_closed", _("a game of this tie has a result: the line-ups are fixed"))
        ids = list(players)
        if not ids:
            raise EntrantError(_("give at least one player"), field="players")
        if len(ids) > len(games):
            raise EntrantError(_("a tie has %(count)s tables: at most %(count)s players") % {"count": len(games)},
                               field="players")
        if len(set(ids)) != len(ids):
            raise EntrantError(_("a player is given twice"), field="players")
        squad = set(SquadMember.objects.filter(entrant=entrant).values_list("player_id", flat=True))
        outside = [pk for pk in ids if pk not in squad]
        if outside:
            name = Player.objects.filter(pk=outside[0]).first()
            raise EntrantError(_("%(player)s is not in the squad of %(team)s") % {
                "player": name.full_name if name else outside[0], "team": entrant.name}, field="players")
        before = fixture_state(tie, result=None)
        for index, game in enumerate(games):
            setattr(game, f"{side}_player_id", ids[index] if index < len(ids) else None)
            game.save(update_fields=[f"{side}_player"])
        setattr(tie, f"{side}_lineup_at", now)
        tie.save(update_fields=[f"{side}_lineup_at"])
        change_record(fixture=tie, kind=FixtureChange.Kind.ENTRANTS, before=before,
                      after={**fixture_state(tie, result=None), f"{side}_lineup": ids}, by=by, now=now)
    return tie


def lineups_due(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Ids of the open games whose tie's line-up deadline has passed with a table still empty
    on a side: what ``lineups_sweep`` turns into walkovers."""
    now = now or timezone.now()
    candidates = (Fixture.with_games.filter(tie__isnull=False, status__in=Fixture.OPEN, competition__entrant_kind="team",
                                            kickoff_at__lte=now + timedelta(days=7))
                  .filter(Q(home_player__isnull=True) | Q(away_player__isnull=True))
                  .values_list("pk", "kickoff_at", "competition__lineup_deadline_minutes").order_by("kickoff_at", "pk"))
    due = [pk for pk, kickoff, minutes in candidates if kickoff - timedelta(minutes=minutes) <= now]
    return due[:limit]


def lineups_sweep(*, now: datetime | None = None) -> int:
    """Walkovers for the empty tables of the ties past their line-up deadline (the side with
    no player at a table loses it; both empty: a double no-show). Returns how many games were
    recorded; one that cannot be (refused) is logged and left for the organisers."""
    now = now or timezone.now()
    done = 0
    for game_id in lineups_due(now=now):
        game = Fixture.with_games.filter(pk=game_id).first()
        if game is None or game.status not in Fixture.OPEN or game.home_id is None or game.away_id is None:
            continue
        empty = [side for side in (HOME, AWAY) if getattr(game, f"{side}_player_id") is None]
        if not empty:
            continue
        side = empty[0] if len(empty) == 1 else "both"
        try:
            result_record(fixture=game, outcome=Outcome.WALKOVER, outcome_side=side, now=now,
                          reason=_("no player at this table by the line-up deadline"))
            done += 1
        except (ResultError, ResultConflict) as exc:
            logger.warning("game %s: the line-up walkover was refused: %s", game_id, exc)
    return done


@retry_conflicts
def tie_shootout_record(*, tie: Fixture, home_shootout: int, away_shootout: int, by, now: datetime | None = None
                        ) -> Fixture:
    """Records the shoot-out of a knockout tie level after all its games (on game points, and on
    goal difference with the ``goal_difference_then_shootout`` decider); the tie is then derived
    again. Raises ``ResultError`` (a drawn shoot-out, on ``home_shootout``) and ``ResultConflict``
    ``no_shootout_needed`` (not a knockout tie, a game still open, or not level)."""
    now = now or timezone.now()
    if home_shootout == away_shootout:
        raise ResultError("home_shootout", _("a shoot-out has a winner"))
    with transaction.atomic():
        competition, tie = lock_fixture(tie.pk)
        if not competition.is_team or tie.tie_id is not None or not tie.is_knockout:
            raise ResultConflict("no_shootout_needed", _("only a knockout tie is decided by a shoot-out"))
        games = list(games_of(tie).select_related("result"))
        probe_home, probe_away = tie.home_tie_shootout, tie.away_tie_shootout
        tie.home_tie_shootout = tie.away_tie_shootout = None
        outcome = tie_outcome_of(tie, games)
        if outcome is None or not outcome.awaiting_shootout:
            tie.home_tie_shootout, tie.away_tie_shootout = probe_home, probe_away
            raise ResultConflict("no_shootout_needed", _(
                "this tie is not level after all its games: no shoot-out decides it"))
        tie.home_tie_shootout, tie.away_tie_shootout = home_shootout, away_shootout
        tie.save(update_fields=["home_tie_shootout", "away_tie_shootout"])
        settle(competition=competition, by=by, now=now)
    return tie


def tie_needs_shootout(tie: Fixture) -> bool:
    """Whether a knockout tie has all its games and is level for its shoot-out (none recorded)."""
    outcome = tie_outcome_of(tie, list(games_of(tie).select_related("result")))
    return outcome is not None and outcome.awaiting_shootout

