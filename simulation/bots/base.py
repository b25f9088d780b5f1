"""What every computer player shares: geometry for aiming a flick, the passive player, and a
whole match played bot against bot.

A bot is an object with ``choose(referee, state, rng) -> Action`` (``t`` left ``None``; the
match loop stamps the clock) and ``fallback(referee, state, rng) -> Action`` used when its
choice is refused. Bots are deterministic given the ``random.Random`` they are handed: no wall
clock, no global randomness.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable

from ..actions import Action, Flick, Ready, Tick
from ..rules.base import Referee, RuleViolation
from ..state import MatchState
from ..table import SIDES, Vec, attacked_end, defended_end, end_sign

G = 9810.0


def stop_speed(distance_mm: float, friction: float) -> float:
    """The speed (mm/s) at which a piece sliding with Coulomb friction stops after ``distance_mm``."""
    return math.sqrt(max(0.0, 2 * friction * G * distance_mm))


def angle_to(p: Vec, q: Vec) -> float:
    return math.degrees(math.atan2(q[1] - p[1], q[0] - p[0]))


def seg_point_distance(p: Vec, a: Vec, b: Vec) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    L2 = dx * dx + dy * dy
    if L2 == 0:
        return math.dist(p, a)
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def path_clear(state: MatchState, a: Vec, b: Vec, clearance: float, skip: Iterable[tuple[str, str]] = ()) -> bool:
    """No piece centre within ``clearance`` of the segment a->b (the ``skip`` pieces aside)."""
    skip = set(skip)
    for s in SIDES:
        for pid, p in state.pieces.get(s, {}).items():
            if (s, pid) in skip:
                continue
            if seg_point_distance(p, a, b) < clearance:
                return False
    return True


def movable(referee: Referee, state: MatchState, side: str) -> list[str]:
    """The buttons of ``side`` the referee would let flick now (by the memo's restrictions)."""
    locked = {tuple(x) for x in state.memo.get("locked", ())}
    second = state.memo.get("second") or {}
    special = state.memo.get("special") or {}
    pen = state.memo.get("penalty") or {}
    out = []
    for pid in sorted(state.pieces.get(side, {}), key=lambda k: (len(k), k)):
        if pid == "gk" or (side, pid) in locked and state.phase == "open_play":
            continue
        if second.get("side") == side and second.get("piece") == pid:
            continue
        if special.get("side") == side and special.get("piece") == pid:
            continue
        if pen.get("taker") and pid != pen["taker"]:
            continue
        out.append(pid)
    return out


def goal_centre(referee: Referee, state: MatchState, side: str) -> Vec:
    return (referee.table.goal_line_x(attacked_end(side, state.home_attacks)), 0.0)


class PassiveBot:
    """The smallest legal move each turn: a barely moving flick of the button farthest from the
    ball; ``ready`` whenever a confirmation is awaited."""

    name = "passive"

    def choose(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        side = state.to_move
        if awaiting_ready(state):
            return Ready(side=side)
        pieces = movable(referee, state, side) or [p for p in state.pieces.get(side, {}) if p != "gk"]
        if not pieces:
            return Tick()
        pid = max(pieces, key=lambda k: (math.dist(state.pieces[side][k], state.ball), k))
        back = defended_end(side, state.home_attacks)
        return Flick(side=side, piece=pid, angle_deg=0.0 if back == "+x" else 180.0, speed_mm_s=1.0)

    def fallback(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        return Tick()


def awaiting_ready(state: MatchState) -> bool:
    """A confirmation (``ready``) is awaited from the side to move."""
    if state.phase == "shot_declared":
        return True
    if (state.memo.get("placing") or {}).get("stage") is not None:
        return True
    pen = state.memo.get("penalty") or {}
    return pen.get("stage") in ("taker", "keeper")


def play_match(referee: Referee, home_bot, away_bot, seconds_per_action: float = 5.0, seed: int = 0,
               *, max_actions: int = 20000, state: MatchState | None = None):
    """Plays a whole match bot against bot from ``referee.initial_state()``; each action takes
    ``seconds_per_action`` of match clock. Returns ``(final_state, actions)``: the actions as
    applied (``t`` stamped), so that folding ``referee.apply`` over them replays the match.
    Deterministic given ``seed``. A refused choice is retried with the bot's fallback, then
    with a ``tick`` to the turn's deadline (delay of game)."""
    rng = random.Random(seed)
    bots = {"home": home_bot, "away": away_bot}
    state = state if state is not None else referee.initial_state()
    log: list[Action] = []
    for _ in range(max_actions):
        if state.phase == "full_time":
            break
        bot = bots[state.to_move]
        t = round(state.clock_s + seconds_per_action, 6)
        tried = [bot.choose, bot.fallback]
        applied = False
        for chooser in tried:
            action = chooser(referee, state, rng).at_time(t)
            try:
                outcome = referee.apply(state, action)
            except RuleViolation:
                continue
            state = outcome.state
            log.append(action)
            applied = True
            break
        if not applied:
            deadline = referee.turn_deadline(state)
            action = Tick(t=max(t, deadline if deadline is not None else t))
            state = referee.apply(state, action).state
            log.append(action)
    return state, log


def replay(referee: Referee, actions: Iterable[Action], state: MatchState | None = None) -> MatchState:
    """Folds ``referee.apply`` over ``actions`` from the initial state."""
    state = state if state is not None else referee.initial_state()
    for action in actions:
        state = referee.apply(state, action).state
    return state


__all__ = ["PassiveBot", "play_match", "replay", "awaiting_ready", "movable", "stop_speed",
           "angle_to", "path_clear", "goal_centre", "end_sign"]
