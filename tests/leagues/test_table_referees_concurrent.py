"""A result and its retry arriving at the same moment (a phone on a flaky hall network sent it
again before the first answer came back), on PostgreSQL: the competition's lock orders them, the
result is stored once with one history entry, and both get the same answer."""
from __future__ import annotations

import threading

import pytest
from django.db import connection

from leagues.models import FixtureChange, Result, ResultRequest
from tests.leagues.test_table_referees import as_user, called, hall, open_fixtures

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_result_and_its_retry_at_once_are_stored_once():
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row locks")
    competition, _organiser, rui, _ana = hall()
    fixture = called(open_fixtures(competition)[0], 1)
    barrier = threading.Barrier(2)
    answers = []

    def send():
        try:
            barrier.wait(timeout=10)
            response = as_user(rui).post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": 2, "away_goals": 1},
                                         format="json", HTTP_IDEMPOTENCY_KEY="phone-race")
            answers.append((response.status_code, response.get("Idempotent-Replayed"), response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _copy in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted((status, replayed or "") for status, replayed, _body in answers) == [(200, ""), (200, "true")]
    assert answers[0][2] == answers[1][2]
    assert Result.objects.filter(fixture=fixture).count() == 1
    assert FixtureChange.objects.filter(fixture=fixture, kind__in=["result", "correction"]).count() == 1
    assert ResultRequest.objects.filter(user=rui, key="phone-race").count() == 1
