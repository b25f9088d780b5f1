"""Sign-up for a competition: registration, the waiting list, the organisers' decision.

An organiser opens registration (``registration_open``): dates, a capacity, a licence required
or not, a waiting list or not. A player signs up (``sign_up``) while it is open; a place is held
by every sign-up that waits for the organisers (``pending``) and every confirmed one; when all
are held the player goes on the waiting list (or is refused, without one). The organiser
confirms (``sign_up_confirm``: the player becomes an entrant through ``entrant_add``) or refuses
with a reason (``sign_up_refuse``); the player withdraws before registration closes
(``sign_up_withdraw``). A place that frees (a refusal, a withdrawal, a larger capacity) goes to
the first on the waiting list, who moves up (``pending`` again).

Every write locks the competition first (``leagues.services.locks``), so two players taking the
last place at once are served one after the other: one gets it, the other the waiting list (or
a clean refusal); never more places held than the capacity. The player is told (an inbox entry
and an e-mail, ``leagues.services.notices``) in the same transaction: confirmed, refused, moved
up.

Errors: ``RegistrationError`` (a value to fix, 400 naming the field) and ``SignUpRefused`` (the
state refuses it, 409 ``{"error", "detail"}``).
"""
from __future__ import annotations

from datetime import date, datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from leagues.models import Competition, Entrant, Player, Registration, SignUp
from leagues.services import notices
from leagues.services.entrants import EntrantError, entrant_add
from leagues.services.locks import lock_competition, retry_conflicts
from leagues.services.results import ResultConflict


class RegistrationError(ValueError):
    """A value that cannot be used (a 400): ``field`` names it."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


class SignUpRefused(ResultConflict):
    """A sign-up the current state refuses (a 409 with ``{"error", "detail"}``)."""


def licence_day(competition: Competition, now: datetime) -> date:
    """The day a licence must be valid on: the competition's first date (else today)."""
    return competition.first_date or timezone.localdate(now)


def licence_valid(*, player: Player, day: date) -> bool:
    """A licence is valid on ``day`` when the player has a licence number and a club membership
    open on that day."""
    if not (player.licence_number or "").strip():
        return False
    return player.memberships.filter(start_date__lte=day).filter(
        Q(end_date__isnull=True) | Q(end_date__gte=day)).exists()


def places_held(competition: Competition) -> int:
    return SignUp.objects.filter(competition=competition, status__in=SignUp.HOLDS_PLACE).count()


def _when(moment: datetime, competition: Competition) -> str:
    return notices.when(moment, competition)


@retry_conflicts
def registration_open(
    *, competition: Competition, opens_at: datetime, closes_at: datetime, capacity: int,
    licence_required: bool = True, waiting_list: bool = True, now: datetime | None = None,
) -> Registration:
    """Opens (or changes) the competition's registration. A larger capacity moves the first on
    the waiting list up. Raises ``RegistrationError`` (``closes_at`` not after ``opens_at``,
    ``capacity`` under 2 or under the places already held) and ``SignUpRefused`` once the
    fixtures are drawn."""
    now = now or timezone.now()
    if closes_at <= opens_at:
        raise RegistrationError(_("registration must close after it opens"), field="closes_at")
    if not 2 <= capacity <= 1024:
        raise RegistrationError(_("give a capacity from 2 to 1024"), field="capacity")
    with transaction.atomic():
        competition = lock_competition(competition.pk)
        if competition.fixtures.exists():
            raise SignUpRefused("drawn", _("the fixtures are drawn: registration is over"))
        held = places_held(competition)
        if capacity < held:
            raise RegistrationError(_("%(held)d places are held already: the capacity cannot be smaller")
                                    % {"held": held}, field="capacity")
        registration, _created = Registration.objects.update_or_create(competition=competition, defaults={
            "opens_at": opens_at, "closes_at": closes_at, "capacity": capacity,
            "licence_required": licence_required, "waiting_list": waiting_list,
        })
        _move_up(competition, registration, now=now)
    return registration


def _registration(competition: Competition) -> Registration:
    registration = Registration.objects.filter(competition=competition).first()
    if registration is None:
        raise SignUpRefused("no_registration", _("this competition takes no sign-up: its organisers enter the players"))
    return registration


@retry_conflicts
def sign_up(*, competition: Competition, player: Player, now: datetime | None = None) -> SignUp:
    """Signs ``player`` up: a place while one is free (``pending``, for the organisers to
    confirm), else the waiting list (``waiting``). Raises ``SignUpRefused``: no registration,
    not open (``opens_at``) or closed, fixtures drawn, a licence required and not valid on the
    competition's first date, signed up or entered already, or full without a waiting list."""
    now = now or timezone.now()
    with transaction.atomic():
        competition = lock_competition(competition.pk)
        registration = _registration(competition)
        if now < registration.opens_at:
            raise SignUpRefused("registration_not_open", _("registration opens at %(when)s")
                                % {"when": _when(registration.opens_at, competition)},
                                opens_at=registration.opens_at.isoformat())
        if now >= registration.closes_at or competition.fixtures.exists():
            raise SignUpRefused("registration_closed", _("registration has closed"))
        if registration.licence_required and not licence_valid(player=player, day=licence_day(competition, now)):
            raise SignUpRefused("licence", _("a valid licence is required: a licence number and a club membership "
                                             "open on %(day)s") % {"day": date_format(licence_day(competition, now), "j M Y")})
        if SignUp.objects.filter(competition=competition, player=player, status__in=SignUp.ACTIVE).exists():
            raise SignUpRefused("signed_up", _("you are signed up already"))
        if Entrant.objects.filter(competition=competition, player=player).exists():
            raise SignUpRefused("entered", _("you are entered already"))
        if places_held(competition) < registration.capacity:
            status = SignUp.Status.PENDING
        elif registration.waiting_list:
            status = SignUp.Status.WAITING
        else:
            raise SignUpRefused("full", _("every place is taken and there is no waiting list"))
        return SignUp.objects.create(competition=competition, player=player, status=status, created_at=now)


