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

How: the pieces are bodies of a pymunk space kept per table and thread (``_Kit``), placed
afresh for each flick. The loop between Chipmunk's steps is C (``_engine.run``, in
simulation/_engine.c). Far from any touch it steps at ``Stepping.base_step_s``, as many steps
as the horizon allows: how long the moving bodies can slide before anything can touch, exact
for a body sliding towards something at rest. A step that reaches a touch is cut to end
``land_depth_mm`` past it and runs without friction, and the velocities go back on leapfrog
after it. A body at rest sleeps and becomes an obstacle. The collision callbacks (Python, here)
record each contact with its time and speeds.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace

import pymunk
from pymunk._chipmunk import ffi as _ffi
from pymunk._chipmunk import lib as _cp

try:
    from . import _engine
except ImportError as e:  # pragma: no cover - a checkout where `make install` was not run
    raise ImportError(f"simulation._engine (simulation/_engine.c) is not built: run `make install` "
                      f"(it needs a C compiler and Python's headers): {e}") from e
from .state import _piece_order, round_pos
from .table import ENDS, SIDES, Table, Vec

BALL = "ball"
FIXED = ("post", "net", "rim")
MAX_FLICK_SPEED_MM_S = 100_000.0  # 100 m/s: far past any flick; a rule set's limit is below it


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
# One pymunk space per table (and thread), reused flick after flick (_Kit): the posts, the nets,
# the rim and a sensor covering the field are made once; for each flick the pieces' pooled bodies
# are put back in a fixed order (buttons home then away, by id, the ball, the keepers) and taken
# out at the end, and the space starts each flick from the same state, so a flick's result does
# not depend on what was resolved before it. Friction is Coulomb: a PivotJoint (sliding) and a
# GearJoint (spin) to the static body with max_bias = 0 and max_force = mu*m*g
# (PHYSICS_NOTES.md), so no Python runs per body per step; they are made fresh when a body first
# moves. Restitution per pair of materials is the product of the shapes' elasticities: pieces
# carry sqrt(e_piece) and every fixed material e_fixed / sqrt(e_piece).
#
# Stepping (deterministic, adaptive, exact at impacts): every body that is not moving sleeps
# (pymunk's sleeping: out of the solver). Before each chunk of steps the engine computes, for the
# moving bodies only, the earliest time any of them can touch anything: exact for a body sliding
# towards something at rest (it slides along its ray and only slows down), conservative for two
# moving bodies (their relative path bends by at most (a1+a2)t^2/2). Far from everything it takes
# whole base steps; the step that reaches an impact is cut to end just after the touch, so the
# contact normal is exact whatever the base step, and nothing can pass through anything (no
# tunnelling, at any speed). Chipmunk warm starts every joint and lasting contact with its stored
# impulse times (step / previous step) but clamps the stored one unscaled; the previous step is
# set to each new step's own size, so a change of step neither pushes a sliding body (a friction
# joint) nor shoots apart a pressed contact. A body at rest for `rest_time_s` falls asleep; the
# flick ends when every body sleeps, or at the cap.
# ---------------------------------------------------------------------------------------------


# collision types
_BUTTON, _BALL, _KEEPER, _POST, _NET, _RIM, _FIELD = 1, 2, 3, 4, 5, 6, 7
_MOVING_TYPES = (_BUTTON, _BALL, _KEEPER)
_FIXED_NAMES = {_POST: "post", _NET: "net", _RIM: "rim"}


