"""The state's value type: JSON in and out, a stable hash, fields named when malformed."""
import pytest

from simulation.errors import MalformedInput
from simulation.state import MatchState

DOC = {"ball": [200, 0], "pieces": {"home": {"7": [-100, 0], "gk": [-800, 0]},
                                    "away": {"3": [-30, 0]}}, "clock_s": 4}


def test_round_trip_and_hash():
    state = MatchState.from_json(DOC)
    again = MatchState.from_json(state.to_json())
    assert again == state
    assert again.state_hash() == state.state_hash()
    assert state.replace(ball=(1, 0)).state_hash() != state.state_hash()


def test_defaults():
    s = MatchState.from_json(DOC).to_json()
    assert s["phase"] == "open_play" and s["to_move"] == "home" and s["restart"] is None


@pytest.mark.parametrize("doc, field", [
    ({"pieces": {}}, "state.ball"),
    ({"ball": [0, "x"], "pieces": {}}, "state.ball[1]"),
    ({"ball": [0, 0], "pieces": {"home": {"11": [0, 0]}}}, "state.pieces.home.11"),
    ({"ball": [0, 0], "pieces": {}, "phase": "extra"}, "state.phase"),
])
def test_malformed_names_the_field(doc, field):
    with pytest.raises(MalformedInput) as info:
        MatchState.from_json(doc)
    assert info.value.field == field
