"""Online play: setting a match up, check-in, kick-off, and submitting actions.

A match is set up by whoever owns it (a competition's fixture, in ``leagues``; a practice game
here) with its names, rule set and check-in window; this module knows nothing of competitions.
Check-in is open from ``checkin_opens_at`` until ``checkin_deadline_at`` (the kick-off plus the
grace, COMPETITIONS.md §8); a side not in by then loses by walkover, and neither side in is a
double no-show (``walkover_side`` "both").

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
- 422: the referee refused it (``reason``, ``rule``, and ``message``: the referee's ``{"key",
  "params"}`` for the site to put in words), or the ``Idempotency-Key`` was first
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
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from matches import names
from matches.models import ActionRequest, Match
from matches.services import deadlines, play
from matches.services.play import (
    DEFAULT_PARAMS,
    OPEN_STATUSES,
    SIDES,
    Answer,
    PlayError,
    apply_to_match,
    clock_at,
    current_state,
    params_of,
    play_computer,
    set_next_deadline,
    side_of,
)
from matches.services.referee import RuleParamsError, check_rule_params, kickoff_state, referee_for
from simulation.actions import Action, Flick, parse_action
from simulation.errors import MalformedInput
from simulation.rules import RuleViolation

logger = logging.getLogger(__name__)

# --- reading a match ---------------------------------------------------------------------------


def match_public(match: Match, *, user=None) -> dict[str, Any]:
    """What everybody may see of a match: status, sides, clock, deadline, state."""
    return {
        "id": match.pk,
        "kind": match.kind,
        "status": match.status,
        "rule_set": match.rule_set,
        "rule_params": match.rule_params,
        "title": match.title,
        "scheduled_at": play.iso(match.scheduled_at),
        "checkin_opens_at": play.iso(match.checkin_opens_at),
        "checkin_deadline_at": play.iso(match.checkin_deadline_at),
        "checked_in": {"home": match.home_checked_in_at is not None, "away": match.away_checked_in_at is not None},
        "computer_sides": list(match.computer_sides),
        "your_side": side_of(match, user),
        "seq": match.seq,
        "state": match.state,
        "state_hash": match.state_hash,
        "to_move": (match.state or {}).get("to_move"),
        "deadline_at": play.iso(match.deadline_at),
        "deadline_kind": match.deadline_kind,
        "walkover_side": match.walkover_side,
    }


# --- setting matches up ---------------------------------------------------------------------------


def frozen_params(*, rule_params: dict | None = None) -> dict[str, Any]:
    """The rule-set parameters a match is played under: the defaults, then ``rule_params``."""
    params: dict[str, Any] = dict(DEFAULT_PARAMS)
    params.update(rule_params or {})
    return params


@dataclass(frozen=True)
class Setup:
    """What a match is set up with by its owner (see ``match_setup``).

    ``kickoff_at`` is the scheduled kick-off; check-in is open from ``checkin_opens_at`` to
    ``checkin_deadline_at`` (aware datetimes). ``sides`` maps "home"/"away" to the names the
    board shows: ``{"name", "short", "club", "club_slug"}``."""

    rule_set: str
    rule_params: dict[str, Any]
    kickoff_at: datetime
    checkin_opens_at: datetime
    checkin_deadline_at: datetime
    home_user: Any = None
    away_user: Any = None
    computer_sides: tuple[str, ...] = ()
    title: str = ""
    url: str = ""
    sides: dict[str, dict[str, str]] = field(default_factory=dict)


def match_setup(*, setup: Setup, match: Match | None = None, now: datetime | None = None) -> Match:
    """Creates an online match from ``setup``, or sets ``match`` (locked by the caller) up again
    while nobody has checked in. The computer's sides check in when the window is open.
    Raises ``PlayError`` (409) when ``match`` has begun."""
    now = now or timezone.now()
    fields = {
        "kind": Match.Kind.ONLINE,
        "rule_set": setup.rule_set,
        "rule_params": frozen_params(rule_params=setup.rule_params),
        "home_user": setup.home_user,
        "away_user": setup.away_user,
        "computer_sides": sorted(set(setup.computer_sides)),
        "scheduled_at": setup.kickoff_at,
        "checkin_opens_at": setup.checkin_opens_at,
        "checkin_deadline_at": setup.checkin_deadline_at,
        "title": setup.title,
        "url": setup.url,
        "sides": setup.sides,
    }
    if match is None:
        match = Match.objects.create(**fields)
        match = Match.objects.select_for_update().get(pk=match.pk)
    else:
        if match.status != Match.Status.SCHEDULED or match.seq or match.state is not None:
            raise PlayError(409, "match_begun", _("this match has begun already"))
        for key, value in fields.items():
            setattr(match, key, value)
        match.save()
    if checkin_open(match, now):
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
        raise PlayError(400, "malformed", _("rule_set must be one of %(choices)s") % {"choices": ", ".join(Match.RuleSet.values)}, field="rule_set")
    if side not in SIDES:
        raise PlayError(400, "malformed", _("side must be 'home' or 'away'"), field="side")
    params = frozen_params(rule_params={"halves": 2, "half_minutes": 5, **(rule_params or {})})
    try:
        check_rule_params(rule_set, params)
    except RuleParamsError as exc:
        raise PlayError(400, "malformed", str(exc), field="rule_params") from exc
    computer = "away" if side == "home" else "home"
    name = user.get_full_name() or user.get_username()
    sides = {side: {"name": name, "short": user.last_name or user.get_username(), "club": "", "club_slug": ""},
             computer: {"name": _("Computer"), "short": _("Computer"), "club": "", "club_slug": ""}}
    with transaction.atomic():
        match = Match.objects.create(
            kind=Match.Kind.PRACTICE, rule_set=rule_set, rule_params=params,
            home_user=user if side == "home" else None, away_user=user if side == "away" else None,
            computer_sides=[computer], scheduled_at=now, checkin_opens_at=now,
            checkin_deadline_at=now + timedelta(minutes=5), title=names.PRACTICE, sides=sides,
        )
        match = Match.objects.select_for_update().get(pk=match.pk)
        _check_in_side(match, side, now)
        _check_in_computer(match, now)
    return match


# --- check-in and kick-off --------------------------------------------------------------------


def checkin_open(match: Match, now: datetime) -> bool:
    """Whether ``now`` is inside the match's check-in window (and the match still open)."""
    if match.status not in OPEN_STATUSES:
        return False
    opens, closes = match.checkin_opens_at, match.checkin_deadline_at
    return (opens is None or opens <= now) and (closes is None or now < closes)


