"""The referee's table of contents: ``Referee`` is the shared machinery of both rule sets, one
part per section of the rulebook, each in its own module; a rule set is a subclass that fills
in the hooks (``one_touch.py``, ``mbs.py``).

| where it is decided | rulebook (Button Soccer Rulebook) | MBS online rules |
|---|---|---|
| ``clock.py``: deadlines, periods, half time, extra time, shoot-out, full time | Duration of the Game, Aim of the Game, §4 (a period ending after a declared shot or a direct foul) | Turnos (30 s) |
| ``turns.py``: a flick checked, resolved, settled; buttons out and back | §3 a player's turn, §8 buttons out of bounds | Turnos |
| ``restarts.py``: kick-offs, goals, goal kicks, every restart awarded | §5.1, §7, §9.5 (opponents 6 cm away) | the restarts every heading awards |
| ``placing.py``: arrangement, keeper, kick-off formation, set-piece taker, ball, ready | §5, §6, §7 | Saque de banda y tiro de esquina, Posición del portero |
| ``shots.py``: declared shots, penalty kicks, the shoot-out | §4, §10 | Disparo a la meta, Penal |
| ``fouls.py``: contacts before the ball, pushing back 6 cm | §9, §9.1 | Falta |
| ``geometry.py``, ``core.py``: free spots; refusals, outcomes, facts, defaults | | |
| ``one_touch.py``: one touch a turn, fouls and free kicks (§9.2-9.4), technical fouls (§9.5), the Special rule, goal area (§8), throw-ins and corners (§11), own goals (§12), picking up buttons (§5) | all | |
| ``mbs.py``: possession, fouls, technical fouls, inversion, expulsion, disqualification | | all |

``COVERAGE.md`` beside this file quotes every sentence of both rulebooks with the scenarios
that test it.

Everything is pure: ``apply(state, action) -> Outcome``; the input state is never mutated; a
refused action raises ``RuleViolation`` and changes nothing. How an action is applied:

1. ``t`` (absolute match clock, s) may not go back. Every deadline up to ``t`` fires first, in
   time order (``clock.py``): the turn's (``turn_limit``: ``turn_seconds``, or
   ``shot_wait_seconds`` while a shot waits for the keeper) calls the hook ``on_turn_timeout``;
   a period's end calls ``end_period`` (half time swaps ``home_attacks``; a level knockout
   match goes to extra time, then to a shoot-out; ``period_end`` and ``full_time`` events).
   The hook ``period_may_extend`` keeps a period open while a declared shot or a direct free
   kick is still to be taken (rulebook §4): memo ``period_overtime``; the period then ends
   after the next flick.
2. A ``tick`` stops there. Any other action must come from ``state.to_move`` (the side whose
   turn it is, or whose placing is awaited, contract §2).
3. ``flick`` (``turns.py``): ``validate_flick`` (piece on the table, not the keeper, speed
   within ``max_flick_speed_mm_s``; ``piece_refusal`` and the hook ``flick_refusal`` for the
   rule set's), then the physics, then ``FlickFacts`` (goal, ball out and who last touched it,
   pieces out, contacts of the side's pieces with opponents before the ball), then ``settle``
   (resting positions, pieces out taken off, keepers put back into their goal area, contract
   §2), then the hook ``judge_flick`` (or ``judge_shootout_kick`` in the shoot-out), then
   ``after_turn`` (turn counter, buttons waiting to come back (§8), hook ``end_of_turn``, a
   period in overtime ends).
4. ``declare_shot`` -> hook ``shot_refusal`` (``shots.py``); ``shot_declared`` phase, the
   defender to move. ``place_goalkeeper`` -> hook ``keeper_refusal``. ``place`` -> hook
   ``place_refusal`` (of the ball, piece ``"ball"``: hook ``ball_place_refusal``). ``ready`` ->
   ends the wait for a shot, or a placing stage (``placing.py``).

Every event and refusal says what happened in words: ``Ctx.emit(type, key, ...)`` and
``Referee.refusal(key, rule, ...)`` give it a message of the referee's catalogue
(``messages/``). ``may_not_play(state)`` lists the buttons the side to move may not flick.

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

from collections.abc import Mapping
from typing import Any

from ..actions import Action, DeclareShot, Flick, Place, PlaceGoalkeeper, Ready, Tick
from ..physics import MAX_FLICK_SPEED_MM_S
from ..state import MatchState
from ..table import Table
from .clock import ClockAndPeriods
from .core import (
    DEFAULT_PARAMS,
    EPS,
    RESTART_PHASES,
    Ctx,
    FlickFacts,
    Outcome,
    RuleViolation,
    gap_to,
    is_number,
    message_params,
)
from .fouls import Fouls
from .geometry import Geometry
from .messages import render
from .placing import Placing
from .restarts import RestartsAndSetPieces
from .shots import ShotsAndPenalties
from .turns import Turns


class Referee(ClockAndPeriods, Turns, RestartsAndSetPieces, Placing, ShotsAndPenalties, Fouls, Geometry):
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
        "table": "rulebook 3", "disqualification": "rulebook Duration of the Game",
    }

    def __init__(self, params: Mapping[str, Any]):
        merged = dict(DEFAULT_PARAMS)
        merged.update(params or {})
        self.params = merged
        self.table = Table.from_params(merged)
        for key in ("turn_seconds", "shot_wait_seconds", "max_flick_speed_mm_s", "half_minutes"):
            if not is_number(merged[key]) or merged[key] <= 0:
                raise ValueError(f"params.{key} must be a positive number, not {merged[key]!r}")
        if merged["max_flick_speed_mm_s"] > MAX_FLICK_SPEED_MM_S:
            raise ValueError(f"params.max_flick_speed_mm_s must be at most {MAX_FLICK_SPEED_MM_S:g}, "
                             f"not {merged['max_flick_speed_mm_s']!r}")
        if not is_number(merged["extra_time_minutes"]) or merged["extra_time_minutes"] < 0:
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

    def context(self, now: float) -> Ctx:
        """A fresh ``Ctx`` at clock ``now`` (s) for this referee's events."""
        return Ctx(now=now, referee=self.name)

    def refusal(self, key: str, rule: str | None, **params: Any) -> RuleViolation:
        """The ``RuleViolation`` whose message is ``key`` of this referee's catalogue (the rule
        set's name is prefixed) with ``params`` (and ``rule``); its ``reason`` is the English
        sentence, ``{player}`` read as the side."""
        full = f"{self.name}.{key}"
        values = {k: v for k, v in params.items() if v is not None}
        if rule is not None:
            values["rule"] = rule
        try:
            reason = render(full, values)
        except (KeyError, IndexError, ValueError):  # a key missing from the catalogue: a bug the tests catch
            reason = full
        return RuleViolation(reason, rule, key=full, params=values)

    def apply(self, state: MatchState, action: Action) -> Outcome:
        """Applies ``action`` to ``state``; raises ``RuleViolation`` when the rules refuse it."""
        if state.phase == "full_time":
            raise self.refusal("refused.match_over", self.section("time"))
        if state.turn_started_s is None:
            state = state.replace(turn_started_s=state.clock_s)
        ctx = self.context(state.clock_s)
        if action.t is not None:
            if action.t < state.clock_s - EPS:
                raise self.refusal("refused.time_backwards", self.section("time"), t=action.t,
                                   clock=state.clock_s)
            state = self.advance_clock(ctx, state, float(action.t))
        if isinstance(action, Tick):
            return Outcome(state, tuple(ctx.events), tuple(ctx.flicks))
        if state.phase == "full_time":
            raise self.refusal("refused.match_over", self.section("time"))
        side = getattr(action, "side", None)
        if side != state.to_move:
            raise self.refusal("refused.not_your_turn", self.section("turn"), side=side, to_move=state.to_move)
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
            raise TypeError(f"unknown action {action.type!r}")
        return Outcome(state, tuple(ctx.events), tuple(ctx.flicks))


__all__ = ["Ctx", "FlickFacts", "Outcome", "Referee", "RuleViolation", "RESTART_PHASES", "DEFAULT_PARAMS",
           "EPS", "gap_to", "message_params"]
