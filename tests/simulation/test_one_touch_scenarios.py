"""The one-touch referee: scenario files (one per rule situation), random legal play, a golden
bot-against-bot replay and the computer player's figures (issue 5)."""
from __future__ import annotations

import itertools
import json
import pathlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulation.actions import Flick, Tick, parse_action
from simulation.bots import OneTouchBot, PassiveBot, play_match, replay
from simulation.rules import RuleViolation, make_referee
from simulation.scenario import run
from tests.simulation.expect import problems

HERE = pathlib.Path(__file__).parent
SCENARIOS = sorted((HERE / "scenarios" / "one_touch").glob("*.json"))
SHARED = pathlib.Path("/work/shared/scenarios/one_touch")
if SHARED.is_dir():
    SCENARIOS += sorted(SHARED.glob("*.json"))
GOLDEN_SEED = 7
GOLDEN_HASH = "c005609f36e2c25a8250f9693bca47733827c78b0c81dc3020240079c5d12175"


def test_at_least_forty_scenarios():
    assert len(list((HERE / "scenarios" / "one_touch").glob("*.json"))) >= 40


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_one_touch_scenario(path):
    doc = json.loads(path.read_text())
    out = run(doc)
    assert "expect" in doc
    assert problems(doc, out) == []
    assert run(doc) == out  # deterministic


def test_ball_is_a_piece_id_for_place_only():
    """§5.1: ``place`` accepts the piece id "ball" (the goal kick's ball); no other action does,
    and the MBS referee refuses it."""
    from simulation.errors import MalformedInput

    place = parse_action({"type": "place", "side": "home", "piece": "ball", "at": [-600, 0]})
    assert (place.piece, place.at) == ("ball", (-600.0, 0.0))
    with pytest.raises(MalformedInput) as info:
        parse_action({"type": "flick", "side": "home", "piece": "ball", "angle_deg": 0, "speed_mm_s": 1})
    assert info.value.args and "piece" in str(info.value)
    mbs = make_referee("mbs", {})
    state = mbs.initial_state()
    with pytest.raises(RuleViolation):
        mbs.apply(state, place)


@pytest.mark.parametrize("kicker", ["home", "away"])
@pytest.mark.parametrize("home_attacks", ["+x", "-x"])
def test_default_kick_off_formation_is_legal(kicker, home_attacks):
    """Rulebook §7: the referee's own kick-off formation passes its formation check, and both
    sides' ``ready`` lead to the kick-off."""
    referee = make_referee("one_touch", {})
    state = referee.initial_state(kicker, home_attacks)
    for side in ("home", "away"):
        assert referee.kick_off_formation_refusal(state, side) is None
    other = "away" if kicker == "home" else "home"
    state = referee.apply(state, parse_action({"type": "ready", "side": kicker})).state
    assert state.to_move == other
    state = referee.apply(state, parse_action({"type": "ready", "side": other})).state
    assert (state.to_move, state.phase, state.memo.get("placing")) == (kicker, "kick_off", None)


def test_every_event_names_its_rule_in_a_bot_match():
    referee = make_referee("one_touch", {"frames": False, "half_minutes": 3})
    state, log = play_match(referee, OneTouchBot(), OneTouchBot(), seed=3)
    s = referee.initial_state()
    for action in log:
        outcome = referee.apply(s, action)
        for e in outcome.events:
            assert e.rule and e.rule.startswith("rulebook"), e
        s = outcome.state
    assert s.phase == "full_time"


# ---------------------------------------------------------------- random legal play
def _overlaps(referee, state):
    items = [(s, pid, p) for s in ("home", "away") for pid, p in state.pieces[s].items()]
    for (s1, a, p), (s2, b, q) in itertools.combinations(items, 2):
        if not referee._clear(p, a, q, b, -1.0):
            return (s1, a, s2, b)
    return None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(5, 40))
def test_random_legal_play_keeps_the_invariants(seed, steps):
    referee = make_referee("one_touch", {"frames": False, "half_minutes": 2})
    rng = random.Random(seed)
    state = referee.initial_state()
    bots = [OneTouchBot(), PassiveBot()]
    for _ in range(steps):
        if state.phase == "full_time":
            break
        t = state.clock_s + rng.choice([0.5, 3, 10, 31])
        side = state.to_move
        pieces = [p for p in state.pieces[side] if p != "gk"]
        if rng.random() < 0.5 and pieces:
            action = Flick(side=side, piece=rng.choice(pieces), angle_deg=rng.uniform(-180, 180),
                           speed_mm_s=rng.uniform(1, 2500), t=t)
        elif rng.random() < 0.1:
            action = Tick(t=t)
        else:
            action = rng.choice(bots).choose(referee, state, rng).at_time(t)
        try:
            outcome = referee.apply(state, action)
        except RuleViolation:
            continue
        new = outcome.state
        assert new.to_move in ("home", "away")
        assert _overlaps(referee, new) is None
        for s in ("home", "away"):
            for pid, p in new.pieces[s].items():
                assert referee.table.on_surface(p, referee.table.radius_of(pid) * 0.5), (s, pid, p)
        goals = [e for e in outcome.events if e.type == "goal" and not e.extra.get("shootout")]
        if dict(new.score) != dict(state.score):
            assert goals
        state = new


# ---------------------------------------------------------------- golden replay and figures
@pytest.mark.slow
def test_golden_bot_match_replays_to_its_hash():
    """Two 25-minute halves bot against bot at 5 s of match time per action: the figures of
    issue 5 (at least 200 flicks, a declared shot by each side) and the replay's hash."""
    referee = make_referee("one_touch", {"frames": False})
    assert referee.half_s == 25 * 60
    final, log = play_match(referee, OneTouchBot(), OneTouchBot(), seconds_per_action=5, seed=GOLDEN_SEED)
    assert final.phase == "full_time"
    assert final.state_hash() == GOLDEN_HASH
    assert replay(referee, log).state_hash() == GOLDEN_HASH
    flicks = [a for a in log if a.type == "flick"]
    assert len(flicks) >= 200
    s, declared = referee.initial_state(), set()
    for action in log:
        outcome = referee.apply(s, action)
        declared |= {e.side for e in outcome.events if e.type == "shot_declared"}
        s = outcome.state
    for side in ("home", "away"):
        assert any(a.type == "declare_shot" and a.side == side for a in log)
        assert side in declared


@pytest.mark.slow
def test_bot_beats_passive_player_in_eight_of_ten():
    referee = make_referee("one_touch", {"frames": False})
    wins, scores = 0, []
    for seed in range(10):
        final, _ = play_match(referee, OneTouchBot(), PassiveBot(), seconds_per_action=5, seed=seed)
        assert final.phase == "full_time"
        scores.append((seed, final.score["home"], final.score["away"]))
        wins += final.score["home"] > final.score["away"]
    assert wins >= 8, scores
