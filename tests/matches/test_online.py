"""Online play: the lifecycle, the answers of the action API, deadlines, walkovers (issue 7)."""
from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from leagues.models import Competition, Fixture, Standing
from matches.models import ActionRequest, Match, MatchAction
from matches.services import deadlines, online
from tests.matches.conftest import T0, at, fixture_of, make_league, result_of, setup_match, users_of

# transaction=True: adjudication is enqueued on commit, as in production
pytestmark = pytest.mark.django_db(transaction=True)


def flick(piece="5", speed=500.0, angle=0.0, **kw):
    return {"type": "flick", "piece": piece, "angle_deg": angle, "speed_mm_s": speed, **kw}


def live_match(base=T0):
    competition = make_league(2)
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, base)
    online.check_in(match_id=match.pk, user=home, now=base)
    match = online.check_in(match_id=match.pk, user=away, now=base + timedelta(seconds=1))
    assert match.status == Match.Status.LIVE
    return match, home, away


@pytest.fixture
def live(stub_referee):
    """A live league match (kicked off at T0 + 1 s) and its two users."""
    return live_match()


def submit(match, user, data, seq=None, now=None, key=None):
    match.refresh_from_db()
    return online.submit_action(match_id=match.pk, user=user, seq=match.seq + 1 if seq is None else seq,
                                action_json=data, idempotency_key=key, now=now)


def play_to_full_time(match, home, away, start=5.0, step=5.0, scorer=None, base=T0):
    """Alternate flicks every ``step`` s of wall time until full time; ``scorer`` ("home") scores once."""
    t = start
    scored = False
    for _ in range(1000):
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            return t
        side = match.state["to_move"]
        user = home if side == "home" else away
        data = flick("5", 500)
        if scorer == side and not scored:
            data, scored = flick("9", 2100), True
        answer = submit(match, user, data, now=base + timedelta(seconds=t))
        assert answer.status_code in (201, 409), answer.data  # 409: a deadline moved it on first
        t += step
    raise AssertionError("the match did not end")


