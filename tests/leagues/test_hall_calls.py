"""Calling fixtures to the hall's numbered tables through the API (COMPETITIONS.md §12): the
refusals and their codes, the history, the notices, the auto-caller after a result, a struck
result leaving its table, and two organisers calling one table at once on PostgreSQL."""
from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from leagues.models import Competition, Entrant, Fixture, FixtureChange, Player
from leagues.notifications.models import Kind, Notification
from leagues.services.fixtures import fixtures_generate
from leagues.tasks import sweep
from tests.leagues.team_world import team_world

pytestmark = pytest.mark.django_db(transaction=True)


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def hall(n, *, tables=2, slug="day", **kwargs) -> tuple[Competition, APIClient]:
    """A competition of ``n`` players E1..En with accounts ``<slug>-e<i>``, ``tables`` hall
    tables, its fixtures drawn; and its organiser's API client."""
    organiser = get_user_model().objects.create_user(username=f"{slug}-organiser")
    competition = Competition.objects.create(name=slug, slug=slug, lots_seed=5, tables=tables, **kwargs)
    competition.organisers.add(organiser)
    for i in range(1, n + 1):
        user = get_user_model().objects.create_user(username=f"{slug}-e{i}")
        player = Player.objects.create(first_name=f"E{i}", last_name=slug, licence_number=f"{slug}-{i}", user=user)
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i, player=player)
    fixtures_generate(competition=competition)
    return competition, as_user(organiser)


def call(client, fixture, table):
    return client.post(f"/api/fixtures/{fixture.pk}/call/", {"hall_table": table}, format="json")


def record(client, fixture, home, away, **extra):
    return client.post(f"/api/fixtures/{fixture.pk}/result/", {"home_goals": home, "away_goals": away, **extra},
                       format="json")


def names(fixture) -> set[str]:
    return {fixture.home.name, fixture.away.name}


def with_entrant(competition, name, *, but=()) -> Fixture:
    return next(f for f in competition.fixtures.filter(status="scheduled").order_by("round__number", "position")
                if name in names(f) and f.pk not in but)


def test_a_call_puts_the_fixture_at_its_table_in_its_json_and_its_history():
    competition, organiser = hall(4)
    fixture = competition.fixtures.order_by("round__number", "position").first()
    response = call(organiser, fixture, 2)
    assert response.status_code == 200, response.content
    assert response.json()["hall_table"] == 2 and response.json()["called_at"]
    assert organiser.get(f"/api/fixtures/{fixture.pk}/").json()["hall_table"] == 2
    change = FixtureChange.objects.get(fixture=fixture, kind=FixtureChange.Kind.CALLED)
    assert (change.before["hall_table"], change.after["hall_table"]) == (None, 2)
    assert change.by.username == "day-organiser"
    assert call(organiser, fixture, 2).status_code == 200  # sent twice: nothing more
    assert FixtureChange.objects.filter(fixture=fixture, kind=FixtureChange.Kind.CALLED).count() == 1


def test_two_tables_calling_the_same_player_the_second_is_refused_entrant_busy():
    competition, organiser = hall(4)
    first = with_entrant(competition, "E1")
    assert call(organiser, first, 1).status_code == 200
    second = with_entrant(competition, "E1", but=[first.pk])
    response = call(organiser, second, 2)
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "entrant_busy" and body["hall_table"] == 1 and body["fixture"] == first.pk
    assert body["detail"] == f"E1 is playing at table 1 now: {first}"  # the fixture after a colon, not in brackets
    second.refresh_from_db()
    assert second.hall_table is None
    assert not FixtureChange.objects.filter(fixture=second).exists()


def test_the_same_table_twice_is_refused_table_busy():
    competition, organiser = hall(4)
    first, second = competition.fixtures.filter(round__number=1).order_by("position")
    assert call(organiser, first, 1).status_code == 200
    response = call(organiser, second, 1)
    assert response.status_code == 409 and response.json()["error"] == "table_busy"
    assert response.json()["fixture"] == first.pk


def test_a_player_inside_the_minimum_rest_is_refused_resting():
    competition, organiser = hall(4, min_rest_minutes=10)
    first = with_entrant(competition, "E1")
    assert call(organiser, first, 1).status_code == 200
    assert record(organiser, first, 2, 1).status_code == 200
    second = with_entrant(competition, "E1", but=[first.pk])
    response = call(organiser, second, 1)
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "resting" and body["minutes"] == 10 and body["until"]
    assert "E1" in body["detail"] and "10" in body["detail"]
    Competition.objects.filter(pk=competition.pk).update(min_rest_minutes=0)
    assert call(organiser, second, 1).status_code == 200  # the table freed with the result


