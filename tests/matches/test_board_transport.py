"""The board's transport (``static/js/board/transport.js``) when its WebSocket is refused (the
live process's cap on sockets per address, a proxy that drops them): it polls the feed as
without a socket and tries the socket again later. Run by Node on the module itself, with the
browser's objects stubbed (no page, no server)."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NODE = shutil.which("node")

SCRIPT = r"""
const fs = await import("node:fs");
const source = fs.readFileSync(process.argv[1], "utf8");
const polls = [], sockets = [];
globalThis.window = globalThis;
globalThis.document = {cookie: "", documentElement: {lang: "es"}};
globalThis.location = {protocol: "http:", host: "botonera.example"};
globalThis.WebSocket = class {
  constructor(url) {   // the handshake refused (a 429): closed, never opened
    this.url = url;
    sockets.push(Date.now());
    setTimeout(() => this.onclose && this.onclose({code: 1006}), 10);
  }
  close() {}
};
globalThis.fetch = (url) => {
  polls.push(url);
  const body = {match: {status: "live", finished: false, official: false, seq: 0}, actions: []};
  return Promise.resolve({ok: true, status: 200, json: () => Promise.resolve(body)});
};
const {createTransport} = await import("data:text/javascript," + encodeURIComponent(source));
const feeds = [];
const transport = createTransport(
  {feed: "/matches/7/feed/", replay: "/matches/7/replay/", actions: "/api/matches/7/actions/", live: "/ws/matches/7/"},
  {lastSeq: () => 0, onFeed: (data) => feeds.push(data.match.seq), onConnection: () => {}, player: false});
const start = Date.now();
transport.start();
setTimeout(() => {
  transport.stop();
  console.log(JSON.stringify({polls: polls.length, feeds: feeds.length,
                              sockets: sockets.map((t) => t - start)}));
}, 3500);
"""


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_refused_socket_leaves_the_board_polling_and_trying_the_socket_again():
    out = subprocess.run([NODE, "--input-type=module", "-e", SCRIPT, str(ROOT / "static/js/board/transport.js")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    # 3.5 s of a live match: a poll every 0.5 s (7), as with no socket at all
    assert seen["polls"] >= 4 and seen["feeds"] == seen["polls"]
    # the socket tried at the start, then again after 2 s (then 4, 8... s)
    assert len(seen["sockets"]) == 2 and seen["sockets"][0] < 100 and 1900 <= seen["sockets"][1] < 3500
