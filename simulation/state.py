"""The state of a match on the table: an immutable value, JSON in and out, with a stable hash.

Shape (SIMULATION_CONTRACT.md §4): ``ball`` [x, y] mm; ``pieces`` {side: {piece id: [x, y]}}
(only the pieces on the table; ``"gk"`` is the keeper's centre); ``expelled`` {side: [ids]};
``score`` {side: goals}; ``phase``, ``to_move``, ``home_attacks``, ``period``, ``clock_s``
(seconds of match time since the kick-off of the match; it runs on across periods as a football
clock does); ``restart`` (``None`` or kind/side/at). ``turn_started_s`` is the clock time at
which the current turn (or the pending restart, or the wait for a keeper) began: deadlines run
from it. ``memo`` is the referee's own bookkeeping (JSON values only), kept in the state so
that a match is exactly the fold of ``apply`` over its actions.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import MalformedInput
from .table import SIDES, Vec

PHASES = (
    "kick_off", "open_play", "shot_declared", "half_time", "full_time",
    # a restart kind while one is pending:
    "free_kick", "free_kick_two_touch", "indirect_free_kick", "penalty_kick", "throw_in",
    "throw_in_two_touch", "corner_kick", "corner_kick_two_touch", "goal_kick",
)
RESTART_KINDS = (
    "kick_off", "free_kick", "free_kick_two_touch", "indirect_free_kick", "penalty_kick",
    "throw_in", "throw_in_two_touch", "corner_kick", "corner_kick_two_touch", "goal_kick",
)
PERIODS = ("first_half", "second_half", "extra_time_first", "extra_time_second", "shootout")
PIECE_IDS = tuple(str(i) for i in range(1, 11)) + ("gk",)
POSITION_DECIMALS = 3  # positions are stored to the micrometre


def freeze(value: Any) -> Any:
    """A deep read-only copy of a JSON value: dicts become mappings, lists tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain JSON value of something ``freeze`` made (dicts and lists)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def round_pos(p: Vec) -> Vec:
    """A position rounded to the stored precision (0.001 mm); ``-0.0`` becomes ``0.0``."""
    return (round(p[0], POSITION_DECIMALS) + 0.0, round(p[1], POSITION_DECIMALS) + 0.0)


@dataclass(frozen=True)
class Restart:
    """A pending restart: ``kind`` (contract §5), the ``side`` that takes it, the spot ``at``."""

    kind: str
    side: str
    at: Vec | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "side": self.side, "at": list(self.at) if self.at else None}


