"""Watchers of a live match over WebSockets (issue 20): each change pushed to every watcher, the
database read once per change and process however many watch, watching drives nothing.

In process through ``config.asgi`` with Channels' communicator, and (integration) through a real
uvicorn process told of a flick made in another process by Redis alone (its own looks switched
off), then while Redis is stopped and started again."""
from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.utils import timezone

from config.asgi import application
from matches import selectors, watching
from matches.models import Match
from matches.services import online, spectating
from tests.conftest import ROOT, _worker_env
from tests.matches.conftest import make_league, setup_match, users_of
from tests.matches.test_online import flick

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")


def live_now(slug: str):
    """A live match kicked off now, and its two users."""
    fixture = make_league(2, slug=slug).fixtures.get()
    home, away = users_of(fixture)
    now = timezone.now()
    match = setup_match(fixture, now)
    online.check_in(match_id=match.pk, user=home, now=now)
    match = online.check_in(match_id=match.pk, user=away, now=now)
    assert match.status == Match.Status.LIVE
    return match, home, away


def move(match_id: int, users: dict) -> int:
    """The side to move flicks (the stub referee); returns the new seq."""
    match = Match.objects.get(pk=match_id)
    side = match.state["to_move"]
    answer = online.submit_action(match_id=match_id, user=users[side], seq=match.seq + 1, action_json=flick())
    assert answer.status_code == 201, answer.data
    return answer.data["seq"]


def watcher(match_id: int, query: str = "after=0", headers=(ORIGIN,)) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, f"/ws/matches/{match_id}/?{query}", headers=list(headers))


async def next_push(communicator: WebsocketCommunicator, timeout: float = 3) -> dict:
    return json.loads(await communicator.receive_from(timeout=timeout))


def test_every_watcher_gets_each_flick_pushed_and_the_database_is_read_once_per_change(stub_referee, monkeypatch):
    match, home, away = live_now("push")
    users = {"home": home, "away": away}
    heads, builds = [], []
    real_head, real_build = selectors.feed_head, selectors.board_feed
    monkeypatch.setattr(selectors, "board_feed", lambda *a, **k: builds.append(1) or real_build(*a, **k))
    monkeypatch.setattr(watching, "_head", database_sync_to_async(
        lambda *a, **k: heads.append(1) or real_head(*a, **k)))

    async def scenario() -> None:
        crowd = [watcher(match.pk, f"after={match.seq}") for _ in range(25)]
        for c in crowd:
            assert (await c.connect())[0]
        for c in crowd:  # the state on joining
            assert (await next_push(c))["match"]["seq"] == match.seq
        heads.clear(), builds.clear()
        for _flick in range(3):
            seq = await database_sync_to_async(move)(match.pk, users)
            for c in crowd:
                data = await next_push(c)
                assert data["match"]["seq"] == seq and [r["seq"] for r in data["actions"]] == [seq]
                assert data["actions"][0]["frames"] is not None and data["match"]["server_now"] != selectors.SERVER_NOW_MARK
        for c in crowd:
            await c.disconnect()

    async_to_sync(scenario)()
    # 25 watchers, 3 flicks: the head read a few times per flick, the answer built once per flick
    assert len(builds) == 3
    assert len(heads) <= 3 * 3


def test_a_watcher_that_joins_late_gets_what_it_lacks(stub_referee):
    match, home, away = live_now("late")
    users = {"home": home, "away": away}
    for _flick in range(3):
        move(match.pk, users)

    async def scenario() -> dict:
        c = watcher(match.pk, "after=1&frames=0&lang=es")
        assert (await c.connect())[0]
        data = await next_push(c)
        await c.disconnect()
        return data

    data = async_to_sync(scenario)()
    assert [r["seq"] for r in data["actions"]] == [2, 3] and data["actions"][0]["frames"] == []


@pytest.mark.parametrize("query, code", [("after=x", 4400), ("after=-3", 4400), ("after=2147483648", 4400),
                                         ("after=%205", 4400), ("after=1_0", 4400)])
