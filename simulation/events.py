"""What the referee reports: events with the section of the rules that decided them.

An event has a ``type`` (SIMULATION_CONTRACT.md §5) and, where it applies, ``side`` (who did
it, unless the type says otherwise), ``piece``, ``at`` [x, y] mm and ``rule`` ("rulebook 9.3",
"MBS Falta"); anything else goes in ``extra`` (``kind``, ``reason``, ``own_goal``, ``period``...)
and is flattened into the JSON object. ``message`` is what the event says in words:
``{"key", "params"}``, a key of the referee's catalogue (``simulation.rules.messages``) and the
values of its placeholders.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .table import Vec

EVENT_TYPES = (
    "touch", "goal", "invalid_goal", "shot_declared", "shot_missed", "foul", "technical_foul",
    "restart", "possession_lost", "inversion", "turn_timeout", "piece_out", "expulsion",
    "disqualification", "period_end", "full_time", "piece_moved",
)


@dataclass(frozen=True)
class RuleEvent:
    type: str
    side: str | None = None
    piece: str | None = None
    at: Vec | None = None
    rule: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    message: Mapping[str, Any] | None = None

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def make(cls, type: str, *, side: str | None = None, piece: str | None = None,
             at: Vec | None = None, rule: str | None = None, message: Mapping[str, Any] | None = None,
             **extra: Any) -> RuleEvent:
        if at is not None:
            at = (round(float(at[0]), 3) + 0.0, round(float(at[1]), 3) + 0.0)
        if message is not None:
            message = MappingProxyType({"key": message["key"],
                                        "params": MappingProxyType(dict(message["params"]))})
        return cls(type=type, side=side, piece=piece, at=at, rule=rule,
                   extra=MappingProxyType(dict(extra)), message=message)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.side is not None:
            out["side"] = self.side
        if self.piece is not None:
            out["piece"] = self.piece
        if self.at is not None:
            out["at"] = [self.at[0], self.at[1]]
        if self.rule is not None:
            out["rule"] = self.rule
        for key, value in self.extra.items():
            out[key] = list(value) if isinstance(value, tuple) else value
        if self.message is not None:
            out["message"] = {"key": self.message["key"], "params": dict(self.message["params"])}
        return out
