"""Faults and concurrency, as a production site meets them: each test starts its own
redis-server (never the shared one), gunicorn, celery worker and beat processes against the test
database (the PostgreSQL outage: against a cluster of its own), breaks something, and checks the
answers and the rows. The scenarios are
``tests.bench.faults``'s, smaller (``python -m tests.bench.faults`` measures the targets)."""
from __future__ import annotations

import shutil

import pytest
from django.db import connection

from leagues.models import Fixture
from tests.bench import database_outage, faults
from tests.conftest import _require_services, _worker_env
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


def test_postgresql_stopped_while_results_are_recorded_is_a_503_and_loses_nothing(tmp_path):
    """PostgreSQL stopped 10 s while 50 results are recorded (the API and the page's form) and 200
    reads made, on a cluster of the test's own (initdb in a temporary folder, its own port: the
    server on 5432 serves on): no 500, every refused write a 503 with Retry-After, every accepted
    write stored, the cached pages 200, and every answer normal once the cluster is back."""
    try:
        database_outage.postgres_bin()
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed")
    except RuntimeError as exc:
        if _require_services():
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    out = faults.postgres_outage(log_dir=tmp_path, outage_s=10, recordings=50, reads=200)
    no_problems(out)
    figures = out["figures"]
    assert figures["outage"]["port"] != 5432
    assert figures["outage"]["stop_s"] + figures["outage"]["down_s"] >= 9.5
    writes, retried, reads = figures["writes"], figures["retried_after_back"], figures["reads"]
    assert writes["answered_500"] == 0 and reads["500"] == 0
    assert writes["refused_503"] >= 10 and writes["accepted"] >= 10
    assert writes["accepted"] + writes["refused_503"] == writes["sent"] == 50
    assert retried["accepted"] == retried["sent"] == writes["refused_503"]
    assert figures["accepted_writes_stored"] == figures["results_stored"] == 50
    assert reads["by_kind"]["cached"] == {"200": 100}
    assert reads["503"] >= 10 and figures["after_back"]["not_normal"] == 0
    assert figures["live_pooled"]["after_back"] and set(figures["live_pooled"]["after_back"]) == {"200"}
