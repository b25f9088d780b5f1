"""``referee.may_not_play(state)``: for the side to move, the buttons that may not be flicked in
the coming turn, each with the message of the refusal such a flick would meet; what the board
marks. Pure, and the same answer the referee gives to the flick itself."""
from __future__ import annotations

import pytest

from simulation.actions import Flick, Place, Ready, Tick
from simulation.rules import RuleViolation, make_referee
from simulation.rules.messages import CATALOGUES, render
from simulation.state import MatchState


def state_of(doc: dict) -> MatchState:
    return MatchState.from_json(doc)


def agrees(referee, state: MatchState) -> dict:
    """``may_not_play`` of ``state``, checked against the refusals of the flicks themselves."""
    before = state.to_json()
    answer = referee.may_not_play(state)
    assert state.to_json() == before  # pure
    side = state.to_move
    for pid in state.pieces[side]:
        if pid == "gk":
            assert pid not in answer
            continue
        problem = referee.piece_refusal(state, Flick(side=side, piece=pid, angle_deg=0.0, speed_mm_s=1.0))
        if pid in answer:
            assert problem is not None and problem.message == answer[pid]
            assert answer[pid]["key"] in CATALOGUES[referee.name]
            assert render(answer[pid]["key"], answer[pid]["params"], {side: "Rossi"})
        else:
            assert problem is None
    return answer


@pytest.mark.parametrize("rules", ["one_touch", "mbs"])
def test_every_button_may_play_in_open_play(rules):
    referee = make_referee(rules, {"frames": False})
    state = state_of({"ball": [0, 100], "pieces": {"home": {"7": [-100, 0], "8": [-300, 0], "gk": [-800, 0]},
                                                   "away": {"3": [300, 0]}}})
    assert agrees(referee, state) == {}


def test_one_touch_button_back_from_out_sits_out_but_may_take_a_set_piece():
    """Rulebook 8: a button back from out of the field sits out its side's next turn, but it
    may always take a free kick, throw-in or corner kick."""
    referee = make_referee("one_touch", {"frames": False})
    doc = {"ball": [0, 100], "pieces": {"home": {"7": [-100, 0], "8": [-300, 0]}, "away": {"3": [300, 0]}},
           "memo": {"locked": [["home", "8"]]}}
    answer = agrees(referee, state_of(doc))
    assert answer == {"8": {"key": "one_touch.refused.back_from_out",
                            "params": {"side": "home", "piece": "8", "rule": "rulebook 8"}}}
    doc.update(phase="throw_in", restart={"kind": "throw_in", "side": "home", "at": [0, 515]}, ball=[0, 515])
    assert agrees(referee, state_of(doc)) == {}


def test_one_touch_two_touch_free_kick_first_toucher_and_special_taker():
    """Rulebook 9.2: the button that took the first touch of a two-touch free kick may not take
    the second (the Special rule keeps it out afterwards too)."""
    referee = make_referee("one_touch", {"frames": False})
    state = state_of({"phase": "free_kick_two_touch", "restart": {"kind": "free_kick_two_touch", "side": "home",
                                                                   "at": [-300, 0]},
                      "ball": [-300, 0], "pieces": {"home": {"7": [-345, 0], "8": [-200, 200]},
                                                    "away": {"3": [300, 0]}}})
    state = referee.apply(state, Flick(side="home", piece="7", angle_deg=0, speed_mm_s=400, t=2)).state
    assert state.to_move == "home"
    answer = agrees(referee, state)
    assert set(answer) == {"7"}
    assert answer["7"]["key"] == "one_touch.refused.second_touch_same_button"


def test_one_touch_button_picked_up_takes_the_set_piece():
    """Rulebook 5: once a button is picked up for a throw-in, no other button may take it."""
    referee = make_referee("one_touch", {"frames": False})
    state = state_of({"phase": "throw_in", "to_move": "home", "restart": {"kind": "throw_in", "side": "home",
                                                                           "at": [0, 515]},
                      "ball": [0, 515], "pieces": {"home": {"7": [-300, 0], "8": [40, 470]},
                                                   "away": {"3": [300, -200]}}})
    assert agrees(referee, state) == {}
    state = referee.apply(state, Place(side="home", piece="7", at=(-50.0, 480.0), t=1)).state
    answer = agrees(referee, state)
    assert set(answer) == {"8"} and answer["8"]["params"]["picked"] == "7"


def test_one_touch_penalty_kick_only_the_taker():
    referee = make_referee("one_touch", {"frames": False})
    state = state_of({"ball": [0, 300], "pieces": {"home": {"7": [-650, 100], "gk": [-800, 0]},
                                                   "away": {"3": [-580, 100], "5": [0, -300], "gk": [800, 0]}}})
    for action in (Flick(side="home", piece="7", angle_deg=0, speed_mm_s=1500, t=3),
                   Place(side="away", piece="3", at=(-580.0, 0.0), t=4), Ready(side="away", t=5),
                   Ready(side="home", t=6)):
        state = referee.apply(state, action).state
    assert (state.phase, state.to_move) == ("penalty_kick", "away")
    answer = agrees(referee, state)
    assert set(answer) == {"5"} and answer["5"]["key"] == "one_touch.refused.penalty_taker_only"
    with pytest.raises(RuleViolation) as info:
        referee.apply(state, Flick(side="away", piece="5", angle_deg=0, speed_mm_s=100, t=7))
    assert info.value.message == answer["5"]


def test_mbs_set_piece_taker_and_an_expelled_button():
    """MBS Saque de banda: the taker may not play the ball again before a team-mate touched it;
    a button sent off is simply absent."""
    referee = make_referee("mbs", {"frames": False})
    state = state_of({"phase": "throw_in", "to_move": "home", "restart": {"kind": "throw_in", "side": "home",
                                                                           "at": [0, 515]},
                      "ball": [0, 515], "pieces": {"home": {"7": [-40, 518], "8": [-300, 0]},
                                                   "away": {"3": [300, -200]}},
                      "expelled": {"home": ["9"], "away": []}})
    state = referee.apply(state, Flick(side="home", piece="7", angle_deg=0, speed_mm_s=400, t=2)).state
    assert state.to_move == "home"
    answer = agrees(referee, state)
    assert set(answer) == {"7"} and answer["7"]["key"] == "mbs.refused.set_piece_taker_again"
    assert "9" not in answer


def test_no_clock_is_read():
    """The answer depends on the state alone: the same at any time, before or after a tick."""
    referee = make_referee("one_touch", {"frames": False})
    state = state_of({"ball": [0, 100], "pieces": {"home": {"7": [-100, 0], "8": [-300, 0]},
                                                   "away": {"3": [300, 0]}},
                      "memo": {"special": {"side": "home", "piece": "7"}}})
    first = referee.may_not_play(state)
    later = referee.apply(state, Tick(t=5)).state
    assert referee.may_not_play(later) == first == referee.may_not_play(state)
