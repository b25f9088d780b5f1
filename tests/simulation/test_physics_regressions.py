"""Positions from bot matches that once broke ``resolve_flick`` (an endless loop, a division by
zero, a ball pushed wholly beyond the goal line with no crossing reported). Each must run
through the scenario runner to rest, deterministically, within the time limit."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((Path(__file__).parent / "regressions").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_position_runs_to_rest(path):
    proc = subprocess.run([sys.executable, "-m", "simulation", "scenario", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rejected"] is None
    assert any(e["type"] == "touch" for e in out["events"])  # the flick was resolved


def test_ball_pushed_beyond_the_line_is_out():
    path = Path(__file__).parent / "regressions" / "ball_on_goal_line_pushed_beyond_is_reported_out.json"
    proc = subprocess.run([sys.executable, "-m", "simulation", "scenario", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    events = json.loads(proc.stdout)["events"]
    assert any(e["type"] == "restart" for e in events)
    assert json.loads(proc.stdout)["state"]["restart"] is not None


def test_at_least_the_known_cases_are_here():
    assert len(CASES) >= 4
