"""Restarts and set pieces: the kick-off and its formation (rulebook §7), goals and what follows
them, goal kicks (§5.1), and every restart awarded (the ball on its spot, the opponents pushed
6 cm away, §9.1 and §9.5), with its ``restart`` event.
"""
from __future__ import annotations

from typing import Any

from ..state import MatchState, Restart, round_pos
from ..table import SIDES, Vec, defended_end, end_sign, other_side
from .core import Ctx


class RestartsAndSetPieces:
    """Awarding restarts. Hooks: ``kick_off_formation``, ``restart_after_goal``."""

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
        ctx = self.context(0.0)
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
            ctx.emit("restart", f"restart.{kind}", kind=kind, side=side, at=ball, rule=rule, **extra)
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
        ctx.emit("goal", "goal.own_goal" if own_goal else "goal", side=scorer, piece=piece, at=at,
                 rule=rule, **extra)
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
