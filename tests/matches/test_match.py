"""The match's status table and its frozen rule set."""
import pytest

from matches.models import InvalidTransition, Match
from tests.matches.conftest import T0, make_league, setup_match

pytestmark = pytest.mark.django_db


def test_match_status_transitions_refuse_the_rest():
    match = Match.objects.create(rule_set="mbs")
    with pytest.raises(InvalidTransition):
        match.set_status(Match.Status.ADJUDICATED)
    match.set_status(Match.Status.LIVE)
    match.set_status(Match.Status.FINISHED)
    match.set_status(Match.Status.ADJUDICATED)
    with pytest.raises(InvalidTransition):
        match.set_status(Match.Status.LIVE)
    match.set_status(Match.Status.CANCELLED)  # an organiser annuls it, to be replayed
    with pytest.raises(InvalidTransition):
        match.set_status(Match.Status.FINISHED)
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED and match.status_changed_at is not None


def test_rule_set_and_params_are_frozen_at_creation():
    competition = make_league(2, rule_set="mbs", rule_params={"turn_seconds": 30})
    match = setup_match(competition.fixtures.get(), T0)
    competition.rule_set, competition.rule_params = "one_touch", {"turn_seconds": 10}
    competition.save()
    match.refresh_from_db()
    assert match.rule_set == "mbs" and match.rule_params["turn_seconds"] == 30