def test_uncall_then_call_elsewhere_and_the_history_records_each():
    competition, organiser = hall(4)
    fixture = competition.fixtures.order_by("round__number", "position").first()
    assert call(organiser, fixture, 1).status_code == 200
    response = organiser.post(f"/api/fixtures/{fixture.pk}/uncall/", {"reason": "E1 is late"}, format="json")
    assert response.status_code == 200 and response.json()["hall_table"] is None
    assert response.json()["called_at"] is None
    assert call(organiser, fixture, 2).status_code == 200
    kinds = list(FixtureChange.objects.filter(fixture=fixture).order_by("at", "pk").values_list("kind", "before", "after"))
    assert [(k, b["hall_table"], a["hall_table"]) for k, b, a in kinds] == [
        ("called", None, 1), ("uncalled", 1, None), ("called", None, 2)]
    assert FixtureChange.objects.get(fixture=fixture, kind="uncalled").reason == "E1 is late"
    again = organiser.post(f"/api/fixtures/{fixture.pk}/uncall/", {}, format="json")
    assert again.status_code == 200
    assert organiser.post(f"/api/fixtures/{fixture.pk}/uncall/", {}, format="json").json()["error"] == "not_called"


def test_a_call_tells_the_two_players_and_the_tables_referee():
    competition, organiser = hall(4)
    referee = get_user_model().objects.create_user(username="rui")
    other = get_user_model().objects.create_user(username="ana")
    competition.referees.add(referee, other)
    Competition.objects.filter(pk=competition.pk).update(referee_tables={"rui": [2], "ana": [1]})
    fixture = competition.fixtures.order_by("round__number", "position").first()
    assert call(organiser, fixture, 2).status_code == 200
    told = set(Notification.objects.filter(kind=Kind.FIXTURE_CALLED).values_list("user__username", flat=True))
    players = {f"day-e{name[1:]}" for name in names(fixture)}
    assert told == players | {"rui"}
    assert "Table 2" in Notification.objects.filter(kind=Kind.FIXTURE_CALLED).first().subject


def test_auto_call_fills_the_tables_and_a_freed_table_after_a_result():
    competition, organiser = hall(6, tables=2)
    assert organiser.patch(f"/api/competitions/{competition.slug}/", {"auto_call": True},
                           format="json").status_code == 200
    round_one = list(competition.fixtures.filter(round__number=1).order_by("position"))
    for fixture in round_one:
        fixture.refresh_from_db()
    assert [f.hall_table for f in round_one] == [1, 2, None]
    assert record(organiser, round_one[0], 1, 0).status_code == 200
    round_one[2].refresh_from_db()
    assert round_one[2].hall_table == 1
    round_one[0].refresh_from_db()
    assert round_one[0].hall_table == 1 and round_one[0].status == "played"  # where it was played stays
    change = FixtureChange.objects.get(fixture=round_one[2], kind=FixtureChange.Kind.CALLED)
    assert change.by is None


def test_the_sweeper_makes_the_calls_a_lost_message_missed():
    competition, _organiser = hall(4, tables=2)
    Competition.objects.filter(pk=competition.pk).update(auto_call=True)  # no message sent
    assert not competition.fixtures.filter(hall_table__isnull=False).exists()
    assert sweep()["auto_called"] == 2
    assert sorted(competition.fixtures.values_list("hall_table", flat=True).exclude(hall_table=None)) == [1, 2]
    assert sweep()["auto_called"] == 0


def test_a_struck_result_leaves_its_table_so_it_can_be_called_again():
    competition, organiser = hall(4, format="knockout", tables=2)
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    final = competition.fixtures.get(round__number=2)
    for table, semi in enumerate(semis, start=1):
        assert call(organiser, semi, table).status_code == 200
        assert record(organiser, semi, 2, 0).status_code == 200
    final.refresh_from_db()
    assert call(organiser, final, 1).status_code == 200
    assert record(organiser, final, 1, 0).status_code == 200
    assert call(organiser, Fixture.objects.get(pk=semis[1].pk), 1).status_code == 409  # played: not_ready
    response = record(organiser, semis[0], 0, 2, cascade=True)
    assert response.status_code == 200, response.content
    final.refresh_from_db()
    assert final.status == "scheduled" and final.hall_table is None and final.called_at is None
    assert call(organiser, final, 2).status_code == 200


