"""What every referee shares: validation, the clock, periods, flicks turned into facts, goals,
restarts, placing phases, declared shots, penalty kicks and the shoot-out.

A rule set is a subclass of ``Referee`` that fills in the hooks (marked *hook* below); the base
never decides what differs between rule sets (turn structure, possession, fouls, which restart
is awarded). Everything is pure: ``apply(state, action) -> Outcome``; the input state is never
mutated; a refused action raises ``RuleViolation`` and changes nothing.

How an action is applied (``Referee.apply``):

1. ``t`` (absolute match clock, s) may not go back. Every deadline up to ``t`` fires first, in
   time order: the turn's (``turn_limit``: ``turn_seconds``, or ``shot_wait_seconds`` while a
   shot waits for the keeper) calls the hook ``on_turn_timeout``; a period's end calls
   ``end_period`` (half time swaps ``home_attacks``; a level knockout match goes to extra time,
   then to a shoot-out; ``period_end`` and ``full_time`` events). The hook ``period_may_extend``
   keeps a period open while a declared shot or a direct free kick is still to be taken
   (rulebook §4): memo ``period_overtime``; the period then ends after the next flick.
2. A ``tick`` stops there. Any other action must come from ``state.to_move`` (the side whose
   turn it is, or whose placing is awaited, contract §2).
3. ``flick``: ``validate_flick`` (piece on the table, not the keeper, speed within
   ``max_flick_speed_mm_s``; hook ``flick_refusal`` for rule-set refusals), then the physics,
   then ``FlickFacts`` (goal, ball out and who last touched it, pieces out, contacts of the
   mover's pieces with opponents before the ball), then ``settle`` (resting positions, pieces
   out taken off, keepers put back into their goal area, contract §2), then the hook
   ``judge_flick`` (or ``judge_shootout_kick`` in the shoot-out), then ``after_turn`` (turn
   counter, buttons waiting to come back (§8), hook ``end_of_turn``, a period in overtime ends).
4. ``declare_shot`` -> hook ``shot_refusal``; ``shot_declared`` phase, the defender to move.
   ``place_goalkeeper`` -> hook ``keeper_refusal``. ``place`` -> hook ``place_refusal`` (of the
   ball, piece ``"ball"``: hook ``ball_place_refusal``).
   ``ready`` -> ends the wait for a shot, or a placing stage (``next_placing_stage``).

Helpers for the hooks: ``award_restart`` (ball to the spot, the offenders pushed back, phase =
kind, ``restart`` event), ``score_goal``, ``start_kick_off``, ``start_goal_kick``,
``setup_penalty``, ``free_spot``, ``fits``, ``section``.

Memo keys the base owns (JSON values in ``state.memo``): ``turn_no`` (turns played),
``shot`` (``{"side", "armed"}`` of a declared shot), ``period_overtime``, ``first_kick_off``,
``placing`` (``{"stage", "order", "kind"}`` of a placing phase: a goal kick's arrangement, or a
kick-off's formation, kind ``"kick_off"``, stages kicker then defender, each ``ready`` checked by
``kick_off_formation_refusal``), ``penalty`` (``{"stage", "taker"}``),
``shootout`` (``{"kicks": {side: [bool]}, "first"}``), ``out`` (buttons off the table waiting
to come back: ``[{"side", "piece", "spot", "turn"}]``), ``locked`` (``[[side, piece]]`` that
may not play the next turn of their side).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..actions import BALL_PIECE, Action, DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from ..events import RuleEvent
from ..physics import (
    BALL,
    MAX_FLICK_SPEED_MM_S,
    Contact,
    Crossing,
    FlickResult,
    piece_key,
    resolve_flick,
    split_key,
)
from ..state import MatchState, Restart, round_pos
from ..table import (
    SIDES,
    Table,
    Vec,
    attacked_end,
    defended_end,
    distance,
    end_sign,
    other_end,
    other_side,
)

EPS = 1e-6
RESTART_PHASES = ("kick_off", "free_kick", "free_kick_two_touch", "indirect_free_kick",
                  "penalty_kick", "throw_in", "throw_in_two_touch", "corner_kick",
                  "corner_kick_two_touch", "goal_kick")
REGULAR_PERIODS = ("first_half", "second_half")
DEFAULT_PARAMS: dict[str, Any] = {
    "turn_seconds": 30.0,
    "shot_wait_seconds": 30.0,
    "max_flick_speed_mm_s": 2500.0,
    "halves": 2,
    "half_minutes": 25.0,
    "extra_time_minutes": 5.0,
    "shootout_kicks": 5,
    "knockout": False,
    "restart_after_goal": "kick_off",
    "frames": True,
}


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


@dataclass
class Ctx:
    """What one ``apply`` collects: the clock now (s), the events and the flicks."""

    now: float
    events: list[RuleEvent] = field(default_factory=list)
    flicks: list[FlickResult] = field(default_factory=list)

    def emit(self, type: str, **kw: Any) -> None:
        self.events.append(RuleEvent.make(type, **kw))


@dataclass(frozen=True)
class FlickFacts:
    """What a flick did, in the referee's terms.

    ``touches``: piece keys that touched the ball, in order of their first touch;
    ``opponent_contacts``: contacts of a piece of the mover's side with an opposing piece at or
    before the ball's first contact with anything (``ball_first_t``; ``inf`` if untouched);
    ``goal_end``: the end whose goal the ball entered; ``ball_out``: the crossing of a line
    outside the goal mouth; ``last_touch``: the last piece to touch the ball before it went out
    or in (or at all); ``pieces_out``: piece key -> crossing; ``ball_start``/``ball_end``.
    """

    side: str
    piece: str
    result: FlickResult
    ball_start: Vec
    ball_end: Vec
    touches: tuple[str, ...]
    ball_first_t: float
    opponent_contacts: tuple[Contact, ...]
    goal_end: str | None
    ball_out: Crossing | None
    last_touch: str | None
    pieces_out: Mapping[str, Crossing]
    pieces_start: Mapping[str, Mapping[str, Vec]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return piece_key(self.side, self.piece)

    @property
    def ball_touched(self) -> bool:
        return bool(self.touches)

    @property
    def crossing(self) -> Crossing | None:
        """The ball's crossing, goal or out."""
        return self.result.ball_out