def check_checkin_window(match: Match, now: datetime) -> None:
    """Raises ``PlayError`` 409 unless check-in is open at ``now``: before the window the body
    says when it opens (``opens_at``); after it, or with the match begun or over, what it is."""
    if match.status not in OPEN_STATUSES:
        raise PlayError(409, "not_open", _("the match is %(status)s") % {"status": match.get_status_display().lower()},
                        status=match.status)
    if match.checkin_opens_at is not None and now < match.checkin_opens_at:
        when = date_format(timezone.localtime(match.checkin_opens_at), "DATETIME_FORMAT")
        raise PlayError(409, "checkin_not_open", _("check-in opens at %(when)s") % {"when": when},
                        opens_at=match.checkin_opens_at.isoformat())
    if match.checkin_deadline_at is not None and now >= match.checkin_deadline_at:
        raise PlayError(409, "checkin_closed", _("check-in has closed"))


def check_in(*, match_id: int, user, now: datetime | None = None) -> Match:
    """Checks ``user`` in for their side, inside the check-in window; the match kicks off when
    both sides are in.

    Raises ``PlayError``: 404 no such match, 403 not a player of it, 409 outside the window
    (the body says when it opens) or too late (the match is live, over, or a walkover)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise PlayError(404, "not_found", _("no such match"))
        deadlines.apply_deadlines(match, now)
        side = side_of(match, user)
        if side is None:
            raise PlayError(403, "not_a_player", _("you do not play in this match"))
        check_checkin_window(match, now)
        _check_in_side(match, side, now)
        _check_in_computer(match, now)
    return match


def match_checkin_window_set(*, match_id: int, opens_at: datetime, deadline_at: datetime,
                             now: datetime | None = None) -> Match | None:
    """Moves the check-in window of a match not yet kicked off to its owner's new one (the
    organisers changed how long before and after the kick-off it runs). A deadline already
    passed is applied first and stands; under a side already checked in the window is never
    shortened, only lengthened (the other side was told the longer one). Returns the match."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            return None
        deadlines.apply_deadlines(match, now)
        if match.status == Match.Status.SCHEDULED and not (match.home_checked_in_at or match.away_checked_in_at):
            match.checkin_opens_at, match.checkin_deadline_at = opens_at, deadline_at
        elif match.status in OPEN_STATUSES and match.checkin_deadline_at is not None:
            match.checkin_deadline_at = max(match.checkin_deadline_at, deadline_at)
        else:
            return match
        match.save(update_fields=["checkin_opens_at", "checkin_deadline_at"])
        if checkin_open(match, now):
            _check_in_computer(match, now)
    return match


