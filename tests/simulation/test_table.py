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


@pytest.mark.parametrize("length, width", [(1000, 1000), (900, 1000)])
def test_the_touch_line_is_longer_than_the_goal_line(length, width):
    """Rulebook 1a: "The playing area must be rectangular. The length of the touchline must be
    greater than the length of the goal line." The field is a rectangle by construction."""
    with pytest.raises(ValueError, match="field_length must be greater than params.field_width"):
        Table.from_params({"field_length": length, "field_width": width, "table_length": 1850,
                           "table_width": 1850})
    assert Table.from_params({"field_length": 1001, "field_width": 1000, "table_width": 1100}).field.x1 == 500.5


def test_areas_and_halves():
    assert T.touches_penalty_area((835 - 270 - 4, 0), 5, "+x")
    assert not T.touches_penalty_area((835 - 270 - 6, 0), 5, "+x")
    assert T.entirely_in_half((6, 0), 5, "+x") and not T.entirely_in_half((5, 0), 5, "+x")
    assert T.wholly_in_goal_area((800, 0), 5, "+x")
