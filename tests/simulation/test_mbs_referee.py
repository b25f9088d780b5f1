"""The MBS referee beyond the scenario files: its parameters, purity, the shoot-out's clock and
the friendly ``restart_after_goal = goal_kick`` custom."""
from __future__ import annotations

import pytest

from simulation.actions import DeclareShot, Flick, Place, Ready, Tick
from simulation.rules import RuleViolation, make_referee
from simulation.rules.mbs import MbsReferee
from simulation.state import MatchState


def test_registry_gives_the_mbs_referee():
    referee = make_referee("mbs")
    assert isinstance(referee, MbsReferee)
    assert referee.turn_seconds == 30.0 and referee.shot_wait_seconds == 30.0
    assert referee.violent_speed == 1500.0 and referee.unsporting_distance == 300.0


@pytest.mark.parametrize("key", ["violent_foul_speed_mm_s", "unsporting_foul_distance_mm", "turn_seconds"])
@pytest.mark.parametrize("bad", [0, -5, "fast", True])
def test_bad_parameter_is_named(key, bad):
    with pytest.raises(ValueError, match=key):
        make_referee("mbs", {key: bad})


def test_apply_never_mutates_its_input():
    referee = make_referee("mbs", {"frames": False})
    state = referee.initial_state()
    before = state.to_json()
    outcome = referee.apply(state, Flick(side="home", piece="1", angle_deg=-40.0, speed_mm_s=600.0, t=3.0))
    assert state.to_json() == before
    assert outcome.state.to_json() != before


def test_opening_kick_off_is_home_to_move_with_all_pieces():
    state = make_referee("mbs").initial_state()
    assert (state.phase, state.to_move, state.restart.kind) == ("kick_off", "home", "kick_off")
    assert all(len(state.pieces[s]) == 11 for s in ("home", "away"))


def test_refusal_names_the_mbs_heading():
    referee = make_referee("mbs")
    state = MatchState.from_json({"ball": [-300, 0], "pieces": {"home": {"7": [-350, 0]}, "away": {}}})
    with pytest.raises(RuleViolation) as info:
        referee.apply(state, DeclareShot(side="home"))
    assert info.value.rule == "MBS Disparo a la meta"


def test_shootout_kick_not_taken_in_time_counts_as_a_miss():
    referee = make_referee("mbs", {"knockout": True, "frames": False})
    state = MatchState.from_json({
        "period": "extra_time_second", "home_attacks": "-x", "clock_s": 3599, "score": {"home": 0, "away": 0},
        "ball": [0, 300], "pieces": {"home": {"7": [-200, 200], "gk": [780, 0]},
                                     "away": {"3": [200, 200], "gk": [-780, 0]}},
    })
    state = referee.apply(state, Tick(t=3600.0)).state
    assert state.period == "shootout" and state.phase == "penalty_kick"
    kicker = state.to_move
    # the taker's and the keeper's stages end with ready, then the kick is let run out
    state = referee.apply(state, Ready(side=kicker, t=3601.0)).state
    state = referee.apply(state, Ready(side=state.to_move, t=3602.0)).state
    assert state.to_move == kicker
    outcome = referee.apply(state, Tick(t=3640.0))
    types = [e.type for e in outcome.events]
    assert "turn_timeout" in types and "shot_missed" in types
    kicks = outcome.state.memo["shootout"]["kicks"]
    assert list(kicks[kicker]) == [False]
    assert outcome.state.score["home"] == outcome.state.score["away"] == 0


def test_goal_kick_custom_after_a_goal_runs_the_arrangement():
    referee = make_referee("mbs", {"restart_after_goal": "goal_kick", "frames": False})
    state = MatchState.from_json({
        "ball": [-680, 0], "pieces": {"home": {"7": [-640, 0]}, "away": {"3": [0, 300]}},
    })
    outcome = referee.apply(state, Flick(side="home", piece="7", angle_deg=180.0, speed_mm_s=1000.0, t=3.0))
    state = outcome.state
    assert state.score["away"] == 1
    assert state.phase == "goal_kick" and state.restart.side == "home"
    # rulebook 5: each side's offensive stage ends with its button(s) in its offensive half
    wanted = {"home": ("7", (300.0, 0.0)), "away": ("3", (-300.0, 300.0))}
    for stage in range(4):  # the four arranging stages end with ready
        side = state.to_move
        if stage < 2:
            piece, at = wanted[side]
            state = referee.apply(state, Place(side=side, piece=piece, at=at, t=state.clock_s + 0.5)).state
        state = referee.apply(state, Ready(side=side, t=state.clock_s + 1)).state
    assert state.to_move == "home" and "placing" not in state.memo