def test_lifecycle_through_the_api_then_full_time_adjudication_and_standings(stub_referee):
    base = timezone.now()
    match, home, away = live_match(base)
    client = APIClient()
    client.force_authenticate(home)
    body = client.get(f"/api/matches/{match.pk}/").json()
    assert body["status"] == "live" and body["your_side"] == "home" and body["seq"] == 0
    response = client.post(f"/api/matches/{match.pk}/actions/", {"seq": 1, "action": flick("9", 2100)}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["seq"] == 1 and response.json()["state"]["score"] == {"home": 1, "away": 0}
    other = APIClient()
    other.force_authenticate(away)
    assert other.get(f"/api/matches/{match.pk}/").json()["to_move"] == "away"
    response = other.post(f"/api/matches/{match.pk}/actions/", {"seq": 2, "action": flick("5", 300)}, format="json")
    assert response.status_code == 201
    log = APIClient().get(f"/api/matches/{match.pk}/actions/?after=1").json()
    assert [row["seq"] for row in log["actions"]] == [2]
    assert log["actions"][0]["frames"] and log["actions"][0]["side"] == "away"
    assert log["actions"][0]["action"]["t"] >= 0

    play_to_full_time(match, home, away, start=10, base=base)
    match.refresh_from_db()
    assert match.status == Match.Status.ADJUDICATED  # eager Celery in the plain suite
    result = result_of(match)
    assert (result.home_goals, result.away_goals, result.outcome, result.winner_side) == (1, 0, "played", "home")
    fixture = fixture_of(match)
    assert fixture.status == Fixture.Status.PLAYED and result.source == "online"
    top = Standing.objects.filter(competition=fixture.competition).order_by("position").first()
    assert top.entrant.name == "E1" and top.points == 3


def test_only_the_player_to_move_may_act(live):
    match, home, away = live
    answer = submit(match, away, flick())
    assert answer.status_code == 403 and answer.data["error"] == "not_your_turn"
    from django.contrib.auth import get_user_model

    stranger = get_user_model().objects.create_user(username="stranger")
    assert submit(match, stranger, flick()).status_code == 403
    assert submit(match, home, flick(side="away")).status_code == 403
    match.refresh_from_db()
    assert match.seq == 0


def test_stale_or_repeated_submission_is_a_conflict_with_the_current_state(live):
    match, home, away = live
    assert submit(match, home, flick(), seq=1).status_code == 201
    repeated = submit(match, home, flick(), seq=1)
    assert repeated.status_code == 409 and repeated.data["seq"] == 1
    assert repeated.data["state"]["to_move"] == "away"
    assert submit(match, away, flick(), seq=7).status_code == 409
    assert MatchAction.objects.filter(match=match).count() == 1


@pytest.mark.parametrize("bad, field", [
    (flick(angle=math.nan), "action.angle_deg"),
    (flick(speed="fast"), "action.speed_mm_s"),
    (flick(piece="11"), "action.piece"),
    (flick(speed=2600), "action.speed_mm_s"),
    (flick(speed=-5), "action.speed_mm_s"),
    ({"type": "teleport"}, "action.type"),
    ("flick", "action"),
    ({"type": "tick"}, "action.type"),
])
def test_malformed_action_is_400_and_changes_nothing(live, bad, field):
    match, home, _ = live
    before = (match.seq, match.state_hash)
    answer = submit(match, home, bad)
    assert answer.status_code == 400 and answer.data["field"] == field
    match.refresh_from_db()
    assert (match.seq, match.state_hash) == before


def test_nan_in_the_request_body_is_a_400(live):
    match, home, _ = live
    client = APIClient()
    client.force_authenticate(home)
    response = client.post(f"/api/matches/{match.pk}/actions/",
                           '{"seq": 1, "action": {"type": "flick", "piece": "5", "angle_deg": NaN, "speed_mm_s": 1}}',
                           content_type="application/json")
    assert response.status_code == 400
    assert client.post(f"/api/matches/{match.pk}/actions/", {"seq": "1", "action": flick()},
                       format="json").status_code == 400


def test_rule_refusal_is_422_with_reason_and_section(live):
    match, home, _ = live
    answer = submit(match, home, {"type": "declare_shot"})
    assert answer.status_code == 422
    assert answer.data["rule"] == "rulebook 4" and "opponent's half" in answer.data["reason"]
    assert submit(match, home, flick("3", 500)).status_code == 201  # nothing changed: seq 1 is free


def test_retry_with_the_same_idempotency_key_gets_the_first_answer(live):
    match, home, _ = live
    client = APIClient()
    client.force_authenticate(home)
    url = f"/api/matches/{match.pk}/actions/"
    first = client.post(url, {"seq": 1, "action": flick()}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = client.post(url, {"seq": 1, "action": flick()}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json() and again["Idempotent-Replayed"] == "true"
    assert MatchAction.objects.filter(match=match).count() == 1
    assert ActionRequest.objects.filter(match=match, key="k-1").count() == 1
    # another key with the same (now stale) seq is a conflict
    assert client.post(url, {"seq": 1, "action": flick()}, format="json",
                       HTTP_IDEMPOTENCY_KEY="k-2").status_code == 409


def test_deadlines_are_applied_with_both_players_gone(live):
    match, home, away = live
    match.refresh_from_db()
    assert match.deadline_kind == "turn" and match.deadline_at == at(31)
    assert deadlines.tick_due(now=at(20)) == 0
    assert deadlines.tick_due(now=at(33)) == 1  # the beat, 2 s after the deadline
    match.refresh_from_db()
    row = MatchAction.objects.get(match=match, seq=1)
    assert row.side == "" and row.action["type"] == "tick" and row.events[0]["type"] == "turn_timeout"
    assert match.state["to_move"] == "away" and match.deadline_at == at(61)
    # a read of the match applies the next one
    match = deadlines.tick_if_due(match, now=at(62))
    assert match.seq == 2 and match.state["to_move"] == "home"


def test_deadline_seen_long_after_it_passed_gives_a_fresh_turn(live):
    match, home, _ = live
    assert deadlines.tick_due(now=at(31 + 45)) == 1  # the server was down for 45 s after it
    match.refresh_from_db()
    assert match.seq == 0 and match.state["to_move"] == "home"
    assert match.deadline_at == at(76 + 30)
    assert submit(match, home, flick(), now=at(80)).status_code == 201


def test_walkover_for_the_side_not_checked_in(stub_referee):
    competition = make_league(2, checkin_grace_minutes=10)
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, T0)
    online.check_in(match_id=match.pk, user=away, now=at(60))
    deadlines.tick_due(now=at(600 + 5))
    match.refresh_from_db()
    assert match.status == Match.Status.ADJUDICATED and match.walkover_side == "home"
    result = result_of(match)
    assert (result.outcome, result.outcome_side, result.home_goals, result.away_goals) == ("walkover", "home", 0, 2)
    assert Fixture.objects.get(pk=fixture.pk).status == Fixture.Status.WALKOVER
    with pytest.raises(online.PlayError) as refused:
        online.check_in(match_id=match.pk, user=home, now=at(700))
    assert refused.value.status_code == 409


def test_checkin_deadline_seen_after_an_outage_is_extended(stub_referee):
    competition = make_league(2, checkin_grace_minutes=10)
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, T0)
    deadlines.tick_due(now=at(600 + 120))
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.checkin_deadline_at > at(720)
    online.check_in(match_id=match.pk, user=home, now=at(730))
    assert online.check_in(match_id=match.pk, user=away, now=at(740)).status == Match.Status.LIVE


def test_disqualification_loses_two_nil_unless_the_opponent_led_by_more(live):
    match, home, away = live
    assert submit(match, home, flick("9", 2100), now=at(5)).status_code == 201  # 1-0 home
    assert submit(match, away, flick("5", 2222), now=at(10)).status_code == 201  # away disqualified
    result = result_of(match)
    assert (result.outcome, result.outcome_side, result.home_goals, result.away_goals) == (
        "disqualification", "away", 2, 0)
    assert result.away_discipline == 4


def test_disqualified_side_behind_by_more_than_two_keeps_the_score(stub_referee):
    competition = make_league(2)
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, T0)
    online.check_in(match_id=match.pk, user=home, now=T0)
    online.check_in(match_id=match.pk, user=away, now=T0)
    t = 1
    for user, data in [(home, flick("9", 2100)), (away, flick()), (home, flick("9", 2100)), (away, flick()),
                       (home, flick("9", 2100)), (away, flick("5", 2222))]:
        assert submit(match, user, data, now=at(t)).status_code == 201
        t += 2
    result = result_of(match)
    assert (result.home_goals, result.away_goals, result.winner_side) == (3, 0, "home")


