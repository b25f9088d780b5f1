"""Playing a match: its clock, its next deadline, applying an action and logging it, the
computer's moves, and full time. The lowest layer of online play: ``deadlines`` and ``online``
build on it; it knows nothing of competitions.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app

from matches.models import Match, MatchAction
from matches.services.computer import candidate_actions
from matches.services.referee import referee_for
from simulation.actions import Action, parse_action
from simulation.errors import MalformedInput
from simulation.rules import RuleViolation
from simulation.state import MatchState

logger = logging.getLogger(__name__)

SIDES = ("home", "away")
LIVE_STATUSES = (Match.Status.LIVE,)
OPEN_STATUSES = (Match.Status.SCHEDULED, Match.Status.CHECKED_IN)
DEFAULT_PARAMS = {"turn_seconds": 30, "shot_wait_seconds": 30, "max_flick_speed_mm_s": 2500}
MAX_COMPUTER_MOVES = 200  # per request: the computer's replies to one human action


@dataclass
class Answer:
    """An HTTP status and its JSON body."""

    status_code: int
    data: dict[str, Any]
    replayed: bool = False


class PlayError(Exception):
    """A submission or check-in that is refused; ``status_code`` is its HTTP status."""

    def __init__(self, status_code: int, code: str, detail: str, **extra: Any):
        super().__init__(detail)
        self.status_code = status_code
        self.code = code
        self.detail = detail
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        return {"error": self.code, "detail": self.detail, **self.extra}


def side_of(match: Match, user) -> str | None:
    """The side ``user`` plays in ``match`` (``None``: a spectator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    if match.home_user_id == user.pk:
        return "home"
    if match.away_user_id == user.pk:
        return "away"
    return None


def current_state(match: Match) -> MatchState | None:
    return MatchState.from_json(match.state) if match.state is not None else None


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


# --- the clock and the deadlines ---------------------------------------------------------------


def clock_at(match: Match, now: datetime) -> float:
    """The match clock (s) at wall time ``now``."""
    if match.clock_anchor_at is None:
        return match.clock_anchor_s
    return match.clock_anchor_s + (now - match.clock_anchor_at).total_seconds()


def params_of(match: Match) -> dict[str, Any]:
    return {**DEFAULT_PARAMS, **match.rule_params}


def period_end_s(period: str, params: dict[str, Any]) -> float | None:
    """The clock time (s) at which ``period`` ends; ``None`` for the shoot-out."""
    half = float(params.get("half_minutes", 25)) * 60
    halves = int(params.get("halves", 2))
    extra = float(params.get("extra_time_minutes", 5)) * 60
    regulation = half * halves
    return {
        "first_half": half,
        "second_half": regulation,
        "extra_time_first": regulation + extra,
        "extra_time_second": regulation + 2 * extra,
    }.get(period)


def turn_length(state: MatchState, params: dict[str, Any]) -> float:
    key = "shot_wait_seconds" if state.phase == "shot_declared" else "turn_seconds"
    return float(params.get(key) or 30)


def set_next_deadline(match: Match, state: MatchState) -> None:
    """Stores the next deadline of a live match from its state and clock anchor."""
    if match.status != Match.Status.LIVE or state.phase == "full_time":
        match.deadline_at, match.deadline_kind = None, ""
        return
    params = params_of(match)
    referee = referee_for(match.rule_set, params)
    turn_start = state.turn_started_s if state.turn_started_s is not None else state.clock_s
    length = turn_length(state, params)
    if hasattr(referee, "turn_deadline"):  # the referee's own timers (simulation.rules.base)
        turn_dl = referee.turn_deadline(state)
        period_end = referee.period_end_s(state.period)
    else:
        turn_dl = turn_start + length
        period_end = period_end_s(state.period, params) if state.phase != "half_time" else None
    candidates = []
    if turn_dl is not None:
        candidates.append((turn_dl, "shot_wait" if state.phase == "shot_declared" else "turn"))
    if period_end is not None and not state.memo.get("period_overtime"):
        candidates.append((period_end, "period"))
    if not candidates:
        candidates.append((turn_start + length, "turn"))
    deadline_s, kind = min(candidates)
    if deadline_s <= match.clock_anchor_s:
        # the referee let the last deadline pass without moving on: give a fresh turn
        deadline_s, kind = match.clock_anchor_s + length, "turn"
    match.deadline_at = match.clock_anchor_at + timedelta(seconds=deadline_s - match.clock_anchor_s)
    match.deadline_kind = kind


def apply_to_match(match: Match, state: MatchState, action: Action, *, side: str, by, now: datetime,
                   at: datetime | None = None) -> tuple[MatchState, MatchAction]:
    """Applies ``action`` (its ``t`` already set) with the referee, logs it and updates the
    match (not yet saved). ``at`` is the wall time the clock anchor moves to (default ``now``).
    Raises ``RuleViolation`` and changes nothing when the referee refuses it."""
    referee = referee_for(match.rule_set, params_of(match))
    outcome = referee.apply(state, action)
    new_state = outcome.state
    digest = new_state.state_hash()
    match.seq += 1
    row = MatchAction(
        match=match, seq=match.seq, side=side, action=action.to_json(), by=by, created_at=now,
        state_hash=digest, events=[e.to_json() for e in outcome.events],
        frames=[f.frames_json() for f in outcome.flicks],
    )
    match.state = new_state.to_json()
    match.state_hash = digest
    if action.t is not None:
        match.clock_anchor_s = action.t
    match.clock_anchor_at = at or now
    if new_state.phase == "full_time":
        finish(match, now)
    set_next_deadline(match, new_state)
    return new_state, row


def finish(match: Match, now: datetime) -> None:
    match.set_status(Match.Status.FINISHED, now=now, save=False)
    match.finished_at = now
    enqueue_adjudication(match.pk)


def enqueue_adjudication(match_id: int) -> None:
    """Sends ``matches.tasks.adjudicate_match`` after commit (a broker that is down is logged;
    the sweeper finds the match by its status)."""
    current_app.tasks["matches.tasks.adjudicate_match"].enqueue_on_commit(match_id=match_id)


def save_applied(match: Match, rows: list[MatchAction]) -> None:
    MatchAction.objects.bulk_create(rows)
    match.save()


def play_computer(match: Match, state: MatchState, now: datetime, *, save: bool = True,
                  limit: int = MAX_COMPUTER_MOVES) -> list[MatchAction]:
    """Plays the computer's moves while it is to move in a live match. Returns the log rows
    (saved, with the match, unless ``save`` is false)."""
    rows: list[MatchAction] = []
    params = params_of(match)
    while (match.status == Match.Status.LIVE and state.to_move in match.computer_sides
           and len(rows) < limit):
        t = round(max(clock_at(match, now), state.clock_s), 3)
        referee = referee_for(match.rule_set, params)
        for data in candidate_actions(state, state.to_move, match.rule_set, params, referee=referee,
                                      seed=match.pk * 100003 + match.seq):
            try:
                action = parse_action(data, "computer").at_time(t)
                state, row = apply_to_match(match, state, action, side=state.to_move, by=None, now=now)
            except (MalformedInput, RuleViolation):
                continue
            except Exception:  # a bug in the referee: logged; the computer tries its next choice
                logger.exception("match %s: the referee failed on the computer's %s", match.pk, data)
                continue
            rows.append(row)
            break
        else:
            break  # nothing the computer tried was allowed: its deadline will pass
    if save and rows:
        save_applied(match, rows)
    return rows
