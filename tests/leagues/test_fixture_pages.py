"""The fixture's page and the organisers' tools on it: the kick-off in the competition's zone,
the check-in window, a correction that asks to cascade, decisions, a new kick-off, the history."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from leagues.models import Competition, Entrant, Fixture, FixtureChange, Player, Result

pytestmark = pytest.mark.django_db


def setup(n=4, **kwargs):
    organiser = get_user_model().objects.create_user(username="org", password="x")
    competition = Competition.objects.create(name="Copa", slug="copa", lots_seed=1, time_zone="America/Sao_Paulo",
                                             **kwargs)
    competition.organisers.add(organiser)
    for i in range(1, n + 1):
        user = get_user_model().objects.create_user(username=f"p{i}", password="x")
        player = Player.objects.create(first_name=f"P{i}", last_name="Silva", licence_number=f"L{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i, player=player)
    from leagues.services.fixtures import fixtures_generate

    fixtures_generate(competition=competition)
    client = Client()
    client.force_login(organiser)
    return competition, client


def test_the_page_shows_the_kick_off_in_the_competitions_zone_and_the_window():
    competition, _ = setup(2, venue="online")
    fixture = competition.fixtures.get()
    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=timezone.now() + timedelta(days=3))
    player = Client()
    player.force_login(get_user_model().objects.get(username="p1"))
    page = player.get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "America/Sao_Paulo" in page and "Check-in opens at" in page
    # the site's way of writing a time ("Fri 4 Dec 2026, 15:30"), not Django's "Dec. 4, 2026, 3:30 p.m."
    fixture.refresh_from_db()
    opens = timezone.localtime(fixture.checkin_opens_at, competition.zone)
    assert f"Check-in opens at {opens:%a} {opens.day} {opens:%b %Y, %H:%M} (America/Sao_Paulo)." in page, page
    assert 'id="check-in"' not in page  # no button before the window
    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=timezone.now() + timedelta(minutes=10))
    assert 'id="check-in"' in player.get(f"/fixtures/{fixture.pk}/").content.decode()


def test_a_correction_on_the_page_asks_to_cascade_then_does():
    competition, organiser = setup(4, format="knockout")
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    form = {"outcome": "played", "home_goals": 2, "away_goals": 0}
    assert organiser.post(f"/manage/fixtures/{semis[0].pk}/result/", form).status_code == 302
    assert organiser.post(f"/manage/fixtures/{semis[1].pk}/result/", form).status_code == 302
    final = competition.fixtures.get(label="Final")
    assert organiser.post(f"/manage/fixtures/{final.pk}/result/", form).status_code == 302
    correction = {"outcome": "played", "home_goals": 0, "away_goals": 1}
    page = organiser.post(f"/manage/fixtures/{semis[0].pk}/result/", correction)
    assert page.status_code == 200 and b"cascade" in page.content and b"id_cascade_confirm" in page.content
    assert Result.objects.get(fixture=semis[0]).home_goals == 2
    done = organiser.post(f"/manage/fixtures/{semis[0].pk}/result/", {**correction, "cascade": "on"})
    assert done.status_code == 302
    final.refresh_from_db()
    assert final.home.name == "E4" and final.status == "scheduled"
    history = organiser.get(f"/fixtures/{final.pk}/").content.decode()
    assert "Result struck by a correction of an earlier round" in history


def test_decision_annulment_and_reschedule_from_the_fixture_page():
    competition, organiser = setup(2, venue="online")
    fixture = competition.fixtures.get()
    page = organiser.get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "A decision on the online match" in page and "Move the kick-off" in page
    organiser.post(f"/manage/fixtures/{fixture.pk}/reschedule/", {"kickoff": "2026-12-20T19:00", "reason": "Rain"})
    fixture.refresh_from_db()
    assert fixture.kickoff_at.isoformat() == "2026-12-20T22:00:00+00:00"  # 19:00 in São Paulo
    response = organiser.post(f"/manage/fixtures/{fixture.pk}/decision/", {
        "outcome": "walkover", "outcome_side": "away", "reason": "Did not come."})
    assert response.status_code == 302
    assert Result.objects.get(fixture=fixture).source == "decision"
    page = organiser.get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "Did not come." in page and "overrides the online match" in page
    assert list(FixtureChange.objects.filter(fixture=fixture).values_list("kind", flat=True).order_by("at")) == [
        "rescheduled", "decision"]


def test_a_round_moves_from_the_organisers_page():
    competition, organiser = setup(4)
    round_one = competition.stages.get().rounds.get(number=1)
    response = organiser.post(f"/manage/{competition.slug}/reschedule-round/", {
        "round": round_one.pk, "kickoff": "2026-12-13T10:30", "reason": "Holiday"})
    assert response.status_code == 302
    assert {f.kickoff_at.isoformat() for f in round_one.fixtures.all()} == {"2026-12-13T13:30:00+00:00"}
    assert FixtureChange.objects.filter(kind="rescheduled").count() == 2


def test_the_rounds_to_move_are_named_in_the_readers_language():
    competition, organiser = setup(4)
    page = organiser.get(f"/manage/{competition.slug}/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert ">Giornata 1</option>" in page and ">Round 1</option>" not in page


def test_the_fixture_page_of_a_played_fixture_shows_the_score_and_how():
    competition, organiser = setup(2, format="knockout")
    fixture = competition.fixtures.get()
    organiser.post(f"/manage/fixtures/{fixture.pk}/result/", {
        "outcome": "played", "home_goals": 1, "away_goals": 1, "home_shootout": 4, "away_shootout": 3})
    page = Client().get(f"/fixtures/{fixture.pk}/").content.decode()
    assert "Official result" in page and "1–1" in page and "shoot-out, 4–3" in page


def test_while_one_player_is_in_the_badge_says_check_in_is_under_way_not_checked_in():
    """The opponent checked in, not the reader: the page's badge must not tell the reader
    "Checked in"; each side's line says who is in."""
    from leagues.services.online import fixture_check_in

    competition, _ = setup(2, venue="online")
    fixture = competition.fixtures.get()
    Fixture.objects.filter(pk=fixture.pk).update(kickoff_at=timezone.now() + timedelta(minutes=10))
    fixture.refresh_from_db()
    home_user = fixture.home.player.user
    away_user = fixture.away.player.user
    fixture_check_in(fixture=fixture, user=home_user)
    reader = Client()
    reader.force_login(away_user)
    page = reader.get(f"/fixtures/{fixture.pk}/").content.decode()
    badge = page.split('id="fixture-status">', 1)[1].split("<", 1)[0]
    assert badge == "Checking in", badge
    assert 'id="check-in"' in page


