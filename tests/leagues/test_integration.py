"""A result recorded through the service reaches the stored standings through a real
celery worker on Redis, against PostgreSQL (run by CI; skipped elsewhere, with the reason)."""
import pytest

from leagues.models import Standing
from leagues.services.fixtures import fixtures_generate
from leagues.services.results import result_record
from tests.conftest import wait_for
from tests.leagues.factories import competition_with_entrants


@pytest.mark.integration
def test_recorded_result_reaches_the_stored_standings_through_a_worker(celery_worker_process):
    competition = competition_with_entrants(4, tiebreak_preset="fistf")
    fixtures_generate(competition=competition)
    fixture = competition.fixtures.filter(round__number=1).order_by("position").first()  # E1 v E4

    result = result_record(fixture=fixture, home_goals=0, away_goals=2)  # official; enqueues the standings
    assert result.is_official and (result.home_goals, result.away_goals) == (0, 2)

    def standings_done():
        rows = list(Standing.objects.filter(competition=competition).order_by("position"))
        return rows if rows and rows[0].points == 3 else None

    rows = wait_for(standings_done, timeout=60)
    assert (rows[0].entrant.name, rows[0].goals_for, rows[0].goals_against) == ("E4", 2, 0)
    assert "recompute_standings" in celery_worker_process.log.read_text()
