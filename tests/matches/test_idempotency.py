"""Idempotency keys (issue 15), as Stripe's API has them: a key is the user's; a retry of the same
request gets the first answer; the same key with another body, or for another match, is a 422
that says so and changes nothing."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from matches.models import ActionRequest, Match, MatchAction
from matches.services import online
from tests.matches.test_online import flick, live_match

pytestmark = pytest.mark.django_db


def post(client, match, body, key):
    return client.post(f"/api/matches/{match.pk}/actions/", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


@pytest.fixture
def played(stub_referee):
    match, home, away = live_match()
    client = APIClient()
    client.force_authenticate(home)
    first = post(client, match, {"seq": 1, "action": flick()}, "key-1")
    assert first.status_code == 201
    return match, home, client, first


def test_a_retry_of_the_same_request_gets_the_first_answer(played):
    match, _home, client, first = played
    again = post(client, match, {"action": flick(), "seq": 1}, "key-1")  # the same body, keys in another order
    assert again.status_code == 201 and again.json() == first.json() and again["Idempotent-Replayed"] == "true"


@pytest.mark.parametrize("body", [
    {"seq": 1, "action": flick(speed=900.0)},  # another action
    {"seq": 2, "action": flick()},  # another seq
])
def test_the_same_key_with_another_body_is_a_422(played, body):
    match, _home, client, _first = played
    response = post(client, match, body, "key-1")
    assert response.status_code == 422, response.content
    assert response.json()["error"] == "idempotency_key_reused" and response.json()["field"] == "Idempotency-Key"
    assert "Idempotent-Replayed" not in response
    assert MatchAction.objects.filter(match=match).count() == 1


def test_the_same_key_for_another_match_is_a_422(played):
    _match, home, client, _first = played
    practice = online.practice_create(user=home)
    response = post(client, practice, {"seq": practice.seq + 1, "action": flick()}, "key-1")
    assert response.status_code == 422 and response.json()["error"] == "idempotency_key_reused"
    practice.refresh_from_db()
    assert not MatchAction.objects.filter(match=practice, by=home).exists()


def test_a_key_is_the_users_own(played):
    match, _home, _client, _first = played
    away = match.away_user
    other = APIClient()
    other.force_authenticate(away)
    response = post(other, match, {"seq": 2, "action": flick()}, "key-1")
    assert response.status_code != 422 or response.json().get("error") != "idempotency_key_reused"


@pytest.mark.parametrize("key", ["k" * 101, "bad\x00key", "clé"])
def test_a_malformed_key_is_a_400_naming_the_header(played, key):
    match, _home, client, _first = played
    response = post(client, match, {"seq": 2, "action": flick()}, key)
    assert response.status_code == 400 and response.json()["field"] == "Idempotency-Key"


def test_a_key_taken_by_a_concurrent_request_rolls_the_submission_back(played, monkeypatch):
    match, home, client, _first = played
    practice = online.practice_create(user=home)
    seq_before = Match.objects.get(pk=practice.pk).seq
    submit_locked = online._submit_locked

    def raced(match_, user, seq, action_json, now):
        answer = submit_locked(match_, user, seq, action_json, now)
        # the other match's request stores the same key between our look-up and our insert
        ActionRequest.objects.create(match=match, user=home, key="key-2", status_code=201, response={})
        return answer

    monkeypatch.setattr(online, "_submit_locked", raced)
    response = post(client, practice, {"seq": seq_before + 1, "action": flick()}, "key-2")
    assert response.status_code == 422 and response.json()["error"] == "idempotency_key_reused"
    assert Match.objects.get(pk=practice.pk).seq == seq_before
    assert not ActionRequest.objects.filter(key="key-2").exists()  # rolled back with it
