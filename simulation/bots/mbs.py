"""A computer player for the MBS rules: keep the ball, carry it to a shooting spot, declare the
shot and take it; place the keeper in the line of a declared shot.

``MbsBot().choose(referee, state, rng) -> Action`` (``t`` left ``None``). It aims a flick by
geometry (the button's centre sent to the point behind the ball on the line to where the ball
should go; Coulomb friction gives the speed), then tries its few best candidates on the referee
itself (``apply`` is pure) and keeps the one whose outcome is best: a goal, then possession kept
closest to the shooting spot. Deterministic given the ``random.Random`` it is handed.
"""
from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass

from ..actions import Action, DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from ..rules.base import RESTART_PHASES, Referee, RuleViolation
from ..rules.mbs import READY_BEFORE_FLICK
from ..state import MatchState
from ..table import SIDES, Vec, attacked_end, defended_end, end_sign, other_side
from .base import PassiveBot, awaiting_ready, seg_point_distance, stop_speed

#: the ball's speed is about this many times the button's at a straight hit (10 g on 0.3 g, e = 0.75)
TRANSFER = 1.65


@dataclass(frozen=True)
class Candidate:
    piece: str
    angle_deg: float
    speed_mm_s: float


class MbsBot:
    """Plays the MBS rules. ``shot_range_mm``: the farthest distance from the goal at which it
    declares a shot; ``tries``: how many candidate flicks it tries on the referee per move."""

    name = "mbs"

    def __init__(self, shot_range_mm: float = 430.0, tries: int = 4):
        self.shot_range = shot_range_mm
        self.tries = tries

    # -- the decision ---------------------------------------------------------------------
    def choose(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        side = state.to_move
        if state.phase == "shot_declared":
            return self.keeper_for_shot(referee, state, side)
        pen = state.memo.get("penalty") or {}
        if pen.get("stage") == "taker":
            return self.penalty_taker(referee, state, side)
        if awaiting_ready(state) or (state.phase in READY_BEFORE_FLICK and state.memo.get("placed")
                                     and not state.memo.get("ready")):
            return Ready(side=side)  # a throw-in or corner kick placed: "Preparado", then the flick
        shot = state.memo.get("shot") or {}
        if state.phase == "penalty_kick" and not pen and not state.memo.get("placed") \
                and not state.memo.get("ready") and not shot:
            place = self.place_taker(referee, state, side, self.goal_targets(referee, state, side))
            if place is not None:
                return place
        if (shot.get("armed") and shot.get("side") == side) or state.phase == "penalty_kick":
            return self.shoot(referee, state, side, rng)
        if self.wants_shot(referee, state, side):
            if state.phase in RESTART_PHASES and not state.memo.get("placed") and not state.memo.get("ready"):
                place = self.place_taker(referee, state, side, self.goal_targets(referee, state, side))
                if place is not None:
                    return place
            return DeclareShot(side=side)
        return self.advance(referee, state, side, rng)

    def fallback(self, referee: Referee, state: MatchState, rng: random.Random) -> Action:
        """A plain push of the nearest free button straight through the ball, or a ready."""
        side = state.to_move
        if awaiting_ready(state) or state.phase == "shot_declared":
            return Ready(side=side)
        buttons = self.movable(state, side)
        if not buttons:
            return Tick()
        c = self.pushes(referee, state, side)[-1]
        return Flick(side=side, piece=c.piece, angle_deg=c.angle_deg, speed_mm_s=c.speed_mm_s)

    # -- shots ----------------------------------------------------------------------------
    def wants_shot(self, referee: Referee, state: MatchState, side: str) -> bool:
        if state.phase not in ("open_play", "free_kick"):
            return False
        t = referee.table
        goal = (end_sign(attacked_end(side, state.home_attacks)) * t.half_length, 0.0)
        if math.dist(state.ball, goal) > self.shot_range or abs(state.ball[1]) > 260:
            return False
        return referee.shot_refusal(state, side) is None

    def shoot(self, referee: Referee, state: MatchState, side: str, rng: random.Random) -> Action:
        cands: list[Candidate] = []
        for target in self.goal_targets(referee, state, side):
            cands += self.aim(referee, state, side, target, extra_mm=250.0, best=2)
        best = self.pick(referee, state, side, cands, tries=self.tries + 4,
                         reserve=self.pushes(referee, state, side))
        return best or self.fallback(referee, state, rng)

    def goal_targets(self, referee: Referee, state: MatchState, side: str) -> list[Vec]:
        """Points just inside the goal, the ones farthest from the keeper first."""
        t = referee.table
        s = end_sign(attacked_end(side, state.home_attacks))
        keeper = state.piece(other_side(side), "gk")
        ky = keeper[1] if keeper else 0.0
        ys = sorted((-52.0, 52.0, -42.0, 42.0, -25.0, 25.0, 0.0), key=lambda y: (-abs(y - ky), y))
        return [(s * (t.half_length + 30.0), y) for y in ys]

    def keeper_for_shot(self, referee: Referee, state: MatchState, side: str) -> Action:
        """Put the keeper in the line from the ball to the centre of the goal, as far out as the
        goal area lets it, then say ready."""
        t = referee.table
        end = defended_end(side, state.home_attacks)
        s = end_sign(end)
        hx, hy = t.keeper_half
        x = s * (t.half_length - t.goal_area_depth + hx + 1.0)
        bx, by = state.ball
        gx = s * t.half_length
        frac = (gx - x) / (gx - bx) if abs(gx - bx) > 1e-6 else 0.0
        y = max(-(t.goal_area_width / 2 - hy - 1.0), min(t.goal_area_width / 2 - hy - 1.0, by * frac))
        want = (round(x, 1), round(y, 1))
        now = state.piece(side, "gk")
        if now is not None and math.dist(now, want) < 1.0:
            return Ready(side=side)
        if referee.keeper_refusal(state, side, want) is not None:
            return Ready(side=side)
        return PlaceGoalkeeper(side=side, at=want)

    def penalty_taker(self, referee: Referee, state: MatchState, side: str) -> Action:
        pen = state.memo.get("penalty") or {}
        if pen.get("taker"):
            return Ready(side=side)
        s = end_sign(attacked_end(side, state.home_attacks))
        t = referee.table
        bx, by = state.ball
        for dy in (0.0, 20.0, -20.0):
            at = (bx - s * (t.button_radius + t.ball_radius + 8.0), by + dy)
            for pid in self.movable(state, side):
                if referee.fits(state, side, pid, at):
                    return Place(side=side, piece=pid, at=at)
        return Ready(side=side)

    # -- carrying the ball ------------------------------------------------------------------
    def shooting_spot(self, referee: Referee, state: MatchState, side: str) -> Vec:
        t = referee.table
        s = end_sign(attacked_end(side, state.home_attacks))
        y = 70.0 if state.ball[1] >= 0 else -70.0
        return (s * (t.half_length - t.goal_area_depth - 150.0), y)

    def advance(self, referee: Referee, state: MatchState, side: str, rng: random.Random) -> Action:
        spot = self.shooting_spot(referee, state, side)
        bx, by = state.ball
        d = math.dist(state.ball, spot)
        base = math.atan2(spot[1] - by, spot[0] - bx)
        step = min(d, 260.0) if d > 1.0 else 60.0
        targets = []
        for dev in (0.0, 25.0, -25.0, 50.0, -50.0):
            a = base + math.radians(dev + rng.uniform(-3.0, 3.0))
            targets.append((bx + step * math.cos(a), by + step * math.sin(a)))
        # when nothing sends the ball forward, any direction that keeps it on the field
        ring = self.ring_targets(referee, state, base, 180.0)
        cands: list[Candidate] = []
        for k, target in enumerate(targets):
            cands += self.aim(referee, state, side, target, extra_mm=0.0, best=2 if k == 0 else 1)
        if state.phase in RESTART_PHASES and not state.memo.get("placed") \
                and not state.memo.get("ready") and not state.memo.get("penalty"):
            place = self.place_taker(referee, state, side, targets + ring)
            if place is not None:
                return place
        if not cands:
            for target in ring:
                cands += self.aim(referee, state, side, target, extra_mm=0.0, best=1)
                if len(cands) >= self.tries:
                    break
        best = self.pick(referee, state, side, cands, tries=self.tries,
                         reserve=self.pushes(referee, state, side))
        return best or self.fallback(referee, state, rng)

    def ring_targets(self, referee: Referee, state: MatchState, base: float, step: float) -> list[Vec]:
        """Points ``step`` mm from the ball all round, the most forward first (``base``: the
        forward direction, radians), only those on the field."""
        t = referee.table
        bx, by = state.ball
        out = []
        for k in range(1, 12):
            for sign in (1, -1):
                a = base + sign * math.radians(15.0 * k)
                p = (bx + step * math.cos(a), by + step * math.sin(a))
                if t.field.contains_disc(p, 40.0):
                    out.append(p)
        return out

    def place_taker(self, referee: Referee, state: MatchState, side: str, targets: list[Vec]) -> Action | None:
        """At a set piece, a button put right behind the ball on the line to the target."""
        t = referee.table
        bx, by = state.ball
        buttons = self.movable(state, side)
        if not buttons:
            return None
        for target in targets:
            dx, dy = target[0] - bx, target[1] - by
            dist = math.hypot(dx, dy)
            if dist < 1e-6:
                continue
            gap = t.button_radius + t.ball_radius + 6.0
            at = (round(bx - dx / dist * gap, 1), round(by - dy / dist * gap, 1))
            for pid in sorted(buttons, key=lambda k: (math.dist(state.pieces[side][k], state.ball), k)):
                action = Place(side=side, piece=pid, at=at)
                try:
                    placed = referee.apply(state, action).state
                except RuleViolation:
                    continue
                if not any(c.piece == pid for c in self.aim(referee, placed, side, target, extra_mm=0.0, best=3)):
                    break  # its way to the ball is blocked: another direction
                return action
        return None

    def pushes(self, referee: Referee, state: MatchState, side: str) -> list[Candidate]:
        """Plain pushes of the nearest buttons straight through the ball, and a last resort
        that touches nothing (possession lost rather than a foul)."""
        out = []
        buttons = sorted(self.movable(state, side),
                         key=lambda k: (math.dist(state.pieces[side][k], state.ball), k))
        for pid in buttons[:2]:
            p = state.pieces[side][pid]
            L = math.dist(p, state.ball)
            if L < 1e-6:
                continue
            angle = math.degrees(math.atan2(state.ball[1] - p[1], state.ball[0] - p[0]))
            speed = min(referee.max_speed, math.sqrt(350.0 ** 2 + stop_speed(L, referee.table.button_friction) ** 2))
            out.append(Candidate(pid, round(angle, 3), round(speed, 1)))
        out += self.approaches(referee, state, side, buttons[:4])
        if buttons:
            pid = buttons[-1]
            back = defended_end(side, state.home_attacks)
            out.append(Candidate(pid, 0.0 if back == "+x" else 180.0, 1.0))
        return out

    def approaches(self, referee: Referee, state: MatchState, side: str, buttons: list[str]) -> list[Candidate]:
        """Flicks that bring a button to rest behind the ball without touching anything: the
        turn is lost either way (MBS Pérdida de posesión), but the next one starts closer."""
        t = referee.table
        spot = self.shooting_spot(referee, state, side)
        bx, by = state.ball
        d = math.dist(state.ball, spot)
        ux, uy = ((spot[0] - bx) / d, (spot[1] - by) / d) if d > 1e-6 else (1.0, 0.0)
        out = []
        for pid in buttons:
            p = state.pieces[side][pid]
            away = math.dist(p, state.ball)
            wants = [(bx - ux * 85.0, by - uy * 85.0)]
            if away > 1e-6:
                wants.append((bx + (p[0] - bx) / away * 80.0, by + (p[1] - by) / away * 80.0))
            for want in wants:
                L = math.dist(p, want)
                if L < 20.0 or not t.field.contains_disc(want, t.button_radius):
                    continue
                if seg_point_distance(state.ball, p, want) < t.button_radius + t.ball_radius + 3.0:
                    continue
                if not self.path_clear(state, side, pid, p, want, referee):
                    continue
                angle = math.degrees(math.atan2(want[1] - p[1], want[0] - p[0]))
                speed = max(1.0, min(referee.max_speed, stop_speed(L, t.button_friction)))
                out.append(Candidate(pid, round(angle, 3), round(speed, 1)))
        return out

    # -- geometry and trials ----------------------------------------------------------------
    def movable(self, state: MatchState, side: str) -> list[str]:
        taker = state.memo.get("taker")
        pen = state.memo.get("penalty") or {}
        out = []
        for pid in sorted(state.pieces.get(side, {}), key=lambda k: (len(k), k)):
            if pid == "gk" or (taker and list(taker) == [side, pid]):
                continue
            if pen.get("taker") and pid != pen["taker"]:
                continue
            out.append(pid)
        return out

    def aim(self, referee: Referee, state: MatchState, side: str, target: Vec, *, extra_mm: float,
            best: int) -> list[Candidate]:
        """Flicks that send the ball from where it lies towards ``target`` (and ``extra_mm``
        beyond): the buttons best placed behind it, with a clear path."""
        t = referee.table
        R, r = t.button_radius, t.ball_radius
        bx, by = state.ball
        dx, dy = target[0] - bx, target[1] - by
        dist = math.hypot(dx, dy)
        if dist < 1e-6:
            return []
        ux, uy = dx / dist, dy / dist
        contact = (bx - ux * (R + r), by - uy * (R + r))
        scored = []
        for pid in self.movable(state, side):
            p = state.pieces[side][pid]
            vx, vy = contact[0] - p[0], contact[1] - p[1]
            L = math.hypot(vx, vy)
            if L < 1e-6:
                continue
            cos = (vx * ux + vy * uy) / L
            if cos < 0.55 or L > 700.0:
                continue
            if not self.path_clear(state, side, pid, p, contact, referee):
                continue
            ball_speed = stop_speed(dist + extra_mm, t.ball_friction)
            hit = ball_speed / (TRANSFER * cos)
            speed = math.sqrt(hit * hit + stop_speed(L, t.button_friction) ** 2)
            speed = max(150.0, min(referee.max_speed, speed))
            angle = math.degrees(math.atan2(vy, vx))
            scored.append((L * (2.0 - cos), pid, Candidate(pid, round(angle, 3), round(speed, 1))))
        scored.sort(key=lambda x: (x[0], x[1]))
        return [c for _, _, c in scored[:best]]

    def path_clear(self, state: MatchState, side: str, pid: str, a: Vec, b: Vec,
                   referee: Referee | None = None) -> bool:
        """No other piece stands in the way of the button from ``a`` to ``b`` (its centre's
        track; the keeper's block measured as a block)."""
        for s in SIDES:
            for qid, q in state.pieces.get(s, {}).items():
                if s == side and qid == pid:
                    continue
                if qid != "gk":
                    if seg_point_distance(q, a, b) < 51.0:
                        return False
                    continue
                if seg_point_distance(q, a, b) >= 58.0:
                    continue
                if referee is None:
                    return False
                n = max(2, int(math.dist(a, b) / 4.0))
                for i in range(n + 1):
                    p = (a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)
                    if not referee._clear(p, pid, q, "gk", 1.0):
                        return False
        return True

    def pick(self, referee: Referee, state: MatchState, side: str, cands: list[Candidate],
             *, tries: int, reserve: list[Candidate] = ()) -> Action | None:
        """Tries up to ``tries`` candidates on the referee and returns the best flick; the
        ``reserve`` (plain pushes, a flick that touches nothing) only when none of them keeps
        the ball without a foul."""
        seen = set()
        best: tuple[float, Action] | None = None
        queue = list(cands[:tries])
        for c in queue + list(reserve):
            if c in seen:
                continue
            if c not in queue and best is not None and best[0] >= 0.0:
                break
            seen.add(c)
            action = Flick(side=side, piece=c.piece, angle_deg=c.angle_deg, speed_mm_s=c.speed_mm_s)
            try:
                outcome = trial_referee(referee).apply(state, action)
            except RuleViolation:
                continue
            value = self.value(referee, state, outcome.state, outcome.events, side)
            if best is None or value > best[0]:
                best = (value, action)
            if value >= 1000.0:
                break
        return best[1] if best else None

    def value(self, referee: Referee, before: MatchState, after: MatchState, events, side: str) -> float:
        for e in events:
            if e.type == "goal":
                return 1000.0 if e.side == side and not e.extra.get("own_goal") else -1000.0
            if e.type in ("foul", "expulsion") and e.side == side:
                return -900.0
            if e.type == "invalid_goal":
                return -300.0
        missed = any(e.type in ("inversion", "technical_foul") and e.side == side for e in events)
        idle = any(e.type == "possession_lost" and e.extra.get("reason") == "ball_not_touched"
                   for e in events)
        spot = self.shooting_spot(referee, before, side)
        s = end_sign(attacked_end(side, before.home_attacks))
        if after.to_move == side and after.phase == "open_play":
            return 100.0 - math.dist(after.ball, spot) / 10.0
        if after.to_move == side:
            if after.phase == before.phase and math.dist(after.ball, before.ball) < 1.0:
                return -150.0  # the same set piece again: going round in circles
            return 20.0 + s * after.ball[0] / 20.0
        # a set piece or a shot that misses the ball gives the opponent a free kick; else the
        # nearer a button of ours rests to the ball, the better the next turn
        near = min((math.dist(p, after.ball) for pid, p in after.pieces.get(side, {}).items() if pid != "gk"),
                   default=1000.0)
        base = -200.0 if missed else -140.0 if idle else -100.0
        return base + s * after.ball[0] / 20.0 - min(near, 500.0) / 10.0


def trial_referee(referee: Referee) -> Referee:
    """The referee to try flicks on: the same rules, without animation frames (faster)."""
    if not getattr(referee, "frames", False):
        return referee
    trial = copy.copy(referee)
    trial.frames = False
    return trial


__all__ = ["MbsBot", "PassiveBot"]
