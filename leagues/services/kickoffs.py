"""Kick-off times: organisers move one fixture or a whole round (COMPETITIONS.md §8).

A fixture's ``date`` follows its kick-off, in the competition's time zone; an online match
not yet started follows it too (its check-in window moves with the kick-off). Each move is one
history entry with its reason.
"""
from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import Fixture, FixtureChange, KickoffProposal, Round, Venue
from leagues.services import notices, ties
from leagues.services.history import change_record, fixture_state
from leagues.services.online import lock_fixture_for_play, match_setup_for
from matches.models import Match
from matches.services import online
from matches.services.play import PlayError


def fixture_reschedule(*, fixture: Fixture, kickoff_at: datetime, reason: str = "", by=None,
                       now: datetime | None = None) -> Fixture:
    """Moves ``fixture``'s kick-off (an aware datetime); its date follows, in the competition's
    time zone, and an online match not yet started follows too. Raises ``PlayError`` 409 when
    the fixture is decided, or its online match has started, or it was cancelled for want of an
    entrant (a bracket place nobody fills, a withdrawal); 400 (``kickoff_at``) for an online
    fixture's kick-off in the past."""
    now = now or timezone.now()
    with transaction.atomic():
        fixture = lock_fixture_for_play(fixture.pk)
        if fixture.status not in Fixture.OPEN | {Fixture.Status.CANCELLED}:
            raise PlayError(409, "fixture_closed", _("a %(status)s fixture cannot be rescheduled")
                            % {"status": fixture.get_status_display().lower()})
        if fixture.status == Fixture.Status.CANCELLED and not _can_reopen(fixture):
            raise PlayError(409, "fixture_closed", _("this fixture was cancelled because one of its places has nobody "
                                                     "to fill it or its entrant withdrew: it cannot be played"))
        match = Match.objects.select_for_update().filter(pk=fixture.match_id).first() if fixture.match_id else None
        if match is not None and match.is_started:
            raise PlayError(409, "online_match_started",
                            _("its online match has started: annul it first to play it another day"))
        if fixture.status != Fixture.Status.CANCELLED and kickoff_at == fixture.kickoff_at:
            return fixture  # the same kick-off: nothing moves, nothing is recorded or sent
        _check_not_past(fixture, kickoff_at, now)
        before = fixture_state(fixture, result=None)
        fixture.kickoff_at = kickoff_at.astimezone(UTC)
        fixture.date = timezone.localtime(kickoff_at, fixture.competition.zone).date()
        fixture.playable_since = now
        fields = ["kickoff_at", "date", "playable_since"]
        if fixture.status == Fixture.Status.CANCELLED:
            fixture.set_status(Fixture.Status.SCHEDULED, by=by, now=now, save=False)
            fields += ["status", "status_changed_at", "status_changed_by"]
        fixture.save(update_fields=fields)
        if match is not None:
            online.match_setup(setup=match_setup_for(fixture, computer_sides=tuple(match.computer_sides)),
                               match=match, now=now)
        KickoffProposal.objects.filter(fixture=fixture, status=KickoffProposal.Status.OPEN).update(
            status=KickoffProposal.Status.WITHDRAWN, answered_at=now, answered_by=by if getattr(by, "pk", None) else None)
        change_record(fixture=fixture, kind=FixtureChange.Kind.RESCHEDULED, before=before,
                      after=fixture_state(fixture, result=None), by=by, reason=reason, now=now)
        notices.fixture_rescheduled(fixture=fixture, reason=reason)
        if fixture.tie_id is None and fixture.competition.is_team:
            ties.games_follow(competition_id=fixture.competition_id, now=now)  # a tie's games move with it
    return fixture


def _can_reopen(fixture: Fixture) -> bool:
    """Whether a cancelled fixture may be given a kick-off again (and so reopened): only with
    both its entrants, neither withdrawn; the bracket's and a withdrawal's cancellations stand."""
    entrants = (fixture.home, fixture.away)
    return all(e is not None and e.withdrawn_at is None for e in entrants)


