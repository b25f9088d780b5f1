"""Online play against the real services: concurrent submissions on PostgreSQL, adjudication
through a real celery worker on Redis, also after the worker is killed in the middle of it."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection

from leagues.models import Result
from matches.models import Match, MatchAction
from matches.services import online
from matches.tasks import adjudicate_match
from tests.conftest import WorkerProcess, wait_for
from tests.matches.conftest import T0, make_league, result_of, setup_match, users_of


def live_match(slug):
    competition = make_league(2, slug=slug)
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, T0)
    online.check_in(match_id=match.pk, user=home, now=T0)
    online.check_in(match_id=match.pk, user=away, now=T0)
    return Match.objects.get(pk=match.pk), home, away


def flick(piece="5", speed=500.0):
    return {"type": "flick", "piece": piece, "angle_deg": 0.0, "speed_mm_s": speed}


def play_to_full_time(match, home, away, scorer_goals=1):
    t, goals = 5.0, 0
    for _ in range(500):
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            return
        side = match.state["to_move"]
        data = flick()
        if side == "home" and goals < scorer_goals:
            data, goals = flick("9", 2100), goals + 1
        online.submit_action(match_id=match.pk, user=home if side == "home" else away, seq=match.seq + 1,
                             action_json=data, now=T0 + timedelta(seconds=t))
        t += 5
    raise AssertionError("the match did not end")


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_submissions_for_one_turn_exactly_one_is_accepted(services, stub_referee):
    match, home, _ = live_match("concurrent")
    barrier = threading.Barrier(2)
    answers = []

    def submit(piece):
        try:
            barrier.wait(5)
            answers.append(online.submit_action(match_id=match.pk, user=home, seq=1, action_json=flick(piece),
                                                now=T0 + timedelta(seconds=3)))
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(p,)) for p in ("5", "6")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(a.status_code for a in answers) == [201, 409]
    assert MatchAction.objects.filter(match=match).count() == 1
    match.refresh_from_db()
    assert match.seq == 1 and match.state["to_move"] == "away"


@pytest.mark.integration
def test_adjudication_through_a_real_worker_runs_once(stub_referee, celery_worker_process):
    match, home, away = live_match("worker")
    play_to_full_time(match, home, away)  # full time commits; adjudication goes to Redis
    result = wait_for(lambda: Result.objects.filter(fixture__match=match).first(), timeout=40)
    assert (result.home_goals, result.away_goals) == (1, 0)
    first_at = result.adjudicated_at
    adjudicate_match.delay(match.pk)
    adjudicate_match.delay(match.pk)
    wait_for(lambda: celery_worker_process.log.read_text().count("succeeded") >= 4, timeout=30)
    assert Result.objects.filter(fixture__match=match).count() == 1
    assert result_of(match).adjudicated_at == first_at
    assert Match.objects.get(pk=match.pk).status == Match.Status.ADJUDICATED


@pytest.fixture
def slow_replay_env(monkeypatch, tmp_path):
    """The next worker replays slowly and says so in a file; Redis redelivers after 3 s."""
    marker = tmp_path / "replaying"
    monkeypatch.setenv("STUB_REFEREE_SLOW_FILE", str(marker))
    monkeypatch.setenv("STUB_REFEREE_SLOW_S", "0.3")
    monkeypatch.setenv("CELERY_VISIBILITY_TIMEOUT", "3")
    return marker


@pytest.mark.integration
def test_adjudication_after_the_worker_is_killed_mid_task(stub_referee, slow_replay_env, celery_worker_process,
                                                          monkeypatch):
    marker = slow_replay_env
    monkeypatch.delenv("STUB_REFEREE_SLOW_FILE")  # this process (and the next worker) replay at speed
    match, home, away = live_match("killed")
    play_to_full_time(match, home, away, scorer_goals=2)
    wait_for(marker.exists, timeout=30)  # the worker is replaying, inside its transaction
    celery_worker_process.kill()
    assert not Result.objects.filter(fixture__match=match).exists()
    time.sleep(4)  # older than the visibility timeout: the next worker restores it when it starts
    replacement = WorkerProcess(celery_worker_process.db_name, hostname=celery_worker_process.hostname + "b")
    replacement.start()
    try:
        result = wait_for(lambda: Result.objects.filter(fixture__match=match).first(),
                          timeout=45)
        assert (result.home_goals, result.away_goals) == (2, 0)
        assert Result.objects.filter(fixture__match=match).count() == 1
        assert Match.objects.get(pk=match.pk).status == Match.Status.ADJUDICATED
    finally:
        replacement.stop()
