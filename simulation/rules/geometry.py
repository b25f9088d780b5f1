"""Where a piece may stand: the shared machinery that puts pieces on free spots (a button
pushed back, a keeper put back in its goal area, a piece moved off the ball's spot).

Every method is pure: it returns a new ``MatchState`` or a position (mm), never mutates one.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from ..physics import BALL
from ..state import MatchState, round_pos
from ..table import SIDES, Vec, defended_end, distance
from .core import EPS


class Geometry:
    """Pieces' extents, overlaps and the nearest free spot (a deterministic spiral search)."""

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