def test_only_organisers_call_and_uncall():
    competition, _organiser = hall(4)
    fixture = competition.fixtures.order_by("round__number", "position").first()
    player = as_user(get_user_model().objects.get(username="day-e1"))
    assert call(player, fixture, 1).status_code == 403
    assert player.post(f"/api/fixtures/{fixture.pk}/uncall/", {}, format="json").status_code == 403
    assert APIClient().post(f"/api/fixtures/{fixture.pk}/call/", {"hall_table": 1}, format="json").status_code in (
        401, 403)
    fixture.refresh_from_db()
    assert fixture.hall_table is None


@pytest.mark.parametrize("table", [0, 3, -1, "two", None])
def test_a_table_out_of_range_is_a_400_on_hall_table(table):
    competition, organiser = hall(4, tables=2)
    fixture = competition.fixtures.order_by("round__number", "position").first()
    response = call(organiser, fixture, table)
    assert response.status_code == 400 and "hall_table" in response.json()


def test_the_competition_json_carries_the_hall_settings_and_refuses_bad_table_names():
    competition, organiser = hall(4, tables=2)
    url = f"/api/competitions/{competition.slug}/"
    response = organiser.patch(url, {"tables": 3, "table_names": ["Centre", "", "Window"], "min_rest_minutes": 5},
                               format="json")
    assert response.status_code == 200, response.content
    body = organiser.get(url).json()
    assert (body["tables"], body["table_names"], body["min_rest_minutes"], body["auto_call"]) == (
        3, ["Centre", "", "Window"], 5, False)
    for names_ in (["a", "b", "c", "d"], ["tab\there"], ["x" * 41], "Centre", [1, 2]):
        response = organiser.patch(url, {"table_names": names_}, format="json")
        assert response.status_code == 400 and "table_names" in response.json(), names_
    assert organiser.patch(url, {"tables": 2}, format="json").json().keys() == {"table_names"}
    fixture = competition.fixtures.order_by("round__number", "position").first()
    assert call(organiser, fixture, 3).status_code == 200
    assert "tables" in organiser.patch(url, {"tables": 2, "table_names": []}, format="json").json()


def test_two_organisers_calling_one_table_at_once_one_wins_the_other_is_refused():
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row locks")
    competition, organiser = hall(4, tables=2)
    second = get_user_model().objects.create_user(username="second-organiser")
    competition.organisers.add(second)
    first_fixture, second_fixture = competition.fixtures.filter(round__number=1).order_by("position")
    barrier = threading.Barrier(2)
    answers = {}

    def send(client, fixture):
        try:
            barrier.wait(timeout=10)
            response = call(client, fixture, 1)
            answers[fixture.pk] = (response.status_code, response.json().get("error"))
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(organiser, first_fixture)),
               threading.Thread(target=send, args=(as_user(second), second_fixture))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(answers.values(), key=str) == [(200, None), (409, "table_busy")]
    assert competition.fixtures.filter(hall_table=1).count() == 1
    assert FixtureChange.objects.filter(fixture__competition=competition, kind="called").count() == 1


def test_a_team_tie_is_called_game_by_game_each_at_its_own_table():
    world = team_world(clubs=2, tables_per_tie=2)
    Competition.objects.filter(pk=world.competition.pk).update(tables=4)
    tie = world.ties()[0]
    games = world.games(tie)
    answer = call(world.api, tie, 1)
    assert answer.status_code == 409 and answer.json()["error"] == "not_ready"
    answer = call(world.api, games[0], 1)
    assert answer.status_code == 409 and "line-ups" in answer.json()["detail"]
    world.lineups(tie)
    assert call(world.api, games[0], 1).status_code == 200
    assert call(world.api, games[1], 2).status_code == 200  # the same two teams, other players
    assert world.api.get(f"/api/fixtures/{games[1].pk}/").json()["hall_table"] == 2
    browser = Client()
    browser.force_login(world.organiser)
    page = browser.get(f"/manage/{world.competition.slug}/day/").content.decode()
    games[0].refresh_from_db()
    assert f"{games[0].home_player.full_name} ({tie.home.name})" in page


def test_a_called_fixture_whose_entrants_change_leaves_its_table():
    competition, organiser = hall(4, format="knockout", tables=2)
    semis = list(competition.fixtures.filter(round__number=1).order_by("position"))
    for semi in semis:
        assert record(organiser, semi, 2, 0).status_code == 200
    final = competition.fixtures.get(round__number=2)
    assert call(organiser, final, 1).status_code == 200
    assert record(organiser, semis[0], 0, 2).status_code == 200  # the other semi-finalist goes through
    final.refresh_from_db()
    assert final.status == "scheduled" and final.hall_table is None and final.called_at is None
