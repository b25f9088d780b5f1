"""The physics of a flick (contract §3)."""
from simulation.physics import resolve_flick
from simulation.table import Table

TABLE = Table()


def test_button_into_ball_touches_it():
    r = resolve_flick(TABLE, (-160, 0), {"home": {"7": (-200, 0)}, "away": {}}, "home", "7", 0, 500)
    assert r.ball_first_touch == "home:7"
    assert r.ball[0] > -160