def test_a_malformed_query_is_closed_with_4400(query, code):
    async def scenario():
        c = watcher(1, query)
        connected, _ = await c.connect()
        assert connected
        return await c.receive_output(timeout=2)

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": code}


def test_no_such_match_is_closed_with_4404():
    async def scenario():
        c = watcher(987654, "after=0")
        assert (await c.connect())[0]
        return await c.receive_output(timeout=3)

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": 4404}


@pytest.mark.parametrize("path", ["/ws/matches/abc/", "/ws/matches/-1/", "/ws/matches/9223372036854775808/",
                                  "/ws/matches/99999999999999999999/", "/ws/nope/"])
def test_a_socket_path_that_is_no_route_is_refused_not_a_500(path):
    async def scenario():
        connected, _ = await WebsocketCommunicator(application, path, headers=[ORIGIN]).connect()
        return connected

    assert async_to_sync(scenario)() is False


@pytest.mark.parametrize("path", ["/matches/9223372036854775808/feed/", "/matches/9223372036854775808/",
                                  "/fixtures/9223372036854775808/", "/api/matches/99999999999999999999/"])
def test_an_id_no_row_can_have_is_a_404(client, path):
    assert client.get(path).status_code == 404


def test_a_socket_from_another_sites_page_is_refused():
    async def scenario():
        connected, _ = await watcher(1, "after=0", headers=[(b"origin", b"https://elsewhere.example")]).connect()
        return connected

    assert async_to_sync(scenario)() is False


def test_a_watched_bot_match_moves_by_its_driver_not_by_its_watchers(monkeypatch):
    fixture = make_league(2, slug="botwatch").fixtures.get()
    match = setup_match(fixture, timezone.now() - timedelta(seconds=10), computer_sides=["home", "away"])
    assert Match.objects.get(pk=match.pk).watched_until is None

    async def scenario() -> list[int]:
        c = watcher(match.pk, "after=0")
        assert (await c.connect())[0]
        seqs = [(await next_push(c))["match"]["seq"]]
        assert await database_sync_to_async(spectating.play_due)() == 1  # the driver (beat, run_clock)
        seqs.append((await next_push(c))["match"]["seq"])
        await c.disconnect()
        return seqs

    assert async_to_sync(scenario)() == [0, 1]
    assert Match.objects.get(pk=match.pk).watched_until > timezone.now()  # the room marked it watched


def test_a_watcher_that_does_not_read_holds_nobody_up_and_is_closed(stub_referee, monkeypatch):
    match, _home, _away = live_now("stalled")
    monkeypatch.setattr(watching, "PUSH_TIMEOUT_S", 0.5)

    class Stalled:
        closed = None

        async def push(self, text):
            await asyncio.sleep(3600)  # a phone in a tunnel

        async def close(self, code):
            self.closed = code

    class Quick:
        def __init__(self):
            self.got = []

        async def push(self, text):
            self.got.append(time.monotonic())

        async def close(self, code):
            pass

    async def scenario():
        hub = watching.hub()
        stalled = [watching.Seat(Stalled(), after=0) for _ in range(4)]
        quick = watching.Seat(Quick(), after=0)
        started = time.monotonic()
        for seat in (*stalled, quick):
            await hub.join(seat, match.pk)
        await asyncio.sleep(1.0)
        for seat in (*stalled, quick):
            await hub.leave(seat, match.pk)
        return [seat.consumer.closed for seat in stalled], [t - started for t in quick.consumer.got]

    closed, got = async_to_sync(scenario)()
    assert closed == [4408] * 4
    assert got and got[0] < 0.4  # not held up by the other's 0.5 s


def test_run_clock_applies_passed_deadlines_and_plays_watched_bot_matches_only(stub_referee):
    from django.core.management import CommandError, call_command

    human, home, away = live_now("clock-human")
    Match.objects.filter(pk=human.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    fixture = make_league(2, slug="clock-bots", rule_params={"half_minutes": 5}).fixtures.get()
    watched = setup_match(fixture, timezone.now() - timedelta(seconds=10), computer_sides=["home", "away"])
    spectating.mark_watched(watched.pk)
    other = make_league(2, slug="clock-alone", rule_params={"half_minutes": 5}).fixtures.get()
    alone = setup_match(other, timezone.now() - timedelta(seconds=10), computer_sides=["home", "away"])
    call_command("run_clock", "--once")
    assert Match.objects.get(pk=human.pk).deadline_at > timezone.now()  # the turn passed on
    assert Match.objects.get(pk=watched.pk).seq == 1
    assert Match.objects.get(pk=alone.pk).seq == 0  # nobody watches it: it waits
    with pytest.raises(CommandError, match="--every"):
        call_command("run_clock", "--every", "0")


def test_the_board_opens_its_socket_where_live_url_says(settings, client):
    match, _home, _away = live_now("live-url")
    assert f'"liveUrl": "/ws/matches/{match.pk}/"' in client.get(f"/matches/{match.pk}/").content.decode()
    settings.LIVE_URL = "wss://live.botonera.example"
    body = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'"liveUrl": "wss://live.botonera.example/ws/matches/{match.pk}/"' in body


# --- a real server: the push crosses processes by Redis alone ------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_asgi(tmp_path, **env) -> tuple[subprocess.Popen, int]:
    """uvicorn serving ``config.asgi`` on the test database (``env``: more of its environment)."""
    port = _free_port()
    log = tmp_path / f"uvicorn-{port}.log"
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
                             "--host", "127.0.0.1", "--log-level", "warning"], cwd=ROOT,
                            env={**_worker_env(connection.settings_dict["NAME"]), "DEBUG": "1", **env},
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port
        except OSError:
            assert proc.poll() is None, log.read_text()
            time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"uvicorn did not answer: {log.read_text()}")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def asgi_server(services, tmp_path):
    """A live server whose rooms never look by themselves (``LIVE_CHECK_SECONDS`` 600): only
    Redis can tell it of a change in time."""
    proc, port = serve_asgi(tmp_path, LIVE_CHECK_SECONDS="600")
    yield port
    stop(proc)


@pytest.mark.integration
@pytest.mark.slow
def test_a_flick_made_in_another_process_reaches_the_servers_watchers_through_redis(stub_referee, asgi_server):
    from websockets.sync.client import connect

    match, home, away = live_now("redis-push")
    users = {"home": home, "away": away}
    url = f"ws://127.0.0.1:{asgi_server}/ws/matches/{match.pk}/?after={match.seq}"
    with connect(url, origin=f"http://127.0.0.1:{asgi_server}") as a, connect(url, origin="http://localhost") as b:
        for ws in (a, b):
            assert json.loads(ws.recv(timeout=10))["match"]["seq"] == match.seq
        for _flick in range(2):
            seq = move(match.pk, users)
            start = time.monotonic()
            for ws in (a, b):
                data = json.loads(ws.recv(timeout=2))  # the room looks by itself only every 600 s
                assert data["match"]["seq"] == seq and [r["seq"] for r in data["actions"]] == [seq]
            assert time.monotonic() - start < 2


def _settled(page, frames: list, polls: list) -> None:
    """Waits for the board's first poll (after its history) and the socket's first frame (the
    browser's events reach these lists only while Playwright is called, so wait through it),
    then forgets the polls so far."""
    deadline = time.monotonic() + 20
    while not (frames and any("frames=0" not in url for url in polls)) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    page.wait_for_timeout(300)
    polls.clear()


@pytest.mark.integration
@pytest.mark.slow
def test_a_spectators_board_in_a_browser_follows_the_match_by_its_socket_not_by_polls(stub_referee, asgi_server):
    from tests.browser import chromium

    match, home, away = live_now("board-socket")
    users = {"home": home, "away": away}
    base = f"http://127.0.0.1:{asgi_server}"
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True).new_page()
        polls, frames = [], []
        page.on("request", lambda r: polls.append(r.url) if "/feed/" in r.url else None)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
        page.goto(f"{base}/matches/{match.pk}/")
        page.wait_for_function("window.botonera && botonera.idle()")
        _settled(page, frames, polls)
        for _flick in range(3):
            seq = move(match.pk, users)
            page.wait_for_function(f"botonera.header().seq >= {seq}", timeout=3000)
        assert len(frames) >= 3
        assert polls == []  # the socket brought every flick: the board's net polls every 15 s


@pytest.mark.integration
@pytest.mark.slow
def test_a_players_board_animates_the_opponents_flicks_from_the_push_without_asking_its_feed(
        stub_referee, asgi_server):
    """The opponent's board sees a flick when a spectator's does: the push is the feed answer,
    with nothing private to a player in it, so the player's board takes it as it comes instead
    of asking its own feed first (one more round trip). Only its net poll, every 2 s, remains."""
    from tests.browser import chromium, sign_in

    match, home, away = live_now("player-socket")
    away.set_password("pw-socket-1")
    away.save()
    users = {"home": home, "away": away}
    base = f"http://127.0.0.1:{asgi_server}"
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True).new_page()
        sign_in(page, base, away.username, "pw-socket-1")
        polls, frames = [], []
        page.on("request", lambda r: polls.append(r.url) if "/feed/" in r.url else None)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
        page.goto(f"{base}/matches/{match.pk}/")
        page.wait_for_function("window.botonera && botonera.idle()")
        _settled(page, frames, polls)
        start = time.monotonic()
        for _flick in range(3):
            seq = move(match.pk, users)
            page.wait_for_function(f"botonera.header().seq >= {seq}", timeout=3000)
        elapsed = time.monotonic() - start
        # before, every push sent the board to its feed: 3 polls at least, besides the net's
        assert len(polls) <= int(elapsed / 2.0) + 1 < 3 or elapsed >= 4, (polls, elapsed)


@pytest.mark.integration
@pytest.mark.slow
def test_watchers_keep_getting_flicks_while_redis_is_down_and_after_it_is_back(stub_referee, services, tmp_path,
                                                                               settings):
    """Redis (a server of the test's own) stopped: the flick is still pushed (the room looks by
    itself every LIVE_POLL_SECONDS), no write fails; started again: the subscription comes back
    and pushes are immediate again."""
    from websockets.sync.client import connect

    from tests.bench.faults import RedisServer

    own_redis = RedisServer(tmp_path).start()
    settings.REDIS_URL = own_redis.url  # this process publishes there too
    proc, port = serve_asgi(tmp_path, REDIS_URL=own_redis.url, LIVE_CHECK_SECONDS="600", LIVE_POLL_SECONDS="0.5")
    try:
        match, home, away = live_now("redis-blip")
        users = {"home": home, "away": away}
        url = f"ws://127.0.0.1:{port}/ws/matches/{match.pk}/?after={match.seq}"
        with connect(url, origin="http://localhost") as ws:
            assert json.loads(ws.recv(timeout=10))["match"]["seq"] == match.seq
            seq = move(match.pk, users)
            assert json.loads(ws.recv(timeout=2))["match"]["seq"] == seq  # by Redis
            own_redis.stop()
            time.sleep(1)  # the server sees its subscription gone
            seq = move(match.pk, users)  # the publication fails, the write does not
            assert json.loads(ws.recv(timeout=5))["match"]["seq"] == seq
            own_redis = RedisServer(tmp_path, port=own_redis.port).start()
            time.sleep(3)  # the subscription comes back (tried every second)
            seq = move(match.pk, users)
            started = time.monotonic()
            assert json.loads(ws.recv(timeout=5))["match"]["seq"] == seq
            assert time.monotonic() - started < 1.5
    finally:
        stop(proc)
        own_redis.stop()