@dataclass(frozen=True, eq=True)
class MatchState:
    ball: Vec
    pieces: Mapping[str, Mapping[str, Vec]]
    phase: str = "open_play"
    to_move: str = "home"
    home_attacks: str = "+x"
    period: str = "first_half"
    clock_s: float = 0.0
    score: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({"home": 0, "away": 0}))
    expelled: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({"home": (), "away": ()}))
    restart: Restart | None = None
    turn_started_s: float | None = None
    memo: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    __hash__ = None  # type: ignore[assignment]  # compare by value; use state_hash() for a digest

    # -- convenience ----------------------------------------------------------------------
    def replace(self, **changes: Any) -> MatchState:
        """A copy with ``changes``; mappings given as plain dicts are frozen."""
        if "pieces" in changes:
            changes["pieces"] = _freeze_pieces(changes["pieces"])
        for key in ("score", "memo"):
            if key in changes:
                changes[key] = freeze(changes[key])
        if "expelled" in changes:
            changes["expelled"] = MappingProxyType(
                {s: tuple(changes["expelled"].get(s, ())) for s in SIDES})
        if "ball" in changes:
            changes["ball"] = (float(changes["ball"][0]), float(changes["ball"][1]))
        return dataclasses.replace(self, **changes)

    def with_memo(self, **changes: Any) -> MatchState:
        """A copy whose memo has ``changes`` (a value of ``None`` removes the key)."""
        memo = dict(self.memo)
        for key, value in changes.items():
            if value is None:
                memo.pop(key, None)
            else:
                memo[key] = value
        return self.replace(memo=memo)

    def piece(self, side: str, piece: str) -> Vec | None:
        """Where ``piece`` of ``side`` stands, or ``None`` when it is not on the table."""
        return self.pieces.get(side, {}).get(piece)

    def with_piece(self, side: str, piece: str, at: Vec | None) -> MatchState:
        """A copy with ``piece`` moved to ``at`` (``None`` takes it off the table)."""
        pieces = {s: dict(self.pieces.get(s, {})) for s in SIDES}
        if at is None:
            pieces[side].pop(piece, None)
        else:
            pieces[side][piece] = at
        return self.replace(pieces=pieces)

    def plain_pieces(self) -> dict[str, dict[str, Vec]]:
        return {s: dict(self.pieces.get(s, {})) for s in SIDES}

    # -- JSON -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The state as the contract's JSON (lists for positions, pieces sorted by id)."""
        return {
            "phase": self.phase,
            "to_move": self.to_move,
            "home_attacks": self.home_attacks,
            "period": self.period,
            "clock_s": self.clock_s,
            "score": {s: self.score.get(s, 0) for s in SIDES},
            "ball": [self.ball[0], self.ball[1]],
            "pieces": {s: {pid: [p[0], p[1]] for pid, p in sorted(self.pieces.get(s, {}).items(),
                                                                   key=lambda kv: _piece_order(kv[0]))}
                       for s in SIDES},
            "expelled": {s: list(self.expelled.get(s, ())) for s in SIDES},
            "restart": self.restart.to_json() if self.restart else None,
            "turn_started_s": self.turn_started_s,
            "memo": thaw(self.memo),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "state") -> MatchState:
        """Parses the contract's state JSON; only ``ball`` and ``pieces`` are required.

        Raises ``MalformedInput`` naming the field (``state.pieces.home.7``) when a field is
        missing or of the wrong type or value.
        """
        if not isinstance(data, Mapping):
            raise MalformedInput(where, "must be an object")
        for key in ("ball", "pieces"):
            if key not in data:
                raise MalformedInput(f"{where}.{key}", "is required")
        ball = parse_vec(data["ball"], f"{where}.ball")
        raw_pieces = data["pieces"]
        if not isinstance(raw_pieces, Mapping):
            raise MalformedInput(f"{where}.pieces", "must be an object {side: {piece: [x, y]}}")
        pieces: dict[str, dict[str, Vec]] = {s: {} for s in SIDES}
        for side, group in raw_pieces.items():
            if side not in SIDES:
                raise MalformedInput(f"{where}.pieces.{side}", "side must be 'home' or 'away'")
            if not isinstance(group, Mapping):
                raise MalformedInput(f"{where}.pieces.{side}", "must be an object {piece: [x, y]}")
            for pid, pos in group.items():
                if pid not in PIECE_IDS:
                    raise MalformedInput(f"{where}.pieces.{side}.{pid}", "piece id must be '1'..'10' or 'gk'")
                pieces[side][pid] = parse_vec(pos, f"{where}.pieces.{side}.{pid}")
        kwargs: dict[str, Any] = {"ball": ball, "pieces": pieces}
        _choice(data, "phase", PHASES, where, kwargs)
        _choice(data, "to_move", SIDES, where, kwargs)
        _choice(data, "home_attacks", ("+x", "-x"), where, kwargs)
        _choice(data, "period", PERIODS, where, kwargs)
        if "clock_s" in data:
            kwargs["clock_s"] = parse_number(data["clock_s"], f"{where}.clock_s", minimum=0)
        if data.get("turn_started_s") is not None:
            kwargs["turn_started_s"] = parse_number(data["turn_started_s"], f"{where}.turn_started_s", minimum=0)
        if "score" in data:
            score = data["score"]
            if not isinstance(score, Mapping):
                raise MalformedInput(f"{where}.score", "must be an object {home: n, away: n}")
            parsed = {}
            for s in SIDES:
                value = score.get(s, 0)
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise MalformedInput(f"{where}.score.{s}", "must be a whole number >= 0")
                parsed[s] = value
            kwargs["score"] = parsed
        if "expelled" in data:
            expelled = data["expelled"]
            if not isinstance(expelled, Mapping):
                raise MalformedInput(f"{where}.expelled", "must be an object {home: [ids], away: [ids]}")
            parsed_exp = {}
            for s in SIDES:
                ids = expelled.get(s, [])
                if not isinstance(ids, list) or not all(isinstance(i, str) and i in PIECE_IDS for i in ids):
                    raise MalformedInput(f"{where}.expelled.{s}", "must be a list of piece ids")
                parsed_exp[s] = ids
            kwargs["expelled"] = parsed_exp
        if data.get("restart") is not None:
            kwargs["restart"] = parse_restart(data["restart"], f"{where}.restart")
        if "memo" in data and data["memo"] is not None:
            if not isinstance(data["memo"], Mapping):
                raise MalformedInput(f"{where}.memo", "must be an object")
            kwargs["memo"] = data["memo"]
        return cls(ball=ball, pieces=_freeze_pieces(pieces)).replace(
            **{k: v for k, v in kwargs.items() if k not in ("ball", "pieces")})

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON of the state: equal states give equal hashes."""
        return hashlib.sha256(canonical_json(self.to_json()).encode()).hexdigest()


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, floats by their shortest repr: byte-stable across processes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _piece_order(pid: str) -> tuple[int, str]:
    return (int(pid), "") if pid.isdigit() else (99, pid)


def _freeze_pieces(pieces: Mapping[str, Mapping[str, Vec]]) -> Mapping[str, Mapping[str, Vec]]:
    return MappingProxyType({
        s: MappingProxyType({pid: (float(p[0]), float(p[1]))
                             for pid, p in sorted(pieces.get(s, {}).items(), key=lambda kv: _piece_order(kv[0]))})
        for s in SIDES
    })


def parse_number(value: Any, where: str, *, minimum: float | None = None) -> float:
    """A finite JSON number (not a bool, not NaN); raises ``MalformedInput`` naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedInput(where, f"must be a finite number, not {_short(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        raise MalformedInput(where, "must be a finite number, not an integer that large") from None
    if not math.isfinite(number):
        raise MalformedInput(where, f"must be a finite number, not {value!r}")
    if minimum is not None and number < minimum:
        raise MalformedInput(where, f"must be >= {minimum}, not {value!r}")
    return number


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_vec(value: Any, where: str) -> Vec:
    """An ``[x, y]`` pair of finite numbers in mm."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise MalformedInput(where, "must be a pair [x, y] of numbers in mm")
    return (parse_number(value[0], f"{where}[0]"), parse_number(value[1], f"{where}[1]"))


def parse_restart(value: Any, where: str) -> Restart:
    if not isinstance(value, Mapping):
        raise MalformedInput(where, "must be an object {kind, side, at}")
    kind = value.get("kind")
    if kind not in RESTART_KINDS:
        raise MalformedInput(f"{where}.kind", f"must be one of {', '.join(RESTART_KINDS)}")
    side = value.get("side")
    if side not in SIDES:
        raise MalformedInput(f"{where}.side", "must be 'home' or 'away'")
    at = value.get("at")
    return Restart(kind=kind, side=side, at=None if at is None else parse_vec(at, f"{where}.at"))


def _choice(data: Mapping, key: str, allowed: tuple, where: str, out: dict) -> None:
    if key in data:
        if data[key] not in allowed:
            raise MalformedInput(f"{where}.{key}", f"must be one of {', '.join(allowed)}, not {data[key]!r}")
        out[key] = data[key]
