"""Online play: creating a match, check-in, kick-off, and submitting actions (issue 7).

One writer per match: every write locks the match row (``select_for_update``) and does all
its work in one transaction; adjudication is enqueued after commit. Time comes in as ``now``.

``submit_action`` answers with an ``Answer`` (an HTTP status and a JSON body), because the
first answer given to an ``Idempotency-Key`` is stored with the action in the same
transaction and returned again to a retry:

- 201: accepted; the body holds the new ``seq``, the state and the events;
- 400: a malformed action (not JSON an action has, NaN, a string for a number, an unknown
  piece, a speed over the rule set's limit); nothing changes;
- 403: the user does not play this match, or it is not their turn;
- 409: the match is not live, or ``seq`` is not the next one (stale or repeated); the body
  holds the current state;
- 422: the referee refused it (``reason`` and ``rule``), or the ``Idempotency-Key`` was first
  used for another request (``idempotency_key_reused``).

The match clock runs with wall time from an anchor stored on the match (the time of the last
applied action or deadline); an action's ``t`` is set by the server. Deadlines
(``matches.services.deadlines``) are applied before anything else is done with a live match.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from leagues.models import Fixture
from matches.models import ActionRequest, Match, MatchAction
from matches.services.referee import RuleParamsError, check_rule_params, kickoff_state, referee_for
from simulation.actions import Action, Flick, parse_action
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


@dataclass
class _Applied:
    rows: list[MatchAction] = field(default_factory=list)


# --- reading a match ---------------------------------------------------------------------------


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


def match_public(match: Match, *, user=None) -> dict[str, Any]:
    """What everybody may see of a match: status, sides, clock, deadline, state."""
    return {
        "id": match.pk,
        "kind": match.kind,
        "status": match.status,
        "fixture": match.fixture_id,
        "rule_set": match.rule_set,
        "rule_params": match.rule_params,
        "scheduled_at": _iso(match.scheduled_at),
        "checkin_deadline_at": _iso(match.checkin_deadline_at),
        "checked_in": {"home": match.home_checked_in_at is not None, "away": match.away_checked_in_at is not None},
        "computer_sides": list(match.computer_sides),
        "your_side": side_of(match, user),
        "seq": match.seq,
        "state": match.state,
        "state_hash": match.state_hash,
        "to_move": (match.state or {}).get("to_move"),
        "deadline_at": _iso(match.deadline_at),
        "deadline_kind": match.deadline_kind,
        "walkover_side": match.walkover_side,
    }


def _iso(value: datetime | None) -> str | None:
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


# --- creating matches ----------------------------------------------------------------------------


def frozen_params(*, fixture: Fixture | None = None, rule_params: dict | None = None) -> dict[str, Any]:
    """The rule-set parameters a match is played under: the competition's (or the given ones),
    with the match format (§3) the referee needs for periods, extra time and the shoot-out."""
    params: dict[str, Any] = dict(DEFAULT_PARAMS)
    if fixture is not None:
        competition = fixture.competition
        knockout = fixture.is_knockout
        params.update({
            "halves": competition.halves, "half_minutes": competition.half_minutes,
            "knockout": knockout,
            # a switched-off extra time or shoot-out is a length of nothing
            "extra_time_minutes": competition.extra_time_minutes if competition.extra_time else 0,
            "shootout_kicks": competition.shootout_kicks if competition.shootout else 0,
        })
        params.update(competition.rule_params)
    params.update(rule_params or {})
    return params


def _user_of(entrant) -> Any:
    if entrant is None or entrant.player_id is None:
        return None
    return entrant.player.user


def match_create_online(
    *, fixture: Fixture, scheduled_at: datetime | None = None, computer_sides: list[str] | None = None,
    now: datetime | None = None,
) -> Match:
    """The online match of ``fixture``, created (or, while nothing has been played, set up) with
    the competition's rule set and parameters frozen into it. ``computer_sides`` are played by
    the computer (``play_fixtures --bots``: both). Raises ``PlayError`` (409) when the fixture
    is not open or lacks an entrant, or its match has already begun."""
    now = now or timezone.now()
    with transaction.atomic():
        fixture = (Fixture.objects.select_for_update(of=("self",))
                   .select_related("competition", "round__stage", "home__player__user", "away__player__user")
                   .get(pk=fixture.pk))
        if fixture.home_id is None or fixture.away_id is None:
            raise PlayError(409, "fixture_incomplete", "this fixture does not have both its entrants yet")
        if fixture.status not in Fixture.OPEN:
            raise PlayError(409, "fixture_closed", f"a {fixture.get_status_display().lower()} fixture is not played")
        competition = fixture.competition
        match = Match.objects.select_for_update().filter(fixture=fixture).first()
        if match is not None and (match.status not in OPEN_STATUSES or match.seq or match.state is not None):
            raise PlayError(409, "match_begun", "this fixture's match has begun already")
        if scheduled_at is None:
            scheduled_at = now
        fields = {
            "kind": Match.Kind.ONLINE,
            "rule_set": competition.rule_set,
            "rule_params": frozen_params(fixture=fixture),
            "home_user": _user_of(fixture.home),
            "away_user": _user_of(fixture.away),
            "computer_sides": sorted(set(computer_sides or [])),
            "scheduled_at": scheduled_at,
            "checkin_deadline_at": scheduled_at + timedelta(minutes=competition.checkin_grace_minutes),
        }
        if match is None:
            match = Match.objects.create(fixture=fixture, **fields)
        else:
            for key, value in fields.items():
                setattr(match, key, value)
            match.save()
        _check_in_computer(match, now)
    return match


def practice_create(
    *, user, rule_set: str = "one_touch", side: str = "home", rule_params: dict | None = None,
    now: datetime | None = None,
) -> Match:
    """A practice match of ``user`` (playing ``side``) against the computer; it kicks off at once.
    Raises ``PlayError`` (400) for an unknown rule set or side, or a bad parameter."""
    now = now or timezone.now()
    if rule_set not in Match.RuleSet.values:
        raise PlayError(400, "malformed", f"rule_set must be one of {', '.join(Match.RuleSet.values)}", field="rule_set")
    if side not in SIDES:
        raise PlayError(400, "malformed", "side must be 'home' or 'away'", field="side")
    params = frozen_params(rule_params={"halves": 2, "half_minutes": 5, **(rule_params or {})})
    try:
        check_rule_params(rule_set, params)
    except RuleParamsError as exc:
        raise PlayError(400, "malformed", str(exc), field="rule_params") from exc
    computer = "away" if side == "home" else "home"
    with transaction.atomic():
        match = Match.objects.create(
            kind=Match.Kind.PRACTICE, rule_set=rule_set, rule_params=params,
            home_user=user if side == "home" else None, away_user=user if side == "away" else None,
            computer_sides=[computer], scheduled_at=now,
        )
        match = Match.objects.select_for_update().get(pk=match.pk)
        _check_in_side(match, side, now)
        _check_in_computer(match, now)
    return match


# --- check-in and kick-off --------------------------------------------------------------------


def check_in(*, match_id: int, user, now: datetime | None = None) -> Match:
    """Checks ``user`` in for their side; the match kicks off when both sides are in.

    Raises ``PlayError``: 404 no such match, 403 not a player of it, 409 too late (the match
    is live, over, or went to a walkover)."""
    from matches.services.deadlines import apply_deadlines

    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise PlayError(404, "not_found", "no such match")
        apply_deadlines(match, now)
        side = side_of(match, user)
        if side is None:
            raise PlayError(403, "not_a_player", "you do not play in this match")
        if match.status not in OPEN_STATUSES:
            raise PlayError(409, "not_open", f"the match is {match.get_status_display().lower()}",
                            status=match.status)
        _check_in_side(match, side, now)
    return match


def _check_in_side(match: Match, side: str, now: datetime) -> None:
    if getattr(match, f"{side}_checked_in_at") is None:
        setattr(match, f"{side}_checked_in_at", now)
        match.save(update_fields=[f"{side}_checked_in_at"])
    _maybe_kick_off(match, now)


def _check_in_computer(match: Match, now: datetime) -> None:
    changed = []
    for side in match.computer_sides:
        if getattr(match, f"{side}_checked_in_at") is None:
            setattr(match, f"{side}_checked_in_at", now)
            changed.append(f"{side}_checked_in_at")
    if changed:
        match.save(update_fields=changed)
    _maybe_kick_off(match, now)


def _maybe_kick_off(match: Match, now: datetime) -> None:
    if match.status not in OPEN_STATUSES:
        return
    if match.home_checked_in_at is None or match.away_checked_in_at is None:
        if match.status == Match.Status.SCHEDULED and (match.home_checked_in_at or match.away_checked_in_at):
            match.set_status(Match.Status.CHECKED_IN, now=now)
        return
    try:
        referee = referee_for(match.rule_set, params_of(match))
    except (ValueError, TypeError, OverflowError) as exc:
        # settings stored before they were checked: refuse the kick-off, do not crash
        raise PlayError(400, "bad_rules", f"this match cannot be played under its rules: {exc}",
                        field="rule_params") from exc
    state = referee.initial_state() if hasattr(referee, "initial_state") else kickoff_state()
    match.set_status(Match.Status.LIVE, now=now, save=False)
    match.initial_state = state.to_json()
    match.state = match.initial_state
    match.state_hash = state.state_hash()
    match.seq = 0
    match.kicked_off_at = now
    match.clock_anchor_s, match.clock_anchor_at = state.clock_s, now
    set_next_deadline(match, state)
    match.save()
    if len(match.computer_sides) < 2:  # bot against bot is driven by ``computer_step``
        play_computer(match, state, now)


# --- actions ---------------------------------------------------------------------------------


def validate_action(match: Match, action_json: Any, side: str) -> Action:
    """The parsed action of ``side``; raises ``PlayError`` 400 (form) or 403 (another side)."""
    if not isinstance(action_json, dict):
        raise PlayError(400, "malformed", "the action must be a JSON object", field="action")
    data = dict(action_json)
    given = data.get("side", side)
    if given not in SIDES:
        raise PlayError(400, "malformed", "side must be 'home' or 'away'", field="action.side")
    if given != side:
        raise PlayError(403, "not_your_side", f"you play {side}, not {given}")
    data["side"] = side
    data.pop("t", None)  # the server keeps the clock
    if data.get("type") == "tick":
        raise PlayError(400, "malformed", "a tick is the server's, not a player's", field="action.type")
    try:
        action = parse_action(data, "action")
    except MalformedInput as exc:
        raise PlayError(400, "malformed", exc.problem, field=exc.field) from exc
    except (ValueError, OverflowError, TypeError) as exc:  # a value the parser could not convert
        raise PlayError(400, "malformed", f"the action cannot be read: {exc}", field="action") from exc
    if isinstance(action, Flick):
        limit = float(params_of(match).get("max_flick_speed_mm_s", 2500))
        if not 0 < action.speed_mm_s <= limit:
            raise PlayError(400, "malformed", f"speed must be more than 0 and at most {limit:g} mm/s",
                            field="action.speed_mm_s")
        if not math.isfinite(action.angle_deg) or abs(action.angle_deg) > 3600:
            raise PlayError(400, "malformed", "angle must be in degrees", field="action.angle_deg")
    return action


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
        _finish(match, now)
    set_next_deadline(match, new_state)
    return new_state, row


def _finish(match: Match, now: datetime) -> None:
    from matches.tasks import adjudicate_match

    match.set_status(Match.Status.FINISHED, now=now, save=False)
    match.finished_at = now
    transaction.on_commit(lambda: adjudicate_match.delay(match.pk))


def _save_applied(match: Match, rows: list[MatchAction]) -> None:
    MatchAction.objects.bulk_create(rows)
    match.save()


MAX_KEY_LENGTH = 100  # ActionRequest.key


class _KeyTaken(Exception):
    """Another request stored the same key first (a race between two matches): roll back."""


def request_hash(*, match_id: int, seq: Any, action_json: Any) -> str:
    """SHA-256 of a submission (its match, ``seq`` and action, as canonical JSON): what an
    ``Idempotency-Key`` is bound to."""
    body = json.dumps({"match": match_id, "seq": seq, "action": action_json}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(body.encode()).hexdigest()


def _key_reused() -> Answer:
    return Answer(422, {
        "error": "idempotency_key_reused", "field": "Idempotency-Key",
        "detail": "this Idempotency-Key was first used for another request (another match, seq or action); "
                  "a new request needs a new key",
    })


def submit_action(
    *, match_id: int, user, seq: Any, action_json: Any, idempotency_key: str | None = None,
    now: datetime | None = None,
) -> Answer:
    """Applies the action ``user`` submits as number ``seq`` of the log; see the module's
    docstring for the answers. Deadlines that have passed are applied first.

    ``idempotency_key`` (the ``Idempotency-Key`` header, at most 100 printable ASCII characters,
    else a 400) is the user's: a retry of the same request (same match, ``seq`` and action) gets
    the first answer again, marked replayed; the same key with another request, for this match
    or another, is a 422 ``idempotency_key_reused`` and changes nothing."""
    from matches.services.deadlines import apply_deadlines

    now = now or timezone.now()
    key = (idempotency_key or "").strip() or None
    if key is not None and (len(key) > MAX_KEY_LENGTH or not (key.isascii() and key.isprintable())):
        return Answer(400, {"error": "malformed", "field": "Idempotency-Key",
                            "detail": f"an Idempotency-Key is 1 to {MAX_KEY_LENGTH} printable ASCII characters"})
    keyed = key is not None and user is not None and user.is_authenticated
    digest = request_hash(match_id=match_id, seq=seq, action_json=action_json) if keyed else ""
    try:
        with transaction.atomic():
            match = Match.objects.select_for_update().filter(pk=match_id).first()
            if match is None:
                return Answer(404, {"error": "not_found", "detail": "no such match"})
            if keyed:
                first = ActionRequest.objects.filter(user=user, key=key).first()
                if first is not None:
                    if first.match_id != match.pk or (first.request_hash and first.request_hash != digest):
                        return _key_reused()
                    return Answer(first.status_code, first.response, replayed=True)
            apply_deadlines(match, now)
            try:
                answer = _submit_locked(match, user, seq, action_json, now)
            except PlayError as exc:
                body = exc.to_json()
                if exc.status_code in (409, 422):
                    body.update({"seq": match.seq, "status": match.status, "state": match.state})
                answer = Answer(exc.status_code, body)
            if keyed and answer.status_code != 403:
                try:
                    with transaction.atomic():
                        ActionRequest.objects.create(match=match, user=user, key=key, request_hash=digest,
                                                     status_code=answer.status_code, response=answer.data)
                except IntegrityError as exc:
                    raise _KeyTaken from exc
    except _KeyTaken:
        return _key_reused()  # the whole submission was rolled back
    return answer


def _submit_locked(match: Match, user, seq: Any, action_json: Any, now: datetime) -> Answer:
    side = side_of(match, user)
    if side is None:
        raise PlayError(403, "not_a_player", "you do not play in this match")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise PlayError(400, "malformed", "seq must be a whole number: the log's next sequence number", field="seq")
    action = validate_action(match, action_json, side)
    if match.status != Match.Status.LIVE:
        raise PlayError(409, "not_live", f"the match is {match.get_status_display().lower()}")
    if seq != match.seq + 1:
        raise PlayError(409, "stale", f"the next action is number {match.seq + 1}, not {seq}")
    state = current_state(match)
    if state.to_move != side:
        raise PlayError(403, "not_your_turn", f"it is {state.to_move}'s turn")
    t = round(max(clock_at(match, now), state.clock_s), 3)
    try:
        state, row = apply_to_match(match, state, action.at_time(t), side=side, by=user, now=now)
    except RuleViolation as exc:
        raise PlayError(422, "rule_violation", exc.reason, reason=exc.reason, rule=exc.rule) from exc
    rows = [row]
    rows += play_computer(match, state, now, save=False)
    _save_applied(match, rows)
    return Answer(201, {
        "seq": match.seq, "accepted": [r.seq for r in rows], "status": match.status, "state": match.state,
        "state_hash": match.state_hash, "events": [e for r in rows for e in r.events],
        "deadline_at": _iso(match.deadline_at), "deadline_kind": match.deadline_kind,
    })


def play_computer(match: Match, state: MatchState, now: datetime, *, save: bool = True,
                  limit: int = MAX_COMPUTER_MOVES) -> list[MatchAction]:
    """Plays the computer's moves while it is to move in a live match. Returns the log rows
    (saved, with the match, unless ``save`` is false)."""
    from matches.services.computer import candidate_actions

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
        _save_applied(match, rows)
    return rows


def computer_take_over(*, match_id: int, sides: list[str]) -> Match:
    """The computer plays ``sides`` of ``match`` from now on (an organiser's automation)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        match.computer_sides = sorted(set(match.computer_sides) | set(sides))
        match.save(update_fields=["computer_sides"])
    return match


def computer_step(*, match_id: int, now: datetime | None = None, steps: int = 1,
                  step: timedelta = timedelta(seconds=5)) -> Match:
    """Moves of the computer in a match it plays (both sides for ``play_fixtures --bots``):
    ``steps`` of them, ``step`` of wall time apart from ``now``, in one transaction (bot
    against bot needs no other reader's turn between them), each after applying the
    deadlines passed by then. Stops at the end of the match."""
    from matches.services.deadlines import apply_deadlines

    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        for i in range(steps):
            at = now + step * i
            apply_deadlines(match, at)
            if match.status != Match.Status.LIVE:
                break
            play_computer(match, current_state(match), at, limit=1)
    return match
