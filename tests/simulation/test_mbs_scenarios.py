"""The MBS scenario files, one per rule situation (tests/simulation/scenarios/mbs/, and the shared
examples when ../shared is there), run through the scenario runner and checked against their
``expect`` blocks exactly as ``check_scenarios.py`` does: partial events that must (not) occur,
a partial final state, whether an action is refused; every scenario runs twice, identically."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simulation.scenario import run
from simulation.state import canonical_json
from tests.simulation.expect import problems

ROOT = Path(__file__).resolve().parents[2]
OWN = ROOT / "tests" / "simulation" / "scenarios" / "mbs"
SHARED = ROOT.parent / "shared" / "scenarios" / "mbs"
FILES = sorted(OWN.glob("*.json")) + (sorted(SHARED.glob("*.json")) if SHARED.is_dir() else [])


def test_at_least_thirty_situations():
    assert len(list(OWN.glob("*.json"))) >= 30


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_mbs_scenario(path: Path):
    doc = json.loads(path.read_text())
    assert doc["rules"] == "mbs"
    assert "expect" in doc and doc["expect"], "a scenario says what it expects"
    first = run(doc)
    second = run(json.loads(path.read_text()))
    assert canonical_json(first) == canonical_json(second), "two runs gave different output"
    assert problems(doc, first) == []
    for event in first["events"]:
        assert str(event.get("rule", "")).startswith("MBS "), event


def test_every_heading_has_a_scenario():
    rules = set()
    for path in OWN.glob("*.json"):
        for p in json.loads(path.read_text())["expect"].get("events_include", []):
            if "rule" in p:
                rules.add(p["rule"])
    for heading in ("Turnos", "Pérdida de posesión", "Saque de banda y tiro de esquina", "Falta",
                    "Falta técnica", "Inversión", "Expulsión", "Descalificación",
                    "Disparo a la meta", "Gol inválido", "Gol contra", "Penal",
                    "Pelota del portero"):
        assert f"MBS {heading}" in rules, heading


def test_runner_command_line_on_one_file():
    path = OWN / "foul_button_hits_opponent_before_ball.json"
    proc = subprocess.run([sys.executable, "-m", "simulation", "scenario", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert problems(json.loads(path.read_text()), json.loads(proc.stdout)) == []
