"""``OneTouchBot``: a computer player for the Button Soccer Rulebook.

Each turn it aims strikes of the ball by geometry (towards the goal it attacks, a team-mate
further forward, a shooting spot in front of the goal, free space ahead; the button sent to
the point behind the ball, Coulomb friction giving the speed) and moves of a button behind the
ball, then tries the most promising on a frameless copy of the referee (``apply`` is pure) and
keeps the one whose outcome is best: a goal, no foul of its own, the ball brought towards the
shooting spot with a strike at goal on for the next turn. It declares a shot (§4) when the
ball is entirely in the opponent's half and a strike tried with the opponent's keeper put in
its line goes in; places its keeper in line with a declared shot, sets its penalty taker and
set-piece takers. Deterministic given the ``random.Random`` it is handed.
"""
from __future__ import annotations

import copy
import math
import random

from ..actions import Action, DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from ..rules.base import Referee, RuleViolation
from ..state import MatchState
from ..table import Vec, attacked_end, defended_end, end_sign, other_side
from .base import (
    PassiveBot,
    angle_to,
    awaiting_ready,
    goal_centre,
    movable,
    path_clear,
    seg_point_distance,
    stop_speed,
)

SET_PIECES = ("free_kick", "free_kick_two_touch", "indirect_free_kick", "throw_in", "throw_in_two_touch",
              "corner_kick", "corner_kick_two_touch", "goal_kick")
TRANSFER = 1.65  # ball speed / button speed in a full-face strike (masses 10 g vs 0.3 g, e = 0.75)
GOAL = 100000.0  # the value of a flick that scores


