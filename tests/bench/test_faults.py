"""Faults and concurrency (issue 14), as a production site meets them: each test starts its own
redis-server (never the shared one), gunicorn, celery worker and beat processes against the test
database, breaks something, and checks the answers and the rows. The scenarios are
``tests.bench.faults``'s, smaller (``python -m tests.bench.faults`` measures the targets)."""
from __future__ import annotations

import shutil

import pytest
from django.db import connection

from leagues.models import Fixture
from tests.bench import faults
from tests.conftest import _worker_env
from tests.matches.test_online_integration import live_match, play_to_full_time

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def database_url(services, transactional_db):
    """The test database's URL, for the processes the scenario starts; this process's own
    tasks (the set-up's) run eagerly, so that nothing reaches a broker but the scenario's."""
    from config.celery import app

    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed")
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield _worker_env(connection.settings_dict["NAME"])["DATABASE_URL"]
    app.conf.task_always_eager = before


def no_problems(out: dict) -> None:
    assert out["problems"] == [], f"{out['problems']}\nfigures: {out['figures']}"


def test_results_recorded_while_redis_is_down_are_official_when_it_is_back(database_url, tmp_path):
    """Redis stopped while results are recorded through the API and the pages, an entrant
    withdraws and an online match reaches full time: every answer is the normal one, and
    within 60 s of Redis being back every result is official and every table right."""
    out = faults.redis_outage(database_url=database_url, log_dir=tmp_path, outage_s=9, competitions=1, sweep_s=3)
    no_problems(out)
    figures = out["figures"]
    assert figures["answers_5xx_or_none"] == 0
    assert figures["recorded_api_2xx"] >= 1 and figures["recorded_page_2xx"] >= 1
    assert figures["withdrawal_2xx"] and figures["full_time_during_outage"]
    assert figures["recovered_s"] <= faults.RECOVERY_TARGET_S
    assert figures["worker_reconnect_s"] <= faults.RECONNECT_TARGET_S
    assert not Fixture.objects.filter(status=Fixture.Status.PLAYED, result__isnull=True).exists()


def test_worker_killed_mid_adjudication_the_result_is_official_once(database_url, tmp_path, stub_referee, monkeypatch):
    """The whole worker killed with kill -9 while it replays a finished match's log (the match
    row locked by it), then a worker started again: the result is official, exactly once."""
    from matches import tasks

    match, home, away = live_match("killed-worker")
    with monkeypatch.context() as patched:  # full time sends nothing: the sweeper finds the match
        patched.setattr(tasks.adjudicate_match, "enqueue_on_commit", lambda **kw: None, raising=False)
        play_to_full_time(match, home, away, scorer_goals=2)
    slow = {"STUB_REFEREE_SLOW_FILE": str(tmp_path / "replaying"), "STUB_REFEREE_SLOW_S": "0.3"}
    out = faults.worker_kill(database_url=database_url, log_dir=tmp_path, match_id=match.pk, sweep_s=3,
                             first_worker_env=slow)
    no_problems(out)
    figures = out["figures"]
    assert figures["killed_mid_adjudication"] and figures["after_kill"]["results"] == 0
    assert figures["official_s"] <= faults.RECOVERY_TARGET_S
    assert figures["results"] == 1 and figures["history_entries"] == 1
    fixture = Fixture.objects.select_related("result").get(match=match)
    assert (fixture.result.home_goals, fixture.result.away_goals) == (2, 0)


def test_concurrent_writes_through_the_api_are_answered_and_stored_right(database_url, tmp_path):
    """100 recordings of one fixture's result at once, 12 check-ins at once (the fixture's and
    the match's endpoints), entrants added while the fixtures are generated, and same-name
    races of entrants and competitions: no 5xx, and the rows are right (see each part)."""
    out = faults.concurrency(database_url=database_url, log_dir=tmp_path, recordings=100, checkins=12)
    no_problems(out)
    figures = out["figures"]
    recordings = figures["recordings"]
    assert recordings["answers_5xx_or_none"] == 0 and recordings["accepted"] >= 1
    assert recordings["history_entries"] == recordings["accepted"]
    assert figures["checkins"]["matches_of_first_fixture"] == 1
    assert figures["checkins"]["status"] == figures["checkins"]["status_second"] == "live"
    for part in ("checkins", "generation", "same_names"):
        assert figures[part]["answers_5xx_or_none"] == 0, part