@dataclass(frozen=True)
class Stepping:
    """How a flick is integrated (every value has a range; ``ValueError`` names the first one
    out of it):

    - ``base_step_s``: the step far from any impact, s (1e-5 to 1);
    - ``land_depth_mm``: how far past the touch an impact step ends, the overlap at which
      Chipmunk sees the contact (0 to 100);
    - ``press_depth_mm``: how far a body pressing on another may push into it before the
      step is cut (0 to 100);
    - ``speed_limit_mm_s``: a body faster than twice this, or than twice the flick, is a
      solver blow-up and is slowed to it (1 to 1e7);
    - ``rest_speed_mm_s`` and ``rest_time_s``: a body slower than this for that long is at
      rest (0 to 1e7; more than 0 to 3600 s);
    - ``cap_s``: the hard cap of a flick's simulated time, s (more than 0 to 3600);
    - ``iterations``: the Chipmunk solver's iterations per step (1 to 1000);
    - ``half_kick``: the stored velocity leads the physical one by half a step of friction
      (leapfrog), so that positions lie on the sliding curve;
    - ``squeeze_mm``: a ball back on one piece within this distance of leaving the other is
      squeezed between them, not bounced (0 to 100; 0 is off);
    - ``min_step``: the shortest step, as a fraction of ``base_step_s`` (1e-6 to 1).

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

    # (name, lowest, highest, whether the lowest itself is allowed)
    _RANGES = (("base_step_s", 1e-5, 1.0, True), ("cap_s", 0.0, 3600.0, False),
               ("min_step", 1e-6, 1.0, True), ("land_depth_mm", 0.0, 100.0, True),
               ("press_depth_mm", 0.0, 100.0, True), ("speed_limit_mm_s", 1.0, 1e7, True),
               ("rest_speed_mm_s", 0.0, 1e7, True), ("rest_time_s", 0.0, 3600.0, False),
               ("squeeze_mm", 0.0, 100.0, True))

    def __post_init__(self) -> None:
        """Raises ``ValueError`` naming the first value out of its range (the run's step
        counts are integers, so the steps must be positive and the cap finite)."""
        for name, low, high, low_ok in self._RANGES:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) \
                    or not ((low <= v if low_ok else low < v) and v <= high):
                raise ValueError(f"Stepping.{name} must be a number {'from' if low_ok else 'above'} "
                                 f"{low:g} to {high:g}, not {v!r}")
        if isinstance(self.iterations, bool) or not isinstance(self.iterations, int) \
                or not 1 <= self.iterations <= 1000:
            raise ValueError(f"Stepping.iterations must be an integer from 1 to 1000, not {self.iterations!r}")
        if not isinstance(self.half_kick, bool):
            raise ValueError(f"Stepping.half_kick must be true or false, not {self.half_kick!r}")

    def halved(self) -> Stepping:
        return replace(self, base_step_s=self.base_step_s / 2, land_depth_mm=self.land_depth_mm / 2,
                       press_depth_mm=self.press_depth_mm / 2)


DEFAULT_STEPPING = Stepping()


class _Body:
    """A piece's body in a table's kit, kept from flick to flick: its Chipmunk body and shape
    (and their addresses), its size (half sizes ``hx``, ``hy`` and corner radius ``r``, mm;
    ``ext`` the radius of a disc around it) and its friction (``decel`` mm/s^2 sliding,
    ``alpha`` rad/s^2 spinning, ``slide_f``/``spin_f`` the max forces of its friction joints).

    Set for each flick by ``place``: ``key``, ``index`` (its place in the flick's bodies), its
    position ``x``, ``y``; ``_engine.run`` sets the addresses of the friction joints it makes
    (``slide``, ``spin``), which the kit frees after the flick."""

    __slots__ = ("key", "index", "body", "cb", "addr", "shape", "shape_addr", "turns", "hx", "hy",
                 "r", "ext", "decel", "alpha", "slide_f", "spin_f", "slide", "spin", "x",
                 "y", "out_line")

    def __init__(self, body, shape, hx, hy, r, mu, g):
        self.body = body
        self.cb = body._body  # the Chipmunk body (pymunk 7.3's cffi handle)
        self.addr = _address(body._body)
        self.shape = shape
        self.shape_addr = _address(shape._shape)
        self.turns = body.moment != math.inf  # a keeper slides but never turns
        self.hx = hx
        self.hy = hy
        self.r = r
        self.ext = math.hypot(hx, hy) + r
        self.decel = mu * g
        self.slide_f = mu * body.mass * g
        self.spin_f = (2 / 3) * mu * body.mass * g * r if self.turns else 0.0
        self.alpha = self.spin_f / body.moment if self.turns else 0.0
        self.key = None
        self.index = -1
        self.x = self.y = 0.0
        self.slide = self.spin = None
        self.out_line = None

    def place(self, cspace_addr: int, key: str, index: int, x: float, y: float) -> None:
        """Puts it in the space at (x, y) mm, at rest, for a flick (see ``_engine.place``)."""
        _engine.place(cspace_addr, self.addr, self.shape_addr, x, y, self.turns)
        self.key = key
        self.index = index
        self.x = x
        self.y = y
        self.out_line = None


class _Kit:
    """A table's space, reused flick after flick: the fixed things (posts, nets, rim and the
    field sensor) and the collision handlers are made once, and the pieces' bodies are kept in
    pools and put back in the space for each flick.

    Each flick starts from the same state of the space, so a flick's result does not depend
    on what was resolved before it (tests/simulation/test_physics.py checks it to the bit):
    the pieces are added in the fixed order, the shape ids and the time stamp start again
    from where the fixed things left them, and the hash sets of both spatial indexes are grown
    once, beyond any position, so that they never grow during a flick (their iteration order
    decides the order in which collisions are found). Bodies taken out of the space leave the
    bounding-box trees exactly as they were (a removal replaces a node with its other child).
    Friction joints are never reused: their stored impulses would carry from one flick to the
    next, so each flick makes fresh ones for the bodies that move.
    """

    # more than the pieces of any position (11 a side and the ball): the hash sets of the
    # spatial indexes are grown past this once
    _GROW = 48

    def __init__(self, table: Table):
        self.table = table
        self.space = space = pymunk.Space()
        self.cspace = space._space
        self.cspace_addr = _address(self.cspace)
        self.owner = None  # a weak reference to the simulation using the space
        self.placed: list[_Body] = []  # the bodies it put in the space
        # the fixed things as the horizon's obstacles: (x, y, half x, half y, corner radius, extent)
        self.obstacles: list[tuple] = []
        t = table
        self.e_piece = e_piece = math.sqrt(t.restitution_piece)
        self.cf = math.sqrt(t.contact_friction)
        static = space.static_body

        def e_fixed(value: float) -> float:
            return value / e_piece if e_piece > 0 else 0.0

        def add_fixed(shape, ctype, restitution, box):
            shape.elasticity = e_fixed(restitution)
            shape.friction = self.cf
            shape.collision_type = ctype
            space.add(shape)
            cx, cy, hx, hy, r = box
            self.obstacles.append(box + (math.hypot(hx, hy) + r,))

        pr = t.post_diameter / 2
        for end in ENDS:
            for cx, cy in t.post_centres(end):
                add_fixed(pymunk.Circle(static, pr, (cx, cy)), _POST, t.restitution_post,
                          (cx, cy, 0.0, 0.0, pr))
        for end in ENDS:
            for box in t.net_boxes(end):  # back, then the two sides
                x0, ya, x1, yb = box.x0, box.y0, box.x1, box.y1
                add_fixed(pymunk.Poly(static, [(x0, ya), (x1, ya), (x1, yb), (x0, yb)]), _NET,
                          t.restitution_net,
                          ((x0 + x1) / 2, (ya + yb) / 2, (x1 - x0) / 2, (yb - ya) / 2, 0.0))
        sx, sy = t.table_length / 2, t.table_width / 2
        w = 100.0
        for x0, y0, x1, y1 in ((-sx - w, -sy - w, sx + w, -sy), (-sx - w, sy, sx + w, sy + w),
                               (-sx - w, -sy, -sx, sy), (sx, -sy, sx + w, sy)):
            shape = pymunk.Poly(static, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
            shape.elasticity = e_fixed(t.restitution_rim)
            shape.friction = self.cf
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

        self.pools: dict[int, list[_Body]] = {_BUTTON: [], _BALL: [], _KEEPER: []}
        self.by_shape: dict = {}  # pymunk shape -> its pooled _Body
        self.shape_ids = _cp.cpSpaceGetShapeIDCounter(self.cspace)
        self._grow()

    def _grow(self) -> None:
        """Grows the hash sets of both spatial indexes past any position (bodies awake are
        in the dynamic index, asleep in the static one), then takes the bodies out."""
        space = self.space
        space.sleep_time_threshold = 1.0
        bodies = []
        for i in range(self._GROW):
            body = pymunk.Body(1.0, 1.0)
            body.position = (10_000.0 + 100.0 * i, 10_000.0)
            bodies.append((body, pymunk.Circle(body, 1.0)))
        for pair in bodies:
            space.add(*pair)
        for body, _ in bodies:
            body.sleep()
        for pair in bodies:
            space.remove(*pair)

    def _begin(self, arbiter, space, data) -> None:
        self.owner()._begin(arbiter, space, data)

    def _left_field(self, arbiter, space, data) -> None:
        self.owner()._left_field(arbiter, space, data)

    def take(self, ctype: int, n: int) -> _Body:
        """The ``n``-th pooled body of this kind (made when the pool is short)."""
        pool = self.pools[ctype]
        while len(pool) <= n:
            t = self.table
            if ctype == _KEEPER:
                hx, hy = t.keeper_half
                body = pymunk.Body(t.keeper_mass_g, math.inf)  # a keeper slides but never turns
                shape = pymunk.Poly(body, [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
                r, mu = 0.0, t.keeper_friction
            else:
                hx = hy = 0.0
                r = t.ball_radius if ctype == _BALL else t.button_radius
                mass = t.ball_mass_g if ctype == _BALL else t.button_mass_g
                mu = t.ball_friction if ctype == _BALL else t.button_friction
                body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0, r))
                shape = pymunk.Circle(body, r)
            shape.elasticity = self.e_piece
            shape.friction = self.cf
            shape.collision_type = ctype
            rec = _Body(body, shape, hx, hy, r, mu, t.gravity_mm_s2)
            pool.append(rec)
            self.by_shape[shape] = rec
        return pool[n]

    def start(self, sim: FlickSimulation, stepping: Stepping) -> None:
        space = self.space
        space.iterations = stepping.iterations
        space.idle_speed_threshold = stepping.rest_speed_mm_s
        space.sleep_time_threshold = stepping.rest_time_s
        _cp.cpSpaceSetShapeIDCounter(self.cspace, self.shape_ids)
        _cp.cpSpaceSetCurrentTimeStep(self.cspace, 0.0)
        self.owner = weakref.ref(sim)
        self.placed = sim.bodies

    def busy(self) -> bool:
        """In use by a simulation; one dropped without being run or closed frees it here."""
        if self.owner is None:
            return False
        if self.owner() is None:
            self.clear()
            return False
        return True

    def clear(self) -> bool:
        """Takes the flick's bodies and joints out of the space; the kit is free again.
        False when a body was left at a position that is not a finite number (the space is
        then not to be used again)."""
        finite = _engine.take_out(self.cspace_addr, [(b.addr, b.shape_addr, b.slide, b.spin)
                                                     for b in self.placed])
        for b in self.placed:
            b.slide = b.spin = None
        self.placed = []
        self.owner = None
        return finite


_kits = threading.local()


_KITS_KEPT = 8  # tables whose kits a thread keeps (the least recently used one goes first)


def _kit_for(table: Table) -> _Kit:
    """This thread's kit for ``table`` when it is free, else a new private one."""
    kits = getattr(_kits, "by_table", None)
    if kits is None:
        kits = _kits.by_table = {}
    kit = kits.pop(table, None)
    if kit is None:
        kit = _Kit(table)
        while len(kits) >= _KITS_KEPT:
            del kits[next(iter(kits))]
    kits[table] = kit  # the most recently used last
    if kit.busy():
        return _Kit(table)  # the kit is in use (a simulation not closed): one of its own
    return kit


