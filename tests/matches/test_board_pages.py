"""The board's pages without a browser: a watched bot match moves at its pace (its driver, not the
feed: issue 20), the
fixture's page checks a player in, a replay holds the state after every row (issue 8)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from matches.models import Match
from matches.services import online, play
from matches.services.deadlines import tick_due
from matches.services.spectating import BOT_PACE_S, mark_watched, play_due
from simulation.state import MatchState
from tests.matches.conftest import make_league, setup_match, users_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_watched_bot_match_moves_once_per_pace_however_many_drive_it():
    fixture = make_league(2, slug="bots").fixtures.get()
    match = setup_match(fixture, timezone.now(), computer_sides=["home", "away"])
    assert match.status == Match.Status.LIVE and match.seq == 0
    later = timezone.now() + timedelta(seconds=BOT_PACE_S + 0.5)
    assert play_due(now=later) == 0  # nobody watches: it waits
    assert Client().get(f"/matches/{match.pk}/feed/?after=0").status_code == 200  # a spectator's poll
    assert Match.objects.get(pk=match.pk).seq == 0  # the poll marked it watched, and played nothing
    assert play_due(now=later) == 1
    assert play_due(now=later + timedelta(seconds=0.1)) == 0  # a second driver (beat and run_clock)
    assert Match.objects.get(pk=match.pk).seq == 1
    feed = Client().get(f"/matches/{match.pk}/feed/?after=0").json()
    assert [r["seq"] for r in feed["actions"]] == [1] and feed["actions"][0]["frames"]
    assert feed["match"]["status"] == "live" and feed["match"]["clock_anchor_at"]


def test_a_poll_of_a_due_bot_match_never_runs_the_computers_search(monkeypatch):
    fixture = make_league(2, slug="nosearch").fixtures.get()
    match = setup_match(fixture, timezone.now() - timedelta(seconds=BOT_PACE_S * 4), computer_sides=["home", "away"])
    mark_watched(match.pk)
    monkeypatch.setattr(play, "play_computer", lambda *a, **k: pytest.fail("a request ran the computer"))
    for _poll in range(3):
        assert Client().get(f"/matches/{match.pk}/feed/?after=0").status_code == 200
        assert Client().get(f"/matches/{match.pk}/").status_code == 200
    assert Match.objects.get(pk=match.pk).seq == 0


def test_a_bot_match_nobody_watched_past_its_deadline_plays_on_without_a_timeout():
    fixture = make_league(2, slug="idle").fixtures.get()
    match = setup_match(fixture, timezone.now(), computer_sides=["home", "away"])
    first_viewer = match.deadline_at + timedelta(seconds=10)  # passed, but not an outage
    assert tick_due(now=first_viewer) == 0  # its deadlines are its driver's: no tick in its place
    mark_watched(match.pk, now=first_viewer)
    assert play_due(now=first_viewer) == 1
    match = Match.objects.get(pk=match.pk)
    assert match.seq == 1
    types = {e["type"] for row in match.actions.all() for e in row.events}
    assert "turn_timeout" not in types and "technical_foul" not in types
    assert match.deadline_at > first_viewer


def test_fixture_page_check_in_sets_up_the_online_match_and_kicks_off():
    fixture = make_league(2, slug="chk").fixtures.get()
    fixture.competition.fixtures.update(kickoff_at=timezone.now() + timedelta(minutes=10))
    home, away = users_of(fixture)
    a, b = Client(), Client()
    a.force_login(home)
    b.force_login(away)
    assert b"Check in" in a.get(f"/fixtures/{fixture.pk}/").content
    a.post(f"/fixtures/{fixture.pk}/check-in/")
    fixture.refresh_from_db()
    match = fixture.match
    assert match.status == Match.Status.CHECKED_IN and match.kind == Match.Kind.ONLINE
    response = b.post(f"/fixtures/{fixture.pk}/check-in/")
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    assert Match.objects.get(pk=match.pk).status == Match.Status.LIVE
    assert Client().get(f"/matches/{match.pk}/").status_code == 200
    assert b"Watch" in Client().get(f"/competitions/{fixture.competition.slug}/").content


def test_replay_holds_the_state_after_every_row():
    from leagues.management.commands.play_fixtures import play_bot_match

    fixture = make_league(2, slug="rpl").fixtures.get()
    match = play_bot_match(fixture=fixture)
    data = Client().get(f"/matches/{match.pk}/replay.json").json()
    assert len(data["actions"]) == match.seq
    for row in data["actions"]:
        assert MatchState.from_json(row["state"]).state_hash() == row["state_hash"]


def test_play_lists_a_fixture_awaiting_your_check_in_as_not_checked_in():
    """The opponent checked in: the match is "checked in", but this player is not (issue 17)."""
    fixture = make_league(2, slug="waits").fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, timezone.now() + timedelta(minutes=10))
    online.check_in(match_id=match.pk, user=away)
    client = Client()
    client.force_login(home)
    page = client.get("/play/").content.decode()
    assert "Not checked in yet" in page and "Checked in" not in page
    names = match.sides
    assert f"{names['home']['name']} v {names['away']['name']}" in page  # who it is against, not only the round
    assert f'href="/fixtures/{fixture.pk}/">Check in</a>' in page
    other = Client()
    other.force_login(away)
    assert "You are checked in; waiting for your opponent" in other.get("/play/").content.decode()


def test_a_board_opened_after_full_time_is_a_replay_with_the_official_result():
    from leagues.management.commands.play_fixtures import play_bot_match

    fixture = make_league(2, slug="over").fixtures.get()
    match = play_bot_match(fixture=fixture)
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    config = page.split('id="board-config" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert '"official"' in config and "Official result: " in config


def test_a_practice_board_shows_hints_and_how_to_play():
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="newcomer")
    match = online.practice_create(user=user)
    client = Client()
    client.force_login(user)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    config = page.split('id="board-config" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert '"hints": true' in config
    for item in ("Kick-off", "Set pieces", "Declaring a shot", "Goalkeeper"):
        assert f"<b>{item}</b>" in page
    assert page.count('<svg class="pic"') == 5
    strings = page.split('id="board-strings" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert "Your kick-off: two touches" in strings


def _board_config(client, match) -> dict:
    import json
    import re

    page = client.get(f"/matches/{match.pk}/").content.decode()
    block = re.search(r'<script id="board-config" type="application/json">(.*?)</script>', page, re.S).group(1)
    return json.loads(block)


def test_a_players_first_five_matches_show_the_hints_then_they_are_off():
    fixture = make_league(2, slug="hints").fixtures.get()
    match = setup_match(fixture, timezone.now())
    home, _away = users_of(fixture)
    client = Client()
    client.force_login(home)
    assert _board_config(client, match)["hints"] is True
    for i in range(5):  # five earlier matches played to full time
        earlier = make_league(2, slug=f"hints{i}").fixtures.get()
        Match.objects.filter(pk=setup_match(earlier, timezone.now()).pk).update(
            home_user=home, status=Match.Status.ADJUDICATED)
    assert _board_config(client, match)["hints"] is False


def test_a_spectators_board_lists_the_referee_before_how_to_play():
    fixture = make_league(2, slug="spect").fixtures.get()
    match = setup_match(fixture, timezone.now())
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert page.index('id="feed"') < page.index('id="help"') and 'id="hints-toggle"' not in page
    home, _away = users_of(fixture)
    client = Client()
    client.force_login(home)
    mine = client.get(f"/matches/{match.pk}/").content.decode()
    assert mine.index('id="help"') < mine.index('id="feed"')  # a player reads how to play by the table
