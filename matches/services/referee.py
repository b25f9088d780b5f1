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
from dataclasses import fields
from functools import lru_cache
from typing import Any

from django.conf import settings

from simulation.rules import Referee, make_referee
from simulation.rules.base import DEFAULT_PARAMS
from simulation.rules.mbs import MBS_DEFAULTS
from simulation.state import MatchState, Restart
from simulation.table import Table

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


# --- checking rule-set parameters before they are stored ----------------------------------------


def _known_params() -> frozenset[str]:
    return frozenset(DEFAULT_PARAMS) | frozenset(MBS_DEFAULTS) | frozenset(f.name for f in fields(Table))


KNOWN_PARAMS = _known_params()
# the match format (§3) a competition stores in its own fields, passed to the referee as params
FORMAT_PARAMS = ("halves", "half_minutes", "extra_time_minutes", "shootout_kicks")


class RuleParamsError(ValueError):
    """Parameters a referee refuses; ``field`` is the parameter's name (or ``"rule_params"``)."""

    def __init__(self, message: str, field: str = "rule_params"):
        super().__init__(message)
        self.field = field


def check_rule_params(rule_set: str, params: Any) -> Referee:
    """The real referee of ``rule_set`` built with ``params`` (never the test override), so that
    parameters are checked before a match is stored or played. Raises ``RuleParamsError`` (a
    ``ValueError``) for an object that is not one, an unknown key, or a value the referee refuses;
    its ``field`` is the parameter's name when the referee named one."""
    if not isinstance(params, Mapping):
        raise RuleParamsError("rule_params must be an object")
    unknown = sorted(str(key) for key in params if key not in KNOWN_PARAMS)
    if unknown:
        raise RuleParamsError(f"unknown rule parameter(s): {', '.join(unknown)}")
    try:
        return make_referee(rule_set, params)
    except (OverflowError, TypeError) as exc:
        raise RuleParamsError(f"a rule parameter is out of range: {exc}") from exc
    except ValueError as exc:
        message = str(exc)
        field = "rule_params"
        if message.startswith("params."):
            field = message[len("params."):].split(" ", 1)[0]
        raise RuleParamsError(message, field) from exc


def competition_params(
    *, halves: int, half_minutes: int, extra_time: bool, extra_time_minutes: int, shootout: bool,
    shootout_kicks: int, rule_params: Mapping[str, Any] | None, knockout: bool = True,
) -> dict[str, Any]:
    """The parameters a competition's match is played under: its match format, then its
    ``rule_params`` (which win)."""
    params: dict[str, Any] = {
        "halves": halves, "half_minutes": half_minutes, "knockout": knockout,
        # a switched-off extra time or shoot-out is a length of nothing
        "extra_time_minutes": extra_time_minutes if extra_time else 0,
        "shootout_kicks": shootout_kicks if shootout else 0,
    }
    params.update(rule_params or {})
    return params


def check_competition_params(rule_set: str, **match_format: Any) -> None:
    """Checks a competition's match settings (``competition_params``' arguments) with the referee.

    Raises ``RuleParamsError``: its ``field`` is the competition field to blame (a match-format
    field, or ``rule_params`` when the parameter came from there or has no field of its own)."""
    rule_params = match_format.get("rule_params")
    if not isinstance(rule_params, Mapping):
        raise RuleParamsError("rule_params must be an object")
    try:
        check_rule_params(rule_set, competition_params(**match_format))
    except RuleParamsError as exc:
        if exc.field not in FORMAT_PARAMS or exc.field in rule_params:
            exc.field = "rule_params"
        raise
