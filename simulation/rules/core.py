"""The shared machinery of the referees: the value types every part of a referee uses (a
refusal, an outcome, what one ``apply`` collects, the facts of a flick), the parameters'
defaults, and small helpers.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..events import RuleEvent
from ..physics import Contact, Crossing, FlickResult, piece_key
from ..state import MatchState
from ..table import Vec, distance

EPS = 1e-6

RESTART_PHASES = ("kick_off", "free_kick", "free_kick_two_touch", "indirect_free_kick",
                  "penalty_kick", "throw_in", "throw_in_two_touch", "corner_kick",
                  "corner_kick_two_touch", "goal_kick")

REGULAR_PERIODS = ("first_half", "second_half")

DEFAULT_PARAMS: dict[str, Any] = {
    "turn_seconds": 30.0,
    "shot_wait_seconds": 30.0,
    "max_flick_speed_mm_s": 2500.0,
    "halves": 2,
    "half_minutes": 25.0,
    "extra_time_minutes": 5.0,
    "shootout_kicks": 5,
    "knockout": False,
    "restart_after_goal": "kick_off",
    "frames": True,
}

FIXED_KEYS = ("post", "net", "rim")


class RuleViolation(ValueError):
    """A well-formed action that the rules refuse. ``reason`` is for the player (the English
    sentence of its message); ``rule`` the section (``"rulebook 4"``, ``"MBS Disparo a la
    meta"``); ``key`` and ``params`` the message the site renders in the reader's language
    (``simulation.rules.messages``; ``params`` holds ``rule`` too). Referees build it with
    ``Referee.refusal``, which always gives a key; ``key`` is ``None`` only for a refusal made
    by hand outside the referees (a test's stand-in)."""

    def __init__(self, reason: str, rule: str | None = None, *, key: str | None = None,
                 params: Mapping[str, Any] | None = None):
        self.reason = reason
        self.rule = rule
        self.key = key
        self.params = dict(params or {})
        super().__init__(f"{reason} ({rule})" if rule else reason)

    @property
    def message(self) -> dict[str, Any]:
        """``{"key", "params"}``, as on an event."""
        return {"key": self.key, "params": dict(self.params)}

    def with_rule(self, rule: str) -> RuleViolation:
        """The same refusal under another section (``rule`` in its params too)."""
        params = {**self.params, "rule": rule}
        return RuleViolation(self.reason, rule, key=self.key, params=params)


@dataclass(frozen=True)
class Outcome:
    """The state after an action and the events it caused, in order. ``flicks`` holds the
    ``FlickResult`` of each flick the action resolved (for frames and replays)."""

    state: MatchState
    events: tuple[RuleEvent, ...] = ()
    flicks: tuple = ()


MESSAGE_FIELDS = ("side", "piece", "rule")


def message_params(fields: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The params of a message: ``side``, ``piece`` and ``rule`` when given, the other fields
    that are plain values (text, numbers, booleans: never positions or nested objects), then
    ``extra``."""
    params = {k: fields[k] for k in MESSAGE_FIELDS if fields.get(k) is not None}
    for k, v in fields.items():
        if k not in MESSAGE_FIELDS and k != "at" and isinstance(v, (str, int, float, bool)):
            params[k] = v
    params.update(extra or {})
    return params


@dataclass
class Ctx:
    """What one ``apply`` collects: the clock now (s), the events and the flicks. ``referee``
    is the rule set's name, the prefix of the events' message keys."""

    now: float
    referee: str = ""
    events: list[RuleEvent] = field(default_factory=list)
    flicks: list[FlickResult] = field(default_factory=list)

    def emit(self, type: str, key: str, *, params: Mapping[str, Any] | None = None, **kw: Any) -> None:
        """Records an event of ``type`` whose message is ``key`` of the referee's catalogue
        (``"restart.free_kick"``, prefixed with the rule set) with ``message_params(kw, params)``."""
        full = f"{self.referee}.{key}" if self.referee else key
        message = {"key": full, "params": message_params(kw, params)}
        self.events.append(RuleEvent.make(type, message=message, **kw))


@dataclass(frozen=True)
class FlickFacts:
    """What a flick did, in the referee's terms.

    ``touches``: piece keys that touched the ball, in order of their first touch;
    ``opponent_contacts``: contacts of a piece of the mover's side with an opposing piece at or
    before the ball's first contact with anything (``ball_first_t``; ``inf`` if untouched);
    ``goal_end``: the end whose goal the ball entered; ``ball_out``: the crossing of a line
    outside the goal mouth; ``last_touch``: the last piece to touch the ball before it went out
    or in (or at all); ``pieces_out``: piece key -> crossing; ``ball_start``/``ball_end``.
    """

    side: str
    piece: str
    result: FlickResult
    ball_start: Vec
    ball_end: Vec
    touches: tuple[str, ...]
    ball_first_t: float
    opponent_contacts: tuple[Contact, ...]
    goal_end: str | None
    ball_out: Crossing | None
    last_touch: str | None
    pieces_out: Mapping[str, Crossing]
    pieces_start: Mapping[str, Mapping[str, Vec]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return piece_key(self.side, self.piece)

    @property
    def ball_touched(self) -> bool:
        return bool(self.touches)

    @property
    def crossing(self) -> Crossing | None:
        """The ball's crossing, goal or out."""
        return self.result.ball_out


def gap_to(p: Vec, rp: float, q: Vec, rq: float) -> float:
    """Edge-to-edge distance of two discs (mm)."""
    return distance(p, q) - rp - rq


def is_number(value: Any) -> bool:
    """A finite int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

