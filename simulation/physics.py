"""The physics of one flick: a pymunk space built from a state, resolved until all is at rest.

INTERFACE (fixed; the referees are written against it):

``resolve_flick(table, ball, pieces, side, piece, angle_deg, speed_mm_s, *, frames=True)
-> FlickResult``

- ``table``: a ``simulation.table.Table``; ``ball``: [x, y] mm; ``pieces``: {side: {id: [x, y]}}
  (only the pieces on the table; ``"gk"`` is a keeper, placed axis-aligned).
- The flicked ``piece`` of ``side`` starts at ``speed_mm_s`` towards ``angle_deg`` (0 = +x,
  counter-clockwise); everything else starts at rest.
- Piece keys in the result are ``"home:7"``, ``"away:gk"``; the ball is ``"ball"``; the fixed
  things are ``"post"``, ``"net"`` and ``"rim"``.

The result reports every contact in order, which piece touched the ball first and last, the
moment the ball and each piece first lay wholly beyond a line (contract §2: a ball that bounces
back off the net or the rim is still out or in the goal), the resting positions, the extremes
of the ball's path, and frames sampled 30 times per simulated second for animation.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import pymunk

from .state import _piece_order, round_pos
from .table import ENDS, SIDES, Table, Vec, end_sign

BALL = "ball"
FIXED = ("post", "net", "rim")


def piece_key(side: str, piece: str) -> str:
    """``("home", "7")`` -> ``"home:7"``."""
    return f"{side}:{piece}"


def split_key(key: str) -> tuple[str, str]:
    """``"home:7"`` -> ``("home", "7")``."""
    side, _, piece = key.partition(":")
    return side, piece


@dataclass(frozen=True)
class Contact:
    """The first touch of two bodies (a new contact, not every step of a lasting one).

    ``a`` is always a moving body key (a piece or ``"ball"``); ``b`` a body key or one of
    ``FIXED``. ``speed_mm_s`` is the relative normal speed at the impact; ``a_speed_mm_s`` and
    ``b_speed_mm_s`` the speeds of each body (0 for fixed things) just before it. ``at`` is the
    contact point, ``a_pos``/``b_pos`` the centres (``b_pos`` is ``None`` for fixed things),
    ``ball_at`` where the ball was at that moment. ``t`` is simulated seconds since the flick.
    """

    t: float
    a: str
    b: str
    speed_mm_s: float
    at: Vec
    a_pos: Vec
    b_pos: Vec | None
    a_speed_mm_s: float
    b_speed_mm_s: float
    ball_at: Vec

    def involves(self, key: str) -> bool:
        return self.a == key or self.b == key

    def other(self, key: str) -> str:
        return self.b if self.a == key else self.a


@dataclass(frozen=True)
class Crossing:
    """The moment a body first lay wholly beyond a line.

    ``line``: ``"goal_line+x"``, ``"goal_line-x"``, ``"touch_line+y"``, ``"touch_line-y"``;
    ``at``: the body's centre at that moment; ``exit_at``: the point on the line where its
    centre's track crossed it (where it "left the field", rulebook §8 and §11);
    ``goal``: for the ball, it crossed a goal line between the posts.
    """

    t: float
    line: str
    at: Vec
    exit_at: Vec
    goal: bool = False

    @property
    def end(self) -> str | None:
        """``"+x"``/``"-x"`` for a goal line, ``None`` for a touch line."""
        return self.line[-2:] if self.line.startswith("goal_line") else None


@dataclass(frozen=True)
class FlickResult:
    """What one flick did. Positions in mm, times in simulated seconds.

    ``ball`` and ``pieces`` are the resting positions of everything that was on the table
    (a piece that went out rests on the run-off; the referee takes it off). ``frames`` is a
    tuple of ``(t, ball [x, y], {key: [x, y]})`` with only the pieces that moved since the
    previous frame, rounded to 0.1 mm; the last frame is the rest. ``ball_min_x``,
    ``ball_max_x`` and ``ball_max_r`` (distance from the centre spot) are the extremes of the
    ball's track; ``ball_moved`` is false when nothing touched the ball.
    """

    ball: Vec
    pieces: Mapping[str, Mapping[str, Vec]]
    contacts: tuple[Contact, ...]
    ball_first_touch: str | None
    ball_last_touch: str | None
    ball_out: Crossing | None
    pieces_out: Mapping[str, Crossing]
    ball_min_x: float
    ball_max_x: float
    ball_max_r: float
    ball_moved: bool
    frames: tuple
    duration_s: float
    steps: int
    capped: bool = False

    def ball_contacts(self) -> tuple[Contact, ...]:
        """Contacts with the ball, in order."""
        return tuple(c for c in self.contacts if c.involves(BALL))

    def first_contact_of(self, key: str) -> Contact | None:
        """The first contact of the body ``key`` with anything."""
        return next((c for c in self.contacts if c.involves(key)), None)

    def frames_json(self) -> list:
        """The frames as JSON: ``[[t, [bx, by], {key: [x, y]}], ...]``."""
        return [[t, list(b), {k: list(p) for k, p in moved.items()}] for t, b, moved in self.frames]


# ---------------------------------------------------------------------------------------------
# The engine.
#
# A fresh pymunk space per flick, built in a fixed order: buttons (home then away, by id), the
# ball, the keepers, the posts, the nets, the rim, and a sensor covering the field. Friction is
# Coulomb: a PivotJoint (sliding) and a GearJoint (spin) to the static body with max_bias = 0 and
# max_force = mu*m*g (PHYSICS_NOTES.md), so no Python runs per body per step. Restitution per
# pair of materials is the product of the shapes' elasticities: pieces carry sqrt(e_piece) and
# every fixed material e_fixed / sqrt(e_piece).
#
# Stepping (deterministic, adaptive, exact at impacts): every body that is not moving sleeps
# (pymunk's sleeping: out of the solver). Before each chunk of steps the engine computes, for the
# moving bodies only, the earliest time any of them can touch anything: exact for a body sliding
# towards something at rest (it slides along its ray and only slows down), conservative for two
# moving bodies (their relative path bends by at most (a1+a2)t^2/2). Far from everything it takes
# whole base steps; the step that reaches an impact is cut to end just after the touch, so the
# contact normal is exact whatever the base step, and nothing can pass through anything (no
# tunnelling, at any speed). A body at rest for `rest_time_s` falls asleep; the flick ends when
# every body sleeps, or at the cap.
# ---------------------------------------------------------------------------------------------

_INF = math.inf
_FIXED_HIT = object()  # _horizon's target when the next touch is with a fixed thing

# collision types
_BUTTON, _BALL, _KEEPER, _POST, _NET, _RIM, _FIELD = 1, 2, 3, 4, 5, 6, 7
_MOVING_TYPES = (_BUTTON, _BALL, _KEEPER)
_FIXED_NAMES = {_POST: "post", _NET: "net", _RIM: "rim"}


@dataclass(frozen=True)
class Stepping:
    """How a flick is integrated. ``base_step_s``: the step far from any impact;
    ``land_depth_mm``: how far past the touch an impact step ends (the overlap at which pymunk
    sees the contact); ``rest_speed_mm_s`` and ``rest_time_s``: a body slower than this for
    that long is at rest; ``cap_s``: the hard cap of a flick's simulated time.

    ``ramp``: after a short step the step grows back by at most this factor a step (Chipmunk
    warm starts a lasting contact with its last impulse times the ratio of the steps).

    ``halved()`` is the same integration with every step halved (the convergence check of the
    contract §3).
    """

    base_step_s: float = 1 / 240
    land_depth_mm: float = 0.02
    press_depth_mm: float = 0.3
    speed_limit_mm_s: float = 5000.0
    rest_speed_mm_s: float = 3.0
    rest_time_s: float = 0.02
    cap_s: float = 15.0
    iterations: int = 10
    half_kick: bool = True
    squeeze_mm: float = 0.0
    min_step: float = 1e-3
    ramp: float = 2.0

    def halved(self) -> Stepping:
        return replace(self, base_step_s=self.base_step_s / 2, land_depth_mm=self.land_depth_mm / 2,
                       press_depth_mm=self.press_depth_mm / 2)


DEFAULT_STEPPING = Stepping()


def _toi(px: float, py: float, wx: float, wy: float, hx: float, hy: float, r: float) -> float:
    """Time for a point at ``p`` moving at ``w`` to reach the rounded box (half sizes ``hx``,
    ``hy``, corner radius ``r``) centred at the origin; ``inf`` when it never does, 0 inside."""
    ex = hx + r
    ey = hy + r
    t0 = 0.0
    t1 = _INF
    if wx == 0.0:
        if px > ex or px < -ex:
            return _INF
    else:
        a = (-ex - px) / wx
        b = (ex - px) / wx
        if a > b:
            a, b = b, a
        if a > t0:
            t0 = a
        if b < t1:
            t1 = b
    if wy == 0.0:
        if py > ey or py < -ey:
            return _INF
    else:
        a = (-ey - py) / wy
        b = (ey - py) / wy
        if a > b:
            a, b = b, a
        if a > t0:
            t0 = a
        if b < t1:
            t1 = b
    if t0 > t1:
        return _INF
    if r > 0.0:
        qx = px + wx * t0
        qy = py + wy * t0
        if (qx > hx or qx < -hx) and (qy > hy or qy < -hy):
            # the entry lies beside a corner: the rounded corner decides
            cx = px - (hx if qx > 0 else -hx)
            cy = py - (hy if qy > 0 else -hy)
            c = cx * cx + cy * cy - r * r
            if c <= 0.0:
                return 0.0
            b = cx * wx + cy * wy
            if b >= 0.0:
                return _INF
            a = wx * wx + wy * wy
            disc = b * b - a * c
            if disc < 0.0:
                return _INF
            return c / (-b + math.sqrt(disc))
    return t0


def _gap(px: float, py: float, hx: float, hy: float, r: float) -> float:
    """Distance from point ``p`` to the rounded box at the origin (negative inside)."""
    dx = abs(px) - hx
    dy = abs(py) - hy
    if dx > 0.0 and dy > 0.0:
        return math.sqrt(dx * dx + dy * dy) - r
    return (dx if dx > dy else dy) - r


def _normal_speed(px: float, py: float, wx: float, wy: float, hx: float, hy: float, t: float) -> float:
    """Closing speed along the contact normal at time ``t`` of the approach computed by _toi."""
    qx = px + wx * t
    qy = py + wy * t
    dx = abs(qx) - hx
    dy = abs(qy) - hy
    if dx > 0.0 and dy > 0.0:
        nx = dx if qx > 0 else -dx
        ny = dy if qy > 0 else -dy
        n = math.hypot(nx, ny)
        return -(wx * nx + wy * ny) / n
    if dx > dy:
        return -wx if qx > 0 else wx
    return -wy if qy > 0 else wy


class _Body:
    __slots__ = ("key", "body", "shape", "hx", "hy", "r", "decel", "x", "y", "vx", "vy",
                 "out_line", "dynamic", "moving", "ext", "slide", "spin", "slide_f", "spin_f", "loose", "alpha", "held_at")

    def __init__(self, key, body, shape, hx, hy, r, decel):
        self.key = key
        self.body = body
        self.shape = shape
        self.hx = hx
        self.hy = hy
        self.r = r
        self.decel = decel
        self.x, self.y = body.position
        self.vx = self.vy = 0.0
        self.out_line = None
        self.moving = False
        self.ext = math.hypot(hx, hy) + r  # the radius of a disc around it
        self.slide = None  # its sliding-friction joint
        self.spin = None  # its spin-friction joint (discs only)
        self.slide_f = self.spin_f = 0.0  # their max forces
        self.loose = False  # its friction joints are out of the space (an impact step)
        self.alpha = 0.0  # its spin deceleration, rad/s^2
        self.held_at = -1  # the step count when its joints were last made fresh

    def free(self, space) -> None:
        """No friction joints in the next step (an impact step): they are taken out of the
        space, and ``hold`` puts fresh ones back. A joint is not merely relaxed: Chipmunk warm
        starts a joint with its last accumulated impulse scaled by the ratio of the steps, but
        clamps against the unscaled one, so a joint kept across a change of step pushes the
        body by max_force * (previous step - step)."""
        self.loose = True
        space.remove(self.slide)
        if self.spin is not None:
            space.remove(self.spin)

    def hold(self, space) -> None:
        """Fresh friction joints (nothing accumulated), added back."""
        self.loose = False
        static = space.static_body
        slide = pymunk.PivotJoint(static, self.body, (0, 0), (0, 0))
        slide.max_bias = 0
        slide.max_force = self.slide_f
        self.slide = slide
        if self.spin is None:
            space.add(slide)
            return
        spin = pymunk.GearJoint(static, self.body, 0, 1)
        spin.max_bias = 0
        spin.max_force = self.spin_f
        self.spin = spin
        space.add(slide, spin)


class FlickSimulation:
    """One flick on a freshly built space. ``run()`` resolves it; ``space`` and ``step_sizes``
    are there for the benchmark (a bare ``space.step`` loop over the same steps)."""

    def __init__(self, table: Table, ball: Vec, pieces: Mapping[str, Mapping[str, Vec]],
                 stepping: Stepping = DEFAULT_STEPPING):
        self.table = table
        self.stepping = stepping
        self.space = space = pymunk.Space()
        space.iterations = stepping.iterations
        space.idle_speed_threshold = stepping.rest_speed_mm_s
        space.sleep_time_threshold = stepping.rest_time_s
        self.bodies: list[_Body] = []
        self.by_shape: dict = {}
        self.fixed: list[tuple[float, float, float, float, float, str]] = []
        self.step_sizes: list[float] = []
        self._pending: list = []
        self._watch: list = []
        self._event = False
        self._ball_last = None
        self._target = None
        self._build(ball, pieces)

    # -- construction (fixed order) -------------------------------------------------------
    def _build(self, ball, pieces) -> None:
        t = self.table
        space = self.space
        g = t.gravity_mm_s2
        e_piece = math.sqrt(t.restitution_piece)
        cf = math.sqrt(t.contact_friction)
        static = space.static_body

        def e_fixed(value: float) -> float:
            return value / e_piece if e_piece > 0 else 0.0

        def add_disc(key, pos, radius, mass, mu, ctype):
            body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0, radius))
            body.position = (float(pos[0]), float(pos[1]))
            shape = pymunk.Circle(body, radius)
            shape.elasticity = e_piece
            shape.friction = cf
            shape.collision_type = ctype
            slide = pymunk.PivotJoint(static, body, (0, 0), (0, 0))
            slide.max_bias = 0
            slide.max_force = mu * mass * g
            spin = pymunk.GearJoint(static, body, 0, 1)
            spin.max_bias = 0
            spin.max_force = (2 / 3) * mu * mass * g * radius
            space.add(body, shape, slide, spin)
            rec = _Body(key, body, shape, 0.0, 0.0, radius, mu * g)
            rec.slide = slide
            rec.spin = spin
            rec.slide_f = slide.max_force
            rec.spin_f = spin.max_force
            rec.alpha = spin.max_force / body.moment
            self.bodies.append(rec)
            self.by_shape[shape] = rec

        keepers = []
        for side in SIDES:
            for pid, pos in sorted(pieces.get(side, {}).items(), key=lambda kv: _piece_order(kv[0])):
                if pid == "gk":
                    keepers.append((side, pos))
                else:
                    add_disc(piece_key(side, pid), pos, t.button_radius, t.button_mass_g,
                             t.button_friction, _BUTTON)
        add_disc(BALL, ball, t.ball_radius, t.ball_mass_g, t.ball_friction, _BALL)
        self.ball = self.bodies[-1]
        hx, hy = t.keeper_half
        for side, pos in keepers:
            mass = t.keeper_mass_g
            body = pymunk.Body(mass, math.inf)  # a keeper slides but never turns
            body.position = (float(pos[0]), float(pos[1]))
            shape = pymunk.Poly(body, [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
            shape.elasticity = e_piece
            shape.friction = cf
            shape.collision_type = _KEEPER
            slide = pymunk.PivotJoint(static, body, (0, 0), (0, 0))
            slide.max_bias = 0
            slide.max_force = t.keeper_friction * mass * g
            space.add(body, shape, slide)
            rec = _Body(piece_key(side, "gk"), body, shape, hx, hy, 0.0, t.keeper_friction * g)
            rec.slide = slide
            rec.slide_f = slide.max_force
            self.bodies.append(rec)
            self.by_shape[shape] = rec

        def add_fixed(shape, ctype, restitution, box):
            shape.elasticity = e_fixed(restitution)
            shape.friction = cf
            shape.collision_type = ctype
            space.add(shape)
            cx, cy, hx, hy, r = box
            self.fixed.append(box + (math.hypot(hx, hy) + r,))

        pr = t.post_diameter / 2
        for end in ENDS:
            for cx, cy in t.post_centres(end):
                add_fixed(pymunk.Circle(static, pr, (cx, cy)), _POST, t.restitution_post,
                          (cx, cy, 0.0, 0.0, pr))
        thick = 10.0
        for end in ENDS:
            s = end_sign(end)
            x_line = t.goal_line_x(end)
            x_back = x_line + s * t.goal_depth
            y_out = t.goal_width / 2 + t.post_diameter
            boxes = [  # back, then the two sides
                ((x_back, x_back + s * thick), (-y_out - thick, y_out + thick)),
                ((x_line + s * pr, x_back), (t.goal_width / 2, y_out)),
                ((x_line + s * pr, x_back), (-y_out, -t.goal_width / 2)),
            ]
            for (xa, xb), (ya, yb) in boxes:
                x0, x1 = min(xa, xb), max(xa, xb)
                add_fixed(pymunk.Poly(static, [(x0, ya), (x1, ya), (x1, yb), (x0, yb)]), _NET,
                          t.restitution_net,
                          ((x0 + x1) / 2, (ya + yb) / 2, (x1 - x0) / 2, (yb - ya) / 2, 0.0))
        sx, sy = t.table_length / 2, t.table_width / 2
        w = 100.0
        for x0, y0, x1, y1 in ((-sx - w, -sy - w, sx + w, -sy), (-sx - w, sy, sx + w, sy + w),
                               (-sx - w, -sy, -sx, sy), (sx, -sy, sx + w, sy)):
            shape = pymunk.Poly(static, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
            shape.elasticity = e_fixed(t.restitution_rim)
            shape.friction = cf
            shape.collision_type = _RIM
            space.add(shape)
        self.surface_half = (sx, sy)
        fx, fy = t.half_length, t.half_width
        field = pymunk.Poly(static, [(-fx, -fy), (fx, -fy), (fx, fy), (-fx, fy)])
        field.sensor = True
        field.collision_type = _FIELD
        space.add(field)

        for ta in _MOVING_TYPES:
            for tb in _MOVING_TYPES + (_POST, _NET, _RIM):
                if tb in _MOVING_TYPES and tb < ta:
                    continue
                space.on_collision(ta, tb, begin=self._begin)
            space.on_collision(_FIELD, ta, separate=self._left_field)

    # -- callbacks (run inside space.step) -----------------------------------------------
    def _begin(self, arbiter, space, data) -> None:
        sa, sb = arbiter.shapes
        ra = self.by_shape.get(sa)
        rb = self.by_shape.get(sb)
        n = arbiter.normal  # from a to b
        pts = arbiter.contact_point_set.points
        point = pts[0].point_a if pts else sa.body.position
        depth = -pts[0].distance if pts else 0.0
        va = sa.body.velocity
        vb = sb.body.velocity if rb is not None else (0.0, 0.0)
        vn = (va[0] - vb[0]) * n[0] + (va[1] - vb[1]) * n[1]
        if rb is not None and ra is not None and _speed(vb) > _speed(va):
            ra, rb, va, vb = rb, ra, vb, va
        if ra is None:  # keep the moving body first
            ra, rb, va, vb = rb, None, vb, (0.0, 0.0)
        b_key = rb.key if rb is not None else _FIXED_NAMES[(sb if self.by_shape.get(sa) else sa).collision_type]
        ball = self.ball
        if rb is not None and (ra is ball or rb is ball):
            # a ball caught between two pieces (it comes back to one within squeeze_mm of
            # leaving the other) is squeezed, not bounced: the impact is inelastic, so it no
            # longer rattles ever faster in the closing gap
            other = rb if ra is ball else ra
            bx, by = ball.body.position
            last = self._ball_last
            if last is not None and last[0] is not other and \
                    math.hypot(bx - last[1], by - last[2]) < self.stepping.squeeze_mm:
                arbiter.restitution = 0.0
            self._ball_last = (other, bx, by)
        self._pending.append((
            depth / vn if vn > 1e-9 else 0.0, ra.key, b_key, abs(vn), (point[0], point[1]),
            tuple(ra.body.position), tuple(rb.body.position) if rb is not None else None,
            _speed(va), _speed(vb), tuple(self.ball.body.position), ra, rb,
        ))
        self._event = True

    def _left_field(self, arbiter, space, data) -> None:
        shape = arbiter.shapes[1] if arbiter.shapes[0].sensor else arbiter.shapes[0]
        rec = self.by_shape.get(shape)
        if rec is not None and rec.out_line is None:
            self._watch.append(rec)
            self._event = True

    # -- the run --------------------------------------------------------------------------
    def launch(self, key: str, angle_deg: float, speed_mm_s: float) -> None:
        """Gives the body ``key`` its flick; everything else is put to sleep."""
        rec = next((b for b in self.bodies if b.key == key), None)
        if rec is None:
            raise ValueError(f"no piece {key!r} on the table")
        a = math.radians(angle_deg)
        speed = float(speed_mm_s)
        if self.stepping.half_kick and speed > 0:
            # Chipmunk moves each body with the velocity it had before friction acts in the
            # step: read as the velocity half a step ahead, that is exact for a constant
            # deceleration (leapfrog), so the flick starts half a step of friction slower.
            speed = max(0.0, speed - rec.decel * self.stepping.base_step_s / 2)
        rec.body.velocity = (speed * math.cos(a), speed * math.sin(a))
        self.flicked = rec
        for b in self.bodies:
            if b is not rec:
                b.body.sleep()

    def _horizon(self, movers, limit):
        """The earliest time from now at which a moving body can touch anything, at most
        ``limit``, and ``land``: ``(t_lin, normal speed)`` of the pair that decides (``None``
        when nothing does). Exact along the ray for a body sliding towards something at rest
        (it only slows down), conservative for two moving bodies. O(movers x things near the
        ray): a thing beside or behind the ray, or farther than the horizon, costs one test."""
        st = self.stepping
        H = st.base_step_s
        press = st.press_depth_mm
        sx, sy = self.surface_half
        horizon = limit
        land = None
        target = None
        fixed = self.fixed
        bodies = self.bodies
        for i, b in enumerate(movers):
            bvx, bvy = b.vx, b.vy
            bx, by, bhx, bhy, br, bext = b.x, b.y, b.hx, b.hy, b.r, b.ext
            speed = math.sqrt(bvx * bvx + bvy * bvy)
            if speed == 0.0:
                continue
            ux, uy = bvx / speed, bvy / speed
            # the rim
            ex, ey = sx - bhx - br, sy - bhy - br
            if bvx > 0:
                tt = (ex - bx) / bvx
            elif bvx < 0:
                tt = (-ex - bx) / bvx
            else:
                tt = _INF
            if bvy > 0:
                ty = (ey - by) / bvy
            elif bvy < 0:
                ty = (-ey - by) / bvy
            else:
                ty = _INF
            if ty < tt:
                tt = ty
                vn = abs(bvy)
            else:
                vn = abs(bvx)
            if tt < horizon:
                horizon = tt if tt > 0 else 0.0
                land = (horizon, vn)
                target = _FIXED_HIT
            # fixed things and bodies at rest: exact along the ray
            for cx, cy, hx, hy, r, oext in fixed:
                px, py = bx - cx, by - cy
                ext = oext + bext
                along = -(px * ux + py * uy)
                if along < -ext or along - ext > speed * horizon:
                    continue
                perp = px * uy - py * ux
                if perp > ext or perp < -ext:
                    continue
                HX, HY, R = hx + bhx, hy + bhy, r + br
                gap = _gap(px, py, HX, HY, R)
                if gap <= 0.0:
                    # touching: keep the overlap from growing while it is pressed on
                    vn = _normal_speed(px, py, bvx, bvy, HX, HY, 0.0)
                    if vn > 0.0:
                        tt = (press + gap) / vn
                        if tt < horizon:
                            horizon = tt if tt > 0.0 else 0.0
                            land = (horizon, 0.0)
                    continue
                tt = _toi(px, py, bvx, bvy, HX, HY, R)
                if tt < horizon:
                    horizon = tt
                    land = (tt, _normal_speed(px, py, bvx, bvy, HX, HY, tt))
                    target = _FIXED_HIT
            for o in bodies:
                if o.moving:
                    continue
                px, py = bx - o.x, by - o.y
                ext = o.ext + bext
                along = -(px * ux + py * uy)
                if along < -ext or along - ext > speed * horizon:
                    continue
                perp = px * uy - py * ux
                if perp > ext or perp < -ext:
                    continue
                HX, HY, R = o.hx + bhx, o.hy + bhy, o.r + br
                gap = _gap(px, py, HX, HY, R)
                if gap <= 0.0:
                    # touching already: the solver holds them apart; while one presses on the
                    # other, keep the overlap from growing (a button squeezing the ball)
                    vn = _normal_speed(px, py, bvx, bvy, HX, HY, 0.0)
                    if vn > 0.0:
                        tt = (press + gap) / vn
                        if tt < horizon:
                            horizon = tt if tt > 0.0 else 0.0
                            land = (horizon, 0.0)
                    continue
                tt = _toi(px, py, bvx, bvy, HX, HY, R)
                if tt < horizon:
                    horizon = tt
                    land = (tt, _normal_speed(px, py, bvx, bvy, HX, HY, tt))
                    target = o
            # two moving bodies: their relative path bends by at most (a1 + a2) t^2 / 2
            for j in range(i + 1, len(movers)):
                o = movers[j]
                px, py = bx - o.x, by - o.y
                HX, HY, R = o.hx + bhx, o.hy + bhy, o.r + br
                gap = _gap(px, py, HX, HY, R)
                wx, wy = bvx - o.vx, bvy - o.vy
                if gap <= 0.0:
                    vn = _normal_speed(px, py, wx, wy, HX, HY, 0.0)
                    if vn > 0.0:
                        tt = (press + gap) / vn
                        if tt < horizon:
                            horizon = tt if tt > 0.0 else 0.0
                            land = (horizon, 0.0)
                    continue
                A = b.decel + o.decel
                w = math.sqrt(wx * wx + wy * wy)
                t_safe = 2.0 * gap / (w + math.sqrt(w * w + 2.0 * A * gap))
                if t_safe >= horizon:
                    continue
                infl = 0.5 * A * H * H + 1e-9
                ts = 0.0 if gap <= infl else _toi(px, py, wx, wy, HX, HY, R + infl)
                if ts >= H:
                    cand = t_safe if t_safe > H else H
                    if cand < horizon:
                        horizon = cand
                        land = (cand, 0.0)
                    continue
                cand = t_safe if t_safe > ts else ts
                if cand < horizon:
                    horizon = cand
                    target = None
                    tt = _toi(px, py, wx, wy, HX, HY, R)
                    land = (tt, _normal_speed(px, py, wx, wy, HX, HY, tt)) if tt < _INF else (cand, 0.0)
        self._target = target if land is not None and land[1] > 0.0 else None
        return horizon, land

    def run(self, *, frames: bool = True) -> FlickResult:
        st = self.stepping
        space = self.space
        step = space.step
        H = st.base_step_s
        cap = st.cap_s
        vlimit2 = (2.0 * st.speed_limit_mm_s) ** 2
        depth = st.land_depth_mm
        bodies = self.bodies
        ball = self.ball
        self._pending = []
        self._watch = []
        self._event = False
        self._ball_last = None
        contacts: list = []
        crossings: dict[str, Crossing] = {}
        awake = [self.flicked]
        awake_set = {self.flicked}
        sizes = self.step_sizes
        t = 0.0
        steps = 0
        frame_dt = 1 / 30
        frame_list: list = []
        last_frame: dict[str, Vec] = {}
        if frames:
            for b in bodies:
                last_frame[b.key] = _r1((b.x, b.y))
            frame_list.append((0.0, last_frame[BALL], {k: v for k, v in last_frame.items() if k != BALL}))
        next_frame = frame_dt
        frame_no = 1
        bx0, by0 = ball.x, ball.y
        bmin_x = bmax_x = bx0
        bmax_r = math.hypot(bx0, by0)
        capped = False

        decel_half = 0.5 * H if st.half_kick else 0.0  # a body's stored velocity leads its physical one by decel * H / 2
        rebias: list = []
        last_dt = None
        ramp = st.ramp
        while True:
            # snapshot the moving bodies (awake bodies only: O(awake))
            movers = []
            for b in awake:
                b.x, b.y = b.body.position
                b.vx, b.vy = vx, vy = b.body.velocity
                if vx * vx + vy * vy > 1e-18:
                    if vx * vx + vy * vy > vlimit2:  # a solver blow-up, never a flick: tame it
                        k = math.sqrt(vlimit2 / (vx * vx + vy * vy))
                        b.vx, b.vy = vx * k, vy * k
                        b.body.velocity = (b.vx, b.vy)
                    b.moving = True
                    movers.append(b)
                else:
                    b.moving = False
            horizon, land = self._horizon(movers, cap - t)
            # choose the chunk
            if horizon >= H:
                dt = H
                n = int(horizon / H) if horizon < _INF else 1 << 30
                cut = False
            else:
                t_lin, vn = land if land is not None else (horizon, 0.0)
                if vn > 1e-9 and t_lin < H:
                    dt = t_lin + depth / vn
                else:
                    dt = horizon
                if dt > H:
                    dt = H
                if dt < H * st.min_step:
                    dt = H * st.min_step
                n = 1
                cut = dt < H and vn > 1e-9 and t_lin < H  # an impact step, not a press
            if ramp and last_dt is not None and dt > ramp * last_dt:
                # after a short step, the step grows back by at most `ramp` a step: Chipmunk
                # warm starts a lasting contact with its last impulse times the ratio of the
                # steps, which it cannot take back (a ball pressed between two pieces would
                # be shot out)
                dt = ramp * last_dt
                n = 1
                cut = False
            n_cap = int((cap - t) / dt + 0.5)
            if n > n_cap:
                n = n_cap
            if n < 1:
                capped = True
                break
            if cut and decel_half:
                # an impact step: the bodies meet with their physical velocities at the touch
                # (Chipmunk bounces them off the velocities they start the step with), and the
                # step is re-aimed with those velocities
                for b in movers:
                    s = math.hypot(b.vx, b.vy)
                    k = (s + b.decel * (decel_half - t_lin)) / s
                    if k < 0.0:
                        k = 0.0
                    b.vx *= k
                    b.vy *= k
                    b.body.velocity = (b.vx, b.vy)
                    _spin_by(b, decel_half - t_lin)
                    if k == 0.0:
                        b.moving = False  # it stops before the touch: an obstacle now
                movers = [b for b in movers if b.moving]
                horizon, land = self._horizon(movers, cap - t)
                t_lin, vn = land if land is not None else (horizon, 0.0)
                dt = t_lin + depth / vn if vn > 1e-9 and t_lin < H else horizon
                if dt > H:
                    dt = H
                if dt < H * st.min_step:
                    dt = H * st.min_step
                # no friction joints inside the impact step, for the movers and the body struck:
                # a joint's impulse (max_force * dt) would be fought by the contact's (which
                # holds the bounce), so the impact would depend on dt; friction for the step is
                # accounted for after it
                target = self._target
                freed = list(movers)
                if isinstance(target, _Body) and not target.moving:
                    freed.append(target)
                for b in freed:
                    b.free(space)
                t_touch = t_lin if t_lin < dt else dt
            if dt != last_dt and last_dt is not None:
                # a change of step: fresh friction joints for the bodies that keep theirs
                # (see _Body.free), so the friction in the step is exactly max_force * dt
                for b in awake:
                    if not b.loose and b.held_at != steps and not b.body.is_sleeping:
                        b.free(space)
                        b.hold(space)
                        b.held_at = steps
            # run the chunk; frames and rest are checked on the way, the horizon stays valid
            done = 0
            ended = False
            while done < n:
                m = n - done
                nf = int((next_frame - t) / dt - 1e-9) + 1
                if nf < 1:
                    nf = 1
                if nf < m:
                    m = nf
                k = 0
                while k < m:
                    step(dt)
                    k += 1
                    if self._event:
                        break
                done += k
                t = t + dt * k
                if self._event:
                    self._event = False
                    rebias = self._collect(contacts, crossings, t, dt, awake, awake_set)
                    ended = True
                bx, by = ball.body.position
                if bx < bmin_x:
                    bmin_x = bx
                if bx > bmax_x:
                    bmax_x = bx
                rr = math.hypot(bx, by)
                if rr > bmax_r:
                    bmax_r = rr
                if self._watch:
                    self._check_watch(crossings, t)
                if t >= next_frame - 1e-12:
                    if frames:
                        frame_list.append(self._frame(frame_no * frame_dt, awake, last_frame))
                    frame_no += 1
                    next_frame = frame_no * frame_dt
                    for b in awake:
                        if b.body.is_sleeping:
                            ended = True  # one came to rest: see who still moves
                            break
                if ended:
                    break
            sizes.extend([dt] * done)
            if done:
                last_dt = dt
            steps += done
            impact = cut and decel_half
            if impact:
                for b in freed:
                    b.hold(space)
                    b.held_at = steps
                rebias = freed + [b for b in rebias if not b.moving and b not in freed]
            if rebias:
                # back to leapfrog: the stored velocity is the one half a step ahead; after a
                # frictionless impact step, the velocity is the one at the touch, and the time
                # since the touch slid with friction too
                after = dt - t_touch if impact else 0.0
                for b in rebias:
                    vx, vy = b.body.velocity
                    s = math.hypot(vx, vy)
                    if s > 0.0:
                        s2 = s - b.decel * (decel_half + after)
                        k = s2 / s if s2 > 0.0 else 0.0
                        b.body.velocity = (vx * k, vy * k)
                    _spin_by(b, -(decel_half + after))
                rebias = []
            # who still moves
            still = [b for b in awake if not b.body.is_sleeping]
            if len(still) != len(awake):
                for b in awake:
                    if b.body.is_sleeping:
                        b.x, b.y = b.body.position
                        b.vx = b.vy = 0.0
                        b.moving = False
                        awake_set.discard(b)
                awake[:] = still
            if not awake:
                break
            if t >= cap - 1e-12:
                capped = True
                break

        for b in bodies:
            b.x, b.y = b.body.position
        if frames:
            moved = {}
            for b in bodies:
                p = _r1((b.x, b.y))
                if b.key != BALL and last_frame.get(b.key) != p:
                    moved[b.key] = p
            frame_list.append((round(t, 4), _r1((ball.x, ball.y)), moved))
        contacts.sort(key=lambda c: c.t)
        first = last = None
        for c in contacts:
            if c.involves(BALL):
                other = c.other(BALL)
                if other not in FIXED:
                    if first is None:
                        first = other
                    last = other
        out_pieces: dict[str, dict[str, Vec]] = {s: {} for s in SIDES}
        for b in bodies:
            if b is ball:
                continue
            s, pid = split_key(b.key)
            out_pieces[s][pid] = round_pos((b.x, b.y))
        bmin_x = min(bmin_x, ball.x)
        bmax_x = max(bmax_x, ball.x)
        bmax_r = max(bmax_r, math.hypot(ball.x, ball.y))
        return FlickResult(
            ball=round_pos((ball.x, ball.y)),
            pieces={s: dict(sorted(v.items(), key=lambda kv: _piece_order(kv[0]))) for s, v in out_pieces.items()},
            contacts=tuple(contacts),
            ball_first_touch=first,
            ball_last_touch=last,
            ball_out=crossings.get(BALL),
            pieces_out={k: v for k, v in crossings.items() if k != BALL},
            ball_min_x=_r3(bmin_x),
            ball_max_x=_r3(bmax_x),
            ball_max_r=_r3(bmax_r),
            ball_moved=any(c.involves(BALL) for c in contacts) or self.flicked is ball,
            frames=tuple(frame_list),
            duration_s=round(t, 6),
            steps=steps,
            capped=capped,
        )

    def _collect(self, contacts, crossings, t, dt, awake, awake_set) -> list:
        woken = []
        for (back, a, b, vn, at, a_pos, b_pos, a_speed, b_speed, ball_at, ra, rb) in self._pending:
            ct = t - min(max(back, 0.0), dt)
            contacts.append(Contact(
                t=round(ct, 6), a=a, b=b, speed_mm_s=_r3(vn), at=round_pos(at), a_pos=round_pos(a_pos),
                b_pos=round_pos(b_pos) if b_pos is not None else None, a_speed_mm_s=_r3(a_speed),
                b_speed_mm_s=_r3(b_speed), ball_at=round_pos(ball_at)))
            for rec in (ra, rb):
                if rec is not None and rec not in awake_set:
                    awake_set.add(rec)
                    awake.append(rec)
                    woken.append(rec)
        self._pending.clear()
        if self._watch:
            self._check_watch(crossings, t)
        return woken

    def _check_watch(self, crossings, t) -> None:
        keep = []
        table = self.table
        for rec in self._watch:
            if rec.out_line is not None:
                continue
            x, y = rec.body.position
            vx, vy = rec.body.velocity
            line = _wholly_beyond(table, x, y, rec.hx, rec.hy, rec.r)
            if line is None:
                if not table.field.touches_disc((x, y), max(rec.r, math.hypot(rec.hx, rec.hy))):
                    keep.append(rec)  # off a corner of the field: watch it
                continue
            rec.out_line = line
            crossings[rec.key] = _crossing(table, line, x, y, vx, vy, rec, t, rec is self.ball)
        self._watch = keep

    def _frame(self, ft, awake, last_frame):
        moved = {}
        ball_pos = last_frame[BALL]
        for b in awake:
            p = _r1(tuple(b.body.position))
            if b is self.ball:
                ball_pos = p
                last_frame[BALL] = p
            elif last_frame.get(b.key) != p:
                moved[b.key] = p
                last_frame[b.key] = p
        return (round(ft, 4), ball_pos, moved)


def _spin_by(b: _Body, dt: float) -> None:
    """Moves the spin of ``b`` by its spin friction over ``dt`` (negative: slower), never
    through zero (the angular counterpart of the leapfrog offsets of the velocities)."""
    w = b.body.angular_velocity
    if w == 0.0 or b.alpha == 0.0:
        return
    m = abs(w) + b.alpha * dt
    b.body.angular_velocity = (m if m > 0.0 else 0.0) * (1.0 if w > 0.0 else -1.0)


def _wholly_beyond(table: Table, x, y, hx, hy, r) -> str | None:
    if hx == 0.0 and hy == 0.0:
        return table.line_wholly_beyond((x, y), r)
    L, W = table.half_length, table.half_width
    if x - hx > L:
        return "goal_line+x"
    if x + hx < -L:
        return "goal_line-x"
    if y - hy > W:
        return "touch_line+y"
    if y + hy < -W:
        return "touch_line-y"
    return None


def _crossing(table: Table, line: str, x, y, vx, vy, rec: _Body, t: float, is_ball: bool) -> Crossing:
    """The crossing found at the end of a step at time ``t``, traced back along the track."""
    if line.startswith("goal_line"):
        s = 1.0 if line.endswith("+x") else -1.0
        L = s * table.half_length
        extent = rec.hx + rec.r
        over = s * (x - L) - extent  # how far it is past "wholly beyond"
        v = s * vx
        back = over / v if v > 1e-9 else 0.0
        cross_back = s * (x - L) / v if v > 1e-9 else 0.0
        exit_at = (L, y - vy * cross_back)
        goal = is_ball and abs(y - vy * back) < table.goal_width / 2
    else:
        s = 1.0 if line.endswith("+y") else -1.0
        W = s * table.half_width
        extent = rec.hy + rec.r
        over = s * (y - W) - extent
        v = s * vy
        back = over / v if v > 1e-9 else 0.0
        cross_back = s * (y - W) / v if v > 1e-9 else 0.0
        exit_at = (x - vx * cross_back, W)
        goal = False
    back = min(max(back, 0.0), t)
    at = (x - vx * back, y - vy * back)
    return Crossing(t=round(t - back, 6), line=line, at=round_pos(at), exit_at=round_pos(exit_at), goal=goal)


def _speed(v) -> float:
    return math.hypot(v[0], v[1])


def _r1(p) -> Vec:
    return (round(p[0], 1) + 0.0, round(p[1], 1) + 0.0)


def _r3(v: float) -> float:
    return round(v, 3) + 0.0


def resolve_flick(table, ball, pieces, side, piece, angle_deg, speed_mm_s, *, frames=True,
                  stepping: Stepping = DEFAULT_STEPPING) -> FlickResult:
    """Resolves one flick of ``piece`` of ``side`` (see the module's docstring).

    Raises ``ValueError`` when the piece is not on the table. Deterministic: the same
    arguments give the same result, to the bit, in any process.
    """
    sim = FlickSimulation(table, ball, pieces, stepping)
    sim.launch(piece_key(side, piece), angle_deg, speed_mm_s)
    return sim.run(frames=frames)
