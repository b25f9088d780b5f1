"""The physics benchmark: ``python -m simulation.bench [--json] [--repeat N]`` (``make bench``).

A fixed battery of flicks, written down here, of the two kinds the contract §3 names:
isolated flicks (a button, the ball and at most one more piece, soft to fastest) and crowded
positions (the 22-piece opening, set pieces in the penalty area, a goal-mouth scramble).

Figures: ``flick_ms_median``/``flick_ms_p95`` (wall time to resolve a flick, frames included,
the best of ``--repeat`` runs), ``steps_per_flick_median``, ``realtime_factor`` (simulated
seconds per wall second over the battery), ``convergence_mm`` (the largest final-position
difference between the step and its half over the isolated flicks), ``contact_order_stable``
(halving the step keeps the order of first contacts on every crowded position) and
``overhead_ratio`` (the time to resolve the battery, the placing of the pieces on the table's
space included, divided by the time of a bare ``space.step`` loop over the same steps on the
same built spaces, measured side by side; the engine's loop, simulation/_engine.c, calls
Chipmunk's step directly, without pymunk's wrapper).
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time

import pymunk

from .physics import BALL, DEFAULT_STEPPING, FlickSimulation, Stepping, piece_key, resolve_flick
from .table import Table


def _opening() -> dict:
    """The 22 pieces lined up for a kick-off, home defending -x."""
    home = {"gk": (-815, 0), "1": (-700, -150), "2": (-700, 150), "3": (-620, -320), "4": (-620, 320),
            "5": (-450, 0), "6": (-400, -250), "7": (-400, 250), "8": (-200, -120), "9": (-200, 120),
            "10": (-40, 0)}
    away = {pid: (-x, -y) for pid, (x, y) in home.items()}
    away["10"] = (170, 0)
    return {"home": home, "away": away}


def _penalty_area_free_kick() -> dict:
    return {"home": {"9": (560, 0), "8": (520, 180), "7": (600, -200), "10": (705, 145)},
            "away": {"gk": (815, 0), "2": (650, -30), "3": (650, 30), "4": (650, 90), "5": (740, -120),
                     "6": (760, 150)}}


def _scramble() -> dict:
    return {"home": {"9": (735, -45), "10": (745, 75), "8": (680, 130)},
            "away": {"gk": (815, 10), "2": (790, -100), "3": (795, 125), "4": (700, 25)}}


def _isolated(pieces, ball, side, piece, angle, speed, name):
    return {"kind": "isolated", "name": name, "ball": ball, "pieces": pieces, "side": side,
            "piece": piece, "angle": angle, "speed": speed}


def _crowded(pieces, ball, side, piece, angle, speed, name):
    return {"kind": "crowded", "name": name, "ball": ball, "pieces": pieces, "side": side,
            "piece": piece, "angle": angle, "speed": speed}


def battery() -> list[dict]:
    """The fixed battery of flicks."""
    lone = {"home": {"7": (-300, -100)}, "away": {}}
    flicks = [
        _isolated(lone, (400, 300), "home", "7", 20, 200, "soft slide"),
        _isolated(lone, (400, 300), "home", "7", 20, 800, "medium slide"),
        _isolated(lone, (400, 300), "home", "7", 10, 1600, "firm slide"),
        _isolated(lone, (400, 300), "home", "7", 5, 2500, "fastest slide (to the rim)"),
        _isolated({"home": {"7": (-200, 0)}, "away": {}}, (-150, 0), "home", "7", 0, 600,
                  "button into ball, soft, head-on"),
        _isolated({"home": {"7": (-200, 0)}, "away": {}}, (-150, 12), "home", "7", 0, 1500,
                  "button into ball, off-centre"),
        _isolated({"home": {"7": (-200, 0)}, "away": {}}, (-150, -20), "home", "7", 0, 2500,
                  "button into ball, fastest, wide"),
        _isolated({"home": {"9": (560, 0)}, "away": {"gk": (800, 75)}}, (597.588, 13.681), "home", "9", 20,
                  2500, "ball into keeper, fastest"),
        _isolated({"home": {"9": (560, 60)}, "away": {"gk": (815, 0)}}, (600, 66), "home", "9", 0, 1800,
                  "ball into post"),
        _isolated({"home": {"9": (640, 0)}, "away": {}}, (680, 0), "home", "9", 0, 1200,
                  "ball into the net (goal)"),
        _isolated({"home": {"7": (0, 300)}, "away": {"4": (200, 300)}}, (600, -300), "home", "7", 0, 1500,
                  "button into button"),
        # the ball trapped between the keeper and the button that follows it: a rattle in a
        # closing gap, reported on its own (neither isolated by the contract's definition nor
        # a crowded position)
        {"kind": "squeeze", "name": "ball squeezed, button follows into keeper", "ball": (600, 0),
         "pieces": {"home": {"9": (560, 0)}, "away": {"gk": (800, 5)}}, "side": "home", "piece": "9",
         "angle": 0, "speed": 2500},
        _crowded(_opening(), (0, 0), "home", "10", 0, 900, "opening: kick-off"),
        _crowded(_opening(), (0, 0), "home", "10", 15, 2500, "opening: kick-off, fastest"),
        _crowded(_penalty_area_free_kick(), (590, 0), "home", "9", 0, 2200, "free kick at the wall"),
        _crowded(_penalty_area_free_kick(), (590, 0), "home", "9", 8, 1800, "free kick round the wall"),
        _crowded(_penalty_area_free_kick(), (590, 0), "home", "8", -60, 1400, "free kick, other button"),
        _crowded(_scramble(), (772, 10), "home", "9", 20, 1500, "goal-mouth scramble"),
        _crowded(_scramble(), (772, 10), "home", "10", -75, 2000, "goal-mouth scramble, across"),
    ]
    return flicks


def _resolve(f, table, stepping):
    return resolve_flick(table, f["ball"], f["pieces"], f["side"], f["piece"], f["angle"], f["speed"],
                         frames=True, stepping=stepping)


def _positions(result) -> dict:
    out = {BALL: result.ball}
    for side, group in result.pieces.items():
        for pid, p in group.items():
            out[piece_key(side, pid)] = p
    return out


def first_contact_order(result) -> list[tuple[str, str]]:
    """The pairs of bodies in the order they first touched."""
    seen: list[tuple[str, str]] = []
    for c in result.contacts:
        pair = tuple(sorted((c.a, c.b)))
        if pair not in seen:
            seen.append(pair)
    return seen


def _time_resolve(f, table, stepping, repeat) -> tuple[float, object]:
    best = math.inf
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = _resolve(f, table, stepping)
        best = min(best, time.perf_counter() - t0)
    return best, result


def _time_bare(f, table, stepping, sizes, repeat) -> float:
    best = math.inf
    for _ in range(repeat):
        sim = FlickSimulation(table, f["ball"], f["pieces"], stepping)
        sim.launch(piece_key(f["side"], f["piece"]), f["angle"], f["speed"])
        step = sim.space.step
        t0 = time.perf_counter()
        for dt in sizes:
            step(dt)
        best = min(best, time.perf_counter() - t0)
        sim.close()
    return best


def run(repeat: int = 5, stepping: Stepping = DEFAULT_STEPPING) -> tuple[dict, list[dict]]:
    table = Table()
    rows = []
    for f in battery():
        wall, result = _time_resolve(f, table, stepping, repeat)
        sim = FlickSimulation(table, f["ball"], f["pieces"], stepping)
        sim.launch(piece_key(f["side"], f["piece"]), f["angle"], f["speed"])
        sim.run(frames=True)
        bare = _time_bare(f, table, stepping, sim.step_sizes, repeat)
        half = _resolve(f, table, stepping.halved())
        pa, pb = _positions(result), _positions(half)
        moved = max(math.dist(pa[k], pb[k]) for k in pa)
        order_same = first_contact_order(result) == first_contact_order(half)
        rows.append({"name": f["name"], "kind": f["kind"], "ms": wall * 1e3, "bare_ms": bare * 1e3,
                     "steps": result.steps, "sim_s": result.duration_s, "contacts": len(result.contacts),
                     "half_mm": moved, "order_same": order_same, "capped": result.capped})
    times = sorted(r["ms"] for r in rows)
    p95 = times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]
    summary = {
        "flick_ms_median": round(statistics.median(times), 3),
        "flick_ms_p95": round(p95, 3),
        "flick_ms_max": round(times[-1], 3),
        "steps_per_flick_median": statistics.median(r["steps"] for r in rows),
        "realtime_factor": round(sum(r["sim_s"] for r in rows) / (sum(r["ms"] for r in rows) / 1e3), 1),
        "convergence_mm": round(max(r["half_mm"] for r in rows if r["kind"] == "isolated"), 4),
        "crowded_half_step_mm_max": round(max(r["half_mm"] for r in rows if r["kind"] == "crowded"), 3),
        "squeeze_half_step_mm": round(max(r["half_mm"] for r in rows if r["kind"] == "squeeze"), 3),
        "contact_order_stable": all(r["order_same"] for r in rows if r["kind"] == "crowded"),
        "overhead_ratio": round(sum(r["ms"] for r in rows) / sum(r["bare_ms"] for r in rows), 3),
        "overhead_ratio_median": round(statistics.median(r["ms"] / r["bare_ms"] for r in rows), 3),
        "flicks": len(rows),
        "base_step_s": stepping.base_step_s,
        "land_depth_mm": stepping.land_depth_mm,
        "pymunk": pymunk.version,
        "repeat": repeat,
    }
    return summary, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simulation.bench")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--repeat", type=int, default=5, help="runs per flick; the best counts")
    args = ap.parse_args(argv)
    summary, rows = run(args.repeat)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    print(f"{'flick':44} {'kind':8} {'ms':>7} {'bare':>7} {'steps':>6} {'sim s':>6} {'cont':>4} {'h/2 mm':>8} order")
    for r in rows:
        print(f"{r['name']:44} {r['kind']:8} {r['ms']:7.3f} {r['bare_ms']:7.3f} {r['steps']:6d} "
              f"{r['sim_s']:6.2f} {r['contacts']:4d} {r['half_mm']:8.4f} {'same' if r['order_same'] else 'DIFF'}")
    for k, v in summary.items():
        print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
