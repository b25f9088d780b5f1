"""The scenario runner: ``python -m simulation scenario FILE.json [--frames]`` (contract §4).

Prints one JSON document ``{"state", "events", "rejected"}`` and exits 0, also when the rules
refuse an action (``rejected``: its index, the reason with its section, the section as ``rule``
and the refusal's ``message`` ``{"key", "params"}``; the actions after it are not applied and
``state`` is the state before it). Every event carries its ``message`` too. A file that is not a valid scenario exits 2 with one
line on stderr naming the field. The output is byte-identical across runs and processes.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from .actions import parse_action
from .errors import MalformedInput
from .rules import RuleViolation, make_referee
from .state import MatchState, canonical_json
from .table import ENDS, SIDES, Rect, Table, gap


def _refuse_constant(name: str) -> Any:
    raise MalformedInput("(file)", f"{name} is not a JSON number")


def load(text: str) -> dict[str, Any]:
    """Parses a scenario document; raises ``MalformedInput`` naming the field."""
    try:
        doc = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise MalformedInput("(file)", f"not JSON: {exc}") from None
    except RecursionError:
        raise MalformedInput("(file)", "nested too deeply to be a scenario") from None
    if not isinstance(doc, Mapping):
        raise MalformedInput("(file)", "must be a JSON object")
    if "rules" not in doc:
        raise MalformedInput("rules", "is required")
    if not isinstance(doc["rules"], str):
        raise MalformedInput("rules", "must be a string ('one_touch' or 'mbs')")
    if doc.get("params") is not None and not isinstance(doc["params"], Mapping):
        raise MalformedInput("params", "must be an object")
    if "state" not in doc:
        raise MalformedInput("state", "is required")
    if "actions" not in doc:
        raise MalformedInput("actions", "is required")
    if not isinstance(doc["actions"], list):
        raise MalformedInput("actions", "must be a list")
    return doc


def check_positions(table: Table, state: MatchState) -> None:
    """Refuses a state whose ball or pieces lie off the table (outside the rim), overlap one
    another, or overlap a post or a net: raises ``MalformedInput`` naming the first such field
    (the ball, then the buttons, then the keepers). Touching is allowed."""
    tolerance = 0.01  # mm: positions are stored to the micrometre
    if not table.on_surface(state.ball, table.ball_radius):
        raise MalformedInput("state.ball", "lies off the table")
    discs: list[tuple[str, tuple[float, float], float]] = [("state.ball", state.ball, table.ball_radius)]
    keepers: list[tuple[str, Rect]] = []
    hx, hy = table.keeper_half
    for side in SIDES:
        for pid, at in state.pieces.get(side, {}).items():
            where = f"state.pieces.{side}.{pid}"
            if pid == "gk":
                if not table.surface.contains_rect(at, hx, hy):
                    raise MalformedInput(where, "lies off the table")
                keepers.append((where, Rect(at[0] - hx, at[1] - hy, at[0] + hx, at[1] + hy)))
            else:
                if not table.on_surface(at, table.button_radius):
                    raise MalformedInput(where, "lies off the table")
                discs.append((where, at, table.button_radius))
    posts = [p for end in ENDS for p in table.post_centres(end)]
    nets = [box for end in ENDS for box in table.net_boxes(end)]
    post_r = table.post_diameter / 2
    for i, (where, at, r) in enumerate(discs):
        for other, other_at, other_r in discs[:i]:
            if gap(at, r, other_at, other_r) < -tolerance:
                raise MalformedInput(where, f"overlaps {other.removeprefix('state.')}")
        if any(gap(at, r, post, post_r) < -tolerance for post in posts):
            raise MalformedInput(where, "overlaps a post")
        if any(box.touches_disc(at, r - tolerance) for box in nets):
            raise MalformedInput(where, "overlaps a net")
    for i, (where, keeper) in enumerate(keepers):
        for other, other_at, other_r in discs:
            if keeper.touches_disc(other_at, other_r - tolerance):
                raise MalformedInput(where, f"overlaps {other.removeprefix('state.')}")
        for other, box in keepers[:i]:
            if _rects_overlap(keeper, box, tolerance):
                raise MalformedInput(where, f"overlaps {other.removeprefix('state.')}")
        if any(_rects_overlap(keeper, box, tolerance) for box in nets):
            raise MalformedInput(where, "overlaps a net")
        if any(keeper.touches_disc(post, post_r - tolerance) for post in posts):
            raise MalformedInput(where, "overlaps a post")


def _rects_overlap(a: Rect, b: Rect, tolerance: float) -> bool:
    """The two rectangles overlap by more than ``tolerance`` mm each way (touching is not)."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > tolerance
            and min(a.y1, b.y1) - max(a.y0, b.y0) > tolerance)


def run(doc: Mapping[str, Any], *, frames: bool = False) -> dict[str, Any]:
    """Runs a parsed scenario; returns the output document. Raises ``MalformedInput``."""
    try:
        referee = make_referee(doc["rules"], doc.get("params"))
    except MalformedInput:
        raise
    except (ValueError, OverflowError) as exc:
        message = str(exc)
        if message.startswith("params."):
            field, _, problem = message.partition(" ")
            raise MalformedInput(field, problem) from None
        raise MalformedInput("rules" if message.startswith("unknown rule set") else "params", message) from None
    state = MatchState.from_json(doc["state"])
    check_positions(referee.table, state)
    actions = [parse_action(a, f"actions[{i}]", t_offset=state.clock_s)
               for i, a in enumerate(doc["actions"])]
    events: list[dict[str, Any]] = []
    frame_list: list = []
    rejected = None
    for i, action in enumerate(actions):
        try:
            outcome = referee.apply(state, action)
        except RuleViolation as exc:
            rejected = {"index": i, "reason": str(exc), "rule": exc.rule, "message": exc.message}
            break
        state = outcome.state
        events.extend(e.to_json() for e in outcome.events)
        if frames:
            frame_list.extend({"action": i, "frames": f.frames_json()} for f in outcome.flicks)
    out: dict[str, Any] = {"state": state.to_json(), "events": events, "rejected": rejected}
    if frames:
        out["frames"] = frame_list
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    frames = "--frames" in argv
    if len(args) != 1:
        print("usage: python -m simulation scenario FILE.json [--frames]", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        print(f"malformed scenario: (file): cannot read {args[0]}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print("malformed scenario: (file): not UTF-8 text", file=sys.stderr)
        return 2
    try:
        out = run(load(text), frames=frames)
    except MalformedInput as exc:
        print(f"malformed scenario: {exc.field}: {exc.problem}".replace("\n", " "), file=sys.stderr)
        return 2
    sys.stdout.write(canonical_json(out) + "\n")
    return 0
