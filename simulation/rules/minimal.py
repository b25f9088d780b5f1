"""A minimal referee: the physics with alternating turns, until a rule set's own referee lands.

A flick is checked (the side to move, the piece on the table and not the keeper, the speed at
most ``max_flick_speed_mm_s``), resolved, and reported as ``touch`` events for the pieces that
touched the ball and ``piece_out`` events for the pieces that left the field (taken off the
table). ``tick`` only moves the clock. Nothing else is refereed.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions import Action, Flick, Tick
from ..events import RuleEvent
from ..physics import BALL, FIXED, MAX_FLICK_SPEED_MM_S, resolve_flick, split_key
from ..state import MatchState
from ..table import other_side
from .base import Outcome, Referee, RuleViolation


class MinimalReferee(Referee):
    name = "minimal"

    def __init__(self, params: Mapping[str, Any]):
        super().__init__(params)
        limit = self.params.get("max_flick_speed_mm_s", 2500)
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) \
                or not 0 < limit <= MAX_FLICK_SPEED_MM_S:
            raise ValueError(f"params.max_flick_speed_mm_s must be a positive number at most "
                             f"{MAX_FLICK_SPEED_MM_S:g}, not {limit!r}")
        self.max_speed = float(limit)

    def apply(self, state: MatchState, action: Action) -> Outcome:
        """The state after ``action``; raises ``RuleViolation`` for a flick the table refuses."""
        if action.t is not None and action.t < state.clock_s:
            raise RuleViolation(f"time runs forward: t={action.t} is before the clock {state.clock_s}")
        clock = state.clock_s if action.t is None else action.t
        if isinstance(action, Tick):
            return Outcome(state.replace(clock_s=clock))
        if not isinstance(action, Flick):
            raise RuleViolation(f"the minimal referee does not handle {action.type!r}")
        if action.side != state.to_move:
            raise RuleViolation(f"it is {state.to_move}'s turn, not {action.side}'s")
        if action.piece == "gk":
            raise RuleViolation("the goalkeeper is never flicked; it is placed")
        if state.piece(action.side, action.piece) is None:
            raise RuleViolation(f"{action.side}'s piece {action.piece} is not on the table")
        if not 0 <= action.speed_mm_s <= self.max_speed:
            raise RuleViolation(f"a flick is at most {self.max_speed:g} mm/s, not {action.speed_mm_s:g}")
        result = resolve_flick(self.table, state.ball, state.plain_pieces(), action.side,
                               action.piece, action.angle_deg, action.speed_mm_s, frames=False)
        events = []
        for contact in result.ball_contacts():
            other = contact.other(BALL)
            if other not in FIXED:
                side, piece = split_key(other)
                events.append(RuleEvent.make("touch", side=side, piece=piece, at=contact.ball_at,
                                             rule="minimal"))
        pieces = {s: dict(v) for s, v in result.pieces.items()}
        for key, crossing in result.pieces_out.items():
            side, piece = split_key(key)
            pieces[side].pop(piece, None)
            events.append(RuleEvent.make("piece_out", side=side, piece=piece, at=crossing.exit_at,
                                         rule="minimal"))
        new_state = state.replace(ball=result.ball, pieces=pieces, clock_s=clock,
                                  to_move=other_side(state.to_move))
        return Outcome(new_state, tuple(events), (result,))
