"""Entrants joining and leaving a competition (COMPETITIONS.md §4, withdrawal)."""
from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues import names
from leagues.models import Club, Competition, Entrant, Fixture, FixtureChange, Player, Result
from leagues.rules.official import Recorded
from leagues.services import swiss_rounds
from leagues.services.history import change_record, fixture_state
from leagues.services.locks import lock_competition, retry_conflicts
from leagues.services.results import ResultConflict, lock_match, official_for, result_write, settle


class EntrantError(ValueError):
    """An entry or withdrawal a user asked for that cannot be done; ``field`` names the input
    to blame, when one is."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def entrant_name(player: Player, club: Club | None) -> str:
    """A player's entrant name: "Ana Ferreira (Mesa Verde)", or the player's name without a club."""
    return f"{player.full_name} ({club.name})" if club else player.full_name


@retry_conflicts
def entrant_add(
    *,
    competition: Competition,
    name: str = "",
    player: Player | None = None,
    club: Club | None = None,
    seed: int | None = None,
) -> Entrant:
    """Enters a player (representing ``club``, by default their club today) or just a name.

    Under the competition's lock: once the fixtures are made (even by a request that was making
    them at the same moment), entrants can no longer join, except in a Swiss whose rounds are not
    all paired: a late entrant joins from the next round, at zero points. Raises ``EntrantError`` naming the
    field for a name, player or seed already taken."""
    if player is not None:
        club = club or player.club_on(timezone.localdate())
        name = name or entrant_name(player, club)
    if not name:
        raise EntrantError(_("an entrant needs a player or a name"), field="name")
    with transaction.atomic():
        competition = lock_competition(competition.pk)
        if competition.fixtures.exists() and not swiss_rounds.late_entry_open(competition):
            raise EntrantError(_("the fixtures are made already; entrants can no longer join"), field="competition")
        others = competition.entrants.all()
        if others.filter(name=name).exists():
            raise EntrantError(_("another entrant has this name"), field="name")
        if player is not None and others.filter(player=player).exists():
            raise EntrantError(_("this player is entered already"), field="player")
        if seed is not None and others.filter(seed=seed).exists():
            raise EntrantError(_("another entrant has this seed"), field="seed")
        try:
            with transaction.atomic():
                return Entrant.objects.create(competition=competition, name=name, player=player, club=club, seed=seed)
        except IntegrityError as exc:  # the constraints hold what the checks above missed
            raise EntrantError(_("this entrant contradicts another one (name, player or seed)"), field="name") from exc


@retry_conflicts
def entrant_remove(*, entrant: Entrant) -> None:
    """Removes ``entrant`` from its competition, under the competition's lock: only before the
    fixtures are made (even by a request making them at the same moment). Raises
    ``EntrantError`` (on ``competition``) after that: withdraw the entrant instead."""
    with transaction.atomic():
        competition = lock_competition(entrant.competition_id)
        if competition.fixtures.exists():
            raise EntrantError(_("the fixtures are made already: withdraw the entrant instead"), field="competition")
        Entrant.objects.filter(pk=entrant.pk).delete()


@retry_conflicts
def entrant_withdraw(*, entrant: Entrant, by=None, now: datetime | None = None, reason: str = "") -> Entrant:
    """Withdraws ``entrant`` and applies its competition's withdrawal policy (§4):

    - ``annul``: its results are struck out (fixtures annulled, the open ones cancelled), and
      it leaves the standings;
    - ``forfeit_remaining``: its open fixtures become walkovers against it; past results stand.

    In a knockout its open fixture with a known opponent is a walkover whichever the policy (a
    double walkover when the opponent withdrew too); later slots it holds are emptied by the
    bracket, whose next opponent goes through. A withdrawn entrant never qualifies from a group:
    a knockout place it took from its group goes to the next in that group.
    Raises ``EntrantError`` if already withdrawn, and ``ResultConflict`` (409) while one of its
    fixtures is being played online (annul that match first)."""
    now = now or timezone.now()
    with transaction.atomic():
        competition = lock_competition(entrant.competition_id)
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        if entrant.withdrawn:
            raise EntrantError(_("%(entrant)s has withdrawn already") % {"entrant": entrant}, field="withdrawn_at")
        entrant.withdrawn_at = now
        entrant.save(update_fields=["withdrawn_at"])
        annul = competition.withdrawal_policy == Competition.WithdrawalPolicy.ANNUL
        fixtures = (
            Fixture.objects.select_for_update(of=("self",))
            .filter(Q(home=entrant) | Q(away=entrant), competition=competition)
            .select_related("round__stage", "home", "away")
            .order_by("pk")
        )
        reason = reason or names.WITHDREW % {"entrant": entrant}
        for fixture in fixtures:
            fixture.competition = competition
            knockout = fixture.is_knockout
            match = lock_match(fixture)
            if fixture.status in Fixture.OPEN:
                if match is not None and match.is_started:
                    raise ResultConflict(
                        "match_under_way",
                        _("%(fixture)s is played online and its match has started: wait for its result, "
                          "or annul the match, before the withdrawal") % {"fixture": fixture}, match=match.pk)
                side = "home" if fixture.home_id == entrant.pk else "away"
                if knockout and getattr(fixture, f"{side}_source"):
                    continue  # a group place: the bracket gives it to the next in the group
                if fixture.home_id and fixture.away_id and (knockout or not annul):
                    _walkover(fixture, entrant, by=by, now=now, reason=reason)
                elif not knockout:
                    before = fixture_state(fixture, result=None)
                    fixture.set_status(Fixture.Status.CANCELLED, by=by, now=now)
                    change_record(fixture=fixture, kind=FixtureChange.Kind.WITHDRAWAL, before=before,
                                  after=fixture_state(fixture, result=None), by=by, reason=reason, now=now)
            elif annul and not knockout and fixture.status in Fixture.RESULTED:
                before = fixture_state(fixture)
                fixture.set_status(Fixture.Status.ANNULLED, by=by, now=now)
                change_record(fixture=fixture, kind=FixtureChange.Kind.WITHDRAWAL, before=before,
                              after=fixture_state(fixture), by=by, reason=reason, now=now)
            elif knockout and _won_by_a_withdrawal(fixture, entrant):
                _walkover(fixture, entrant, by=by, now=now, reason=reason)  # both withdrew: nobody on
        settle(competition=competition, by=by, now=now, reason=reason, keep_conflicts=True)
    return entrant


def withdrawal_preview(*, entrant: Entrant, now: datetime | None = None) -> list[dict]:
    """What withdrawing ``entrant`` now would change, without changing it: the withdrawal is run
    and rolled back, and each history entry it would write is returned as ``{"fixture": str (its
    round and label as the public pages name them, ``leagues.names.shown``),
    "kind": str (FixtureChange.Kind), "before": str, "after": str}`` (results as text, e.g.
    "0-2 (walkover)"). Raises as ``entrant_withdraw``."""
    now = now or timezone.now()
    with transaction.atomic():
        savepoint = transaction.savepoint()
        try:
            entrant_withdraw(entrant=Entrant.objects.get(pk=entrant.pk), now=now)
            return [
                {"fixture": " · ".join(part for part in (names.shown(change.fixture.round),
                                                         names.shown(change.fixture.label)) if part),
                 "kind": change.get_kind_display(), "before": _state_text(change.before),
                 "after": _state_text(change.after)}
                for change in FixtureChange.objects.filter(fixture__competition_id=entrant.competition_id, at=now)
                .select_related("fixture__round").order_by("fixture__round__stage__order", "fixture__round__number",
                                                           "fixture__position", "pk")
            ]
        finally:
            transaction.savepoint_rollback(savepoint)


def _state_text(state: dict) -> str:
    pairing = f"{state.get('home') or '?'} v {state.get('away') or '?'}" if state.get("home") or state.get("away") else "—"
    result = (state.get("result") or {}).get("text")
    status = state.get("status") or ""
    if result:
        return f"{pairing} {result}"
    return f"{pairing} ({Fixture.Status(status).label.lower()})" if status in Fixture.Status.values else pairing


def _won_by_a_withdrawal(fixture: Fixture, entrant: Entrant) -> bool:
    """Whether ``entrant`` went through ``fixture`` only because its opponent withdrew, and has not
    played on since: its withdrawal makes the fixture a double walkover."""
    result = Result.objects.filter(fixture=fixture).first()
    if result is None or result.source != Result.Source.WITHDRAWAL or result.winner_id != entrant.pk:
        return False
    later = fixture.winner_to
    return later is None or (later.status in Fixture.OPEN and not (later.match_id and later.match.is_started))


def _walkover(fixture: Fixture, entrant: Entrant, *, by, now: datetime, reason: str) -> None:
    """The withdrawn ``entrant`` loses ``fixture`` by walkover; both sides withdrawn: a double
    walkover that sends nobody on."""
    side = "home" if fixture.home_id == entrant.pk else "away"
    other = fixture.away if side == "home" else fixture.home
    if other is not None and other.withdrawn_at is not None:
        side = "both"
    previous = Result.objects.filter(fixture=fixture).first()
    recorded = Recorded(home_goals=0, away_goals=0, outcome="walkover", outcome_side=side)
    official = official_for(fixture, recorded)
    before = fixture_state(fixture, result=previous)
    result = result_write(fixture=fixture, recorded=recorded, official=official, source=Result.Source.WITHDRAWAL,
                          match=None, discipline=(0, 0), by=by, now=now, reason=reason)
    change_record(fixture=fixture, kind=FixtureChange.Kind.WITHDRAWAL, before=before,
                  after=fixture_state(fixture, result=result), by=by, reason=reason, now=now)
