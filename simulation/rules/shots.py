"""Declared shots (rulebook §4; MBS Disparo a la meta), penalty kicks (§10; MBS Penal) and the
shoot-out ("Aim of the Game": a penalty shoot-out may decide a drawn game).
"""
from __future__ import annotations

from typing import Any

from ..actions import DeclareShot
from ..state import MatchState, round_pos
from ..table import SIDES, Vec, attacked_end, defended_end, end_sign, other_side
from .core import EPS, Ctx, FlickFacts, RuleViolation


class ShotsAndPenalties:
    """Shots, penalty kicks and the shoot-out. Hooks: ``shot_refusal``,
    ``penalty_keeper_spot``."""

    def shot_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """*hook* Why ``side`` may not declare a shot now (``None``: it may). Base: the ball
        must lie entirely in the opponent's half (no part touching the halfway line, §4)."""
        if state.memo.get("shot"):
            return self.refusal("refused.shot_already_declared", self.section("shot"), side=side)
        end = attacked_end(side, state.home_attacks)
        if not self.table.entirely_in_half(state.ball, self.table.ball_radius, end):
            return self.refusal("refused.shot_ball_not_in_opponents_half", self.section("shot"), side=side)
        return None

    def on_declare_shot(self, ctx: Ctx, state: MatchState, action: DeclareShot) -> MatchState:
        problem = self.shot_refusal(state, action.side)
        if problem is not None:
            raise problem
        ctx.emit("shot_declared", "shot_declared", side=action.side, at=state.ball, rule=self.section("shot"))
        return state.replace(phase="shot_declared", to_move=other_side(action.side),
                             turn_started_s=ctx.now).with_memo(
            shot={"side": action.side, "armed": False, "resume": state.phase})

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
            return self.refusal("refused.penalty_keeper_on_goal_line", self.section("penalty"), side=side)
        return None

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
        """The shoot-out begins (the ends have changed): each keeper goes to the middle of its
        own goal area (rulebook §6), out of the penalty area the kicks are taken in; then the
        first kick, by the side that kicked off the match."""
        t = self.table
        for side in SIDES:
            if state.piece(side, "gk") is not None:
                end = defended_end(side, state.home_attacks)
                state = self.keeper_home(state, side, (t.goal_line_x(end) - end_sign(end) * t.goal_area_depth / 2, 0.0))
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
            ctx.emit("goal", "goal.shootout", side=side, piece=facts.piece,
                     at=facts.crossing.at if facts.crossing else None,
                     rule=rule, shootout=True)
        else:
            ctx.emit("shot_missed", "shot_missed.shootout", side=side, piece=facts.piece, rule=rule,
                     shootout=True)
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
            ctx.emit("period_end", "period_end.shootout", period="shootout", rule=rule)
            return self.finish(ctx, state, shootout=goals, winner=winner)
        first = so["first"]
        nxt = other_side(first) if taken[first] > taken[other_side(first)] else first
        return self.next_shootout_kick(ctx, state, nxt)
