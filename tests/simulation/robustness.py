"""Scenario files re-run on a table that is a little different, so that no expected outcome hangs
on a hair (a button grazing another, a ball stopping a millimetre inside a line).

A *variant* changes the table and the flicks the way two real tables and two real hands differ:
sliding friction of every piece scaled by 0.8 or 1.2, the piece-to-piece restitution moved by
-0.07 or +0.07, every flick's speed scaled by 0.92 or 1.08 (never past the rule set's
``max_flick_speed_mm_s``: nobody flicks faster than the limit), every flick's aim turned by -1
or +1 degree. ``VARIANTS`` holds each change alone and the sixteen corners of all four at once.

What must not change is the scenario's ``expect`` block read without its millimetres: the events
it includes or excludes (their ``at`` aside), the refusal, and the final state's phase, side to
move, score, period, restart kind and side (``ball``, ``pieces`` and every ``at`` aside).

A scenario that tests a limit on purpose (a speed cap, a distance threshold: an outcome that
must flip when the table changes by a hair) says so in a top-level key ``tests_a_limit`` whose
value is the reason; it is exempt.

``python -m tests.simulation.robustness [FILE_OR_FOLDER...]`` prints the scenarios that fail.
"""
from __future__ import annotations

import copy
import itertools
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulation.rules import make_referee
from simulation.scenario import run
from simulation.table import Table
from tests.simulation.expect import problems

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = (ROOT / "tests" / "simulation" / "scenarios", ROOT.parent / "shared" / "scenarios")
EXEMPT_KEY = "tests_a_limit"
FRICTIONS = ("button_friction", "ball_friction", "keeper_friction")
MILLIMETRE_KEYS = ("at", "ball", "pieces", "spot", "exit_at")


@dataclass(frozen=True)
class Variant:
    """One way the table and the hands differ: factors and offsets (1.0 and 0.0: unchanged)."""

    friction: float = 1.0
    restitution: float = 0.0
    speed: float = 1.0
    aim_deg: float = 0.0

    @property
    def name(self) -> str:
        return (f"friction x{self.friction:g}, restitution {self.restitution:+g}, "
                f"speed x{self.speed:g}, aim {self.aim_deg:+g} deg")


def _variants() -> tuple[Variant, ...]:
    single = [Variant(friction=f) for f in (0.8, 1.2)] + [Variant(restitution=r) for r in (-0.07, 0.07)] \
        + [Variant(speed=s) for s in (0.92, 1.08)] + [Variant(aim_deg=a) for a in (-1.0, 1.0)]
    corners = [Variant(f, r, s, a) for f, r, s, a in
               itertools.product((0.8, 1.2), (-0.07, 0.07), (0.92, 1.08), (-1.0, 1.0))]
    return tuple(single + corners)


VARIANTS = _variants()


def perturbed(doc: Mapping[str, Any], variant: Variant) -> dict[str, Any]:
    """A copy of the scenario ``doc`` with ``variant`` applied to its parameters and flicks."""
    out = copy.deepcopy(dict(doc))
    params = dict(out.get("params") or {})
    base = Table.from_params(params)
    for key in FRICTIONS:
        params[key] = getattr(base, key) * variant.friction
    params["restitution_piece"] = min(1.0, max(0.0, base.restitution_piece + variant.restitution))
    out["params"] = params
    limit = make_referee(out["rules"], doc.get("params")).max_speed
    actions = []
    for action in out.get("actions", []):
        action = dict(action)
        if action.get("type") == "flick":
            speed = action.get("speed_mm_s")
            if isinstance(speed, (int, float)) and not isinstance(speed, bool) and 0 < speed <= limit:
                action["speed_mm_s"] = min(limit, speed * variant.speed)
            angle = action.get("angle_deg")
            if isinstance(angle, (int, float)) and not isinstance(angle, bool):
                action["angle_deg"] = angle + variant.aim_deg
        actions.append(action)
    out["actions"] = actions
    return out


def _without_millimetres(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_millimetres(v) for k, v in value.items() if k not in MILLIMETRE_KEYS}
    if isinstance(value, list):
        return [_without_millimetres(v) for v in value]
    return value


def outcome_expectations(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario's ``expect`` block without its millimetres (positions and ``at``)."""
    expect = dict(doc.get("expect") or {})
    expect.pop("rejected_reason_contains", None)
    return _without_millimetres(expect)


def failures(doc: Mapping[str, Any], variants: Iterable[Variant] = VARIANTS) -> Iterator[tuple[Variant, list[str]]]:
    """``(variant, problems)`` for each variant under which the outcome is not the expected one."""
    expectations = {**doc, "expect": outcome_expectations(doc)}
    for variant in variants:
        out = run(perturbed(doc, variant))
        out = {**out, "events": _without_millimetres(out["events"]), "state": _without_millimetres(out["state"])}
        found = problems(expectations, out)
        if found:
            yield variant, found


def scenario_files(paths: Iterable[Path] = FOLDERS) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(path.rglob("*.json"))
        elif path.is_file():
            files.append(path)
    return files


def main(argv: list[str]) -> int:
    files = scenario_files([Path(a) for a in argv] if argv else FOLDERS)
    bad = 0
    for path in files:
        doc = json.loads(path.read_text())
        if doc.get(EXEMPT_KEY) or "expect" not in doc:
            continue
        found = list(failures(doc))
        if found:
            bad += 1
            variant, why = found[0]
            print(f"FAIL {path.relative_to(path.parents[1])}: {len(found)}/{len(VARIANTS)} variants, "
                  f"e.g. {variant.name}: {'; '.join(why)[:400]}")
    print(f"{len(files)} files, {bad} not robust")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