def test_level_knockout_goes_to_extra_time_and_a_shootout(stub_referee):
    competition = make_league(2, fmt="knockout", slug="cup")
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, T0)
    online.check_in(match_id=match.pk, user=home, now=T0)
    online.check_in(match_id=match.pk, user=away, now=T0)
    assert match.rule_params["knockout"] is True
    t = 5.0
    for _ in range(100):  # level through regulation (2 x 1 min) and extra time (2 x 1 min)
        match.refresh_from_db()
        if match.state["period"] == "shootout":
            break
        side = match.state["to_move"]
        submit(match, home if side == "home" else away, flick(), now=at(t))
        t += 5
    match.refresh_from_db()
    assert match.state["period"] == "shootout" and match.status == Match.Status.LIVE
    # home scores every kick, away misses: 3-0 after three kicks each ends it (5 kicks)
    for _ in range(10):
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            break
        side = match.state["to_move"]
        data = flick("9", 2100) if side == "home" else flick("9", 100)
        assert submit(match, home if side == "home" else away, data, now=at(t)).status_code == 201
        t += 5
    result = result_of(match)
    assert (result.home_goals, result.away_goals) == (0, 0)
    assert (result.home_shootout, result.away_shootout, result.winner_side) == (3, 0, "home")


def test_practice_match_against_the_computer(stub_referee):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="learner")
    client = APIClient()
    client.force_authenticate(user)
    response = client.post("/api/matches/practice/", {"rule_set": "one_touch", "side": "home"}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "live" and body["your_side"] == "home" and body["computer_sides"] == ["away"]
    answer = client.post(f"/api/matches/{body['id']}/actions/", {"seq": 1, "action": flick()}, format="json")
    assert answer.status_code == 201
    assert answer.json()["accepted"] == [1, 2] and answer.json()["state"]["to_move"] == "home"
    assert APIClient().post("/api/matches/practice/", {}, format="json").status_code in (401, 403)


def test_check_in_endpoint(stub_referee):
    competition = make_league(2, slug="checkin-api")
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, timezone.now())
    client = APIClient()
    client.force_authenticate(home)
    response = client.post(f"/api/matches/{match.pk}/check-in/")
    assert response.status_code == 200 and response.json()["status"] == "checked_in"
    client.force_authenticate(away)
    assert client.post(f"/api/matches/{match.pk}/check-in/").json()["status"] == "live"
    assert client.post(f"/api/matches/{match.pk}/check-in/").status_code == 409