def _lock_sign_up(sign_up_id: int) -> tuple[Competition, SignUp]:
    competition_id = SignUp.objects.filter(pk=sign_up_id).values_list("competition_id", flat=True).first()
    if competition_id is None:
        raise SignUp.DoesNotExist(sign_up_id)
    competition = lock_competition(competition_id)
    entry = SignUp.objects.select_for_update(of=("self",)).select_related("player__user").get(pk=sign_up_id)
    entry.competition = competition
    return competition, entry


@retry_conflicts
def sign_up_confirm(*, sign_up: SignUp, by=None, now: datetime | None = None) -> SignUp:
    """Confirms a sign-up holding a place: the player is entered (``entrant_add``). Raises
    ``SignUpRefused`` for a sign-up not waiting for the organisers, or a player who cannot be
    entered (the fixtures drawn, entered already)."""
    now = now or timezone.now()
    with transaction.atomic():
        competition, entry = _lock_sign_up(sign_up.pk)
        if entry.status != SignUp.Status.PENDING:
            raise SignUpRefused("not_pending", _("only a sign-up holding a place and waiting for the organisers "
                                                 "can be confirmed (this one is %(status)s)")
                                % {"status": entry.get_status_display().lower()})
        try:
            entrant = entrant_add(competition=competition, player=entry.player)
        except EntrantError as exc:
            raise SignUpRefused("cannot_enter", str(exc)) from exc
        entry.status, entry.entrant, entry.decided_at, entry.decided_by = SignUp.Status.CONFIRMED, entrant, now, by
        entry.save(update_fields=["status", "entrant", "decided_at", "decided_by"])
        notices.sign_up_decided(sign_up=entry)
    return entry


def _leave(competition: Competition, entry: SignUp) -> None:
    """A confirmed sign-up leaves: its entrant goes (refused once the fixtures are drawn)."""
    if entry.entrant_id is None:
        return
    if competition.fixtures.exists():
        raise SignUpRefused("drawn", _("the fixtures are drawn: the organisers withdraw the entrant instead"))
    entrant = entry.entrant
    entry.entrant = None
    entry.save(update_fields=["entrant"])
    entrant.delete()


@retry_conflicts
def sign_up_refuse(*, sign_up: SignUp, reason: str, by=None, now: datetime | None = None) -> SignUp:
    """Refuses a sign-up (pending, waiting or confirmed before the draw) with its ``reason``
    (kept and told to the player); a place it held goes to the waiting list. Raises
    ``RegistrationError`` without a reason, ``SignUpRefused`` for one already over."""
    now = now or timezone.now()
    reason = (reason or "").strip()
    if not reason:
        raise RegistrationError(_("give the reason; the player is told it"), field="reason")
    with transaction.atomic():
        competition, entry = _lock_sign_up(sign_up.pk)
        if entry.status not in SignUp.ACTIVE:
            raise SignUpRefused("over", _("this sign-up is %(status)s already")
                                % {"status": entry.get_status_display().lower()})
        _leave(competition, entry)
        entry.status, entry.reason, entry.decided_at, entry.decided_by = SignUp.Status.REFUSED, reason, now, by
        entry.save(update_fields=["status", "reason", "decided_at", "decided_by"])
        notices.sign_up_decided(sign_up=entry)
        _move_up(competition, Registration.objects.get(competition=competition), now=now)
    return entry


@retry_conflicts
def sign_up_withdraw(*, sign_up: SignUp, by=None, now: datetime | None = None) -> SignUp:
    """The player withdraws before registration closes; a place it held goes to the waiting
    list. Raises ``SignUpRefused`` after the deadline, once the fixtures are drawn (for a
    confirmed one), or for a sign-up already over."""
    now = now or timezone.now()
    with transaction.atomic():
        competition, entry = _lock_sign_up(sign_up.pk)
        registration = _registration(competition)
        if entry.status not in SignUp.ACTIVE:
            raise SignUpRefused("over", _("this sign-up is %(status)s already")
                                % {"status": entry.get_status_display().lower()})
        if now >= registration.closes_at:
            raise SignUpRefused("deadline", _("registration closed at %(when)s: ask the organisers")
                                % {"when": _when(registration.closes_at, competition)})
        _leave(competition, entry)
        entry.status, entry.decided_at, entry.decided_by = SignUp.Status.WITHDRAWN, now, by
        entry.save(update_fields=["status", "decided_at", "decided_by"])
        _move_up(competition, registration, now=now)
    return entry


def _move_up(competition: Competition, registration: Registration, *, now: datetime) -> list[SignUp]:
    """The first on the waiting list take the places free (the caller holds the competition's
    lock); each is told."""
    moved = []
    free = registration.capacity - places_held(competition)
    if free <= 0:
        return moved
    waiting = (SignUp.objects.select_for_update(of=("self",)).select_related("player__user")
               .filter(competition=competition, status=SignUp.Status.WAITING).order_by("created_at", "pk")[:free])
    for entry in waiting:
        entry.status = SignUp.Status.PENDING
        entry.save(update_fields=["status"])
        entry.competition = competition
        notices.sign_up_moved_up(sign_up=entry)
        moved.append(entry)
    return moved
