"""Fouls, what both rule sets share of them: the contacts of the side in turn with opposing
pieces before the ball is touched (rulebook §9; MBS Falta), and the opponents pushed 6 cm from
the spot of a foul (§9.1, §9.5). What each foul gives is the rule set's (``one_touch``,
``mbs``).
"""
from __future__ import annotations

from ..physics import BALL, Contact, FlickResult, split_key
from ..state import MatchState
from ..table import Vec, attacked_end, distance, end_sign, other_side
from .core import EPS, FIXED_KEYS


class Fouls:
    """Contacts before the ball, and pushing back."""

    def contacts_before_ball(self, result: FlickResult, side: str, first_ball_t: float) -> list[Contact]:
        """Rulebook §9, "a button from the team taking the turn touches an opposing team's button
        or goalkeeper before or at the same time it touches the ball"; MBS Falta, "un botón de un
        jugador golpea cualquier otro botón de su adversario antes de tocar la pelota": the
        contacts of any piece of ``side`` with an opposing piece at or before ``first_ball_t``
        (s), the ball's first contact with anything, in order (``FlickFacts.opponent_contacts``)."""
        opp = other_side(side)
        found = []
        for c in result.contacts:
            if c.t > first_ball_t + 1e-9:
                break
            if c.a in FIXED_KEYS or c.b in FIXED_KEYS or BALL in (c.a, c.b):
                continue
            if {split_key(c.a)[0], split_key(c.b)[0]} == {side, opp}:
                found.append(c)
        return found

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
