"""The computer player: candidate actions for a side, best first.

It asks the rule set's bot in ``simulation.bots`` (``choose``, then ``fallback``); after those
(or without a bot, or with another referee) it falls back to plain play: say
``ready`` when a placing is awaited, else flick the button nearest the ball towards it at a
speed that carries it on towards the opponent's goal. The caller tries the candidates in order
with the referee and keeps the first that the rules accept.
"""
from __future__ import annotations

import importlib
import logging
import math
import random
from collections.abc import Mapping
from typing import Any

from simulation.rules import Referee
from simulation.state import MatchState
from simulation.table import attacked_end, end_sign

logger = logging.getLogger(__name__)


BOTS = {"one_touch": ("simulation.bots", "OneTouchBot"), "mbs": ("simulation.bots.mbs", "MbsBot")}


def _bots_choice(referee, state: MatchState, side: str, rule_set: str, seed: int) -> list[dict]:
    """The choice (then the fallback) of the rule set's bot in ``simulation.bots``, if any."""
    if not isinstance(referee, Referee) or rule_set not in BOTS:
        return []
    module_name, class_name = BOTS[rule_set]
    try:
        bot = getattr(importlib.import_module(module_name), class_name)()
    except (ImportError, AttributeError):
        return []
    out = []
    for chooser in (bot.choose, bot.fallback):
        try:
            action = chooser(referee, state, random.Random(seed))
        except Exception:  # noqa: BLE001 - a bot that fails leaves the plain play to the computer
            logger.exception("the %s bot failed", rule_set)
            continue
        if action is not None and action.type != "tick" and getattr(action, "side", side) == side:
            out.append({k: v for k, v in action.to_json().items() if k != "t"})
    return out


def candidate_actions(state: MatchState, side: str, rule_set: str, params: Mapping[str, Any], *,
                      referee=None, seed: int = 0) -> list[dict]:
    """Actions (JSON, without ``t``) the computer would play for ``side``, best first.
    ``seed`` makes the bot's choice reproducible (the match id and log length)."""
    out: list[dict] = _bots_choice(referee, state, side, rule_set, seed)
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
