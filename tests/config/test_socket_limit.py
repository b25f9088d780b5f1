"""At most LIVE_MAX_SOCKETS_PER_ADDRESS watchers' WebSockets per client address in a live
process: the next handshake is refused before any database work, a closed socket frees its
slot however it ends, and behind a trusted proxy the forwarded address is the one counted.

In process through ``config.asgi`` with Channels' communicator, and (integration) against the
Procfile's ``live`` process, whose uvicorn answers the refusal with a 429."""
from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.db.backends.utils import CursorWrapper

from config.asgi import application
from tests.matches.test_watching import live_now, move
from tests.test_procfile import serve_live, stop_live

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")


def socket_from(address: str, match_id: int, *, forwarded: str | None = None, peer_port: int = 50000,
                extensions: dict | None = None) -> WebsocketCommunicator:
    """A watcher's socket whose connection comes from ``address`` (and says ``X-Forwarded-For:
    forwarded`` when given)."""
    headers = [ORIGIN] + ([(b"x-forwarded-for", forwarded.encode())] if forwarded else [])
    communicator = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?after=0", headers=headers)
    communicator.scope["client"] = (address, peer_port)
    if extensions is not None:
        communicator.scope["extensions"] = extensions
    return communicator


async def opened(communicator: WebsocketCommunicator) -> bool:
    connected, _ = await communicator.connect(timeout=3)
    return connected


@pytest.fixture
def cap(settings):
    settings.LIVE_MAX_SOCKETS_PER_ADDRESS = 2
    return 2


@pytest.fixture
def match_id():
    match, _home, _away = live_now("capped")
    return match.pk


def test_the_socket_beyond_the_cap_from_one_address_is_refused_and_another_address_is_let_in(cap, match_id):
    async def scenario() -> list[bool]:
        crowd = [socket_from("198.51.100.1", match_id, peer_port=50000 + i) for i in range(cap + 1)]
        other = socket_from("198.51.100.2", match_id)
        answers = [await opened(c) for c in crowd] + [await opened(other)]
        for c in [*crowd, other]:
            await c.disconnect()
        return answers

    assert async_to_sync(scenario)() == [True, True, False, True]


def test_the_refusal_is_a_429_where_the_server_can_send_one(cap, match_id):
    async def scenario() -> dict:
        crowd = [socket_from("198.51.100.3", match_id, extensions={"websocket.http.response": {}})
                 for _ in range(cap + 1)]
        for c in crowd[:cap]:
            assert await opened(c)
        await crowd[cap].send_input({"type": "websocket.connect"})
        start = await crowd[cap].receive_output(timeout=3)
        body = await crowd[cap].receive_output(timeout=3)
        for c in crowd[:cap]:
            await c.disconnect()
        return {"status": start.get("status"), "type": start["type"], "body": body.get("body", b"").decode()}

    answer = async_to_sync(scenario)()
    assert answer["type"] == "websocket.http.response.start" and answer["status"] == 429
    assert "at most 2" in answer["body"]


@pytest.mark.parametrize("ending", ["the client leaves", "the server closes it", "its task is cancelled"])
def test_a_closed_socket_frees_its_slot(cap, match_id, ending):
    async def scenario() -> tuple[bool, bool]:
        first = [socket_from("198.51.100.4", match_id) for _ in range(cap)]
        for c in first:
            assert await opened(c)
        full = await opened(socket_from("198.51.100.4", match_id))
        if ending == "the client leaves":
            await first[0].disconnect()
        elif ending == "the server closes it":  # a malformed query: closed 4400, then the server's disconnect
            await first[0].disconnect()
            bad = socket_from("198.51.100.4", match_id)
            bad.scope["query_string"] = b"after=x"
            assert await opened(bad)
            assert await bad.receive_output(timeout=3) == {"type": "websocket.close", "code": 4400}
            await bad.send_input({"type": "websocket.disconnect", "code": 4400})
            await bad.wait(timeout=3)
        else:  # the server stopping, a lost connection the server gives up on
            first[0].future.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await first[0].future
        again = socket_from("198.51.100.4", match_id)
        freed = await opened(again)
        for c in [*first[1:], again]:
            await c.disconnect()
        return full, freed

    assert async_to_sync(scenario)() == (False, True)


