"""No scenario hangs on a hair: every scenario file (the project's and ``../shared/scenarios/``)
keeps the outcome its ``expect`` block names (events and phase, not millimetres) on a table a
little different: sliding friction x0.8 and x1.2, piece-to-piece restitution -0.07 and +0.07,
flick speed x0.92 and x1.08, aim -1 and +1 degree, each alone and all sixteen corners
(``tests.simulation.robustness``). A scenario that tests a limit on purpose says why in its key
``tests_a_limit`` and is exempt, but only when it needs to be."""
from __future__ import annotations

import json

import pytest

from simulation.rules import make_referee
from simulation.scenario import run
from simulation.table import Table
from tests.simulation.expect import problems
from tests.simulation.robustness import (
    EXEMPT_KEY,
    FOLDERS,
    VARIANTS,
    Variant,
    failures,
    outcome_expectations,
    perturbed,
    scenario_files,
)

FILES = [p for p in scenario_files(FOLDERS) if "expect" in json.loads(p.read_text())]
CHECKED = [p for p in FILES if not json.loads(p.read_text()).get(EXEMPT_KEY)]
EXEMPT = [p for p in FILES if json.loads(p.read_text()).get(EXEMPT_KEY)]


def test_the_scenarios_are_found():
    assert len(CHECKED) >= 200
    assert any("shared" in p.parts for p in CHECKED)


@pytest.mark.slow
@pytest.mark.parametrize("path", CHECKED, ids=[f"{p.parent.name}/{p.stem}" for p in CHECKED])
def test_scenario_outcome_survives_a_slightly_different_table(path):
    doc = json.loads(path.read_text())
    found = list(failures(doc))
    assert not found, "; ".join(f"{v.name}: {' / '.join(why)[:300]}" for v, why in found[:3])


@pytest.mark.slow
def test_an_exempt_scenario_says_why_and_needs_it():
    for path in EXEMPT:
        doc = json.loads(path.read_text())
        assert isinstance(doc[EXEMPT_KEY], str) and len(doc[EXEMPT_KEY]) > 10, path.name
        assert list(failures(doc)), f"{path.name} is robust after all: drop its exemption"


def test_a_variant_changes_the_table_and_the_hands():
    doc = {"rules": "one_touch", "params": {"ball_friction": 0.3},
           "state": {"ball": [0, 0], "pieces": {"home": {"7": [-100, 0]}, "away": {}}},
           "actions": [{"type": "flick", "side": "home", "piece": "7", "angle_deg": 10, "speed_mm_s": 2400},
                       {"type": "flick", "side": "home", "piece": "7", "angle_deg": 10, "speed_mm_s": 3000},
                       {"type": "tick", "t": 5}]}
    out = perturbed(doc, Variant(friction=1.2, restitution=0.07, speed=1.08, aim_deg=-1.0))
    base = Table()
    assert out["params"]["ball_friction"] == pytest.approx(0.36)
    assert out["params"]["button_friction"] == pytest.approx(base.button_friction * 1.2)
    assert out["params"]["restitution_piece"] == pytest.approx(base.restitution_piece + 0.07)
    limit = make_referee("one_touch").max_speed
    assert out["actions"][0]["speed_mm_s"] == limit  # never past the rule set's limit
    assert out["actions"][1]["speed_mm_s"] == 3000  # a flick over the limit stays refused
    assert out["actions"][0]["angle_deg"] == 9.0
    assert out["actions"][2] == {"type": "tick", "t": 5}
    assert doc["actions"][0]["speed_mm_s"] == 2400  # the scenario itself is untouched
    assert len(VARIANTS) == 24


def test_the_expectations_leave_out_millimetres():
    doc = {"expect": {"events_include": [{"type": "foul", "at": [1, 2]}], "rejected": False,
                      "rejected_reason_contains": ["x"],
                      "state": {"phase": "free_kick", "ball": [0, 0], "pieces": {"home": {"7": [1, 1]}},
                                "restart": {"kind": "free_kick", "side": "away", "at": [3, 4]}}}}
    assert outcome_expectations(doc) == {
        "events_include": [{"type": "foul"}], "rejected": False,
        "state": {"phase": "free_kick", "restart": {"kind": "free_kick", "side": "away"}}}


def test_an_outcome_on_a_hair_is_caught():
    """A button flicked so that it just reaches the ball: slower or rougher, it stops short."""
    doc = {"rules": "one_touch", "state": {"ball": [0, 0], "pieces": {"home": {"7": [-130, 0]}, "away": {}}},
           "actions": [{"type": "flick", "side": "home", "piece": "7", "angle_deg": 0, "speed_mm_s": 550, "t": 1}],
           "expect": {"events_include": [{"type": "touch", "side": "home", "piece": "7"}]}}
    assert problems(doc, run(doc)) == []
    assert list(failures(doc))
