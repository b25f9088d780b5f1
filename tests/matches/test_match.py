"""The match's status table and its frozen rule set."""
import pytest

from leagues.models import InvalidTransition
from leagues.services.fixtures import fixtures_generate
from matches.models import Match
from matches.services.results import match_for_fixture
from tests.leagues.factories import competition_with_entrants

pytestmark = pytest.mark.django_db


def test_match_status_transitions_refuse_the_rest():
    match = Match.objects.create(rule_set="mbs")
    with pytest.raises(InvalidTransition):
        match.set_status(Match.Status.ADJUDICATED)
    match.set_status(Match.Status.IN_PROGRESS)
    match.set_status(Match.Status.FINISHED)
    match.set_status(Match.Status.ADJUDICATED)
    with pytest.raises(InvalidTransition):
        match.set_status(Match.Status.CANCELLED)
    match.refresh_from_db()
    assert match.status == Match.Status.ADJUDICATED and match.status_changed_at is not None


def test_rule_set_and_params_are_frozen_at_creation():
    competition = competition_with_entrants(2, rule_set="mbs", rule_params={"turn_seconds": 30})
    fixtures_generate(competition=competition)
    match = match_for_fixture(fixture=competition.fixtures.get())
    competition.rule_set, competition.rule_params = "one_touch", {"turn_seconds": 10}
    competition.save()
    match.refresh_from_db()
    assert (match.rule_set, match.rule_params) == ("mbs", {"turn_seconds": 30})
