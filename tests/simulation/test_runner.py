"""The scenario runner, ``python -m simulation scenario FILE.json`` (contract §4)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT.parent / "shared" / "scenarios").rglob("*.json"))


def run(path):
    return subprocess.run([sys.executable, "-m", "simulation", "scenario", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def write(tmp_path, doc, name="s.json"):
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


BASE = {
    "rules": "one_touch",
    "state": {"ball": [-160, 0], "pieces": {"home": {"7": [-200, 0]}, "away": {"gk": [800, 0]}},
              "clock_s": 10},
    "actions": [{"type": "flick", "side": "home", "piece": "7", "angle_deg": 0,
                 "speed_mm_s": 1500, "t": 4}],
}


@pytest.mark.skipif(not SCENARIOS, reason="no shared scenarios")
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shared_scenario_runs(path):
    proc = run(path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) >= {"state", "events", "rejected"}


def test_byte_identical_across_processes(tmp_path):
    doc = json.loads(json.dumps(BASE))
    doc["state"]["pieces"]["away"].update({"3": [-100, 30], "4": [0, -20]})
    doc["actions"][0]["speed_mm_s"] = 2500
    path = write(tmp_path, doc)
    first, second = run(path), run(path)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


def test_a_flick_moves_the_clock_and_the_turn(tmp_path):
    out = json.loads(run(write(tmp_path, BASE)).stdout)
    assert out["rejected"] is None
    assert out["state"]["clock_s"] == 14 and out["state"]["to_move"] == "away"
    assert {"type": "touch", "side": "home", "piece": "7"}.items() <= out["events"][0].items()


def test_a_refused_action_is_rejected_with_exit_0(tmp_path):
    doc = json.loads(json.dumps(BASE))
    doc["actions"][0]["speed_mm_s"] = 3000
    doc["actions"].append({"type": "tick", "t": 9})
    proc = run(write(tmp_path, doc))
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert out["rejected"]["index"] == 0 and out["state"]["clock_s"] == 10
    assert out["state"]["ball"] == [-160.0, 0.0]


def _mutate(change):
    doc = json.loads(json.dumps(BASE))
    change(doc)
    return doc


MALFORMED = [
    ("not json {", "(file)"),
    ('{"rules": "one_touch", "state": {"ball": [NaN, 0], "pieces": {}}, "actions": []}', "(file)"),
    (_mutate(lambda d: d.pop("rules")), "rules"),
    (_mutate(lambda d: d.update(rules="chess")), "rules"),
    (_mutate(lambda d: d["state"].pop("ball")), "state.ball"),
    (_mutate(lambda d: d["state"].update(ball=[0, "x"])), "state.ball[1]"),
    (_mutate(lambda d: d["actions"][0].update(speed_mm_s="fast")), "actions[0].speed_mm_s"),
    (_mutate(lambda d: d["actions"][0].pop("angle_deg")), "actions[0].angle_deg"),
    (_mutate(lambda d: d.update(actions={})), "actions"),
    (_mutate(lambda d: d.update(params={"button_diameter": 90})), "params.button_diameter"),
    (_mutate(lambda d: d.update(params={"turn_seconds": "abc"})), "params.turn_seconds"),
    (_mutate(lambda d: d.update(params={"max_flick_speed_mm_s": 1e308})), "params.max_flick_speed_mm_s"),
    (_mutate(lambda d: d["actions"][0].update(speed_mm_s=10**400)), "actions[0].speed_mm_s"),
    (_mutate(lambda d: d["state"].update(ball=[10**400, 0])), "state.ball[0]"),
    (_mutate(lambda d: d["state"].update(phase="bogus")), "state.phase"),
    (_mutate(lambda d: d["state"]["pieces"]["home"].update({"7": [99999, 0]})), "state.pieces.home.7"),
    (_mutate(lambda d: d["state"].update(ball=[0, 99999])), "state.ball"),
    (_mutate(lambda d: d["state"]["pieces"]["home"].update({"7": [-165, 0]})), "state.pieces.home.7"),
    (_mutate(lambda d: d["state"]["pieces"]["away"].update({"3": [790, 0]})), "state.pieces.away."),
    ('{"rules": "mbs", "state": ' + "[" * 100000 + "]" * 100000 + "}", "(file)"),
]


def test_a_file_that_is_not_utf8_exits_2(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"rules": "mbs", "name": "Ponte Preta é", "state": {}, "actions": []}'.encode("latin-1"))
    proc = run(path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "(file)" in proc.stderr


@pytest.mark.parametrize("doc, field", MALFORMED)
def test_malformed_file_exits_2_naming_the_field(tmp_path, doc, field):
    proc = run(write(tmp_path, doc))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0]
    assert proc.stdout == ""


def _overlapping_fixed():
    from simulation.table import Table

    t = Table()
    post = list(t.post_centres("+x")[1])
    back = t.net_boxes("+x")[0]
    side = t.net_boxes("-x")[1]
    return [
        # two keepers on one another
        (_mutate(lambda d: d["state"]["pieces"]["home"].update({"gk": [796, 0]})), "state.pieces.away.gk",
         "overlaps pieces.home.gk"),
        # a keeper listed before the button it overlaps
        (_mutate(lambda d: d["state"]["pieces"].update(home={"gk": [-800, 0], "7": [-790, 0]})),
         "state.pieces.home.gk", "overlaps pieces.home.7"),
        (_mutate(lambda d: d["state"]["pieces"]["home"].update({"7": [post[0] - 5, post[1]]})),
         "state.pieces.home.7", "overlaps a post"),
        (_mutate(lambda d: d["state"].update(ball=[(back.x0 + back.x1) / 2, 0])), "state.ball", "overlaps a net"),
        (_mutate(lambda d: d["state"]["pieces"]["away"].update(gk=[side.x0 + 20, side.y1])),
         "state.pieces.away.gk", "overlaps a net"),
    ]


@pytest.mark.parametrize("doc, field, problem", _overlapping_fixed())
def test_pieces_on_one_another_or_on_the_goal_exit_2(tmp_path, doc, field, problem):
    proc = run(write(tmp_path, doc))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"malformed scenario: {field}: {problem}"]
