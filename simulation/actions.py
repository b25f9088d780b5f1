"""Actions a side takes (SIMULATION_CONTRACT.md §4), as immutable values with JSON in and out.

``t`` is the match clock (s) at which the action is applied, or ``None`` when no time passes.
The scenario runner turns a file's relative ``t`` (seconds since the input state) into clock
time before it reaches a referee.

Parsing checks form only (types, finite numbers, known sides and piece ids) and raises
``MalformedInput`` naming the field; whether the rules allow an action (a piece that is not on
the table, the wrong side, a speed over the limit) is the referee's call (``RuleViolation``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import MalformedInput
from .state import PIECE_IDS, parse_number, parse_vec
from .table import SIDES, Vec


@dataclass(frozen=True)
class Action:
    type: ClassVar[str] = ""
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "t":
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def at_time(self, t: float | None) -> Action:
        return dataclasses.replace(self, t=t)


@dataclass(frozen=True)
class Flick(Action):
    """Flick ``piece`` of ``side`` at ``angle_deg`` (0 = +x, counter-clockwise) and ``speed_mm_s``."""

    type: ClassVar[str] = "flick"
    side: str = "home"
    piece: str = ""
    angle_deg: float = 0.0
    speed_mm_s: float = 0.0


@dataclass(frozen=True)
class DeclareShot(Action):
    """The attacker asks to shoot (rulebook §4; MBS "Disparo a la meta")."""

    type: ClassVar[str] = "declare_shot"
    side: str = "home"


@dataclass(frozen=True)
class PlaceGoalkeeper(Action):
    """Put ``side``'s keeper with its centre ``at`` [x, y] mm (rulebook §6)."""

    type: ClassVar[str] = "place_goalkeeper"
    side: str = "home"
    at: Vec = (0.0, 0.0)


BALL_PIECE = "ball"  # the piece id of the ball, accepted by ``place`` only (a goal kick's ball, rulebook §5.1)


@dataclass(frozen=True)
class Place(Action):
    """Put ``piece`` of ``side`` ``at`` [x, y] mm: positioning for a set piece or a goal-kick
    arrangement. ``piece`` may be ``"ball"`` (``BALL_PIECE``): the ball moved by the side to
    move, where the rules allow it (one_touch: within the penalty area at a goal kick)."""

    type: ClassVar[str] = "place"
    side: str = "home"
    piece: str = ""
    at: Vec = (0.0, 0.0)


@dataclass(frozen=True)
class Ready(Action):
    """``side`` confirms that its placing is done (or, defending a shot, authorises it)."""

    type: ClassVar[str] = "ready"
    side: str = "home"


@dataclass(frozen=True)
class Tick(Action):
    """Time passes with no action; turn and period deadlines that have passed fire."""

    type: ClassVar[str] = "tick"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls for cls in (Flick, DeclareShot, PlaceGoalkeeper, Place, Ready, Tick)
}


def parse_action(data: Any, where: str = "action", *, t_offset: float = 0.0) -> Action:
    """Parses one action object; ``t`` (if given) is shifted by ``t_offset`` seconds.

    Raises ``MalformedInput`` naming the field (``actions[0].speed_mm_s``).
    """
    if not isinstance(data, Mapping):
        raise MalformedInput(where, "must be an object")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise MalformedInput(f"{where}.type", f"must be one of {', '.join(ACTION_TYPES)}, not {kind!r}")
    cls = ACTION_TYPES[kind]
    kwargs: dict[str, Any] = {}
    if data.get("t") is not None:
        kwargs["t"] = parse_number(data["t"], f"{where}.t", minimum=0) + t_offset
    names = {f.name for f in dataclasses.fields(cls)}
    if "side" in names:
        side = data.get("side")
        if side not in SIDES:
            raise MalformedInput(f"{where}.side", "must be 'home' or 'away'")
        kwargs["side"] = side
    if "piece" in names:
        piece = data.get("piece")
        if not isinstance(piece, str):
            raise MalformedInput(f"{where}.piece", "must be a piece id string ('1'..'10' or 'gk')")
        if piece not in PIECE_IDS and not (cls is Place and piece == BALL_PIECE):
            also = " ('ball' too for a place)" if cls is Place else ""
            raise MalformedInput(f"{where}.piece", f"no piece {piece!r}: ids are '1'..'10' and 'gk'{also}")
        kwargs["piece"] = piece
    for key in ("angle_deg", "speed_mm_s"):
        if key in names:
            if key not in data:
                raise MalformedInput(f"{where}.{key}", "is required")
            kwargs[key] = parse_number(data[key], f"{where}.{key}")
    if "at" in names:
        if "at" not in data:
            raise MalformedInput(f"{where}.at", "is required")
        kwargs["at"] = parse_vec(data["at"], f"{where}.at")
    return cls(**kwargs)
