"""A small deterministic referee for the online-play tests (no physics), behind the referees'
interface: ``apply(state, action) -> Outcome``, ``initial_state``, ``turn_deadline``,
``period_end_s``, ``may_not_play`` (always empty: every button may play). Loaded through ``MATCHES_REFEREE_OVERRIDE`` (also by a worker subprocess).

Its rules, chosen so that tests can make things happen:
- turns alternate; a turn not taken by its deadline is a ``turn_timeout`` and passes;
- a flick moves the piece ``speed/10`` mm; a flick of piece "9" at 2000 mm/s or more scores;
- a flick at exactly 2222 mm/s gets the flicking side disqualified (four buttons expelled);
- ``declare_shot`` is always refused ("rulebook 4");
- periods by ``half_minutes``; a level knockout match goes to extra time, then a shoot-out of
  ``shootout_kicks`` kicks each (a kick of piece "9" at 2000 or more scores, any kick under
  200 misses; otherwise home scores its 1st, 3rd... kicks and away its 2nd, 4th...), sudden
  death after.

``STUB_REFEREE_SLOW_FILE``: when set, every ``apply`` touches that file and sleeps
``STUB_REFEREE_SLOW_S`` seconds (to kill a worker in the middle of a replay).
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path

from simulation.actions import DeclareShot, Flick, Tick
from simulation.events import RuleEvent
from simulation.rules import Outcome, RuleViolation
from simulation.state import MatchState, Restart

LINEUP = {"gk": (-820.0, 0.0), **{str(i): (-700.0 + 60 * i, -250.0 + 50 * i) for i in range(1, 11)}}


class _Frames:
    def __init__(self, frames):
        self._frames = frames

    def frames_json(self):
        return self._frames


class StubReferee:
    name = "stub"

    def __init__(self, params):
        self.params = dict(params)
        self.turn_seconds = float(self.params.get("turn_seconds", 30))
        self.half_s = float(self.params.get("half_minutes", 25)) * 60
        self.halves = int(self.params.get("halves", 2))
        self.extra_s = float(self.params.get("extra_time_minutes", 5)) * 60
        self.kicks = int(self.params.get("shootout_kicks", 5))
        self.knockout = bool(self.params.get("knockout", False))

    def initial_state(self, kick_off_side: str = "home") -> MatchState:
        away = {pid: (-x, -y) for pid, (x, y) in LINEUP.items()}
        return MatchState(ball=(0.0, 0.0), pieces={}).replace(
            pieces={"home": dict(LINEUP), "away": away}, phase="kick_off", to_move=kick_off_side,
            restart=Restart("kick_off", kick_off_side, (0.0, 0.0)), turn_started_s=0.0)

    def turn_deadline(self, state: MatchState) -> float | None:
        if state.phase == "full_time":
            return None
        start = state.turn_started_s if state.turn_started_s is not None else state.clock_s
        return start + self.turn_seconds

    def period_end_s(self, period: str) -> float | None:
        regular = self.half_s * self.halves
        return {"first_half": self.half_s, "second_half": regular, "extra_time_first": regular + self.extra_s,
                "extra_time_second": regular + 2 * self.extra_s}.get(period)

    def may_not_play(self, state: MatchState) -> dict:
        return {}

    # ------------------------------------------------------------------------------------
    def apply(self, state: MatchState, action) -> Outcome:
        slow = os.environ.get("STUB_REFEREE_SLOW_FILE")
        if slow:
            Path(slow).touch()
            time.sleep(float(os.environ.get("STUB_REFEREE_SLOW_S", "0.2")))
        if state.phase == "full_time":
            raise RuleViolation("the match is over", "stub time")
        events: list[RuleEvent] = []
        if action.t is not None:
            if action.t < state.clock_s - 1e-6:
                raise RuleViolation("time does not go back", "stub time")
            state = self._advance(state, float(action.t), events)
        if isinstance(action, Tick):
            return Outcome(state, tuple(events))
        if state.phase == "full_time":
            raise RuleViolation("the match is over", "stub time")
        if action.side != state.to_move:
            raise RuleViolation(f"it is {state.to_move}'s turn", "stub turn")
        flicks = ()
        if isinstance(action, DeclareShot):
            raise RuleViolation("the ball is not entirely in the opponent's half", "rulebook 4")
        if isinstance(action, Flick):
            at = state.piece(action.side, action.piece)
            if at is None:
                raise RuleViolation(f"piece {action.piece} is not on the table", "stub pieces")
            d = action.speed_mm_s / 10
            dest = (round(max(-800.0, min(800.0, at[0] + d * math.cos(math.radians(action.angle_deg)))), 3),
                    round(max(-500.0, min(500.0, at[1] + d * math.sin(math.radians(action.angle_deg)))), 3))
            state = state.with_piece(action.side, action.piece, dest)
            flicks = (_Frames([[0.0, [0.0, 0.0], {f"{action.side}:{action.piece}": list(at)}],
                               [0.5, [0.0, 0.0], {f"{action.side}:{action.piece}": list(dest)}]]),)
            if action.speed_mm_s == 2222:
                return Outcome(self._disqualify(state, action.side, events), tuple(events), flicks)
            scored = action.piece == "9" and action.speed_mm_s >= 2000
            if state.period == "shootout":
                if 200 <= action.speed_mm_s < 2000:  # home scores its odd kicks, away its even ones
                    scored = (len(state.memo["kicks"][action.side]) + (action.side == "away")) % 2 == 0
                return Outcome(self._shootout_kick(state, action.side, scored, events), tuple(events), flicks)
            if scored:
                score = dict(state.score)
                score[action.side] += 1
                state = state.replace(score=score)
                events.append(RuleEvent.make("goal", side=action.side, rule="stub goal"))
        other = "away" if state.to_move == "home" else "home"
        state = state.replace(to_move=other, phase="open_play", restart=None, turn_started_s=state.clock_s)
        return Outcome(state, tuple(events), flicks)

    # ------------------------------------------------------------------------------------
    def _advance(self, state: MatchState, t: float, events: list) -> MatchState:
        for _ in range(10000):
            if state.phase == "full_time":
                return state
            due = [(d, k) for d, k in ((self.period_end_s(state.period), 0), (self.turn_deadline(state), 1))
                   if d is not None and d <= t + 1e-6]
            if not due:
                break
            when, kind = min(due)
            state = state.replace(clock_s=max(when, state.clock_s))
            if kind == 0:
                state = self._end_period(state, events)
            else:
                events.append(RuleEvent.make("turn_timeout", side=state.to_move, rule="stub turn"))
                other = "away" if state.to_move == "home" else "home"
                state = state.replace(to_move=other, turn_started_s=state.clock_s)
        return state.replace(clock_s=max(state.clock_s, t)) if state.phase != "full_time" else state

    def _end_period(self, state: MatchState, events: list) -> MatchState:
        events.append(RuleEvent.make("period_end", period=state.period, rule="stub time"))
        level = state.score["home"] == state.score["away"]
        order = ["first_half", "second_half"][: self.halves]
        nxt = None
        if state.period in order[:-1]:
            nxt = order[order.index(state.period) + 1]
        elif state.period in (order[-1], "extra_time_second") and self.knockout and level:
            nxt = "extra_time_first" if state.period == order[-1] and self.extra_s > 0 else (
                "shootout" if self.kicks > 0 else None)
        elif state.period == "extra_time_first":
            nxt = "extra_time_second"
        if nxt is None:
            events.append(RuleEvent.make("full_time", rule="stub time"))
            return state.replace(phase="full_time")
        memo = {"kicks": {"home": [], "away": []}} if nxt == "shootout" else {}
        return state.replace(period=nxt, phase="kick_off", to_move="home", turn_started_s=state.clock_s).with_memo(**memo)

    def _shootout_kick(self, state: MatchState, side: str, scored: bool, events: list) -> MatchState:
        kicks = {s: list(v) for s, v in state.memo["kicks"].items()}
        kicks[side].append(scored)
        if scored:
            events.append(RuleEvent.make("goal", side=side, rule="stub shootout", shootout=True))
        h, a = sum(kicks["home"]), sum(kicks["away"])
        nh, na, n = len(kicks["home"]), len(kicks["away"]), self.kicks
        over = False
        if nh <= n and na <= n:
            over = h + (n - nh) < a or a + (n - na) < h
        if not over and nh == na and nh >= n and h != a:
            over = True
        state = state.with_memo(kicks=kicks)
        if over:
            events.append(RuleEvent.make("period_end", period="shootout", rule="stub shootout"))
            events.append(RuleEvent.make("full_time", rule="stub time"))
            return state.replace(phase="full_time")
        other = "away" if side == "home" else "home"
        return state.replace(to_move=other, turn_started_s=state.clock_s)

    def _disqualify(self, state: MatchState, side: str, events: list) -> MatchState:
        expelled = {s: list(v) for s, v in state.expelled.items()}
        for pid in ("1", "2", "3", "4"):
            if state.piece(side, pid) is not None:
                state = state.with_piece(side, pid, None)
                expelled[side].append(pid)
                events.append(RuleEvent.make("expulsion", side=side, piece=pid, reason="violent_foul", rule="stub"))
        events.append(RuleEvent.make("disqualification", side=side, rule="stub"))
        events.append(RuleEvent.make("full_time", rule="stub time"))
        return state.replace(expelled=expelled, phase="full_time")
