"""Errors of the simulation core.

Two tiers (STYLE.md §10): ``MalformedInput`` is input that is not what the contract describes
(a missing field, a string for a number, NaN): the runner exits 2 and the API answers 400.
``RuleViolation`` (in ``simulation.rules``) is a well-formed action that the rules refuse.
"""


class MalformedInput(ValueError):
    """Input that does not follow the contract. ``field`` names the offending field
    (``"state.ball"``, ``"actions[2].speed_mm_s"``)."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