class OneTouchBot:
    name = "one_touch"

    def __init__(self, shoot_range_mm: float = 600.0, tries: int = 7, shot_tries: int = 10):
        self.shoot_range = shoot_range_mm
        self.tries = tries
        self.shot_tries = shot_tries

    # ------------------------------------------------------------------ entry points
    def choose(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        side = state.to_move
        if state.phase == "shot_declared":
            return self.keeper_for_shot(referee, state, side)
        pen = state.memo.get("penalty") or {}
        if pen.get("stage") == "taker":
            if pen.get("taker") is None:
                return self.place_penalty_taker(referee, state, side)
            return Ready(side=side)
        placing = state.memo.get("placing") or {}
        if placing.get("kind") == "goal_kick" and placing.get("stage") is not None:
            move = self.arrange(referee, state, side)
            if move is not None:
                return move
        if awaiting_ready(state):
            return Ready(side=side)
        shot = state.memo.get("shot") or {}
        shooting = bool(shot.get("armed")) or pen.get("stage") == "kick"
        if not shooting and referee.shot_refusal(state, side) is None:
            goal = goal_centre(referee, state, side)
            if abs(goal[0] - state.ball[0]) < self.shoot_range and abs(state.ball[1]) < 330 \
                    and self.goal_on(referee, state, side, rng):
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
            # rulebook §5: a button is picked up for a free kick, throw-in or corner kick, never
            # for a goal kick (whose buttons move only in its arrangement)
            placed = None if state.phase == "goal_kick" else self.place_taker(referee, state, side, rng)
            if placed is not None:
                return placed
        second = state.memo.get("second") or {}
        if second.get("kind") == "kick_off":
            move = self.best_strike(referee, state, side, rng, min_dist=260)
            if move is not None:
                return move
        elif shooting:
            move = self.best_strike(referee, state, side, rng, shots_only=True)
            if move is not None:
                return move
        else:
            cands = self.strike_candidates(referee, state, side, rng)
            flicks = _spread([fl for _, fl in cands], self.tries)
            flicks += self.approaches(referee, state, side, rng)[:2]
            best = self.pick(referee, state, side, flicks, len(flicks))
            if best is not None and best[0] > -1500.0:
                return best[1]
        return self.approach(referee, state, side, rng) or PassiveBot().choose(referee, state, rng)

    def fallback(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        side = state.to_move
        if awaiting_ready(state):
            return Ready(side=side)
        return self.approach(referee, state, side, rng, avoid=True) or PassiveBot().choose(referee, state, rng) \
            or Tick()

    # ------------------------------------------------------------------ pieces of play
    def arrange(self, referee: Referee, state: MatchState, side: str) -> Action | None:
        """At a goal kick's arrangement, a button brought into the offensive half while fewer
        than 3 are there (rulebook §5), as the referee would bring it; ``None`` when none is needed."""
        have, need = referee.offensive_count(state, side)
        if have >= need:
            return None
        moved = referee.complete_arrangement(referee.context(state.clock_s), state, side)
        for pid, at in sorted(moved.pieces.get(side, {}).items()):
            if state.piece(side, pid) != at:
                return Place(side=side, piece=pid, at=at)
        return None

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
        """First touch of a kick-off (rulebook §7): a gentle forward nudge that keeps the ball in
        the circle, by one of the two buttons in the circle, chosen (on a frameless copy of the
        referee) so that the other one then has a strike that takes the ball out of the circle."""
        fwd = end_sign(attacked_end(side, state.home_attacks))
        t = referee.table
        pieces = [pid for pid in movable(referee, state, side)
                  if t.wholly_in_centre_circle(state.pieces[side][pid], t.button_radius)] \
            or movable(referee, state, side)
        if not pieces:
            return PassiveBot().choose(referee, state, random.Random(0))
        b = state.ball
        nudges: list[Flick] = []
        for pid in sorted(pieces, key=lambda k: (math.dist(state.pieces[side][k], b), k)):
            p = state.pieces[side][pid]
            fl = self.strike(referee, state, side, pid, (b[0] + fwd * 60.0, b[1]), travel=45.0)
            if fl is not None:
                nudges.append(fl)
            for off in (0.0, -12.0, 12.0, -24.0, 24.0):
                for speed in (330.0, 260.0, 420.0):
                    nudges.append(Flick(side=side, piece=pid, angle_deg=round(angle_to(p, b) + off, 4),
                                        speed_mm_s=speed))
        trial = trial_referee(referee)
        rng = random.Random(0)
        for fl in nudges:
            try:
                outcome = trial.apply(state, fl.at_time(round(state.clock_s + 1.0, 6)))
            except RuleViolation:
                continue
            after = outcome.state
            if after.phase != "open_play" or after.to_move != side:
                continue  # a kick-off fault already
            if self.best_strike(trial, after, side, rng, min_dist=260) is not None:
                return fl
        return nudges[0]

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
        if L > 5 and seg_point_distance(b, p, (q[0] - vx * 3, q[1] - vy * 3)) < reach - 0.5:
            return None
        if not path_clear(state, p, q, 2 * t.button_radius + 2.0, skip={(side, pid)}):
            return None
        vb = stop_speed(travel, t.ball_friction)
        v_hit = vb / (TRANSFER * cos)
        v0 = math.sqrt(v_hit * v_hit + 2 * t.button_friction * 9810.0 * L)
        v0 = min(v0, referee.max_speed)
        return Flick(side=side, piece=pid, angle_deg=round(angle_to(p, q), 4), speed_mm_s=round(v0, 3))

    def strike_candidates(self, referee: Referee, state: MatchState, side: str, rng: random.Random, *,
                          shots_only: bool = False, min_dist: float = 0.0,
                          only: list[str] | None = None) -> list[tuple[float, Flick]]:
        """Geometric strikes of the ball (towards the goal, a team-mate, open space ahead), each
        with its heuristic score, best first."""
        att = attacked_end(side, state.home_attacks)
        s = end_sign(att)
        goal = goal_centre(referee, state, side)
        b = state.ball
        targets: list[tuple[Vec, float, float]] = []  # (target point, travel, bonus)
        keeper = state.piece(other_side(side), "gk")
        for dy in (-48.0, -35.0, -20.0, 20.0, 35.0, 48.0, 0.0):
            aim = (goal[0] + s * 30, dy)
            if keeper is not None and abs(keeper[1] - dy) < 30:
                continue
            targets.append((aim, math.dist(b, aim) + 120, 1000.0))
        if not shots_only:
            for pid, p in state.pieces.get(side, {}).items():
                if pid == "gk" or s * (p[0] - b[0]) < 40:
                    continue
                dist = math.dist(b, p)
                if 120 < dist < 600:
                    targets.append(((p[0] + s * 10, p[1]), dist - 50, 0.0))
            spot = (goal[0] - s * 230, 0.0)
            d_spot = math.dist(b, spot)
            if d_spot > 60:
                for travel in (0.6 * d_spot, d_spot):
                    targets.append((spot, max(60.0, travel), 0.0))
            for ang in (-50, -25, 0, 25, 50):
                for dist in (150.0, 300.0, 480.0):
                    a = math.radians(ang) + (0 if s > 0 else math.pi)
                    targets.append(((b[0] + math.cos(a) * dist, b[1] + math.sin(a) * dist), dist, 0.0))
        out: list[tuple[float, Flick]] = []
        for pid in (only if only is not None else movable(referee, state, side)):
            p = state.pieces[side][pid]
            if math.dist(p, b) > 450:
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
                out.append((score, fl))
        out.sort(key=lambda x: -x[0])
        return out

    def best_strike(self, referee: Referee, state: MatchState, side: str, rng: random.Random, *,
                    shots_only: bool = False, min_dist: float = 0.0,
                    only: list[str] | None = None) -> Flick | None:
        """The strike whose outcome, tried on a frameless copy of the referee, is best; ``None``
        when no strike is on (or, for ``shots_only``, none goes in)."""
        cands = self.strike_candidates(referee, state, side, rng, shots_only=shots_only, min_dist=min_dist,
                                       only=only)
        if shots_only:
            best = self.pick(referee, state, side, [fl for _, fl in cands], self.shot_tries)
            return best[1] if best is not None else None
        flicks = _spread([fl for _, fl in cands], self.tries)
        if not flicks:
            return None
        best = self.pick(referee, state, side, flicks, len(flicks))
        return best[1] if best is not None and best[0] > -1500.0 else None

    def pick(self, referee: Referee, state: MatchState, side: str, flicks: list[Flick],
             tries: int) -> tuple[float, Flick] | None:
        """Tries up to ``tries`` flicks on a frameless copy of the referee; the best by
        ``value`` (a goal ends the search)."""
        trial = trial_referee(referee)
        best: tuple[float, Flick] | None = None
        seen = set()
        for fl in flicks:
            if len(seen) >= tries:
                break
            key = (fl.piece, fl.angle_deg, fl.speed_mm_s)
            if key in seen:
                continue
            seen.add(key)
            try:
                outcome = trial.apply(state, fl.at_time(round(state.clock_s + 1.0, 6)))
            except RuleViolation:
                continue
            v = self.value(referee, state, outcome.state, outcome.events, side)
            if best is None or v > best[0]:
                best = (v, fl)
            if v >= GOAL:
                break
        return best

    def value(self, referee: Referee, before: MatchState, after: MatchState, events, side: str) -> float:
        """How good the state after our flick is for ``side``."""
        opp = other_side(side)
        if after.score[side] > before.score[side]:
            return GOAL
        if after.score[opp] > before.score[opp]:
            return -GOAL
        v = 0.0
        for e in events:
            if e.type in ("foul", "technical_foul", "expulsion") and e.side == side:
                v -= 3000.0
            elif e.type in ("foul", "technical_foul") and e.side == opp:
                v += 300.0
            elif e.type == "invalid_goal":
                v -= 400.0
            elif e.type == "shot_missed":
                v -= 200.0
        if after.phase == "penalty_kick" and after.restart is not None and after.restart.side == side:
            v += 3000.0
        elif after.restart is not None and after.phase not in ("open_play", "kick_off"):
            v += 150.0 if after.restart.side == side else -700.0
        t = referee.table
        s = end_sign(attacked_end(side, before.home_attacks))
        b = after.ball
        goal = goal_centre(referee, after, side)
        v -= math.dist(b, (goal[0] - s * 230.0, 0.0))
        if abs(goal[0] - b[0]) < 150:
            v -= 3 * (150 - abs(goal[0] - b[0]))
        for p in after.pieces.get(opp, {}).values():
            d = math.dist(p, b)
            if d < 90:
                v -= (90 - d) * 3
        # can a button of ours strike the ball at the goal (or forward) next turn?
        ahead = (b[0] + s * 250, b[1] * 0.5)
        best_next = 0.0
        for pid in movable(referee, after, side):
            p = after.pieces[side][pid]
            if math.dist(p, b) > 420:
                continue
            if s * b[0] > 0 and self.strike(referee, after, side, pid, (goal[0] + s * 30, 0.0), 400.0):
                best_next = 250.0
                break
            if self.strike(referee, after, side, pid, ahead, 250.0):
                best_next = max(best_next, 120.0)
        v += best_next
        if t.wholly_in_goal_area(b, t.ball_radius, "+x") or t.wholly_in_goal_area(b, t.ball_radius, "-x"):
            v -= 400.0
        return v

    def goal_on(self, referee: Referee, state: MatchState, side: str, rng: random.Random) -> bool:
        """Would a strike from here go in (tried with the opponent's keeper put in the line of
        the ball, as a defender would, when that is a legal spot)?"""
        opp = other_side(side)
        probe = state
        keeper = self.keeper_for_shot(referee, state.replace(to_move=opp), opp)
        if isinstance(keeper, PlaceGoalkeeper):
            probe = state.with_piece(opp, "gk", keeper.at)
        trial = trial_referee(referee)
        n = 0
        for _, fl in self.strike_candidates(referee, probe, side, rng, shots_only=True):
            if n >= self.shot_tries:
                break
            n += 1
            try:
                outcome = trial.apply(probe, fl.at_time(round(state.clock_s + 1.0, 6)))
            except RuleViolation:
                continue
            if any(e.type in ("invalid_goal", "goal") for e in outcome.events) and \
                    not any(e.type in ("foul", "technical_foul") and e.side == side for e in outcome.events):
                return True
        return False

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
        options = self.approaches(referee, state, side, rng)
        return options[0] if options else None

    def approaches(self, referee: Referee, state: MatchState, side: str, rng: random.Random) -> list[Flick]:
        """Flicks that move a free button to a spot behind the ball, stopping short of it, the
        shortest first."""
        t = referee.table
        s = end_sign(attacked_end(side, state.home_attacks))
        b = state.ball
        goal = goal_centre(referee, state, side)
        base = math.atan2(b[1] - goal[1], b[0] - goal[0])  # from the goal through the ball
        spots = [(b[0] - s * 80, b[1] + dy) for dy in (0.0, 60.0, -60.0)]
        for back in (70.0, 130.0):
            for dev in (0.0, 20.0, -20.0):
                a = base + math.radians(dev)
                spots.append((b[0] + back * math.cos(a), b[1] + back * math.sin(a)))
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
                if seg_point_distance(b, p, spot) < t.button_radius + t.ball_radius + 6:
                    continue
                options.append((L + rng.random(), pid, spot))
        options.sort()
        out = []
        for _, pid, spot in options:
            p = state.pieces[side][pid]
            travel = min(math.dist(p, spot), 700.0)
            out.append(Flick(side=side, piece=pid, angle_deg=round(angle_to(p, spot), 4),
                             speed_mm_s=round(min(stop_speed(travel, t.button_friction), referee.max_speed), 3)))
        return out


def _spread(flicks: list[Flick], n: int) -> list[Flick]:
    """The first ``n`` flicks, at most two per button (the best of each first), so that the
    tries cover several buttons."""
    per: dict[str, int] = {}
    out, rest = [], []
    for fl in flicks:
        if per.get(fl.piece, 0) < 2:
            per[fl.piece] = per.get(fl.piece, 0) + 1
            out.append(fl)
        else:
            rest.append(fl)
    return (out + rest)[:n]


def trial_referee(referee: Referee) -> Referee:
    """The referee to try flicks on: the same rules, without animation frames (faster)."""
    if not getattr(referee, "frames", False):
        return referee
    trial = copy.copy(referee)
    trial.frames = False
    return trial


__all__ = ["OneTouchBot"]
