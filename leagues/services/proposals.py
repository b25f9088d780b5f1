"""Kick-offs moved by agreement of the two players (COMPETITIONS.md §11).

One player proposes a kick-off (``kickoff_propose``), the opponent accepts (``kickoff_accept``:
the kick-off moves through the organisers' own ``kickoffs.fixture_reschedule``, so the check-in
window, the history, the notifications and the calendars' SEQUENCE follow) or declines
(``kickoff_decline``). A fixture has at most one open proposal: a player proposing again
withdraws their own; two proposals crossing (each player proposing before reading the other's)
agree when they name the same kick-off, else the later one stands and the earlier is declined.
The organisers see every proposal and may move the kick-off themselves (which withdraws it).

Limits, set by the organisers: ``reschedule_by_players`` (off: only they move kick-offs) and
``reschedule_latest_days`` (how many days after its round's own date a fixture may be moved to).
Errors: ``PlayError`` 400 (``kickoff_at``: outside the limits, in the past), 403
(``not_your_fixture``), 409 (``fixture_closed``, ``no_proposal``, ``proposal_changed``).
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import Fixture, FixtureChange, KickoffProposal
from leagues.services import report_notices
from leagues.services.history import change_record
from leagues.services.kickoffs import fixture_reschedule
from leagues.services.reports import _player_of, other
from leagues.services.results import lock_fixture
from matches.services.play import PlayError


def proposal_state(proposal: KickoffProposal) -> dict:
    return {"id": proposal.pk, "by": proposal.side, "kickoff_at": proposal.kickoff_at.isoformat(),
            "reason": proposal.reason, "status": proposal.status, "proposed_at": proposal.proposed_at.isoformat(),
            "answered_at": proposal.answered_at.isoformat() if proposal.answered_at else None}


def _check_limits(fixture: Fixture, kickoff_at: datetime, now: datetime) -> None:
    competition = fixture.competition
    if not competition.reschedule_by_players:
        raise PlayError(400, "reschedule_by_players_off", _(
            "in this competition only the organisers move kick-offs"), field="kickoff_at")
    if fixture.status not in Fixture.OPEN:
        raise PlayError(409, "fixture_closed", _("a %(status)s fixture cannot be rescheduled")
                        % {"status": fixture.get_status_display().lower()})
    if kickoff_at < now:
        raise PlayError(400, "kickoff_in_the_past", _("propose a kick-off in the future"), field="kickoff_at")
    own_date = fixture.round.date or competition.round_date(fixture.round.number)
    if own_date is not None:
        latest = own_date + timedelta(days=competition.reschedule_latest_days)
        if timezone.localtime(kickoff_at, competition.zone).date() > latest:
            raise PlayError(400, "too_late", _(
                "this round is played on %(date)s and its fixtures may move to %(latest)s at the latest "
                "(%(days)d days after it)") % {"date": own_date.isoformat(), "latest": latest.isoformat(),
                                               "days": competition.reschedule_latest_days}, field="kickoff_at")


def _answer(proposal: KickoffProposal, status: str, *, by, now: datetime) -> None:
    proposal.status, proposal.answered_at, proposal.answered_by = status, now, by
    proposal.save(update_fields=["status", "answered_at", "answered_by"])


def _accept(fixture: Fixture, proposal: KickoffProposal, *, by, now: datetime) -> Fixture:
    reason = _("agreed by both players")
    if proposal.reason:
        reason += ": " + proposal.reason
    fixture = fixture_reschedule(fixture=fixture, kickoff_at=proposal.kickoff_at, reason=reason, by=by, now=now)
    _answer(proposal, KickoffProposal.Status.ACCEPTED, by=by, now=now)
    change_record(fixture=fixture, kind=FixtureChange.Kind.KICKOFF_ANSWERED, before={},
                  after={"proposal": proposal_state(proposal)}, by=by, now=now)
    report_notices.kickoff_answered(fixture=fixture, proposal=proposal)
    return fixture


def _open(fixture: Fixture) -> KickoffProposal | None:
    return KickoffProposal.objects.select_for_update().filter(fixture=fixture, status=KickoffProposal.Status.OPEN).first()


def kickoff_propose(*, fixture: Fixture, user, kickoff_at: datetime, reason: str = "",
                    now: datetime | None = None) -> KickoffProposal:
    """A player proposes ``kickoff_at`` (aware) for ``fixture``; the opponent is told. Returns the
    proposal (accepted at once when it crosses the opponent's for the same kick-off)."""
    now = now or timezone.now()
    kickoff_at = kickoff_at.astimezone(UTC)
    with transaction.atomic():
        _competition, fixture = lock_fixture(fixture.pk)
        side = _player_of(fixture, user)
        if fixture.tie_id is not None:  # a game follows its tie; the captains propose the tie's kick-off
            raise PlayError(409, "game_of_tie", _("a game kicks off with its tie: propose the tie's kick-off instead"))
        _check_limits(fixture, kickoff_at, now)
        current = _open(fixture)
        if current is not None and current.side != side and current.kickoff_at == kickoff_at:
            _accept(fixture, current, by=user, now=now)  # crossed, and agreed
            return current
        if current is not None:
            _answer(current, KickoffProposal.Status.WITHDRAWN if current.side == side
                    else KickoffProposal.Status.DECLINED, by=user, now=now)
            if current.side != side:
                report_notices.kickoff_answered(fixture=fixture, proposal=current)
        proposal = KickoffProposal.objects.create(fixture=fixture, side=side, by=user, kickoff_at=kickoff_at,
                                                  reason=(reason or "").strip(), proposed_at=now)
        change_record(fixture=fixture, kind=FixtureChange.Kind.KICKOFF_PROPOSED, before={},
                      after={"proposal": proposal_state(proposal)}, by=user, reason=proposal.reason, now=now)
        report_notices.kickoff_proposed(fixture=fixture, proposal=proposal)
    return proposal


def _theirs(fixture: Fixture, side: str, proposal_id: int | None) -> KickoffProposal:
    current = _open(fixture)
    if current is None or current.side != other(side):
        raise PlayError(409, "no_proposal", _("your opponent has proposed no kick-off for you to answer"))
    if proposal_id is not None and current.pk != proposal_id:
        raise PlayError(409, "proposal_changed", _("your opponent changed the proposal since you saw it; check it "
                                                   "again"), proposal=current.pk)
    return current


def kickoff_accept(*, fixture: Fixture, user, proposal_id: int | None = None,
                   now: datetime | None = None) -> KickoffProposal:
    """The opponent accepts the open proposal: the kick-off moves (the limits checked again)."""
    now = now or timezone.now()
    with transaction.atomic():
        _competition, fixture = lock_fixture(fixture.pk)
        side = _player_of(fixture, user)
        proposal = _theirs(fixture, side, proposal_id)
        _check_limits(fixture, proposal.kickoff_at, now)
        _accept(fixture, proposal, by=user, now=now)
    return proposal


def kickoff_decline(*, fixture: Fixture, user, proposal_id: int | None = None, reason: str = "",
                    now: datetime | None = None) -> KickoffProposal:
    """The opponent declines the open proposal: the kick-off stays; both are told."""
    now = now or timezone.now()
    with transaction.atomic():
        _competition, fixture = lock_fixture(fixture.pk)
        side = _player_of(fixture, user)
        proposal = _theirs(fixture, side, proposal_id)
        _answer(proposal, KickoffProposal.Status.DECLINED, by=user, now=now)
        change_record(fixture=fixture, kind=FixtureChange.Kind.KICKOFF_ANSWERED, before={},
                      after={"proposal": proposal_state(proposal)}, by=user, reason=(reason or "").strip(), now=now)
        report_notices.kickoff_answered(fixture=fixture, proposal=proposal)
    return proposal
