"""``OneTouchBot``: a computer player for the Button Soccer Rulebook.

Each turn it looks for a button that can strike the ball towards a target (the goal it
attacks, a team-mate further forward, a free space ahead) along a clear path, and scores the
ball's expected resting point; it declares a shot (§4) when the ball is entirely in the
opponent's half and a strike at goal is on, places its keeper in line with a declared shot,
sets its penalty taker, and otherwise moves its nearest button towards the ball.
"""
from __future__ import annotations

import math
import random

from ..actions import Action, DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from ..rules.base import Referee
from ..state import MatchState
from ..table import Vec, attacked_end, defended_end, end_sign, other_side
from .base import PassiveBot, angle_to, awaiting_ready, goal_centre, movable, path_clear, stop_speed

SET_PIECES = ("free_kick", "free_kick_two_touch", "indirect_free_kick", "throw_in", "throw_in_two_touch",
              "corner_kick", "corner_kick_two_touch", "goal_kick")
TRANSFER = 1.65  # ball speed / button speed in a full-face strike (masses 10 g vs 0.3 g, e = 0.75)


class OneTouchBot:
    name = "one_touch"

    def __init__(self, shoot_range_mm: float = 720.0):
        self.shoot_range = shoot_range_mm

    # ------------------------------------------------------------------ entry points
    def choose(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        side = state.to_move
        t = referee.table
        if state.phase == "shot_declared":
            return self.keeper_for_shot(referee, state, side)
        pen = state.memo.get("penalty") or {}
        if pen.get("stage") == "taker":
            if pen.get("taker") is None:
                return self.place_penalty_taker(referee, state, side)
            return Ready(side=side)
        if awaiting_ready(state):
            return Ready(side=side)
        shot = state.memo.get("shot") or {}
        shooting = bool(shot.get("armed")) or pen.get("stage") == "kick"
        if not shooting and referee.shot_refusal(state, side) is None:
            goal = goal_centre(referee, state, side)
            if abs(goal[0] - state.ball[0]) < self.shoot_range and abs(state.ball[1]) < 400 \
                    and self.best_strike(referee, state, side, rng, shots_only=True) is not None:
                return DeclareShot(side=side)
        if state.phase == "kick_off":
            return self.kick_off_touch(referee, state, side)
        if state.phase in SET_PIECES and state.restart is not None and state.restart.side == side \
                and state.memo.get("placing") is None:
            near = [pid for pid in movable(referee, state, side)
                    if math.dist(state.pieces[side][pid], state.ball) < 70]
            move = self.best_strike(referee, state, side, rng, only=near) if near else None
            if move is not None:
                return move
            if near:
                pid = min(near, key=lambda k: (math.dist(state.pieces[side][k], state.ball), k))
                return Flick(side=side, piece=pid, speed_mm_s=1100.0,
                             angle_deg=round(angle_to(state.pieces[side][pid], state.ball), 4))
            placed = self.place_taker(referee, state, side, rng)
            if placed is not None:
                return placed
        second = state.memo.get("second") or {}
        if second.get("kind") == "kick_off":
            move = self.best_strike(referee, state, side, rng, min_dist=260)
        else:
            move = self.best_strike(referee, state, side, rng, shots_only=shooting)
        if move is not None:
            return move
        del t
        return self.approach(referee, state, side, rng) or PassiveBot().choose(referee, state, rng)

    def fallback(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        side = state.to_move
        if awaiting_ready(state):
            return Ready(side=side)
        return self.approach(referee, state, side, rng, avoid=True) or PassiveBot().choose(referee, state, rng) \
            or Tick()

    # ------------------------------------------------------------------ pieces of play
    def keeper_for_shot(self, referee: Referee, state: MatchState, side: str) -> Action:
        t = referee.table
        end = defended_end(side, state.home_attacks)
        gx = t.goal_line_x(end)
        hx, _ = t.keeper_half
        x = gx - end_sign(end) * (hx + 8)
        bx, by = state.ball
        frac = (x - gx) / (bx - gx) if bx != gx else 0.0
        want = t.keeper_spot((x, by * frac), end)
        now = state.piece(side, "gk")
        if now is None or math.dist(now, want) < 1.0 or not referee.fits(state, side, "gk", want):
            return Ready(side=side)
        return PlaceGoalkeeper(side=side, at=(round(want[0], 3), round(want[1], 3)))

    def place_penalty_taker(self, referee: Referee, state: MatchState, side: str) -> Action:
        t = referee.table
        goal = goal_centre(referee, state, side)
        bx, by = state.ball
        d = math.dist(goal, state.ball)
        ux, uy = (goal[0] - bx) / d, (goal[1] - by) / d
        back = t.button_radius + t.ball_radius + 20
        at = (round(bx - ux * back, 3), round(by - uy * back, 3))
        pieces = sorted((p for p in state.pieces.get(side, {}) if p != "gk"), key=lambda k: (len(k), k))
        return Place(side=side, piece=pieces[0] if pieces else "1", at=at)

    def kick_off_touch(self, referee: Referee, state: MatchState, side: str) -> Action:
        """First touch of a kick-off: a gentle forward nudge that keeps the ball in the circle."""
        fwd = end_sign(attacked_end(side, state.home_attacks))
        pieces = movable(referee, state, side)
        if not pieces:
            return PassiveBot().choose(referee, state, random.Random(0))
        best = min(pieces, key=lambda k: math.dist(state.pieces[side][k], state.ball))
        p = state.pieces[side][best]
        target = (state.ball[0] + fwd * 60.0, state.ball[1] + (25.0 if p[1] < state.ball[1] else -25.0) * 0)
        return self.strike(referee, state, side, best, target, travel=45.0) or \
            Flick(side=side, piece=best, angle_deg=angle_to(p, state.ball), speed_mm_s=330.0)

    def strike(self, referee: Referee, state: MatchState, side: str, pid: str, target: Vec,
               travel: float) -> Flick | None:
        """A flick of ``pid`` that strikes the ball towards ``target`` so it slides about ``travel`` mm."""
        t = referee.table
        p = state.pieces[side][pid]
        b = state.ball
        d = math.dist(b, target)
        if d < 1e-6:
            return None
        ux, uy = (target[0] - b[0]) / d, (target[1] - b[1]) / d
        reach = t.button_radius + t.ball_radius
        q = (b[0] - ux * reach, b[1] - uy * reach)  # the button's centre at the strike
        L = math.dist(p, q)
        if L < 1.0:
            return None
        vx, vy = (q[0] - p[0]) / L, (q[1] - p[1]) / L
        cos = vx * ux + vy * uy
        if cos < 0.55:
            return None
        # the button must not meet the ball before q: its path keeps clear of the ball until then
        if L > 5 and _seg_dist(b, p, (q[0] - vx * 3, q[1] - vy * 3)) < reach - 0.5:
            return None
        if not path_clear(state, p, q, 2 * t.button_radius + 2.0, skip={(side, pid)}):
            return None
        vb = stop_speed(travel, t.ball_friction)
        v_hit = vb / (TRANSFER * cos)
        v0 = math.sqrt(v_hit * v_hit + 2 * t.button_friction * 9810.0 * L)
        v0 = min(v0, referee.max_speed)
        return Flick(side=side, piece=pid, angle_deg=round(angle_to(p, q), 4), speed_mm_s=round(v0, 3))

    def best_strike(self, referee: Referee, state: MatchState, side: str, rng: random.Random, *,
                    shots_only: bool = False, min_dist: float = 0.0,
                    only: list[str] | None = None) -> Flick | None:
        att = attacked_end(side, state.home_attacks)
        s = end_sign(att)
        goal = goal_centre(referee, state, side)
        b = state.ball
        targets: list[tuple[Vec, float, float]] = []  # (target point, travel, bonus)
        keeper = state.piece(other_side(side), "gk")
        for dy in (-45.0, -25.0, 25.0, 45.0, 0.0):
            aim = (goal[0] + s * 30, dy)
            if keeper is not None and abs(keeper[1] - dy) < 30:
                continue
            targets.append((aim, math.dist(b, aim) + 80, 1000.0))
        if not shots_only:
            for pid, p in state.pieces.get(side, {}).items():
                if pid == "gk" or s * (p[0] - b[0]) < 40:
                    continue
                dist = math.dist(b, p)
                if 120 < dist < 600:
                    targets.append(((p[0] + s * 10, p[1]), dist - 50, 0.0))
            for ang in (-40, -20, 0, 20, 40):
                for dist in (200.0, 380.0):
                    a = math.radians(ang) + (0 if s > 0 else math.pi)
                    targets.append(((b[0] + math.cos(a) * dist, b[1] + math.sin(a) * dist), dist, 0.0))
        best, best_score = None, -math.inf
        for pid in (only if only is not None else movable(referee, state, side)):
            p = state.pieces[side][pid]
            if math.dist(p, b) > 420:
                continue
            for target, travel, bonus in targets:
                travel = max(travel, min_dist)
                fl = self.strike(referee, state, side, pid, target, min(travel, 900.0))
                if fl is None:
                    continue
                d = math.dist(b, target)
                rest = (b[0] + (target[0] - b[0]) / d * travel, b[1] + (target[1] - b[1]) / d * travel)
                if bonus:
                    score = bonus - math.dist(p, b) + rng.random() * 5
                else:
                    score = self.evaluate(referee, state, side, rest) + rng.random() * 5
                if score > best_score:
                    best, best_score = fl, score
        if shots_only:
            return best if best is not None and best_score > 500 else None
        return best

    def place_taker(self, referee: Referee, state: MatchState, side: str, rng: random.Random) -> Action | None:
        """At a set piece, picks up a button and puts it by the ball, behind it towards the
        best open direction (rulebook §5: a button may be picked up to take a set piece)."""
        t = referee.table
        b = state.ball
        pieces = movable(referee, state, side)
        if not pieces:
            return None
        pid = min(pieces, key=lambda k: (math.dist(state.pieces[side][k], b), k))
        back = t.button_radius + t.ball_radius + 12
        best, best_score = None, -math.inf
        for ang in range(0, 360, 15):
            a = math.radians(ang)
            ux, uy = math.cos(a), math.sin(a)
            at = (round(b[0] - ux * back, 3), round(b[1] - uy * back, 3))
            if not t.field.contains_disc(at, t.button_radius):
                continue
            score = self.evaluate(referee, state, side, (b[0] + ux * 300, b[1] + uy * 300))
            if score > best_score and referee.fits(state.with_piece(side, pid, None), side, pid, at, margin=1.0):
                best, best_score = Place(side=side, piece=pid, at=at), score
        return best

    def evaluate(self, referee: Referee, state: MatchState, side: str, rest: Vec) -> float:
        t = referee.table
        s = end_sign(attacked_end(side, state.home_attacks))
        if abs(rest[1]) > t.half_width - 15 or abs(rest[0]) > t.half_length - 15:
            return -800.0
        score = s * rest[0]
        if t.wholly_in_goal_area(rest, t.ball_radius, "+x") or t.wholly_in_goal_area(rest, t.ball_radius, "-x"):
            score -= 600
        opp = other_side(side)
        for p in state.pieces.get(opp, {}).values():
            d = math.dist(p, rest)
            if d < 90:
                score -= (90 - d) * 3
        for pid, p in state.pieces.get(side, {}).items():
            d = math.dist(p, rest)
            if pid != "gk" and d < 110:
                score += 40
        return score

    def approach(self, referee: Referee, state: MatchState, side: str, rng: random.Random,
                 avoid: bool = False) -> Flick | None:
        """Moves the nearest free button to a spot behind the ball, stopping short of it."""
        t = referee.table
        s = end_sign(attacked_end(side, state.home_attacks))
        b = state.ball
        spots = [(b[0] - s * 80, b[1] + dy) for dy in (0.0, 60.0, -60.0)]
        r = t.button_radius + 2
        spots = [q for q in spots if not t.touches_goal_area(q, r, "+x") and not t.touches_goal_area(q, r, "-x")
                 and t.field.contains_disc(q, t.button_radius)]
        options = []
        for pid in movable(referee, state, side):
            p = state.pieces[side][pid]
            for spot in spots:
                L = math.dist(p, spot)
                if L < 15:
                    continue
                if not path_clear(state, p, spot, 2 * t.button_radius + 4, skip={(side, pid)}):
                    continue
                if _seg_dist(b, p, spot) < t.button_radius + t.ball_radius + 6:
                    continue
                options.append((L + rng.random(), pid, spot))
        if not options:
            if avoid:
                return None
            return None
        options.sort()
        _, pid, spot = options[0]
        p = state.pieces[side][pid]
        travel = min(math.dist(p, spot), 700.0)
        return Flick(side=side, piece=pid, angle_deg=round(angle_to(p, spot), 4),
                     speed_mm_s=round(min(stop_speed(travel, t.button_friction), referee.max_speed), 3))


def _seg_dist(p: Vec, a: Vec, b: Vec) -> float:
    from .base import seg_point_distance
    return seg_point_distance(p, a, b)


__all__ = ["OneTouchBot"]
