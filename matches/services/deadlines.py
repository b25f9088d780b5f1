"""Deadlines of online matches: the turn, the wait for a shot, the end of a period, check-in.

A deadline that has passed is applied by a ``tick``: the referee gets a ``tick`` action at the
clock time of the deadline (a turn timeout, the end of a period), logged like any action.
Ticks run from the beat task every few seconds (``tick_due``) and on every read or write of a
live match, so a match goes on when both players have gone.

A server that was down does not decide a match: a deadline first seen more than
``OUTAGE_SECONDS`` after it passed is not applied; the side to move gets a fresh full turn
from ``now`` instead (for check-in: ``CHECKIN_EXTENSION``).
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from matches.models import Match
from matches.services import play
from simulation.actions import Tick

logger = logging.getLogger(__name__)

OUTAGE_SECONDS = 30.0
CHECKIN_EXTENSION = timedelta(minutes=5)
MAX_TICKS = 50  # per call: more means the clock went far; the rest waits for the next call


def apply_deadlines(match: Match, now: datetime) -> int:
    """Applies the deadlines of ``match`` (whose row the caller has locked) passed by ``now``;
    saves what changed. Returns the number of ticks logged."""
    if match.status in play.OPEN_STATUSES:
        _checkin_deadline(match, now)
        return 0
    if match.status != Match.Status.LIVE:
        return 0
    rows = []
    state = play.current_state(match)
    changed = False
    while (match.status == Match.Status.LIVE and match.deadline_at is not None
           and match.deadline_at <= now and len(rows) < MAX_TICKS):
        late = (now - match.deadline_at).total_seconds()
        if late > OUTAGE_SECONDS:
            # Nothing was running to see it: a fresh full turn from now, the clock held.
            extend_turn(match, state, now)
            logger.warning("match %s: deadline seen %.0f s late; turn extended to %s",
                           match.pk, late, match.deadline_at)
            changed = True
            break
        deadline_at = match.deadline_at
        t = round(play.clock_at(match, deadline_at), 3)
        try:
            new_state, row = play.apply_to_match(
                match, state, Tick(t=t), side="", by=None, now=now, at=deadline_at)
        except ValueError:  # a referee that refuses a tick: hold the clock, give a fresh turn
            logger.exception("match %s: the referee refused a tick at %s", match.pk, t)
            match.clock_anchor_s, match.clock_anchor_at = t, deadline_at
            match.deadline_at = deadline_at + timedelta(seconds=play.turn_length(state, play.params_of(match)))
            changed = True
            continue
        if new_state.state_hash() == state.state_hash() and not row.events:
            # nothing happened at this deadline: do not log it; the next one is a turn later
            match.seq -= 1
            match.deadline_at = deadline_at + timedelta(seconds=play.turn_length(state, play.params_of(match)))
            match.deadline_kind = "turn"
            changed = True
            continue
        rows.append(row)
        state = new_state
        changed = True
        rows += [] if match.is_bot_match else play.play_computer(match, state, now, save=False)
        state = play.current_state(match)
    if rows:
        play.save_applied(match, rows)
    elif changed:
        match.save()
    return len(rows)


def extend_turn(match: Match, state, now: datetime) -> None:
    """Gives the side to move a fresh full turn from ``now``, the match clock held at the start
    of the current turn (the caller has locked the row and saves it)."""
    turn_start = state.turn_started_s if state.turn_started_s is not None else state.clock_s
    match.clock_anchor_s, match.clock_anchor_at = turn_start, now
    play.set_next_deadline(match, state)


def _checkin_deadline(match: Match, now: datetime) -> None:
    deadline = match.checkin_deadline_at
    if deadline is None or deadline > now:
        return
    if (now - deadline).total_seconds() > OUTAGE_SECONDS:
        match.checkin_deadline_at = now + CHECKIN_EXTENSION
        match.save(update_fields=["checkin_deadline_at"])
        logger.warning("match %s: check-in deadline seen late; extended to %s", match.pk, match.checkin_deadline_at)
        return
    absent = [s for s in play.SIDES if getattr(match, f"{s}_checked_in_at") is None]
    if not absent:
        return
    # A side not in by the kick-off plus the grace loses by walkover; neither side in is a
    # double no-show (COMPETITIONS.md §4, §8).
    match.walkover_side = absent[0] if len(absent) == 1 else "both"
    match.finished_at = now
    match.deadline_at, match.deadline_kind = None, ""
    match.set_status(Match.Status.WALKOVER, now=now, save=False)
    match.save()
    play.enqueue_adjudication(match.pk)


def tick(*, match_id: int, now: datetime | None = None) -> Match | None:
    """Applies the passed deadlines of one match under its row lock; returns it (or None)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is not None:
            apply_deadlines(match, now)
    return match


def due(now: datetime, *, limit: int = 500) -> list[int]:
    """Ids of the matches with a deadline passed by ``now``; a live match the computer plays on
    both sides is not one of them (``spectating.bot_match_step`` applies its deadlines)."""
    found = Match.objects.filter(
        Q(status=Match.Status.LIVE, deadline_at__lte=now)
        | Q(status__in=play.OPEN_STATUSES, checkin_deadline_at__lte=now)
    ).values_list("pk", "status", "computer_sides")[:limit]
    return [pk for pk, status, sides in found if status != Match.Status.LIVE or len(sides or ()) < 2]


def tick_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """Applies the passed deadlines of every match (the beat task). Returns how many matches."""
    now = now or timezone.now()
    ids = due(now, limit=limit)
    for match_id in ids:
        tick(match_id=match_id, now=now)
    return len(ids)


def tick_if_due(match: Match, now: datetime | None = None) -> Match:
    """``match`` itself, or re-read after applying its passed deadlines (every read does this)."""
    now = now or timezone.now()
    if (match.status == Match.Status.LIVE and match.deadline_at is not None and match.deadline_at <= now
            and not match.is_bot_match):
        return tick(match_id=match.pk, now=now) or match
    if (match.status in play.OPEN_STATUSES and match.checkin_deadline_at is not None
            and match.checkin_deadline_at <= now):
        return tick(match_id=match.pk, now=now) or match
    return match