def test_behind_a_trusted_proxy_the_forwarded_address_is_counted(cap, match_id, settings):
    settings.TRUSTED_PROXY_COUNT = 1

    async def scenario() -> list[bool]:
        # every socket comes through the proxy 10.0.0.5, which appends the address it saw; what
        # the client wrote before it (192.0.2.x, a new one each time) does not count
        crowd = [socket_from("10.0.0.5", match_id, forwarded=f"192.0.2.{i}, 203.0.113.50") for i in range(cap + 1)]
        other = socket_from("10.0.0.5", match_id, forwarded="203.0.113.51")
        answers = [await opened(c) for c in crowd] + [await opened(other)]
        for c in [*crowd, other]:
            await c.disconnect()
        return answers

    assert async_to_sync(scenario)() == [True, True, False, True]


def test_without_a_trusted_proxy_a_forged_forwarded_address_dodges_nothing(cap, match_id):
    async def scenario() -> list[bool]:
        crowd = [socket_from("198.51.100.6", match_id, forwarded=f"203.0.113.{i}") for i in range(cap + 1)]
        answers = [await opened(c) for c in crowd]
        for c in crowd:
            await c.disconnect()
        return answers

    assert async_to_sync(scenario)() == [True, True, False]


def test_a_refused_socket_costs_no_query(cap, match_id, settings, monkeypatch):
    settings.LIVE_CHECK_SECONDS = settings.LIVE_POLL_SECONDS = 600  # the room looks only when told
    queries: list[str] = []
    execute = CursorWrapper.execute

    def counted(self, sql, params=None):  # every query of every thread (the consumers' run in threads)
        queries.append(sql)
        return execute(self, sql, params)

    async def scenario() -> tuple[int, bool]:
        crowd = [socket_from("198.51.100.7", match_id) for _ in range(cap)]
        for c in crowd:
            assert await opened(c)
            json.loads(await c.receive_from(timeout=3))  # the state on joining: read from the database
        await asyncio.sleep(0.2)
        monkeypatch.setattr(CursorWrapper, "execute", counted)
        refused = socket_from("198.51.100.7", match_id)
        accepted = await opened(refused)
        await asyncio.sleep(0.3)
        monkeypatch.setattr(CursorWrapper, "execute", execute)
        for c in crowd:
            await c.disconnect()
        if accepted:
            await refused.disconnect()
        return len(queries), accepted

    count, accepted = async_to_sync(scenario)()
    assert not accepted
    assert count == 0, queries


@pytest.mark.integration
@pytest.mark.slow
def test_the_live_process_answers_429_beyond_the_cap_and_counts_each_forwarded_address(
        services, stub_referee, tmp_path):
    """The Procfile's ``live`` behind one trusted proxy, 3 sockets per address: a fourth from
    one address is refused with 429 while another address is let in and sees the next flick;
    closing one frees its slot."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    match, home, away = live_now("capped-live")
    proc, port = serve_live(tmp_path, LIVE_MAX_SOCKETS_PER_ADDRESS="3", TRUSTED_PROXY_COUNT="1",
                            LIVE_CONCURRENCY="1")
    url = f"ws://127.0.0.1:{port}/ws/matches/{match.pk}/?after={match.seq}"

    def watch(address: str):
        return connect(url, origin="http://localhost", additional_headers={"X-Forwarded-For": address},
                       open_timeout=10, ping_interval=None)

    try:
        with contextlib.ExitStack() as sockets:
            crowd = [sockets.enter_context(watch("203.0.113.7")) for _ in range(3)]
            with pytest.raises(InvalidStatus) as refused:
                watch("203.0.113.7")
            assert refused.value.response.status_code == 429
            with watch("198.51.100.9") as other:
                assert json.loads(other.recv(timeout=10))["match"]["seq"] == match.seq
                seq = move(match.pk, {"home": home, "away": away})
                assert json.loads(other.recv(timeout=10))["match"]["seq"] == seq
            crowd[0].close()
            deadline = time.monotonic() + 5
            while True:  # the server sees the close a moment later
                try:
                    sockets.enter_context(watch("203.0.113.7"))
                    break
                except InvalidStatus:
                    assert time.monotonic() < deadline, "the closed socket's slot was not freed"
                    time.sleep(0.1)
    finally:
        stop_live(proc)
