"""The clock and the periods: turn deadlines, the end of a period, half time, extra time, the
shoot-out and full time (rulebook "The Duration of the Game" and "Aim of the Game"; §4, a period
that ends right after a declared shot or a direct foul; MBS Turnos).

The match clock is the actions' ``t`` (s, contract §2); nothing here reads a real clock.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..state import MatchState
from ..table import SIDES, other_end, other_side
from .core import EPS, REGULAR_PERIODS, Ctx


class ClockAndPeriods:
    """Deadlines and periods. Hooks: ``turn_limit``, ``period_may_extend``,
    ``start_period_play``, ``on_turn_timeout``."""

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
        ctx.emit("period_end", f"period_end.{state.period}", period=state.period, rule=self.section("time"))
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

    def finish(self, ctx: Ctx, state: MatchState, *, shootout: Mapping[str, int] | None = None,
               winner: str | None = None, disqualified: str | None = None) -> MatchState:
        """``full_time``: the match ends with the score on the table (and the shoot-out's
        ``winner`` and goals, or the ``disqualified`` side)."""
        score = {s: state.score.get(s, 0) for s in SIDES}
        params: dict[str, Any] = {"home_goals": score["home"], "away_goals": score["away"]}
        extra: dict[str, Any] = {}
        key = "full_time"
        if shootout is not None:
            key = "full_time.shootout"
            extra.update(shootout=dict(shootout), winner=winner)
            params.update(side=winner, home_kicks=shootout["home"], away_kicks=shootout["away"])
        if disqualified is not None:
            key = "full_time.disqualification"
            extra["disqualified"] = disqualified
            params["side"] = disqualified
        rule = self.section("disqualification" if disqualified is not None else "time")
        ctx.emit("full_time", key, params=params, rule=rule, score=score, **extra)
        return state.replace(phase="full_time", restart=None, turn_started_s=ctx.now)

    def start_period_play(self, ctx: Ctx, state: MatchState, kicker: str) -> MatchState:
        """*hook* How a period starts: a kick-off by ``kicker`` (or, with the friendly custom
        ``restart_after_goal = goal_kick``, a goal kick, rulebook §7)."""
        if self.params["restart_after_goal"] == "goal_kick":
            return self.start_goal_kick(ctx, state, kicker, rule=self.section("kick_off"), arrange=True)
        return self.start_kick_off(ctx, state, kicker)

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
        ctx.emit("turn_timeout", "turn_timeout", side=state.to_move, rule=self.section("turn"))
        return state.replace(turn_started_s=ctx.now)

    def bump_turn(self, state: MatchState) -> MatchState:
        return state.with_memo(turn_no=int(state.memo.get("turn_no", 0)) + 1)