def _check_not_past(fixture: Fixture, kickoff_at: datetime, now: datetime) -> None:
    """An online fixture's kick-off is never set in the past: its players could not check in,
    and nobody would be a no-show (a table fixture may record when it was really played)."""
    if fixture.is_online and kickoff_at < now:
        raise PlayError(400, "kickoff_in_the_past", _("an online fixture's kick-off must be in the future: its "
                                                      "players check in before it"), field="kickoff_at")


def round_reschedule(*, round: Round, kickoff_at: datetime, reason: str = "", by=None,
                     now: datetime | None = None) -> list[Fixture]:
    """Moves every fixture of ``round`` still to be played (scheduled, postponed or cancelled,
    its online match not started) to ``kickoff_at``; the others keep theirs. Returns those moved.
    Raises ``PlayError`` 400 (``kickoff_at``), nothing moved, for a kick-off in the past when one
    of them is played online."""
    now = now or timezone.now()
    moved = []
    with transaction.atomic():
        fixtures = list(round.fixtures.filter(status__in=Fixture.OPEN | {Fixture.Status.CANCELLED})
                        .select_related("competition").order_by("pk"))
        for fixture in fixtures:  # all or none: a round is not half moved into the past
            _check_not_past(fixture, kickoff_at, now)
        for fixture_id in [f.pk for f in fixtures]:
            fixture = Fixture.objects.get(pk=fixture_id)
            try:
                moved.append(fixture_reschedule(fixture=fixture, kickoff_at=kickoff_at, reason=reason, by=by, now=now))
            except PlayError:
                continue  # started online, or decided meanwhile: it keeps its kick-off
    return moved


def fixture_set_venue(*, fixture: Fixture, venue: str, reason: str = "", by=None,
                      now: datetime | None = None) -> Fixture:
    """Where ``fixture`` is played: ``online``, ``table``, or ``""`` (its competition's venue).
    An online match set up but not started is annulled (a new one is set up at the next
    check-in); the check-in window counts from now. A tie's games not yet decided go with it.
    Raises ``PlayError`` 409 when the fixture is decided or its online match (or one of its
    games' matches) has started (annul it first), 400 for an unknown venue."""
    now = now or timezone.now()
    if venue not in ("", *Venue.values):
        raise PlayError(400, "malformed", _("venue must be online, table or empty"), field="venue")
    with transaction.atomic():
        fixture = lock_fixture_for_play(fixture.pk)
        if venue == fixture.venue:
            return fixture
        if fixture.status not in Fixture.OPEN | {Fixture.Status.CANCELLED}:
            raise PlayError(409, "fixture_closed", _("a %(status)s fixture keeps its venue")
                            % {"status": fixture.get_status_display().lower()})
        match = Match.objects.select_for_update().filter(pk=fixture.match_id).first() if fixture.match_id else None
        if match is not None and match.is_started:
            raise PlayError(409, "online_match_started",
                            _("its online match has started: annul it first to play it elsewhere"))
        before = {**fixture_state(fixture, result=None), "venue": fixture.effective_venue}
        if match is not None:
            online.match_annul(match_id=match.pk, by=by, now=now)
            fixture.match = None
        fixture.venue = venue
        fixture.playable_since = now
        fixture.save(update_fields=["venue", "playable_since", "match"])
        change_record(fixture=fixture, kind=FixtureChange.Kind.VENUE, before=before,
                      after={**fixture_state(fixture, result=None), "venue": fixture.effective_venue},
                      by=by, reason=reason, now=now)
        if fixture.tie_id is None and fixture.competition.is_team:
            # a tie's games not yet decided are played where it is (one with a started match refuses all)
            for game in Fixture.with_games.filter(tie=fixture, status__in=Fixture.OPEN | {Fixture.Status.CANCELLED}
                                                  ).exclude(venue=venue).order_by("table"):
                fixture_set_venue(fixture=game, venue=venue, reason=reason, by=by, now=now)
    return fixture
