"""The computer player: candidate actions for a side, best first.

It asks ``simulation.bots`` when that module offers ``choose_action(state, side, rules=...,
params=...)``; otherwise (and after its choice is refused) it falls back to plain play: say
``ready`` when a placing is awaited, else flick the button nearest the ball towards it at a
speed that carries it on towards the opponent's goal. The caller tries the candidates in order
with the referee and keeps the first that the rules accept.
"""
from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import Any

from simulation.state import MatchState
from simulation.table import attacked_end, end_sign


def _bots_choice(state: MatchState, side: str, rule_set: str, params: Mapping[str, Any]) -> dict | None:
    try:
        bots = importlib.import_module("simulation.bots")
    except ImportError:
        return None
    choose = getattr(bots, "choose_action", None)
    if choose is None:
        return None
    try:
        action = choose(state, side, rules=rule_set, params=dict(params))
    except Exception:  # noqa: BLE001 - a bot that fails leaves the fallback to play
        return None
    if action is None:
        return None
    return action if isinstance(action, dict) else action.to_json()


def candidate_actions(state: MatchState, side: str, rule_set: str, params: Mapping[str, Any]) -> list[dict]:
    """Actions (JSON, without ``t``) the computer would play for ``side``, best first."""
    out: list[dict] = []
    chosen = _bots_choice(state, side, rule_set, params)
    if chosen is not None:
        chosen = {k: v for k, v in chosen.items() if k != "t"}
        out.append(chosen)
    if state.phase == "shot_declared":
        out.append({"type": "ready", "side": side})
    pieces = state.pieces.get(side, {})
    goal_x = 835.0 * end_sign(attacked_end(side, state.home_attacks))
    ranked = sorted(
        (pid for pid in pieces if pid != "gk"),
        key=lambda pid: math.hypot(pieces[pid][0] - state.ball[0], pieces[pid][1] - state.ball[1]),
    )
    max_speed = float(params.get("max_flick_speed_mm_s", 2500))
    for pid in ranked[:3]:
        px, py = pieces[pid]
        bx, by = state.ball
        to_ball = math.degrees(math.atan2(by - py, bx - px))
        to_goal = math.degrees(math.atan2(0.0 - by, goal_x - bx))
        # aim a little towards the goal; slower when the ball is close
        diff = (to_goal - to_ball + 180.0) % 360.0 - 180.0
        angle = round(to_ball + max(-15.0, min(15.0, diff * 0.25)), 3)
        dist = math.hypot(bx - px, by - py)
        speed = round(min(max_speed * 0.9, 600.0 + dist * 2.0), 1)
        out.append({"type": "flick", "side": side, "piece": pid, "angle_deg": angle, "speed_mm_s": speed})
    out.append({"type": "ready", "side": side})
    return out