class Referee:
    """Base class: ``apply(state, action) -> Outcome``; never mutates ``state``.

    Subclasses set ``name``, ``sections`` (what section decides what, for the ``rule`` of
    events and refusals) and implement the hooks ``judge_flick`` and ``on_turn_timeout`` at
    least.
    """

    name = "base"
    sections: Mapping[str, str] = {
        "turn": "rulebook 3", "shot": "rulebook 4", "goal_kick": "rulebook 5.1",
        "arrangement": "rulebook 5", "keeper": "rulebook 6", "kick_off": "rulebook 7",
        "pieces_out": "rulebook 8", "foul": "rulebook 9", "penalty": "rulebook 10",
        "throw_in": "rulebook 11", "own_goal": "rulebook 12", "goal": "rulebook 4",
        "time": "rulebook Duration of the Game", "shootout": "rulebook Aim of the Game",
        "table": "rulebook 3",
    }

    def __init__(self, params: Mapping[str, Any]):
        merged = dict(DEFAULT_PARAMS)
        merged.update(params or {})
        self.params = merged
        self.table = Table.from_params(merged)
        for key in ("turn_seconds", "shot_wait_seconds", "max_flick_speed_mm_s", "half_minutes"):
            if not _number(merged[key]) or merged[key] <= 0:
                raise ValueError(f"params.{key} must be a positive number, not {merged[key]!r}")
        if merged["max_flick_speed_mm_s"] > MAX_FLICK_SPEED_MM_S:
            raise ValueError(f"params.max_flick_speed_mm_s must be at most {MAX_FLICK_SPEED_MM_S:g}, "
                             f"not {merged['max_flick_speed_mm_s']!r}")
        if not _number(merged["extra_time_minutes"]) or merged["extra_time_minutes"] < 0:
            raise ValueError("params.extra_time_minutes must be a number >= 0")
        if merged["halves"] not in (1, 2):
            raise ValueError("params.halves must be 1 or 2")
        if not isinstance(merged["shootout_kicks"], int) or merged["shootout_kicks"] < 0:
            raise ValueError("params.shootout_kicks must be a whole number >= 0")
        if merged["restart_after_goal"] not in ("kick_off", "goal_kick"):
            raise ValueError("params.restart_after_goal must be 'kick_off' or 'goal_kick'")
        self.turn_seconds = float(merged["turn_seconds"])
        self.shot_wait_seconds = float(merged["shot_wait_seconds"])
        self.max_speed = float(merged["max_flick_speed_mm_s"])
        self.halves = int(merged["halves"])
        self.half_s = float(merged["half_minutes"]) * 60.0
        self.extra_s = float(merged["extra_time_minutes"]) * 60.0
        self.shootout_kicks = int(merged["shootout_kicks"])
        self.knockout = bool(merged["knockout"])
        self.frames = bool(merged.get("frames", True))

    def section(self, key: str, sub: str | None = None) -> str:
        """The ``rule`` string for ``key`` of ``sections`` (or ``sub`` itself: "rulebook 9.2")."""
        return sub if sub is not None else self.sections.get(key, key)

    # ======================================================================================
    # the entry point
    # ======================================================================================
    def apply(self, state: MatchState, action: Action) -> Outcome:
        """Applies ``action`` to ``state``; raises ``RuleViolation`` when the rules refuse it."""
        if state.phase == "full_time":
            raise RuleViolation("the match is over", self.section("time"))
        if state.turn_started_s is None:
            state = state.replace(turn_started_s=state.clock_s)
        ctx = Ctx(now=state.clock_s)
        if action.t is not None:
            if action.t < state.clock_s - EPS:
                raise RuleViolation(f"t={action.t} is before the match clock {state.clock_s}",
                                    self.section("time"))
            state = self.advance_clock(ctx, state, float(action.t))
        if isinstance(action, Tick):
            return Outcome(state, tuple(ctx.events), tuple(ctx.flicks))
        if state.phase == "full_time":
            raise RuleViolation("the match is over", self.section("time"))
        side = getattr(action, "side", None)
        if side != state.to_move:
            raise RuleViolation(f"it is {state.to_move}'s turn, not {side}'s", self.section("turn"))
        if isinstance(action, Flick):
            state = self.on_flick(ctx, state, action)
        elif isinstance(action, DeclareShot):
            state = self.on_declare_shot(ctx, state, action)
        elif isinstance(action, PlaceGoalkeeper):
            state = self.on_place_goalkeeper(ctx, state, action)
        elif isinstance(action, Place):
            state = self.on_place(ctx, state, action)
        elif isinstance(action, Ready):
            state = self.on_ready(ctx, state, action)
        else:  # pragma: no cover - parse_action knows no other type
            raise RuleViolation(f"unknown action {action.type!r}")
        return Outcome(state, tuple(ctx.events), tuple(ctx.flicks))

    # ======================================================================================
    # the clock, deadlines and periods
    # ======================================================================================
    def turn_limit(self, state: MatchState) -> float | None:
        """*hook* Seconds the side to move has (``None``: no deadline)."""
        if state.phase in ("full_time", "half_time"):
            return None
        if state.phase == "shot_declared":
            return self.shot_wait_seconds
        return self.turn_seconds

    def turn_deadline(self, state: MatchState) -> float | None:
        limit = self.turn_limit(state)
        if limit is None:
            return None
        start = state.turn_started_s if state.turn_started_s is not None else state.clock_s
        return start + limit

    def period_end_s(self, period: str) -> float | None:
        """The match-clock second at which ``period`` ends (``None``: the shoot-out)."""
        regular = self.halves * self.half_s
        if period == "first_half":
            return self.half_s
        if period == "second_half":
            return regular
        if period == "extra_time_first":
            return regular + self.extra_s
        if period == "extra_time_second":
            return regular + 2 * self.extra_s
        return None

    def advance_clock(self, ctx: Ctx, state: MatchState, t: float) -> MatchState:
        """Fires every deadline up to ``t`` in time order, then sets the clock to ``t``."""
        for _ in range(10000):
            if state.phase == "full_time":
                break
            turn_dl = self.turn_deadline(state)
            period_dl = None if state.memo.get("period_overtime") else self.period_end_s(state.period)
            due = [(d, kind) for d, kind in ((period_dl, 0), (turn_dl, 1)) if d is not None and d <= t + EPS]
            if not due:
                break
            when, kind = min(due)
            when = max(when, state.clock_s)
            ctx.now = when
            state = state.replace(clock_s=when)
            if kind == 0:
                if self.period_may_extend(state):
                    state = state.with_memo(period_overtime=True)
                else:
                    state = self.end_period(ctx, state)
            else:
                state = self.on_turn_timeout(ctx, state)
                state = self.bump_turn(state)
                state = self.after_period_overtime(ctx, state)
        if state.phase != "full_time":
            state = state.replace(clock_s=max(state.clock_s, t))
        ctx.now = state.clock_s
        return state

    def period_may_extend(self, state: MatchState) -> bool:
        """*hook* Rulebook §4: a declared shot (or a direct free kick) still to be taken when
        the period's time runs out may be taken."""
        return state.phase in ("shot_declared", "free_kick", "penalty_kick") or bool(
            state.memo.get("shot"))

    def after_period_overtime(self, ctx: Ctx, state: MatchState) -> MatchState:
        if state.memo.get("period_overtime") and state.phase != "full_time" \
                and not self.period_may_extend(state):
            state = self.end_period(ctx, state.with_memo(period_overtime=None))
        return state

    def next_period(self, state: MatchState) -> str | None:
        """The period after ``state.period``, or ``None`` at full time."""
        level = state.score.get("home", 0) == state.score.get("away", 0)
        regular = REGULAR_PERIODS[: self.halves]
        p = state.period
        if p in regular and p != regular[-1]:
            return regular[regular.index(p) + 1]
        if p in regular or p == "extra_time_second":
            if not (self.knockout and level):
                return None
            if p in regular and self.extra_s > 0:
                return "extra_time_first"
            return "shootout" if self.shootout_kicks > 0 else None
        if p == "extra_time_first":
            return "extra_time_second"
        return None

    def end_period(self, ctx: Ctx, state: MatchState) -> MatchState:
        """``period_end``; then the next period's kick-off with the ends swapped, the
        shoot-out, or ``full_time``."""
        ctx.emit("period_end", period=state.period, rule=self.section("time"))
        state = state.with_memo(period_overtime=None, shot=None, penalty=None, placing=None)
        nxt = self.next_period(state)
        if nxt is None:
            return self.finish(ctx, state)
        state = state.replace(period=nxt, home_attacks=other_end(state.home_attacks), restart=None)
        if nxt == "shootout":
            return self.start_shootout(ctx, state)
        first = state.memo.get("first_kick_off", "home")
        kicker = first if nxt == "extra_time_first" else other_side(first)
        return self.start_period_play(ctx, state, kicker)

    def finish(self, ctx: Ctx, state: MatchState, **extra: Any) -> MatchState:
        ctx.emit("full_time", rule=self.section("time"),
                 score={s: state.score.get(s, 0) for s in SIDES}, **extra)
        return state.replace(phase="full_time", restart=None, turn_started_s=ctx.now)

    def start_period_play(self, ctx: Ctx, state: MatchState, kicker: str) -> MatchState:
        """*hook* How a period starts: a kick-off by ``kicker`` (or, with the friendly custom
        ``restart_after_goal = goal_kick``, a goal kick, rulebook §7)."""
        if self.params["restart_after_goal"] == "goal_kick":
            return self.start_goal_kick(ctx, state, kicker, rule=self.section("kick_off"), arrange=True)
        return self.start_kick_off(ctx, state, kicker)

    # ======================================================================================
    # starting positions
    # ======================================================================================
    def kick_off_formation(self, kicker: str, home_attacks: str) -> dict[str, dict[str, Vec]]:
        """*hook* Where the pieces stand at a kick-off (rulebook §7): for each side 5 buttons
        within 6 cm of the halfway line (not touching it) and 5 deeper in its defensive half;
        the defenders outside the centre circle; two of the kicker's in its half circle."""
        t = self.table
        r = t.button_radius
        pieces: dict[str, dict[str, Vec]] = {}
        for side in SIDES:
            s = end_sign(defended_end(side, home_attacks))  # + when the side defends +x
            line = s * (r + 20.0)
            if side == kicker:  # two in its half of the centre circle, behind the ball
                front = [(s * (r + 12.0), 32.0), (s * (r + 12.0), -32.0),
                         (line, -300.0), (line, 300.0), (line, -450.0)]
            else:
                front = [(line, -200.0), (line, 200.0), (line, -330.0), (line, 330.0), (line, 460.0)]
            back = [(s * 330.0, -250.0), (s * 330.0, 0.0), (s * 330.0, 250.0),
                    (s * 520.0, -150.0), (s * 520.0, 150.0)]
            group = {str(i + 1): p for i, p in enumerate(front + back)}
            gx = t.goal_line_x(defended_end(side, home_attacks)) - s * (t.goal_area_depth / 2)
            group["gk"] = (gx, 0.0)
            pieces[side] = {k: round_pos(v) for k, v in group.items()}
        return pieces

    def initial_state(self, kick_off_side: str = "home", home_attacks: str = "+x") -> MatchState:
        """The state at the start of a match: the full sides set for a kick-off by
        ``kick_off_side`` at clock 0 (or a goal kick, with ``restart_after_goal = goal_kick``)."""
        state = MatchState(ball=(0.0, 0.0), pieces={"home": {}, "away": {}}).replace(
            home_attacks=home_attacks, turn_started_s=0.0, memo={"first_kick_off": kick_off_side})
        ctx = Ctx(now=0.0)
        return self.start_period_play(ctx, state, kick_off_side)

    def reset_kick_off_formation(self, state: MatchState, side: str) -> MatchState:
        """``side``'s buttons back in the default kick-off formation (a placing whose time ran
        out with an illegal formation, rulebook §7)."""
        kicker = state.restart.side if state.restart else state.to_move
        default = self.kick_off_formation(kicker, state.home_attacks)[side]
        group = {pid: (default[pid] if pid in default and pid != "gk" else p)
                 for pid, p in state.pieces.get(side, {}).items()}
        return state.replace(pieces={**{s: dict(g) for s, g in state.pieces.items()}, side: group})

    def start_kick_off(self, ctx: Ctx, state: MatchState, kicker: str, rule: str | None = None) -> MatchState:
        """Both sides set in the kick-off formation; the ball on the centre spot; ``kicker`` to move."""
        pieces = self.kick_off_formation(kicker, state.home_attacks)
        keep = {s: {pid: p for pid, p in pieces[s].items() if pid not in state.expelled.get(s, ())}
                for s in SIDES}
        state = state.replace(pieces=keep, ball=(0.0, 0.0)).with_memo(
            out=None, locked=None, placing=None, penalty=None, shot=None)
        return self.award_restart(ctx, state, "kick_off", kicker, (0.0, 0.0),
                                  rule or self.section("kick_off"), push=False)

    # ======================================================================================
    # geometry helpers
    # ======================================================================================
    def piece_extent(self, piece: str) -> tuple[str, float, float]:
        """("disc", r, r) or ("rect", half_x, half_y)."""
        if piece == "gk":
            hx, hy = self.table.keeper_half
            return ("rect", hx, hy)
        r = self.table.button_radius
        return ("disc", r, r)

    def _clear(self, p: Vec, piece: str, q: Vec, other: str, margin: float) -> bool:
        a = self.piece_extent(piece)
        b = self.piece_extent(other) if other != BALL else ("disc", self.table.ball_radius, 0)
        if a[0] == "disc" and b[0] == "disc":
            return distance(p, q) >= a[1] + b[1] + margin
        if a[0] == "rect" and b[0] == "rect":
            return abs(p[0] - q[0]) >= a[1] + b[1] + margin or abs(p[1] - q[1]) >= a[2] + b[2] + margin
        if a[0] == "rect":
            p, q, a, b = q, p, b, a
        # p disc (radius a[1]), q rect (half b[1], b[2])
        dx = max(abs(p[0] - q[0]) - b[1], 0.0)
        dy = max(abs(p[1] - q[1]) - b[2], 0.0)
        return math.hypot(dx, dy) >= a[1] + margin

    def fits(self, state: MatchState, side: str, piece: str, at: Vec, *, ball: bool = True,
             margin: float = 0.0, ignore: Iterable[tuple[str, str]] = ()) -> bool:
        """``piece`` of ``side`` could stand ``at`` without overlapping another piece (or the
        ball), wholly on the table surface."""
        kind, hx, hy = self.piece_extent(piece)
        surface = self.table.surface
        if not surface.contains_rect(at, hx, hy):
            return False
        skip = set(ignore) | {(side, piece)}
        for s in SIDES:
            for pid, q in state.pieces.get(s, {}).items():
                if (s, pid) in skip:
                    continue
                if not self._clear(at, piece, q, pid, margin):
                    return False
        if ball and not self._clear(at, piece, state.ball, BALL, margin):
            return False
        return True

    def ball_fits(self, state: MatchState, at: Vec, margin: float = 0.0) -> bool:
        for s in SIDES:
            for pid, q in state.pieces.get(s, {}).items():
                if not self._clear(q, pid, at, BALL, margin):
                    return False
        return self.table.on_surface(at, self.table.ball_radius)

    def free_spot(self, state: MatchState, side: str, piece: str, want: Vec, *,
                  ok: Callable[[Vec], bool] | None = None, ball: bool = True,
                  step: float = 4.0, max_r: float = 600.0) -> Vec | None:
        """The nearest spot to ``want`` (a deterministic spiral search) where ``piece`` fits
        and ``ok(spot)`` holds, inside the field for a button; ``None`` if there is none."""
        field_rect = self.table.field
        kind, hx, hy = self.piece_extent(piece)

        def good(p: Vec) -> bool:
            if kind == "disc" and not field_rect.touches_disc(p, 0.0):
                return False
            return self.fits(state, side, piece, p, ball=ball, margin=0.5) and (ok is None or ok(p))

        want = round_pos(want)
        if good(want):
            return want
        r = step
        while r <= max_r:
            n = max(8, int(2 * math.pi * r / step))
            for i in range(n):
                a = 2 * math.pi * i / n
                p = round_pos((want[0] + r * math.cos(a), want[1] + r * math.sin(a)))
                if good(p):
                    return p
            r += step
        return None

    def place_piece(self, state: MatchState, side: str, piece: str, want: Vec, **kw: Any) -> MatchState:
        """Moves ``piece`` to the free spot nearest ``want`` (leaves it if none)."""
        spot = self.free_spot(state, side, piece, want, **kw)
        if spot is None:
            return state
        return state.with_piece(side, piece, spot)

    def keeper_home(self, state: MatchState, side: str, want: Vec | None = None) -> MatchState:
        """Puts ``side``'s keeper at the nearest free point inside its goal area (contract §2)."""
        at = want if want is not None else state.piece(side, "gk")
        if at is None:
            return state
        end = defended_end(side, state.home_attacks)
        spot = self.table.keeper_spot(at, end)
        if self.fits(state, side, "gk", spot, margin=0.0):
            return state.with_piece(side, "gk", round_pos(spot))
        found = self.free_spot(state, side, "gk", spot,
                               ok=lambda p: self.table.keeper_in_goal_area(p, end), step=3.0, max_r=320)
        return state.with_piece(side, "gk", found) if found else state

    def push_away(self, state: MatchState, side: str, spot: Vec, distance_mm: float = 60.0,
                  *, keepers: bool = False) -> MatchState:
        """Buttons of ``side`` closer than ``distance_mm`` (edge to ``spot``) are placed that far
        away (rulebook §9.1), along the line from the spot, or the nearest free place."""
        r = self.table.button_radius
        need = distance_mm + r
        for pid, p in sorted(state.pieces.get(side, {}).items()):
            if pid == "gk":
                if keepers and not self._clear(p, "gk", spot, BALL, 0.5):
                    state = self.keeper_home(state, side, (p[0], p[1] + (40 if p[1] >= spot[1] else -40)))
                continue
            d = distance(p, spot)
            if d >= need - EPS:
                continue
            if d < EPS:
                ux, uy = -end_sign(attacked_end(side, state.home_attacks)), 0.0
            else:
                ux, uy = (p[0] - spot[0]) / d, (p[1] - spot[1]) / d
            want = (spot[0] + ux * (need + 0.5), spot[1] + uy * (need + 0.5))
            spot_ok = (lambda q, s=spot, n=need: distance(q, s) >= n)  # noqa: E731
            state = self.place_piece(state.with_piece(side, pid, None), side, pid, want, ok=spot_ok)
            if state.piece(side, pid) is None:  # nowhere: put it back where it was
                state = state.with_piece(side, pid, p)
        return state

    def clear_ball_spot(self, state: MatchState, spot: Vec) -> MatchState:
        """Moves any piece overlapping the ball at ``spot`` just clear of it."""
        for s in SIDES:
            for pid, p in sorted(state.pieces.get(s, {}).items()):
                if self._clear(p, pid, spot, BALL, 0.0):
                    continue
                if pid == "gk":
                    state = self.keeper_home(state, s, (p[0], p[1] + (40 if p[1] >= spot[1] else -40)))
                    continue
                need = self.table.button_radius + self.table.ball_radius + 1.0
                d = distance(p, spot)
                ux, uy = ((p[0] - spot[0]) / d, (p[1] - spot[1]) / d) if d > EPS else (1.0, 0.0)
                state = self.place_piece(state.with_piece(s, pid, None), s, pid,
                                         (spot[0] + ux * need, spot[1] + uy * need))
                if state.piece(s, pid) is None:
                    state = state.with_piece(s, pid, p)
        return state

    # ======================================================================================
    # restarts and goals
    # ======================================================================================
    def award_restart(self, ctx: Ctx, state: MatchState, kind: str, side: str, at: Vec, rule: str,
                      *, push: bool = True, push_mm: float = 60.0, ball_at: Vec | None = None,
                      emit: bool = True, **extra: Any) -> MatchState:
        """A restart of ``kind`` to ``side`` at ``at``: the ball at ``ball_at`` (default ``at``),
        the opponents pushed ``push_mm`` away (§9.1), overlapping pieces moved clear; phase =
        ``kind``, ``to_move`` = ``side``, a fresh turn; a ``restart`` event."""
        at = round_pos(at)
        ball = round_pos(ball_at if ball_at is not None else at)
        state = state.replace(ball=ball)
        if push:
            state = self.push_away(state, other_side(side), ball, push_mm, keepers=True)
        state = self.clear_ball_spot(state, ball)
        state = state.replace(phase=kind, to_move=side, restart=Restart(kind, side, ball),
                              turn_started_s=ctx.now).with_memo(shot=None)
        if emit:
            ctx.emit("restart", kind=kind, side=side, at=ball, rule=rule, **extra)
        return state

    def open_play(self, ctx: Ctx, state: MatchState, side: str) -> MatchState:
        """Open play with ``side`` to move, a fresh turn."""
        return state.replace(phase="open_play", to_move=side, restart=None, turn_started_s=ctx.now)

    def score_goal(self, ctx: Ctx, state: MatchState, scorer: str, at: Vec | None, rule: str,
                   *, own_goal: bool = False, piece: str | None = None) -> MatchState:
        """``scorer`` scores; the side that conceded restarts (``restart_after_goal``)."""
        score = {s: state.score.get(s, 0) for s in SIDES}
        score[scorer] += 1
        state = state.replace(score=score)
        extra = {"own_goal": True} if own_goal else {}
        ctx.emit("goal", side=scorer, piece=piece, at=at, rule=rule, **extra)
        return self.restart_after_goal(ctx, state, other_side(scorer))

    def restart_after_goal(self, ctx: Ctx, state: MatchState, conceded: str) -> MatchState:
        """*hook* After a goal the side that conceded kicks off (or takes a goal kick)."""
        if self.params["restart_after_goal"] == "goal_kick":
            return self.start_goal_kick(ctx, state, conceded, rule=self.section("kick_off"), arrange=True)
        return self.start_kick_off(ctx, state, conceded)

    def goal_kick_spot(self, state: MatchState, side: str, ball: Vec | None = None) -> Vec:
        """Where the ball is put for ``side``'s goal kick: where it lies when that is inside
        the penalty area (§5.1), else in front of the goal area."""
        end = defended_end(side, state.home_attacks)
        t = self.table
        if ball is not None and t.wholly_in_penalty_area(ball, t.ball_radius, end) \
                and not t.wholly_in_goal_area(ball, t.ball_radius, end) and self.ball_fits(state, ball):
            return round_pos(ball)
        s = end_sign(end)
        return round_pos((s * (t.half_length - t.goal_area_depth - 20.0), 0.0))

    def start_goal_kick(self, ctx: Ctx, state: MatchState, side: str, *, rule: str,
                        arrange: bool = True, ball: Vec | None = None) -> MatchState:
        """A goal kick for ``side``; with ``arrange`` the arranging stages of rulebook §5 run
        first (``placing`` memo: taker offensive, opponent offensive, taker defensive,
        opponent defensive), each ended by ``ready``."""
        spot = self.goal_kick_spot(state, side, ball)
        state = self.award_restart(ctx, state, "goal_kick", side, spot, rule, push=False)
        if arrange:
            order = [[side, "offensive"], [other_side(side), "offensive"],
                     [side, "defensive"], [other_side(side), "defensive"]]
            state = state.with_memo(placing={"stage": 0, "order": order, "kind": "goal_kick"})
            state = state.replace(to_move=order[0][0])
        return state

    # ======================================================================================
    # flicks
    # ======================================================================================
    def validate_flick(self, state: MatchState, action: Flick) -> None:
        """Raises ``RuleViolation`` for a flick the table or the rules do not allow."""
        if action.piece == "gk":
            raise RuleViolation("the goalkeeper is never flicked; it is placed", self.section("keeper"))
        if state.piece(action.side, action.piece) is None:
            raise RuleViolation(f"{action.side}'s button {action.piece} is not on the table",
                                self.section("table"))
        if not (0 < action.speed_mm_s <= self.max_speed + EPS):
            raise RuleViolation(f"a flick's speed must be above 0 and at most {self.max_speed:g} mm/s, "
                                f"not {action.speed_mm_s:g}", self.section("table"))
        if not math.isfinite(action.angle_deg):
            raise RuleViolation("the angle must be a finite number of degrees", self.section("table"))
        if (state.memo.get("placing") or {}).get("kind") == "kick_off":
            raise RuleViolation("the kick-off formation is being placed: confirm with ready first",
                                self.section("kick_off"))
        if (state.memo.get("placing") or {}).get("stage") is not None:
            raise RuleViolation("the buttons are being arranged: confirm with ready first",
                                self.section("arrangement"))
        if state.phase == "shot_declared":
            raise RuleViolation("the defender is placing the goalkeeper", self.section("shot"))
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") != "kick":
            raise RuleViolation("the penalty kick is being set: place the taker, then ready",
                                self.section("penalty"))
        if pen and pen.get("taker") and action.piece != pen["taker"]:
            raise RuleViolation(f"the penalty kick is taken by button {pen['taker']}", self.section("penalty"))
        problem = self.flick_refusal(state, action)
        if problem is not None:
            raise problem

    def flick_refusal(self, state: MatchState, action: Flick) -> RuleViolation | None:
        """*hook* A rule-set refusal of a flick before it is played (``None``: allowed)."""
        return None

    def resolve(self, state: MatchState, action: Flick) -> FlickResult:
        """The physics of the flick (contract §3)."""
        return resolve_flick(self.table, state.ball, state.plain_pieces(), action.side, action.piece,
                             action.angle_deg, action.speed_mm_s, frames=self.frames)

    def facts(self, state: MatchState, action: Flick, result: FlickResult) -> FlickFacts:
        touches: list[str] = []
        for c in result.ball_contacts():
            other = c.other(BALL)
            if other not in FIXED_KEYS and other not in touches:
                touches.append(other)
        first_ball = next((c.t for c in result.contacts if c.involves(BALL)), math.inf)
        side = action.side
        opp = other_side(side)
        fouls = []
        for c in result.contacts:
            if c.t > first_ball + 1e-9:
                break
            if c.a in FIXED_KEYS or c.b in FIXED_KEYS or BALL in (c.a, c.b):
                continue
            sa, sb = split_key(c.a)[0], split_key(c.b)[0]
            if {sa, sb} == {side, opp}:
                fouls.append(c)
        crossing = result.ball_out
        goal_end = crossing.end if crossing is not None and crossing.goal else None
        ball_out = crossing if crossing is not None and not crossing.goal else None
        limit = crossing.t if crossing is not None else math.inf
        last = None
        for c in result.ball_contacts():
            if c.t > limit + 1e-9:
                break
            other = c.other(BALL)
            if other not in FIXED_KEYS:
                last = other
        return FlickFacts(side=side, piece=action.piece, result=result, ball_start=state.ball,
                          ball_end=result.ball, touches=tuple(touches), ball_first_t=first_ball,
                          opponent_contacts=tuple(fouls), goal_end=goal_end, ball_out=ball_out,
                          last_touch=last, pieces_out=dict(result.pieces_out),
                          pieces_start=state.plain_pieces())

    def on_flick(self, ctx: Ctx, state: MatchState, action: Flick) -> MatchState:
        self.validate_flick(state, action)
        result = self.resolve(state, action)
        facts = self.facts(state, action, result)
        ctx.flicks.append(result)
        for key in facts.touches:
            s, pid = split_key(key)
            ctx.emit("touch", side=s, piece=pid, rule=self.section("turn"))
        settled = self.settle(ctx, state, facts)
        if state.period == "shootout":
            new = self.judge_shootout_kick(ctx, state, settled, facts)
        else:
            new = self.judge_flick(ctx, state, settled, facts)
        return self.after_turn(ctx, new, facts)

    def settle(self, ctx: Ctx, state: MatchState, facts: FlickFacts) -> MatchState:
        """The resting positions after the flick: pieces that went out are taken off and wait
        to come back (§8, ``out`` memo, ``piece_out`` events); keepers back into their goal
        area (contract §2). The ball rests where the physics left it."""
        pieces = {s: dict(facts.result.pieces.get(s, {})) for s in SIDES}
        out_list = [dict(e) for e in state.memo.get("out", ())]
        turn_no = int(state.memo.get("turn_no", 0))
        for key, crossing in sorted(facts.pieces_out.items()):
            s, pid = split_key(key)
            if pid == "gk":
                continue
            pieces[s].pop(pid, None)
            spot = self.return_spot(crossing)
            out_list.append({"side": s, "piece": pid, "spot": list(spot), "turn": turn_no})
            ctx.emit("piece_out", side=s, piece=pid, at=crossing.exit_at, rule=self.section("pieces_out"))
        new = state.replace(pieces={s: {k: round_pos(v) for k, v in g.items()} for s, g in pieces.items()},
                            ball=round_pos(facts.result.ball))
        new = new.with_memo(out=out_list or None)
        for s in SIDES:
            gk = new.piece(s, "gk")
            if gk is not None and not self.table.keeper_in_goal_area(gk, defended_end(s, new.home_attacks)):
                new = self.keeper_home(new, s)
        return new

    def return_spot(self, crossing: Crossing) -> Vec:
        """Rulebook §8: back on the field touching the line at the point where it left."""
        x, y = crossing.exit_at
        r = self.table.button_radius
        t = self.table
        if crossing.line.startswith("goal_line"):
            x = end_sign(crossing.end or "+x") * (t.half_length - r)
            y = min(max(y, -t.half_width + r), t.half_width - r)
        else:
            y = (1 if crossing.line.endswith("+y") else -1) * (t.half_width - r)
            x = min(max(x, -t.half_length + r), t.half_length - r)
        return round_pos((x, y))

    def judge_flick(self, ctx: Ctx, before: MatchState, after: MatchState, facts: FlickFacts) -> MatchState:
        """*hook* What the flick means under the rule set: fouls, goals, out, the next turn."""
        raise NotImplementedError

    def bump_turn(self, state: MatchState) -> MatchState:
        return state.with_memo(turn_no=int(state.memo.get("turn_no", 0)) + 1)

    def after_turn(self, ctx: Ctx, state: MatchState, facts: FlickFacts | None) -> MatchState:
        """Book-keeping once a turn has ended: the turn counter, buttons that come back
        (§8), the rule set's ``end_of_turn``, and a period kept open by §4 that now ends."""
        turn_no = int(state.memo.get("turn_no", 0))
        mover = facts.side if facts else None
        if facts is not None:
            locked = [x for x in state.memo.get("locked", ()) if list(x)[0] != mover]
            state = state.with_memo(locked=locked or None)
            state = self.return_pieces(ctx, state, mover, turn_no)
        state = state.with_memo(turn_no=turn_no + 1)
        if state.phase not in ("full_time",) and state.period != "shootout":
            state = self.end_of_turn(ctx, state, facts)
        return self.after_period_overtime(ctx, state)

    def return_pieces(self, ctx: Ctx, state: MatchState, mover: str | None, turn_no: int) -> MatchState:
        """*hook* Buttons out come back after the opposing side's next turn, touching the
        line where they left, and sit out their side's following turn (§8); while the spot is
        blocked they stay off the table."""
        waiting = []
        locked = [list(x) for x in state.memo.get("locked", ())]
        for entry in state.memo.get("out", ()):
            e = dict(entry)
            due = mover == other_side(e["side"]) and turn_no > int(e["turn"])
            if e.get("due"):
                due = True
            spot = tuple(e["spot"])
            if due and self.fits(state, e["side"], e["piece"], spot, margin=0.0):
                state = state.with_piece(e["side"], e["piece"], spot)
                locked.append([e["side"], e["piece"]])
            else:
                if due:
                    e["due"] = True
                waiting.append(e)
        return state.with_memo(out=waiting or None, locked=locked or None)

    def end_of_turn(self, ctx: Ctx, state: MatchState, facts: FlickFacts | None) -> MatchState:
        """*hook* Rule-set checks at the end of every turn (goal area, triangle...)."""
        return state

    def on_turn_timeout(self, ctx: Ctx, state: MatchState) -> MatchState:
        """*hook* The side to move let its time run out. Base: a placing stage or the wait
        for a shot's keeper simply ends (as with ``ready``)."""
        placing = state.memo.get("placing") or {}
        if placing.get("kind") == "kick_off" and placing.get("stage") is not None \
                and self.kick_off_formation_refusal(state, state.to_move) is not None:
            state = self.reset_kick_off_formation(state, state.to_move)
        if placing.get("kind") == "goal_kick" and placing.get("stage") is not None \
                and self.arrangement_refusal(state, state.to_move) is not None:
            state = self.complete_arrangement(ctx, state, state.to_move)
        if state.phase == "shot_declared" or placing.get("stage") is not None \
                or (state.memo.get("penalty") or {}).get("stage") in ("taker", "keeper"):
            return self.do_ready(ctx, state)
        ctx.emit("turn_timeout", side=state.to_move, rule=self.section("turn"))
        return state.replace(turn_started_s=ctx.now)

    # ======================================================================================
    # declared shots, keepers, placing, ready
    # ======================================================================================
    def shot_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """*hook* Why ``side`` may not declare a shot now (``None``: it may). Base: the ball
        must lie entirely in the opponent's half (no part touching the halfway line, §4)."""
        if state.memo.get("shot"):
            return RuleViolation("a shot is already declared", self.section("shot"))
        end = attacked_end(side, state.home_attacks)
        if not self.table.entirely_in_half(state.ball, self.table.ball_radius, end):
            return RuleViolation("a shot may be declared only with the ball entirely in the "
                                 "opponent's half", self.section("shot"))
        return None

    def on_declare_shot(self, ctx: Ctx, state: MatchState, action: DeclareShot) -> MatchState:
        problem = self.shot_refusal(state, action.side)
        if problem is not None:
            raise problem
        ctx.emit("shot_declared", side=action.side, at=state.ball, rule=self.section("shot"))
        return state.replace(phase="shot_declared", to_move=other_side(action.side),
                             turn_started_s=ctx.now).with_memo(
            shot={"side": action.side, "armed": False, "resume": state.phase})

    def keeper_refusal(self, state: MatchState, side: str, at: Vec) -> RuleViolation | None:
        """*hook* Why ``side`` may not put its keeper ``at`` now. Base: entirely within the
        goal area (§6), on a free spot; during a penalty's keeper stage, on the goal line."""
        end = defended_end(side, state.home_attacks)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") == "keeper":
            problem = self.penalty_keeper_refusal(state, side, at)
            if problem is not None:
                return problem
        elif not self.table.keeper_in_goal_area(at, end):
            return RuleViolation("the goalkeeper must be placed entirely within its goal area",
                                 self.section("keeper"))
        if not self.fits(state, side, "gk", at):
            return RuleViolation("the goalkeeper would overlap another piece or the ball",
                                 self.section("keeper"))
        return None

    def penalty_keeper_spot(self, state: MatchState, side: str, y: float = 0.0) -> Vec:
        """*hook* Where ``side``'s keeper stands at a penalty kick against it (rulebook §10):
        on its goal line, its front face on the line and its body behind it in the goal mouth,
        "the line partially apparent in front of the goalkeeper"; ``y`` kept inside the posts."""
        return self.table.keeper_in_goal_mouth(y, defended_end(side, state.home_attacks))

    def penalty_keeper_refusal(self, state: MatchState, side: str, at: Vec) -> RuleViolation | None:
        """Rulebook §10: the defender places its keeper on the goal line with part of the line
        showing in front of it: its front face on the line (up to 1 mm behind it, never in front
        of it) and its body between the posts."""
        end = defended_end(side, state.home_attacks)
        t = self.table
        s = end_sign(end)
        front = at[0] - s * t.keeper_half[0]  # the face towards the field
        behind = s * (front - t.goal_line_x(end))  # mm behind the goal line (< 0: in front)
        inside_posts = abs(at[1]) + t.keeper_half[1] <= t.goal_width / 2 + EPS
        if not (-EPS <= behind <= 1.0 + EPS) or not inside_posts:
            return RuleViolation("at a penalty kick the keeper stands on its goal line, its front face "
                                 "on the line and its body behind it between the posts, so that part "
                                 "of the line shows in front of it", self.section("penalty"))
        return None

    def on_place_goalkeeper(self, ctx: Ctx, state: MatchState, action: PlaceGoalkeeper) -> MatchState:
        problem = self.keeper_refusal(state, action.side, action.at)
        if problem is not None:
            raise problem
        return state.with_piece(action.side, "gk", round_pos(action.at))

    def place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """*hook* Why ``action`` may not place a button now (``None``: it may). Base: the
        arranging stages of a goal kick (§5: the stage's half, 6 cm from the opponents), the
        taker of a penalty kick (by the ball, §10), the kicking side's own half before a
        kick-off (§7), and the taker of a set piece (a button by the ball, §5)."""
        t = self.table
        side, at = action.side, action.at
        r = t.button_radius
        defended = defended_end(side, state.home_attacks)
        placing = state.memo.get("placing")
        near_ball = gap_to(at, r, state.ball, t.ball_radius) <= 60.0
        if placing and placing.get("stage") is not None and placing.get("kind") == "kick_off":
            return self.kick_off_place_refusal(state, action)
        if placing and placing.get("stage") is not None:
            half = placing["order"][int(placing["stage"])][1]
            in_defensive = end_sign(defended) * at[0] >= -r  # touching the midline: defensive
            if half == "offensive" and in_defensive:
                return RuleViolation("in this stage buttons go in the offensive half (a button "
                                     "touching the halfway line counts as defensive)", self.section("arrangement"))
            if half == "defensive" and not in_defensive:
                return RuleViolation("in this stage buttons go in the defensive half", self.section("arrangement"))
            for pid, q in state.pieces.get(other_side(side), {}).items():
                if pid != "gk" and t.button_gap(at, q) < 60.0:
                    return RuleViolation("arranged buttons keep 6 cm from the opponent's",
                                         self.section("arrangement"))
            if half == "defensive":
                after = state.with_piece(side, action.piece, at)
                have, need = self.offensive_count(after, side)
                if have < need:
                    return RuleViolation(f"at least {need} buttons stay in the offensive half "
                                         f"(3 buttons, or all there are); there would be {have}",
                                         self.section("arrangement"))
            return None
        pen = state.memo.get("penalty")
        if pen:
            if pen.get("stage") != "taker":
                return RuleViolation("the penalty taker is already placed", self.section("penalty"))
            if not near_ball:
                return RuleViolation("the penalty taker is placed by the ball", self.section("penalty"))
            return None
        if state.phase == "kick_off" and state.restart and state.restart.side == side:
            return self.kick_off_place_refusal(state, action)
        if state.phase in RESTART_PHASES and state.restart and state.restart.side == side:
            return self.set_piece_place_refusal(state, action)
        return RuleViolation("buttons may not be placed now", self.section("arrangement"))

    def set_piece_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """*hook* Why the side taking a pending set piece may not place ``action.piece`` at
        ``action.at`` (``None``: it may). Base: the taker is placed by the ball (within 6 cm)."""
        t = self.table
        if gap_to(action.at, t.button_radius, state.ball, t.ball_radius) > 60.0:
            return RuleViolation("the taker of a set piece is placed by the ball (within 6 cm)",
                                 self.section("arrangement"))
        return None

    def kick_off_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """Rulebook §7, what no kick-off formation allows: a button outside its own half (or
        touching the halfway line), a button of the defending side inside the centre circle.
        The counts (5 by the line, the kicker's 2 in its half circle) are checked at ``ready``
        (``kick_off_formation_refusal``)."""
        t = self.table
        r = t.button_radius
        side, at = action.side, action.at
        rule = self.section("kick_off")
        if not t.entirely_in_half(at, r, defended_end(side, state.home_attacks)):
            return RuleViolation("at a kick-off buttons stand in their own half, not touching "
                                 "the halfway line", rule)
        kicker = state.restart.side if state.restart else state.to_move
        if side != kicker and math.hypot(*at) < t.centre_circle_radius + r:
            return RuleViolation("at a kick-off no button of the defending side may be inside "
                                 "the centre circle", rule)
        return None

    def kick_off_formation_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """Rulebook §7: ``side``'s buttons form a legal kick-off formation: all in its own half
        (none touching the halfway line), 5 within 6 cm of it (the other 5 anywhere in the
        half); the defending side's none inside the centre circle; the kicking side's 2 wholly
        inside the half centre circle in its own half (fewer buttons on the table: as many as
        there are). ``None``: legal."""
        t = self.table
        r = t.button_radius
        rule = self.section("kick_off")
        s = end_sign(defended_end(side, state.home_attacks))
        buttons = [(pid, p) for pid, p in sorted(state.pieces.get(side, {}).items()) if pid != "gk"]
        kicker = state.restart.side if state.restart else state.to_move
        for pid, p in buttons:
            if s * p[0] <= r:
                return RuleViolation(f"button {pid} is not in its own half (a button touching the "
                                     "halfway line does not count)", rule)
        near = sum(1 for _, p in buttons if s * p[0] - r <= 60.0)
        if near < min(5, len(buttons)):
            return RuleViolation(f"5 buttons stand within 6 cm of the halfway line (not touching it); "
                                 f"there are {near}", rule)
        circle = t.centre_circle_radius
        if side != kicker:
            inside = [pid for pid, p in buttons if math.hypot(*p) < circle + r]
            if inside:
                return RuleViolation(f"no button of the defending side may be inside the centre circle "
                                     f"(button {inside[0]})", rule)
        else:
            inside = [pid for pid, p in buttons if math.hypot(*p) + r <= circle]
            want = min(2, len(buttons))
            if len(inside) != want:
                return RuleViolation(f"the kicking side places 2 buttons inside the half centre circle "
                                     f"in its own half; there are {len(inside)}", rule)
        return None

    def kick_off_placing(self, state: MatchState, stage: int) -> MatchState:
        """The kick-off placing stages (rulebook §7): the kicking side, then the defending side,
        each ended by ``ready`` once its formation is legal; then the kicker kicks off."""
        kicker = state.restart.side if state.restart else state.to_move
        order = [[kicker, "kick_off"], [other_side(kicker), "kick_off"]]
        return state.replace(to_move=order[stage][0]).with_memo(
            placing={"stage": stage, "order": order, "kind": "kick_off"})

    def ball_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """*hook* Why the side to move may not put the ball ``action.at`` now (``place`` with
        piece ``"ball"``). Base: never."""
        return RuleViolation("the ball may not be placed now", self.section("arrangement"))

    def on_place_ball(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        """The ball moved by hand where ``ball_place_refusal`` allows it; a pending restart's
        ``at`` follows it."""
        problem = self.ball_place_refusal(state, action)
        if problem is not None:
            raise problem
        if not self.ball_fits(state, action.at):
            raise RuleViolation("the ball would overlap a piece there", self.section("arrangement"))
        ball = round_pos(action.at)
        restart = state.restart
        if restart is not None:
            restart = Restart(restart.kind, restart.side, ball)
        return state.replace(ball=ball, restart=restart)

    def on_place(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        if action.piece == "gk":
            return self.on_place_goalkeeper(ctx, state, PlaceGoalkeeper(side=action.side, at=action.at))
        if action.piece == BALL_PIECE:
            return self.on_place_ball(ctx, state, action)
        problem = self.place_refusal(state, action)
        if problem is not None:
            raise problem
        if not self.fits(state, action.side, action.piece, action.at) or \
                not self.table.field.touches_disc(action.at, 0.0):
            raise RuleViolation("that spot is not free on the field", self.section("arrangement"))
        out = [e for e in state.memo.get("out", ())
               if not (e["side"] == action.side and e["piece"] == action.piece)]
        state = state.with_piece(action.side, action.piece, round_pos(action.at)).with_memo(out=out or None)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") == "taker":
            state = state.with_memo(penalty={**dict(pen), "taker": action.piece})
        if state.phase == "kick_off" and state.memo.get("placing") is None:
            state = self.kick_off_placing(state, 0)  # the kicker's placing: ended by ready
        return state

    def offensive_count(self, state: MatchState, side: str) -> tuple[int, int]:
        """Rulebook §5: ``(have, need)``: how many of ``side``'s buttons lie wholly in its
        offensive half (one touching the halfway line is in its defensive half), and how many
        must when its goal-kick arrangement ends: 3, or all its buttons when it has fewer."""
        s = end_sign(defended_end(side, state.home_attacks))
        r = self.table.button_radius
        buttons = [p for pid, p in state.pieces.get(side, {}).items() if pid != "gk"]
        have = sum(1 for p in buttons if s * p[0] < -r)
        return have, min(3, len(buttons))

    def arrangement_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """Rulebook §5: why ``side`` may not end its stage of a goal kick's arrangement now:
        fewer than 3 buttons in its offensive half. Its offensive stage is checked too, since
        its defensive stage can only take buttons out of that half."""
        have, need = self.offensive_count(state, side)
        if have < need:
            return RuleViolation(f"at least {need} buttons have to be placed in the offensive half "
                                 f"(3 buttons, or all there are); there are {have}",
                                 self.section("arrangement"))
        return None

    def complete_arrangement(self, ctx: Ctx, state: MatchState, side: str) -> MatchState:
        """Rulebook §5, a stage whose time ran out with fewer than 3 buttons in the side's
        offensive half: the referee moves its buttons nearest the halfway line just across it
        (6 cm from the opponents, on a free spot), one ``piece_moved`` each, until there are 3."""
        s = end_sign(defended_end(side, state.home_attacks))
        t = self.table
        r = t.button_radius
        opponents = [q for pid, q in state.pieces.get(other_side(side), {}).items() if pid != "gk"]

        def ok(q: Vec) -> bool:
            return s * q[0] < -r - 0.5 and t.field.contains_disc(q, r) and \
                all(t.button_gap(q, o) >= 60.0 for o in opponents)

        behind = sorted((s * p[0], pid) for pid, p in state.pieces.get(side, {}).items()
                        if pid != "gk" and s * p[0] >= -r)
        for _, pid in behind:
            have, need = self.offensive_count(state, side)
            if have >= need:
                break
            p = state.piece(side, pid)
            spot = self.free_spot(state.with_piece(side, pid, None), side, pid, (-s * (r + 20.0), p[1]),
                                  ok=ok, max_r=900.0)
            if spot is None:
                continue
            state = state.with_piece(side, pid, spot)
            ctx.emit("piece_moved", side=side, piece=pid, at=spot, rule=self.section("arrangement"),
                     reason="arrangement")
        return state

    def on_ready(self, ctx: Ctx, state: MatchState, action: Ready) -> MatchState:
        placing = state.memo.get("placing") or {}
        if placing.get("kind") == "goal_kick" and placing.get("stage") is not None:
            problem = self.arrangement_refusal(state, action.side)
            if problem is not None:
                raise problem
        if state.phase == "kick_off" and (placing.get("kind") == "kick_off" or not placing):
            # §7: a side's kick-off placing ends only with a legal formation
            problem = self.kick_off_formation_refusal(state, action.side)
            if problem is not None:
                raise problem
            if not placing:  # the kicker places nothing: the defending side may place now
                return self.kick_off_placing(state, 1).replace(turn_started_s=ctx.now)
        if state.phase == "shot_declared" or placing.get("stage") is not None \
                or (state.memo.get("penalty") or {}).get("stage") in ("taker", "keeper"):
            return self.do_ready(ctx, state)
        if state.phase in RESTART_PHASES:
            return state  # nothing to confirm: the placing of a set piece is optional
        raise RuleViolation("there is nothing to confirm now", self.section("turn"))

    def do_ready(self, ctx: Ctx, state: MatchState) -> MatchState:
        """Ends the current wait: the shot is authorised, or the next placing stage begins."""
        if state.phase == "shot_declared":
            shot = dict(state.memo["shot"])
            shot["armed"] = True
            resume = shot.get("resume", "open_play")
            return state.replace(phase=resume, to_move=shot["side"], turn_started_s=ctx.now).with_memo(shot=shot)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") in ("taker", "keeper"):
            pen = dict(pen)
            if pen["stage"] == "taker":
                pen["stage"] = "keeper"
                to_move = other_side(pen["side"])
            else:
                pen["stage"] = "kick"
                to_move = pen["side"]
            return state.replace(to_move=to_move, turn_started_s=ctx.now).with_memo(penalty=pen)
        placing = dict(state.memo["placing"])
        stage = int(placing["stage"]) + 1
        if stage >= len(placing["order"]):
            taker = state.restart.side if state.restart else state.to_move
            return state.replace(to_move=taker, turn_started_s=ctx.now).with_memo(placing=None)
        placing["stage"] = stage
        return state.replace(to_move=placing["order"][stage][0], turn_started_s=ctx.now).with_memo(placing=placing)

    # ======================================================================================
    # penalty kicks and the shoot-out
    # ======================================================================================
    def setup_penalty(self, ctx: Ctx, state: MatchState, side: str, rule: str, **extra: Any) -> MatchState:
        """A penalty kick for ``side`` (rulebook §10): every button out of the penalty area
        (one touching its line counts as inside), the ball on the mark, the defending keeper
        on its goal line; stages: the attacker places its taker (``ready``), the defender its
        keeper on the line (``ready``), then the kick."""
        end = attacked_end(side, state.home_attacks)
        t = self.table
        mark = t.penalty_mark(end)
        state = state.replace(ball=mark)
        area = t.penalty_area(end)
        outside = (lambda p: not area.touches_disc(p, t.button_radius))  # noqa: E731
        for s in SIDES:
            for pid, p in sorted(state.pieces.get(s, {}).items()):
                if pid == "gk" or not t.touches_penalty_area(p, t.button_radius, end):
                    continue
                want = (end_sign(end) * (t.half_length - t.penalty_area_depth - t.button_radius - 2), p[1])
                state = self.place_piece(state.with_piece(s, pid, None), s, pid, want, ok=outside)
                if state.piece(s, pid) is None:
                    state = state.with_piece(s, pid, p)
        keeper_side = other_side(side)
        if state.piece(keeper_side, "gk") is not None:
            state = state.with_piece(keeper_side, "gk", round_pos(self.penalty_keeper_spot(state, keeper_side)))
        state = self.award_restart(ctx, state, "penalty_kick", side, mark, rule, push=False, **extra)
        return state.with_memo(penalty={"side": side, "stage": "taker", "taker": None})

    def start_shootout(self, ctx: Ctx, state: MatchState) -> MatchState:
        first = state.memo.get("first_kick_off", "home")
        state = state.with_memo(shootout={"kicks": {"home": [], "away": []}, "first": first})
        return self.next_shootout_kick(ctx, state, first)

    def next_shootout_kick(self, ctx: Ctx, state: MatchState, side: str) -> MatchState:
        return self.setup_penalty(ctx, state, side, self.section("shootout"), shootout=True)

    def judge_shootout_kick(self, ctx: Ctx, before: MatchState, after: MatchState,
                            facts: FlickFacts) -> MatchState:
        """One kick of the shoot-out: scored when the ball enters the goal the kicker attacks;
        alternate kicks, then sudden death after ``shootout_kicks`` each."""
        side = facts.side
        end = attacked_end(side, before.home_attacks)
        scored = facts.goal_end == end
        so = {"kicks": {s: list(v) for s, v in before.memo["shootout"]["kicks"].items()},
              "first": before.memo["shootout"]["first"]}
        so["kicks"][side].append(scored)
        rule = self.section("shootout")
        if scored:
            ctx.emit("goal", side=side, piece=facts.piece, at=facts.crossing.at if facts.crossing else None,
                     rule=rule, shootout=True)
        else:
            ctx.emit("shot_missed", side=side, piece=facts.piece, rule=rule, shootout=True)
        state = after.with_memo(shootout=so, penalty=None)
        goals = {s: sum(1 for k in so["kicks"][s] if k) for s in SIDES}
        taken = {s: len(so["kicks"][s]) for s in SIDES}
        n = self.shootout_kicks
        winner = None
        if max(taken.values()) <= n:
            for s in SIDES:
                o = other_side(s)
                if goals[s] > goals[o] + (n - taken[o]):
                    winner = s
        if winner is None and taken["home"] == taken["away"] and taken["home"] >= n \
                and goals["home"] != goals["away"]:
            winner = "home" if goals["home"] > goals["away"] else "away"
        if winner is not None:
            ctx.emit("period_end", period="shootout", rule=rule)
            return self.finish(ctx, state, shootout=goals, winner=winner)
        first = so["first"]
        nxt = other_side(first) if taken[first] > taken[other_side(first)] else first
        return self.next_shootout_kick(ctx, state, nxt)


FIXED_KEYS = ("post", "net", "rim")


def gap_to(p: Vec, rp: float, q: Vec, rq: float) -> float:
    """Edge-to-edge distance of two discs (mm)."""
    return distance(p, q) - rp - rq


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


__all__ = ["Ctx", "FlickFacts", "Outcome", "Referee", "RuleViolation", "RESTART_PHASES", "DEFAULT_PARAMS"]
