"""The table's sizes and predicates (contract §2)."""
import re

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


@pytest.mark.parametrize("name, value, words", [
    ("ball_mass_g", 1e300, "between 0.01 and 1000 g"),
    ("ball_diameter", 1e-300, "between 1 and 5000 mm"),
    ("restitution_net", 1.5, "between 0 and 1"),
    ("gravity_mm_s2", 5, "between 100 and 100000 mm/s^2"),
    ("keeper_friction", 3, "between 0 and 2"),
    ("keeper_size", [20, 1e6], "at most 5000"),
])
def test_a_value_out_of_its_range_is_named(name, value, words):
    with pytest.raises(ValueError, match=f"params.{name} must be .*{re.escape(words)}"):
        Table.from_params({name: value})


def test_areas_and_halves():
    assert T.touches_penalty_area((835 - 270 - 4, 0), 5, "+x")
    assert not T.touches_penalty_area((835 - 270 - 6, 0), 5, "+x")
    assert T.entirely_in_half((6, 0), 5, "+x") and not T.entirely_in_half((5, 0), 5, "+x")
    assert T.wholly_in_goal_area((800, 0), 5, "+x")
