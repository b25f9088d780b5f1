"""What every referee shares. (Skeleton: the one-touch issue fills in the shared machinery.)"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..events import RuleEvent
from ..state import MatchState
from ..table import Table


class RuleViolation(ValueError):
    """A well-formed action that the rules refuse. ``reason`` is for the player; ``rule`` the
    section (``"rulebook 4"``, ``"MBS Disparo a la meta"``)."""

    def __init__(self, reason: str, rule: str | None = None):
        self.reason = reason
        self.rule = rule
        super().__init__(f"{reason} ({rule})" if rule else reason)


@dataclass(frozen=True)
class Outcome:
    """The state after an action and the events it caused, in order. ``flicks`` holds the
    ``FlickResult`` of each flick the action resolved (for frames and replays)."""

    state: MatchState
    events: tuple[RuleEvent, ...] = ()
    flicks: tuple = ()


class Referee:
    """Base class: ``apply(state, action) -> Outcome``; never mutates ``state``."""

    name = "base"

    def __init__(self, params: Mapping[str, Any]):
        self.params = dict(params)
        self.table = Table.from_params(self.params)

    def apply(self, state: MatchState, action: Action) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError
