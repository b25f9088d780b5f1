"""The hall screen's socket (``/ws/competitions/<slug>/hall/``): told when the day moved, by
Redis, and every write of the results tells it after commit (``results_changed``), never before
nor for a write rolled back. In process through ``config.asgi`` with Channels' communicator,
on the test's Redis (``REDIS_URL``)."""
from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction

from config.asgi import application
from leagues import hall_watching
from leagues.models import Fixture
from leagues.services import hall_signal, locks
from leagues.services.standings import standings_recompute
from tests.leagues.test_hall_screen import day, open_fixtures, record

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")


def screen(slug: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, f"/ws/competitions/{slug}/hall/", headers=[ORIGIN])


async def subscribed() -> None:
    for _ in range(100):
        if hall_watching.hub().subscribed:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the hub never subscribed to Redis")


def joined() -> int:
    return sum(len(screens) for screens in hall_watching.hub().screens.values())


def test_a_screen_is_told_when_its_competitions_day_moves_and_not_for_another(services):
    competition, api = day(4, slug="sock")
    other, _api = day(4, slug="sock-other")
    fixture = open_fixtures(competition)[0]

    async def scenario() -> None:
        first, second, elsewhere = screen(competition.slug), screen(competition.slug), screen(other.slug)
        for n, communicator in enumerate((first, second, elsewhere), start=1):
            assert (await communicator.connect())[0]
            assert joined() == n  # in the hub once the screen hears its socket is open
        await subscribed()
        hub = hall_watching.hub()
        assert sorted(hub.screens) == sorted([competition.pk, other.pk]) and hub.listener is not None  # one subscription
        await database_sync_to_async(hall_signal.announce)(competition.pk)  # a call (another helper's writes)
        for communicator in (first, second):
            assert json.loads(await communicator.receive_from(timeout=3)) == {"hall": "changed"}
        await database_sync_to_async(record)(api, fixture, 2, 0)  # a result through the API
        for communicator in (first, second):
            assert json.loads(await communicator.receive_from(timeout=3)) == {"hall": "changed"}
        assert await elsewhere.receive_nothing(timeout=0.3)
        for communicator in (first, second, elsewhere):
            await communicator.disconnect()
        assert hub.screens == {} and hub.listener is None  # the subscription ends with the last screen

    asyncio.run(scenario())


def test_no_such_competition_is_closed_with_4404(services):
    async def scenario():
        communicator = screen("no-such-day")
        connected, _ = await communicator.connect()
        assert connected
        assert (await communicator.receive_output(timeout=3))["code"] == 4404
        await communicator.disconnect()

    asyncio.run(scenario())


def test_without_redis_the_socket_says_4501_and_the_screen_polls(settings):
    settings.REDIS_URL = ""
    competition, _api = day(2, slug="no-redis")

    async def scenario():
        communicator = screen(competition.slug)
        assert (await communicator.connect())[0]
        assert (await communicator.receive_output(timeout=3))["code"] == 4501
        await communicator.disconnect()

    asyncio.run(scenario())


def test_results_changed_tells_the_hall_screens_after_commit_only(settings, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # never reached: the announcement is recorded
    told: list[int] = []
    monkeypatch.setattr(hall_signal, "announce", told.append)
    competition, _api = day(2, slug="on-commit")
    told.clear()  # the draw's own
    with transaction.atomic():
        locks.lock_competition(competition.pk)
        locks.results_changed(competition.pk)
        assert told == []  # not before the commit
    assert told and set(told) == {competition.pk}  # (and again from the recomputation it sent)
    told.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        locks.lock_competition(competition.pk)
        locks.results_changed(competition.pk)
        raise RuntimeError("the write is refused")
    assert told == []  # nothing for a write rolled back


def test_a_result_recorded_through_the_api_tells_the_hall_screens_once_committed(settings, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    told: list[int] = []
    monkeypatch.setattr(hall_signal, "announce", told.append)
    competition, api = day(2, slug="api-tells")
    told.clear()
    record(api, competition.fixtures.get(), 1, 0)
    assert told and set(told) == {competition.pk}  # the result's, and the standings recomputed after it
    assert Fixture.objects.get(competition=competition).status == Fixture.Status.PLAYED


def test_standings_recomputed_tell_the_hall_screens_after_commit(settings, monkeypatch):
    """The worker's recomputation comes after the result's word: the screens hear of the new
    standings and bracket too, not only at their next look."""
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    told: list[int] = []
    monkeypatch.setattr(hall_signal, "announce", told.append)
    competition, _api = day(2, slug="recomputed")
    told.clear()
    assert standings_recompute(competition_id=competition.pk, force=True)
    assert told == [competition.pk]
    told.clear()
    assert not standings_recompute(competition_id=competition.pk)  # nothing new: nothing said
    assert told == []
