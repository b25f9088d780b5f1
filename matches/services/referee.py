"""The referee an online match is played under, and its starting position.

``referee_for(rule_set, params)`` is ``simulation.rules.make_referee`` (one instance per rule set
and parameters, reused: a referee is pure), unless ``settings.MATCHES_REFEREE_OVERRIDE`` names
another class (``"module:Class"``, for tests and benchmarks). ``kickoff_state()`` is the
position of the 22 pieces at the kick-off of a match (SIMULATION_CONTRACT.md §1-2 frame).
"""
from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from django.conf import settings

from simulation.rules import Referee, make_referee
from simulation.state import MatchState, Restart

# Home defends the -x end in the first half (home_attacks "+x"); away mirrors it.
HOME_LINEUP: dict[str, tuple[float, float]] = {
    "gk": (-820.0, 0.0),
    "1": (-620.0, -330.0), "2": (-650.0, -110.0), "3": (-650.0, 110.0), "4": (-620.0, 330.0),
    "5": (-400.0, -250.0), "6": (-420.0, 0.0), "7": (-400.0, 250.0),
    "8": (-200.0, -300.0), "9": (-40.0, 0.0), "10": (-200.0, 300.0),
}


def kickoff_state(*, kick_off_side: str = "home") -> MatchState:
    """All 22 pieces in place, the ball on the centre spot, ``kick_off_side`` to kick off."""
    away = {pid: (-x if pid != "9" else 200.0, -y) for pid, (x, y) in HOME_LINEUP.items()}
    if kick_off_side == "away":
        home = {pid: (x if pid != "9" else -200.0, y) for pid, (x, y) in HOME_LINEUP.items()}
        away["9"] = (40.0, 0.0)
    else:
        home = dict(HOME_LINEUP)
    return MatchState(ball=(0.0, 0.0), pieces={}).replace(
        pieces={"home": home, "away": away},
        phase="kick_off", to_move=kick_off_side, period="first_half", clock_s=0.0,
        restart=Restart(kind="kick_off", side=kick_off_side, at=(0.0, 0.0)), turn_started_s=0.0,
    )


@lru_cache(maxsize=64)
def _referee(rule_set: str, params_json: str, override: str) -> Referee:
    params = json.loads(params_json)
    if override:
        module_name, _, class_name = override.partition(":")
        return getattr(importlib.import_module(module_name), class_name)(params)
    return make_referee(rule_set, params)


def referee_for(rule_set: str, params: Mapping[str, Any]) -> Referee:
    """The referee of ``rule_set`` with ``params``; raises ``ValueError`` for a bad rule set."""
    return _referee(rule_set, json.dumps(dict(params), sort_keys=True), settings.MATCHES_REFEREE_OVERRIDE)
