"""The referees: one per rule set, behind one interface.

``make_referee(rules, params).apply(state, action) -> Outcome(state, events)``; an action the
rules do not allow raises ``RuleViolation`` (a ``ValueError``) with a reason a player can read
and the section it comes from.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from .base import Outcome, Referee, RuleViolation

# rule-set name -> "module:Class"
REFEREES: dict[str, str] = {
    "one_touch": "simulation.rules.one_touch:OneTouchReferee",
    "mbs": "simulation.rules.mbs:MbsReferee",
}


def make_referee(rules: str, params: Mapping[str, Any] | None = None) -> Referee:
    """The referee of rule set ``rules`` (``"one_touch"`` or ``"mbs"``) with ``params``.

    Raises ``ValueError`` for an unknown rule set or a bad parameter (naming it).
    """
    if rules not in REFEREES:
        raise ValueError(f"unknown rule set {rules!r}: one of {', '.join(REFEREES)}")
    module_name, _, class_name = REFEREES[rules].partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(params or {})


__all__ = ["Outcome", "Referee", "RuleViolation", "make_referee", "REFEREES"]