def _forget(kit: _Kit) -> None:
    """Drops a kit from this thread's cache (its space is not to be used again)."""
    kits = getattr(_kits, "by_table", {})
    if kits.get(kit.table) is kit:
        del kits[kit.table]


class FlickSimulation:
    """One flick on a table's space. ``run()`` resolves it and frees the space; ``space`` and
    ``step_sizes`` are there for the benchmark (a bare ``space.step`` loop over the same
    steps), which calls ``close()`` when it is done with a simulation it did not run."""

    def __init__(self, table: Table, ball: Vec, pieces: Mapping[str, Mapping[str, Vec]],
                 stepping: Stepping = DEFAULT_STEPPING):
        self.table = table
        self.stepping = stepping
        self.kit = kit = _kit_for(table)
        self.space = kit.space
        self.surface_half = kit.surface_half
        self.bodies: list[_Body] = []
        self.by_shape = kit.by_shape
        self.step_sizes: list[float] = []
        self._pending: list = []
        self._watch: list = []
        self._event = False
        self._ball_last = None
        self._running = False
        self.flicked: _Body | None = None
        self._flick_speed = 0.0
        kit.start(self, stepping)
        try:
            self._build(ball, pieces)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Takes this flick's bodies out of the table's space (``run`` does it at the end).
        Raises ``RuntimeError`` while the flick is running."""
        if self._running:
            raise RuntimeError("a flick cannot be closed while it runs")
        kit = self.kit
        if kit.owner is not None and kit.owner() is self and not kit.clear():
            _forget(kit)

    def __del__(self) -> None:
        # a flick dropped neither run nor closed: its friction joints are Chipmunk's memory,
        # not pymunk objects, so the space is freed now, while it surely exists (a space that
        # pymunk frees takes joints out without freeing them)
        kit = getattr(self, "kit", None)
        if kit is not None and not getattr(self, "_running", False) and kit.owner is not None \
                and kit.owner() is self:
            self.close()

    # -- construction (fixed order) -------------------------------------------------------
    def _build(self, ball, pieces) -> None:
        """Buttons (home then away, by id), the ball, the keepers: pooled bodies, at rest,
        with no friction joints yet (``_engine`` makes them when the body first moves)."""
        kit = self.kit
        cspace_addr = kit.cspace_addr
        bodies = self.bodies

        def place(ctype, n, key, pos):
            rec = kit.take(ctype, n)
            x, y = float(pos[0]), float(pos[1])
            if not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError(f"{key} is not at a finite position: {pos!r}")
            rec.place(cspace_addr, key, len(bodies), x, y)
            bodies.append(rec)

        keepers = []
        n = 0
        for side in SIDES:
            for pid, pos in sorted(pieces.get(side, {}).items(), key=lambda kv: _piece_order(kv[0])):
                if pid == "gk":
                    keepers.append((side, pos))
                else:
                    place(_BUTTON, n, piece_key(side, pid), pos)
                    n += 1
        place(_BALL, 0, BALL, ball)
        self.ball = self.bodies[-1]
        for i, (side, pos) in enumerate(keepers):
            place(_KEEPER, i, piece_key(side, "gk"), pos)

    # -- callbacks (run inside space.step) -----------------------------------------------
    def _begin(self, arbiter, space, data) -> None:
        sa, sb = arbiter.shapes
        ra = self.by_shape.get(sa)
        rb = self.by_shape.get(sb)
        arb = arbiter._arbiter
        n = _cp.cpArbiterGetNormal(arb)  # from a to b
        nx, ny = n.x, n.y
        cps = _cp.cpArbiterGetContactPointSet(arb)
        if cps.count:
            p0 = cps.points[0]
            point = (p0.pointA.x, p0.pointA.y)
            depth = -p0.distance
        else:
            point = tuple(sa.body.position)
            depth = 0.0
        v = _get_vel(sa.body._body)
        va = (v.x, v.y)
        if rb is not None:
            v = _get_vel(rb.cb)
            vb = (v.x, v.y)
        else:
            vb = (0.0, 0.0)
        vn = (va[0] - vb[0]) * nx + (va[1] - vb[1]) * ny
        if rb is not None and ra is not None and _speed(vb) > _speed(va):
            ra, rb, va, vb = rb, ra, vb, va
        if ra is None:  # keep the moving body first
            ra, rb, va, vb = rb, None, vb, (0.0, 0.0)
        b_key = rb.key if rb is not None else _FIXED_NAMES[(sb if self.by_shape.get(sa) else sa).collision_type]
        ball = self.ball
        p = _get_pos(ball.cb)
        ball_at = (p.x, p.y)
        if rb is not None and (ra is ball or rb is ball):
            # a ball caught between two pieces (it comes back to one within squeeze_mm of
            # leaving the other) is squeezed, not bounced: the impact is inelastic, so it no
            # longer rattles ever faster in the closing gap
            other = rb if ra is ball else ra
            bx, by = ball_at
            last = self._ball_last
            if last is not None and last[0] is not other and \
                    math.hypot(bx - last[1], by - last[2]) < self.stepping.squeeze_mm:
                arbiter.restitution = 0.0
            self._ball_last = (other, bx, by)
        p = _get_pos(ra.cb)
        a_pos = (p.x, p.y)
        if rb is not None:
            p = _get_pos(rb.cb)
            b_pos = (p.x, p.y)
        else:
            b_pos = None
        self._pending.append((
            depth / vn if vn > 1e-9 else 0.0, ra.key, b_key, abs(vn), point,
            a_pos, b_pos, _speed(va), _speed(vb), ball_at, ra, rb,
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
        """Gives the body ``key`` its flick; everything else is put to sleep.

        Raises ``ValueError`` (and frees the table's space) when the piece is not on the table,
        or the angle (degrees) or the speed (mm/s, at least 0) is not a finite number."""
        try:
            self._launch(key, angle_deg, speed_mm_s)
        except BaseException:
            self.close()
            raise

    def _launch(self, key, angle_deg, speed_mm_s) -> None:
        rec = next((b for b in self.bodies if b.key == key), None)
        if rec is None:
            raise ValueError(f"no piece {key!r} on the table")
        try:
            a = math.radians(float(angle_deg))
            speed = float(speed_mm_s)
        except (TypeError, ValueError):
            raise ValueError(f"angle and speed must be numbers, not {angle_deg!r} and {speed_mm_s!r}") from None
        if not (math.isfinite(a) and math.isfinite(speed)) or speed < 0:
            raise ValueError(f"angle must be a finite number and speed a finite number >= 0, "
                             f"not {angle_deg!r} and {speed_mm_s!r}")
        if speed > MAX_FLICK_SPEED_MM_S:
            raise ValueError(f"speed must be at most {MAX_FLICK_SPEED_MM_S:g} mm/s, not {speed_mm_s!r}")
        self._flick_speed = speed
        if self.stepping.half_kick and speed > 0:
            # Chipmunk moves each body with the velocity it had before friction acts in the
            # step: read as the velocity half a step ahead, that is exact for a constant
            # deceleration (leapfrog), so the flick starts half a step of friction slower.
            speed = max(0.0, speed - rec.decel * self.stepping.base_step_s / 2)
        rec.body.velocity = (speed * math.cos(a), speed * math.sin(a))
        rec.slide, rec.spin = _engine.grip(self.kit.cspace_addr, rec.addr, rec.slide_f, rec.spin_f)
        self.flicked = rec
        for b in self.bodies:
            if b is not rec:
                _cp.cpBodySleep(b.cb)

    def run(self, *, frames: bool = True) -> FlickResult:
        """Resolves the flick (see the module's docstring) and frees the table's space.

        Raises ``RuntimeError`` when the simulation has already been run or closed, or is
        running (called again from inside its own run)."""
        if self._running:
            raise RuntimeError("this flick is running")
        if self.kit.owner is None or self.kit.owner() is not self:
            raise RuntimeError("this flick has been run or closed already")
        if self.flicked is None:
            raise RuntimeError("launch() the flick before running it")
        try:
            return self._run(frames)
        finally:
            self.close()

    def _run(self, frames: bool) -> FlickResult:
        st = self.stepping
        bodies = self.bodies
        ball = self.ball
        self._pending = []
        self._watch = []
        self._event = False
        self._ball_last = None
        self._contacts = contacts = []
        self._crossings = crossings = {}
        frame_list: list = []
        last_frame: dict[str, Vec] = {}
        if frames:
            for b in bodies:
                last_frame[b.key] = _r1((b.x, b.y))
            frame_list.append((0.0, last_frame[BALL], {k: v for k, v in last_frame.items() if k != BALL}))
        sx, sy = self.surface_half
        # the loop between the steps is _engine.run's (see the module's docstring there)
        # faster than twice this is a solver blow-up (never the flick itself): slowed to it
        vlimit = 2.0 * max(st.speed_limit_mm_s, self._flick_speed)
        self._running = True
        try:
            t, steps, capped, bmin_x, bmax_x, bmax_r = _engine.run(
                self, self.kit.cspace_addr, bodies, self.flicked.index, ball.index,
                self.kit.obstacles,
                (st.base_step_s, st.cap_s, vlimit ** 2, st.land_depth_mm, st.press_depth_mm,
                 st.min_step, st.half_kick, sx, sy),
                frame_list if frames else None, last_frame, self.step_sizes)
        finally:
            self._running = False

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
            pieces_out={k: v for k, v in sorted(crossings.items(), key=lambda kv: (kv[1].t, kv[0]))
                        if k != BALL},
            ball_min_x=_r3(bmin_x),
            ball_max_x=_r3(bmax_x),
            ball_max_r=_r3(bmax_r),
            ball_moved=any(c.involves(BALL) for c in contacts) or self.flicked is ball,
            frames=tuple(frame_list),
            duration_s=round(t, 6),
            steps=steps,
            capped=capped,
        )

    def _after_event(self, t: float, dt: float) -> list[tuple[int, float]]:
        """Called by ``_engine.run`` after a step (ending at ``t``, of ``dt`` s) in which a
        collision callback ran: records the contacts and returns (body index, contact time)
        of each body touched, in order (``_engine.run`` wakes those asleep)."""
        self._event = False
        contacts = self._contacts
        touched = []
        for (back, a, b, vn, at, a_pos, b_pos, a_speed, b_speed, ball_at, ra, rb) in self._pending:
            ct = t - min(max(back, 0.0), dt)
            contacts.append(Contact(
                t=round(ct, 6), a=a, b=b, speed_mm_s=_r3(vn), at=round_pos(at), a_pos=round_pos(a_pos),
                b_pos=round_pos(b_pos) if b_pos is not None else None, a_speed_mm_s=_r3(a_speed),
                b_speed_mm_s=_r3(b_speed), ball_at=round_pos(ball_at)))
            for rec in (ra, rb):
                if rec is not None:
                    touched.append((rec.index, ct))
        self._pending.clear()
        if self._watch:
            self._check_watch(self._crossings, t)
        return touched

    def _watched(self, t: float) -> None:
        """Called by ``_engine.run`` while a body off the field is watched."""
        self._check_watch(self._crossings, t)

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


def _address(cdata) -> int:
    """The address of a Chipmunk object or function, for _engine."""
    return int(_ffi.cast("uintptr_t", cdata))


_engine.bind({name: _address(_ffi.addressof(_cp, name)) for name in _engine.functions()})

_get_pos = _cp.cpBodyGetPosition
_get_vel = _cp.cpBodyGetVelocity


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
    arguments give the same result, to the bit, in any process and whatever was resolved
    before.
    """
    sim = FlickSimulation(table, ball, pieces, stepping)
    sim.launch(piece_key(side, piece), angle_deg, speed_mm_s)
    return sim.run(frames=frames)
