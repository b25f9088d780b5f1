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

from collections.abc import Mapping
from dataclasses import dataclass

from .table import Vec

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


def resolve_flick(table, ball, pieces, side, piece, angle_deg, speed_mm_s, *, frames=True) -> FlickResult:
    raise NotImplementedError("the physics engine is being written (issue 4)")