def match_annul(*, match_id: int, by=None, now: datetime | None = None) -> Match | None:
    """Annuls a match (an organiser's decision, through its owner): it stops where it is, its
    deadlines are dropped, and it is never adjudicated. Returns it, or ``None`` if none."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status == Match.Status.CANCELLED:
            return match
        match.set_status(Match.Status.CANCELLED, by=by, now=now, save=False)
        match.deadline_at, match.deadline_kind = None, ""
        match.official = None
        match.save()
    return match


def match_set_official(*, match_id: int, official: dict[str, Any] | None) -> None:
    """Records on the match the official result its owner made of it, for the board:
    ``{"home": goals, "away": goals, "text": "2-0 (walkover)"}`` (``None``: none yet)."""
    Match.objects.filter(pk=match_id).update(official=official)


def _check_in_side(match: Match, side: str, now: datetime) -> None:
    if getattr(match, f"{side}_checked_in_at") is None:
        setattr(match, f"{side}_checked_in_at", now)
        match.save(update_fields=[f"{side}_checked_in_at"])
    _maybe_kick_off(match, now)


def _check_in_computer(match: Match, now: datetime) -> None:
    if not checkin_open(match, now):
        return
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
        raise PlayError(400, "bad_rules", _("this match cannot be played under its rules: %(reason)s") % {"reason": exc},
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
    if not match.is_bot_match:  # bot against bot is driven by ``computer_step``
        play_computer(match, state, now)


# --- actions ---------------------------------------------------------------------------------


def validate_action(match: Match, action_json: Any, side: str) -> Action:
    """The parsed action of ``side``; raises ``PlayError`` 400 (form) or 403 (another side)."""
    if not isinstance(action_json, dict):
        raise PlayError(400, "malformed", _("the action must be a JSON object"), field="action")
    data = dict(action_json)
    given = data.get("side", side)
    if given not in SIDES:
        raise PlayError(400, "malformed", _("side must be 'home' or 'away'"), field="action.side")
    if given != side:
        raise PlayError(403, "not_your_side", _("you play %(side)s, not %(given)s") % {"side": side, "given": given})
    data["side"] = side
    data.pop("t", None)  # the server keeps the clock
    if data.get("type") == "tick":
        raise PlayError(400, "malformed", _("a tick is the server's, not a player's"), field="action.type")
    try:
        action = parse_action(data, "action")
    except MalformedInput as exc:
        raise PlayError(400, "malformed", exc.problem, field=exc.field) from exc
    except (ValueError, OverflowError, TypeError) as exc:  # a value the parser could not convert
        raise PlayError(400, "malformed", _("the action cannot be read: %(reason)s") % {"reason": exc}, field="action") from exc
    if isinstance(action, Flick):
        limit = float(params_of(match).get("max_flick_speed_mm_s", 2500))
        if not 0 < action.speed_mm_s <= limit:
            raise PlayError(400, "malformed", _("speed must be more than 0 and at most %(limit)g mm/s") % {"limit": limit},
                            field="action.speed_mm_s")
        if not math.isfinite(action.angle_deg) or abs(action.angle_deg) > 3600:
            raise PlayError(400, "malformed", _("angle must be in degrees"), field="action.angle_deg")
    return action


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
    now = now or timezone.now()
    key = (idempotency_key or "").strip() or None
    if key is not None and (len(key) > MAX_KEY_LENGTH or not (key.isascii() and key.isprintable())):
        return Answer(400, {"error": "malformed", "field": "Idempotency-Key",
                            "detail": _("an Idempotency-Key is 1 to %(length)s printable ASCII characters") % {"length": MAX_KEY_LENGTH}})
    keyed = key is not None and user is not None and user.is_authenticated
    digest = request_hash(match_id=match_id, seq=seq, action_json=action_json) if keyed else ""
    try:
        with transaction.atomic():
            match = Match.objects.select_for_update().filter(pk=match_id).first()
            if match is None:
                return Answer(404, {"error": "not_found", "detail": _("no such match")})
            if keyed:
                first = ActionRequest.objects.filter(user=user, key=key).first()
                if first is not None:
                    if first.match_id != match.pk or (first.request_hash and first.request_hash != digest):
                        return _key_reused()
                    return Answer(first.status_code, first.response, replayed=True)
            deadlines.apply_deadlines(match, now)
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
        raise PlayError(403, "not_a_player", _("you do not play in this match"))
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise PlayError(400, "malformed", _("seq must be a whole number: the log's next sequence number"), field="seq")
    action = validate_action(match, action_json, side)
    if match.status != Match.Status.LIVE:
        raise PlayError(409, "not_live", _("the match is %(status)s") % {"status": match.get_status_display().lower()})
    if seq != match.seq + 1:
        raise PlayError(409, "stale", _("the next action is number %(next)s, not %(seq)s") % {"next": match.seq + 1, "seq": seq})
    state = current_state(match)
    if state.to_move != side:
        raise PlayError(403, "not_your_turn", _("it is %(side)s's turn") % {"side": state.to_move})
    t = round(max(clock_at(match, now), state.clock_s), 3)
    try:
        state, row = apply_to_match(match, state, action.at_time(t), side=side, by=user, now=now)
    except RuleViolation as exc:
        raise PlayError(422, "rule_violation", exc.reason, reason=exc.reason, rule=exc.rule,
                        message=exc.message) from exc
    rows = [row]
    rows += play_computer(match, state, now, save=False)
    play.save_applied(match, rows)
    return Answer(201, {
        "seq": match.seq, "accepted": [r.seq for r in rows], "status": match.status, "state": match.state,
        "state_hash": match.state_hash, "events": [e for r in rows for e in r.events],
        "deadline_at": play.iso(match.deadline_at), "deadline_kind": match.deadline_kind,
    })


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
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        for i in range(steps):
            at = now + step * i
            deadlines.apply_deadlines(match, at)
            if match.status != Match.Status.LIVE:
                break
            play_computer(match, current_state(match), at, limit=1)
    return match
