/* The transport: everything the board says to the server and hears from it.
 *
 * Owns the WebSocket, the polling loop and the posting of actions. Live, the server pushes each
 * change of the match over /ws/matches/<id>/ (the feed answer itself: nothing in it is private
 * to a player, so players and spectators animate from it alike), and the board polls now and then
 * (SOCKET_POLL_MS) as a net; without the socket (a server without WebSockets, a proxy that
 * drops them) it asks /matches/<id>/feed/?after=N every POLL_MS for the match and the log rows
 * after the last one the board has, and tries the socket again with a growing pause. A board
 * that lost its connection backs off, then catches up from the log. Once the match is over it goes
 * on asking, every OFFICIAL_POLL_MS, until the result is official (the server adjudicates
 * after full time, on whichever request or worker gets there first), then stops. Actions go
 * to POST /api/matches/<id>/actions/ with the next sequence number and an Idempotency-Key,
 * retried with the same key when the network or the server fails, so a move is never made twice.
 */

const POLL_MS = 500;
const SOCKET_POLL_MS = {player: 2000, spectator: 15000};   // with the socket open
const IDLE_POLL_MS = 2000;
const OFFICIAL_POLL_MS = 1000;
const SLOW_OFFICIAL_POLL_MS = 10000;   // after a long wait: an organiser must look at it
const OFFICIAL_PATIENCE_MS = 5 * 60 * 1000;
const MAX_ROWS = 500;
const MAX_TRIES = 4;                   // a move is sent at most this many times (one key)

function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

function newKey() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return "k" + Date.now().toString(36) + Math.random().toString(36).slice(2);
}

/* urls: {feed, replay, actions, live}; lastSeq(): the last row the board has; onFeed(data) gets
 * each answer of the feed; onConnection(ok) its health; player: the board plays a side. */
export function createTransport(urls, {lastSeq, onFeed, onConnection, player}) {
  let timer = null, busy = false, failures = 0, stopped = false, finishedSince = null;
  let socket = null, socketOpen = false, socketFailures = 0;

  function openSocket() {
    if (!urls.live || !("WebSocket" in window) || stopped || socket) return;
    const base = /^wss?:/.test(urls.live) ? "" : (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
    const url = base + urls.live +
      "?after=" + lastSeq() + "&lang=" + encodeURIComponent(document.documentElement.lang || "");
    try { socket = new WebSocket(url); } catch (e) { socket = null; return; }
    socket.onopen = () => { socketOpen = true; socketFailures = 0; };
    socket.onmessage = (event) => {
      // the push is the feed answer itself, for players as for spectators: nothing in it is
      // private, so the board animates from it at once (no round trip to its own feed)
      let data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      onConnection(true);
      onFeed(data);
      if (data.match.finished && data.match.official) stop();
    };
    socket.onclose = (event) => {
      const was = socketOpen;
      socket = null;
      socketOpen = false;
      if (stopped || event.code === 4400 || event.code === 4404) return;
      socketFailures += 1;
      setTimeout(openSocket, Math.min(60000, 1000 * Math.pow(2, socketFailures)));
      if (was) pollNow();   // polling again at once, until the socket is back
    };
  }

  function pollNow() { if (!stopped) { if (timer) clearTimeout(timer); poll(); } }

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = stopped ? null : setTimeout(poll, ms);
  }

  function nextDelay(data) {
    const match = data.match;
    if (match.finished) {
      if (match.official) return null;
      finishedSince = finishedSince || Date.now();
      return Date.now() - finishedSince > OFFICIAL_PATIENCE_MS ? SLOW_OFFICIAL_POLL_MS : OFFICIAL_POLL_MS;
    }
    if (data.actions.length >= MAX_ROWS) return 0;
    if (socketOpen) return player ? SOCKET_POLL_MS.player : SOCKET_POLL_MS.spectator;
    return match.status === "live" ? POLL_MS : IDLE_POLL_MS;
  }

  function poll() {
    timer = null;
    if (busy || stopped) return;
    busy = true;
    fetch(urls.feed + "?after=" + lastSeq(), {credentials: "same-origin", cache: "no-store"})
      .then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
      .then((data) => {
        busy = false;
        failures = 0;
        onConnection(true);
        onFeed(data);
        const delay = nextDelay(data);
        if (delay === null) stop(); else schedule(delay);
      })
      .catch(() => {
        busy = false;
        failures += 1;
        onConnection(false);
        schedule(Math.min(5000, 250 * Math.pow(2, failures)));   // back off (0.5, 1, 2, 4, 5 s), then catch up
      });
  }

  function stop() {
    stopped = true;
    if (timer) { clearTimeout(timer); timer = null; }
    if (socket) { socket.close(1000); socket = null; socketOpen = false; }
  }

  /* Posts ``body`` ({seq, action}); resolves to {code, data} (code 0: never reached the server). */
  function send(body) {
    const key = newKey(), text = JSON.stringify(body);
    let tries = 0;
    return new Promise((resolve) => {
      function attempt() {
        tries += 1;
        fetch(urls.actions, {
          method: "POST", credentials: "same-origin", body: text,
          headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken(), "Idempotency-Key": key},
        }).then((response) => response.json().then((data) => ({code: response.status, data}), () => ({code: response.status, data: {}})))
          .then((answer) => {
            // a server that failed (5xx) stored nothing: the same request again, with the same key
            if (answer.code >= 500 && tries < MAX_TRIES) { setTimeout(attempt, 500 * tries); return; }
            resolve(answer);
          })
          .catch(() => {
            if (tries < MAX_TRIES) { setTimeout(attempt, 500 * tries); return; }   // same key: never two moves
            resolve({code: 0, data: {}});
          });
      }
      attempt();
    });
  }

  function getJSON(url) {
    return fetch(url, {credentials: "same-origin"}).then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.json(); });
  }

  return {
    start: () => { stopped = false; poll(); openSocket(); },
    pollNow,
    stop,
    send,
    history: () => getJSON(urls.feed + "?after=0&frames=0"),
    replay: () => getJSON(urls.replay),
  };
}
