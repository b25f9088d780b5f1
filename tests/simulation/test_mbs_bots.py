"""The MBS computer player and a golden bot-against-bot match.

Figures (issue 6): in a 2 x 25 min match at 5 s of clock per action the bots play to full time
without an error, with at least 200 flicks and a declared shot by each side; ``MbsBot`` beats
``PassiveBot`` in at least 8 of 10 matches. The golden replay: the recorded actions of the
match of seed ``SEED`` folded through the referee give the recorded final-state hash, and the
bots, given that seed, play exactly those actions again.

Regenerate the golden file after a deliberate change of the physics, the referee or the bot:
``.venv/bin/python -m tests.simulation.test_mbs_bots``.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from simulation.actions import DeclareShot, Flick, parse_action
from simulation.bots.base import PassiveBot, play_match, replay
from simulation.bots.mbs import MbsBot
from simulation.rules import make_referee

SEED = 2026
SECONDS_PER_ACTION = 5.0
GOLDEN = Path(__file__).resolve().parent / "golden" / "mbs_bot_match.json"


def referee():
    return make_referee("mbs", {"frames": False})


def play(seed: int = SEED, home=None, away=None):
    ref = referee()
    return play_match(ref, home or MbsBot(), away or MbsBot(), SECONDS_PER_ACTION, seed)


@pytest.fixture(scope="module")
def bot_match():
    return play()


def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def test_golden_replay_reproduces_its_hash():
    data = golden()
    actions = [parse_action(a, f"actions[{i}]") for i, a in enumerate(data["actions"])]
    final = replay(referee(), actions)
    assert final.phase == "full_time"
    assert final.state_hash() == data["final_state_hash"]
    assert final.to_json()["score"] == data["score"]


@pytest.mark.slow
def test_bots_replay_the_golden_match(bot_match):
    final, log = bot_match
    data = golden()
    assert data["seed"] == SEED
    assert [a.to_json() for a in log] == data["actions"]
    assert final.state_hash() == data["final_state_hash"]


@pytest.mark.slow
def test_bot_match_figures(bot_match):
    final, log = bot_match
    assert final.phase == "full_time"
    assert final.period == "second_half"
    assert final.clock_s >= 3000.0
    flicks = sum(isinstance(a, Flick) for a in log)
    shots = Counter(a.side for a in log if isinstance(a, DeclareShot))
    assert flicks >= 200
    assert shots["home"] >= 1 and shots["away"] >= 1, shots


@pytest.mark.slow
def test_mbs_bot_beats_the_passive_player():
    wins = 0
    for seed in range(10):
        bot_home = seed % 2 == 0
        home, away = (MbsBot(), PassiveBot()) if bot_home else (PassiveBot(), MbsBot())
        final, _ = play(seed, home, away)
        assert final.phase == "full_time"
        mine, theirs = ("home", "away") if bot_home else ("away", "home")
        wins += final.score[mine] > final.score[theirs]
    assert wins >= 8, wins


@pytest.mark.slow
def test_level_knockout_bot_match_goes_through_extra_time_and_replays():
    ref = make_referee("mbs", {"frames": False, "knockout": True})
    final, log = play_match(ref, MbsBot(), MbsBot(), SECONDS_PER_ACTION, 0)
    assert final.phase == "full_time"
    if final.period == "shootout":
        kicks = final.memo["shootout"]["kicks"]
        assert sum(kicks["home"]) != sum(kicks["away"])
    else:
        assert final.score["home"] != final.score["away"]
    assert replay(ref, log).state_hash() == final.state_hash()


def write_golden() -> None:
    final, log = play()
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps({
        "seed": SEED, "seconds_per_action": SECONDS_PER_ACTION, "rules": "mbs",
        "final_state_hash": final.state_hash(), "score": final.to_json()["score"],
        "actions": [a.to_json() for a in log],
    }, indent=0, ensure_ascii=False) + "\n")
    print(GOLDEN, final.state_hash(), dict(final.score), len(log), "actions")


if __name__ == "__main__":
    write_golden()
