"""The table's sizes and predicates (contract §2)."""
import pytest

from simulation.table import Table

T = Table()


def test_defaults_of_the_contract():
    assert (T.half_length, T.half_width) == (835, 520)
    assert T.goal_width == 125 and T.goal_depth == 40
    assert T.post_centres("+x") == ((838.0, -65.5), (838.0, 65.5))


@pytest.mark.parametrize("centre, line", [
    ((841, 0), "goal_line+x"), ((839, 0), None), ((-841, 0), "goal_line-x"),
    ((0, 526), "touch_line+y"), ((0, -526), "touch_line-y"), ((0, 524), None),
])
def test_wholly_beyond_a_line(centre, line):
    assert T.line_wholly_beyond(centre, 5) == line


def test_a_bad_parameter_is_named():
    with pytest.raises(ValueError, match="button_diameter"):
        Table.from_params({"button_diameter": 80})
    with pytest.raises(ValueError, match="contact_friction"):
        Table.from_params({"contact_friction": "x"})
    assert Table.from_params({"restitution_net": 0}).restitution_net == 0


def test_areas_and_halves():
    assert T.touches_penalty_area((835 - 270 - 4, 0), 5, "+x")
    assert not T.touches_penalty_area((835 - 270 - 6, 0), 5, "+x")
    assert T.entirely_in_half((6, 0), 5, "+x") and not T.entirely_in_half((5, 0), 5, "+x")
    assert T.wholly_in_goal_area((800, 0), 5, "+x")