def test_the_page_of_a_fixture_played_online_lists_its_goals_with_their_time_and_scorer():
    from leagues.management.commands.play_fixtures import play_bot_match
    from matches.models import MatchAction

    competition, _ = setup(2, venue="online")
    fixture = competition.fixtures.get()
    match = play_bot_match(fixture=fixture)
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    scored = [(r.seq, e) for r in MatchAction.objects.filter(match=match) for e in r.events if e.get("type") == "goal"]
    if not scored:  # a goalless bot match: give its log a goal to show (the page reads the log's events)
        row = MatchAction.objects.filter(match=match, action__type="flick").order_by("seq").first()
        row.events = [*row.events, {"type": "goal", "side": "home", "piece": "7", "rule": "rulebook 4",
                                    "message": {"key": "goal", "params": {"side": "home", "piece": "7"}}}]
        row.save(update_fields=["events"])
        scored = [(row.seq, row.events[-1])]
    page = Client().get(f"/fixtures/{fixture.pk}/").content.decode()
    goals = page.split('id="goals">', 1)[1].split("</ol>", 1)[0]
    seq, event = scored[0]
    t = MatchAction.objects.get(match=match, seq=seq).action["t"]
    assert f"{int(t) // 60:02d}:{int(t) % 60:02d}" in goals
    assert f"scored by button {event['piece']}." in goals
    assert goals.count("<li>") == len(scored)