def test_check_in_under_rules_stored_unchecked_is_a_400_not_a_500():
    competition = make_league(2, slug="checkin-bad-rules")
    Competition.objects.filter(pk=competition.pk).update(halves=3, rule_params={"turn_seconds": "abc"})
    fixture = competition.fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, timezone.now())
    client = APIClient()
    client.force_authenticate(home)
    assert client.post(f"/api/matches/{match.pk}/check-in/").status_code == 200
    client.force_authenticate(away)
    response = client.post(f"/api/matches/{match.pk}/check-in/")
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "rule_params" and "rules" in response.json()["detail"]
    match.refresh_from_db()
    assert match.status != Match.Status.LIVE and match.away_checked_in_at is None


def test_practice_refuses_bad_rule_params_with_the_shared_check(stub_referee):
    from django.contrib.auth import get_user_model

    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user(username="learner-bad"))
    for params in ({"turn_seconds": "abc"}, {"foo": 1}, {"halves": 3}):
        response = client.post("/api/matches/practice/", {"rule_params": params}, format="json")
        assert response.status_code == 400 and response.json()["field"] == "rule_params", (params, response.content)


@pytest.mark.parametrize("url", ["/api/matches/{pk}/actions/", "/api/matches/practice/", "/api/auth/token/"])
def test_deeply_nested_json_is_a_400_not_a_500(live, url):
    match, home, _ = live
    client = APIClient()
    client.force_authenticate(home)
    body = '{"seq": 1, "action": ' + "[" * 100000 + "]" * 100000 + "}"
    response = client.post(url.format(pk=match.pk), body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert "nested" in response.json()["detail"]
    match.refresh_from_db()
    assert match.seq == 0



@pytest.mark.parametrize("action, field", [
    (flick(speed=10**400), "action.speed_mm_s"),
    (flick(angle=10**400), "action.angle_deg"),
    ({"type": "place", "piece": "5", "at": [10**400, 0]}, "action.at[0]"),
    ({"type": "place", "piece": "5", "at": [0, -(10**400)]}, "action.at[1]"),
])
def test_huge_integers_in_an_action_are_a_400_naming_the_field(live, action, field):
    match, home, _ = live
    client = APIClient()
    client.force_authenticate(home)
    response = client.post(f"/api/matches/{match.pk}/actions/", {"seq": 1, "action": action}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    match.refresh_from_db()
    assert match.seq == 0


def test_huge_integers_in_the_sequence_number_or_practice_params_are_a_400(live):
    match, home, _ = live
    client = APIClient()
    client.force_authenticate(home)
    response = client.post(f"/api/matches/{match.pk}/actions/", {"seq": 10**400, "action": flick()}, format="json")
    assert response.status_code in (400, 409), response.content
    for params in ({"turn_seconds": 10**400}, {"half_minutes": 10**400}, {"keeper_size": [10**400, 1]}):
        response = client.post("/api/matches/practice/", {"rule_params": params}, format="json")
        assert response.status_code == 400 and response.json()["field"] == "rule_params", (params, response.content)


@pytest.mark.parametrize("error", [OverflowError("int too large to convert to float"), ValueError("bad")])
def test_any_conversion_error_of_the_action_parser_is_a_400(live, monkeypatch, error):
    match, home, _ = live

    def parse_action(data, where):
        raise error

    monkeypatch.setattr(online, "parse_action", parse_action)
    client = APIClient()
    client.force_authenticate(home)
    response = client.post(f"/api/matches/{match.pk}/actions/", {"seq": 1, "action": flick()}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "action", response.content
