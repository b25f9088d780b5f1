"""The table: its sizes, regions and the geometric predicates the referees use.

Frame and units (SIMULATION_CONTRACT.md §1): millimetres, origin at the centre spot, x along the
length of the pitch, y across it. The two goals are at the *ends* ``"+x"`` and ``"-x"``.

Every size and physical value is a rule-set parameter named as in the contract §2; build a table
with ``Table.from_params(params)``. Unknown keys are ignored here (the referees read the timers);
a known key with a bad value raises ``ValueError`` naming it.

Definitions (contract §2): a piece is **out** when it is wholly beyond a line; **in the penalty
area** when any part touches the area (rulebook §10); the ball is **in the goal area** when it
lies wholly inside it; **entirely in a half** when no part touches the halfway line (§4).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

Vec = tuple[float, float]
End = Literal["+x", "-x"]
ENDS: tuple[End, End] = ("+x", "-x")
SIDES = ("home", "away")


def other_side(side: str) -> str:
    """``"home"`` <-> ``"away"``."""
    return "away" if side == "home" else "home"


def end_sign(end: str) -> int:
    """+1 for the ``"+x"`` end, -1 for ``"-x"``."""
    return 1 if end == "+x" else -1


def other_end(end: str) -> str:
    return "-x" if end == "+x" else "+x"


def attacked_end(side: str, home_attacks: str) -> str:
    """The end whose goal ``side`` attacks."""
    return home_attacks if side == "home" else other_end(home_attacks)


def defended_end(side: str, home_attacks: str) -> str:
    """The end whose goal ``side`` defends (its own, defensive half is on this end)."""
    return other_end(attacked_end(side, home_attacks))


def distance(p: Sequence[float], q: Sequence[float]) -> float:
    """Distance between two points in mm."""
    return math.hypot(p[0] - q[0], p[1] - q[1])


def gap(p: Sequence[float], rp: float, q: Sequence[float], rq: float) -> float:
    """Edge-to-edge distance between two discs in mm (negative when they overlap)."""
    return distance(p, q) - rp - rq


def _point_segment_distance(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 == 0.0:
        return distance(p, a)
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def _point_in_triangle(p: Sequence[float], a: Sequence[float], b: Sequence[float], c: Sequence[float]) -> bool:
    def cross(o, u, v):
        return (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0])

    d1, d2, d3 = cross(a, b, p), cross(b, c, p), cross(c, a, p)
    has_neg = d1 < 0 or d2 < 0 or d3 < 0
    has_pos = d1 > 0 or d2 > 0 or d3 > 0
    return not (has_neg and has_pos)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle, ``x0 <= x <= x1``, ``y0 <= y <= y1`` (mm)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def contains_disc(self, c: Sequence[float], r: float) -> bool:
        """The disc lies wholly inside (touching the edge from inside counts as inside)."""
        return self.x0 + r <= c[0] <= self.x1 - r and self.y0 + r <= c[1] <= self.y1 - r

    def touches_disc(self, c: Sequence[float], r: float) -> bool:
        """Any part of the disc touches the rectangle (its lines included)."""
        nx = min(max(c[0], self.x0), self.x1)
        ny = min(max(c[1], self.y0), self.y1)
        return math.hypot(c[0] - nx, c[1] - ny) <= r

    def contains_rect(self, c: Sequence[float], half_x: float, half_y: float) -> bool:
        return (self.x0 <= c[0] - half_x and c[0] + half_x <= self.x1
                and self.y0 <= c[1] - half_y and c[1] + half_y <= self.y1)

    def clamp_rect_centre(self, c: Sequence[float], half_x: float, half_y: float) -> Vec:
        """The nearest centre at which a ``2*half_x`` by ``2*half_y`` block lies wholly inside."""
        x = min(max(c[0], self.x0 + half_x), self.x1 - half_x)
        y = min(max(c[1], self.y0 + half_y), self.y1 - half_y)
        return (x, y)


@dataclass(frozen=True)
class Table:
    """Sizes (mm), masses (g) and material values of a table; defaults of the contract §2."""

    field_length: float = 1670.0
    field_width: float = 1040.0
    table_length: float = 1850.0
    table_width: float = 1200.0
    goal_width: float = 125.0
    goal_depth: float = 40.0
    goal_area_depth: float = 110.0
    goal_area_width: float = 300.0
    penalty_area_depth: float = 270.0
    penalty_area_width: float = 640.0
    penalty_mark_distance: float = 205.0
    centre_circle_radius: float = 160.0
    ball_diameter: float = 10.0
    ball_mass_g: float = 0.3
    button_diameter: float = 50.0
    button_mass_g: float = 10.0
    keeper_size: tuple[float, float] = (20.0, 60.0)
    keeper_mass_g: float = 54.0
    post_diameter: float = 6.0
    button_friction: float = 0.15
    ball_friction: float = 0.25
    keeper_friction: float = 0.35
    restitution_piece: float = 0.75
    restitution_rim: float = 0.4
    restitution_post: float = 0.5
    restitution_net: float = 0.05
    contact_friction: float = 0.2  # friction between two touching things (spin on impact)
    gravity_mm_s2: float = 9810.0

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None = None) -> Table:
        """A table with the given overrides; keys that are not table values are ignored.

        Raises ``ValueError`` naming the key when a value is not a positive finite number
        (``keeper_size``: two of them), when ``button_diameter`` is outside 38..60 mm, or when the
        field is not longer than it is wide (rulebook §1a: the touch line is longer than the
        goal line).
        """
        params = params or {}
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in params:
                continue
            raw = params[f.name]
            if f.name == "keeper_size":
                if (not isinstance(raw, (list, tuple)) or len(raw) != 2
                        or not all(_positive_number(v) and v <= _LENGTH_MAX_MM for v in raw)):
                    raise ValueError(f"params.keeper_size must be two positive numbers [x, y] in mm, "
                                     f"at most {_LENGTH_MAX_MM:g}")
                values[f.name] = (float(raw[0]), float(raw[1]))
                continue
            if not _positive_number(raw) and not (f.name.startswith("restitution") and raw == 0):
                raise ValueError(f"params.{f.name} must be a positive number, not {raw!r}")
            lo, hi, unit = _bounds(f.name)
            if not lo <= raw <= hi:
                raise ValueError(f"params.{f.name} must be between {lo:g} and {hi:g}{unit}, not {raw!r}")
            values[f.name] = float(raw)
        table = cls(**values)
        if not 38.0 <= table.button_diameter <= 60.0:
            raise ValueError("params.button_diameter must be between 38 and 60 mm")
        if table.table_length < table.field_length or table.table_width < table.field_width:
            raise ValueError("params.table_length/table_width must not be smaller than the field")
        if table.field_length <= table.field_width:
            # rulebook §1a: "The length of the touchline must be greater than the length of the goal line."
            raise ValueError("params.field_length must be greater than params.field_width (the touch line is "
                             "longer than the goal line, rulebook 1a)")
        return table

    def to_params(self) -> dict[str, Any]:
        """The table's values as rule-set parameters (JSON-ready)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    # -- sizes ----------------------------------------------------------------------------
    @property
    def half_length(self) -> float:
        """x of the goal line at the ``"+x"`` end."""
        return self.field_length / 2

    @property
    def half_width(self) -> float:
        """y of the touch line on the +y side."""
        return self.field_width / 2

    @property
    def ball_radius(self) -> float:
        return self.ball_diameter / 2

    @property
    def button_radius(self) -> float:
        return self.button_diameter / 2

    @property
    def keeper_half(self) -> Vec:
        """Half the keeper's footprint along x and along y."""
        return (self.keeper_size[0] / 2, self.keeper_size[1] / 2)

    def radius_of(self, piece: str) -> float:
        """The radius of a button, or of the disc that bounds the keeper's footprint."""
        if piece == "gk":
            hx, hy = self.keeper_half
            return math.hypot(hx, hy)
        return self.button_radius

    # -- regions --------------------------------------------------------------------------
    @property
    def field(self) -> Rect:
        return Rect(-self.half_length, -self.half_width, self.half_length, self.half_width)

    @property
    def surface(self) -> Rect:
        """The whole table inside the rim, run-off included."""
        return Rect(-self.table_length / 2, -self.table_width / 2, self.table_length / 2, self.table_width / 2)

    def _end_box(self, end: str, depth: float, width: float) -> Rect:
        s = end_sign(end)
        x_line = s * self.half_length
        x_inner = s * (self.half_length - depth)
        return Rect(min(x_line, x_inner), -width / 2, max(x_line, x_inner), width / 2)

    def goal_area(self, end: str) -> Rect:
        """The goal area ("small box") in front of the goal at ``end``."""
        return self._end_box(end, self.goal_area_depth, self.goal_area_width)

    def penalty_area(self, end: str) -> Rect:
        return self._end_box(end, self.penalty_area_depth, self.penalty_area_width)

    def penalty_mark(self, end: str) -> Vec:
        return (end_sign(end) * (self.half_length - self.penalty_mark_distance), 0.0)

    def goal_line_x(self, end: str) -> float:
        return end_sign(end) * self.half_length

    def post_centres(self, end: str) -> tuple[Vec, Vec]:
        """Centres of the two posts at ``end``; their inner edges bound the goal mouth."""
        r = self.post_diameter / 2
        x = self.goal_line_x(end) + end_sign(end) * r
        y = self.goal_width / 2 + r
        return ((x, -y), (x, y))

    def net_boxes(self, end: str) -> tuple[Rect, Rect, Rect]:
        """The net at ``end`` as three solid boxes (mm): the back (10 mm thick, across the goal
        and the posts), then the two sides (from the posts' centres back to the back, one
        post diameter thick, beside the goal mouth)."""
        sgn = end_sign(end)
        thick = 10.0
        x_line = self.goal_line_x(end)
        x_back = x_line + sgn * self.goal_depth
        y_out = self.goal_width / 2 + self.post_diameter
        pr = self.post_diameter / 2
        spans = (((x_back, x_back + sgn * thick), (-y_out - thick, y_out + thick)),
                 ((x_line + sgn * pr, x_back), (self.goal_width / 2, y_out)),
                 ((x_line + sgn * pr, x_back), (-y_out, -self.goal_width / 2)))
        return tuple(Rect(min(xa, xb), ya, max(xa, xb), yb) for (xa, xb), (ya, yb) in spans)

    # -- predicates (contract §2) ---------------------------------------------------------
    def line_wholly_beyond(self, c: Sequence[float], r: float) -> str | None:
        """Which line the disc lies wholly beyond: ``"goal_line+x"``, ``"goal_line-x"``,
        ``"touch_line+y"``, ``"touch_line-y"``, or ``None`` while any part is on the field.
        Beyond a goal line wins over a touch line at a corner."""
        x, y = c
        if x - r > self.half_length:
            return "goal_line+x"
        if x + r < -self.half_length:
            return "goal_line-x"
        if y - r > self.half_width:
            return "touch_line+y"
        if y + r < -self.half_width:
            return "touch_line-y"
        return None

    def is_out(self, c: Sequence[float], r: float) -> bool:
        """Wholly beyond a goal line or a touch line (contract §2: as in football)."""
        return self.line_wholly_beyond(c, r) is not None

    def touches_boundary_line(self, c: Sequence[float], r: float) -> bool:
        """Any part of the disc lies on a goal line or touch line."""
        x, y = c
        return (abs(abs(x) - self.half_length) <= r and abs(y) <= self.half_width + r) or (
            abs(abs(y) - self.half_width) <= r and abs(x) <= self.half_length + r
        )

    def touches_halfway_line(self, c: Sequence[float], r: float) -> bool:
        return abs(c[0]) <= r

    def entirely_in_half(self, c: Sequence[float], r: float, end: str) -> bool:
        """No part of the disc touches the halfway line and it lies on the ``end`` side (§4)."""
        return end_sign(end) * c[0] > r

    def in_half(self, c: Sequence[float], end: str) -> bool:
        """The centre lies on the ``end`` side of the halfway line (on it counts for neither)."""
        return end_sign(end) * c[0] > 0

    def touches_penalty_area(self, c: Sequence[float], r: float, end: str) -> bool:
        """Any part touches the penalty area at ``end``, its line included (rulebook §10)."""
        return self.penalty_area(end).touches_disc(c, r)

    def touches_goal_area(self, c: Sequence[float], r: float, end: str) -> bool:
        return self.goal_area(end).touches_disc(c, r)

    def wholly_in_goal_area(self, c: Sequence[float], r: float, end: str) -> bool:
        """The disc lies wholly inside the goal area at ``end`` (the ball's goal area, §5.1)."""
        return self.goal_area(end).contains_disc(c, r)

    def wholly_in_penalty_area(self, c: Sequence[float], r: float, end: str) -> bool:
        return self.penalty_area(end).contains_disc(c, r)

    def keeper_in_goal_area(self, c: Sequence[float], end: str) -> bool:
        """The keeper's footprint lies entirely within the goal area at ``end`` (rulebook §6)."""
        hx, hy = self.keeper_half
        return self.goal_area(end).contains_rect(c, hx, hy)

    def keeper_spot(self, c: Sequence[float], end: str) -> Vec:
        """The nearest keeper centre entirely within the goal area at ``end`` (contract §2)."""
        hx, hy = self.keeper_half
        return self.goal_area(end).clamp_rect_centre(c, hx, hy)

    def keeper_on_goal_line(self, y: float, end: str) -> Vec:
        """The keeper standing on the goal line at ``end`` for a penalty kick (§10)."""
        hx, hy = self.keeper_half
        limit = self.goal_width / 2 - hy
        y = min(max(y, -limit), limit) if limit > 0 else 0.0
        return (self.goal_line_x(end) - end_sign(end) * hx, y)

    def keeper_in_goal_mouth(self, y: float, end: str) -> Vec:
        """The keeper at a penalty kick of the Button Soccer Rulebook (§10): its front face on
        the goal line at ``end``, its body behind the line between the posts, so that the line
        shows in front of it; ``y`` is kept inside the posts."""
        hx, hy = self.keeper_half
        limit = self.goal_width / 2 - hy
        y = min(max(y, -limit), limit) if limit > 0 else 0.0
        return (self.goal_line_x(end) + end_sign(end) * hx, y)

    def in_centre_circle(self, c: Sequence[float], r: float = 0.0) -> bool:
        """Any part of the disc is inside the centre circle."""
        return math.hypot(c[0], c[1]) < self.centre_circle_radius + r

    def wholly_in_centre_circle(self, c: Sequence[float], r: float = 0.0) -> bool:
        return math.hypot(c[0], c[1]) + r <= self.centre_circle_radius

    def on_surface(self, c: Sequence[float], r: float) -> bool:
        """The disc lies on the table inside the rim."""
        return self.surface.contains_disc(c, r)

    def ball_in_triangle(self, ball: Sequence[float], buttons: Sequence[Sequence[float]]) -> bool:
        """The ball lies wholly inside the triangle formed by the outer edges of three buttons
        (rulebook §9.5): the convex hull of the three discs, so its centre is within
        ``button_radius - ball_radius`` of the triangle of their centres."""
        a, b, c = buttons
        margin = self.button_radius - self.ball_radius
        if _point_in_triangle(ball, a, b, c):
            # inside the centre triangle; wholly inside the hull in any case
            return True
        nearest = min(_point_segment_distance(ball, a, b), _point_segment_distance(ball, b, c),
                      _point_segment_distance(ball, c, a))
        return nearest <= margin

    def ball_in_rectangle(self, ball: Sequence[float], a: Sequence[float], b: Sequence[float]) -> bool:
        """The ball lies wholly inside the rectangle formed by the outer edges of two buttons
        (rulebook §9.5): the band between their centres, as wide as a button."""
        length = distance(a, b)
        if length == 0.0:
            return False
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        px, py = ball[0] - a[0], ball[1] - a[1]
        along = px * ux + py * uy
        across = abs(-px * uy + py * ux)
        r = self.ball_radius
        return r <= along <= length - r and across + r <= self.button_radius

    def button_gap(self, a: Sequence[float], b: Sequence[float]) -> float:
        """Edge-to-edge distance between two buttons (mm): how far "apart" they are (§9.5)."""
        return gap(a, self.button_radius, b, self.button_radius)


_LENGTH_MAX_MM = 5000.0


def _bounds(name: str) -> tuple[float, float, str]:
    """The range a table value may be given in (a physical table, and what the engine is
    measured on): lengths 1..5000 mm, masses 0.01..1000 g, friction coefficients up to 2,
    restitutions 0..1, gravity 100..100000 mm/s^2."""
    if name.endswith("_mass_g"):
        return 0.01, 1000.0, " g"
    if name.endswith("_friction"):
        return 0.0, 2.0, ""
    if name.startswith("restitution"):
        return 0.0, 1.0, ""
    if name == "gravity_mm_s2":
        return 100.0, 100_000.0, " mm/s^2"
    return 1.0, _LENGTH_MAX_MM, " mm"


def _positive_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)
