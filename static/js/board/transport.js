/* The transport: everything the board says to the server and hears from it.
 *
 * Owns the polling loop and the posting of actions. Live, it asks /matches/<id>/feed/?after=N
 * every POLL_MS for the match and the log rows after the last one the board has; a board that
 * lost its connection backs off, then catches up from the log. Once the match is over it goes
 * on asking, every OFFICIAL_POLL_MS, until the result is official (the server adjudicates
 * after full time, on whichever request or worker gets there first), then stops. Actions go
 * to POST /api/matches/<id>/actions/ with the next sequence number and an Idempotency-Key,
 * retried with the same key when the network or the server fails, so a move is never made twice.
 */

const POLL_MS = 500;
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

/* urls: {feed, replay, actions}; lastSeq(): the last row the board has; onFeed(data) gets
 * each answer of the feed; onConnection(ok) its health. */
export function createTransport(urls, {lastSeq, onFeed, onConnection}) {
  let timer = null, busy = false, failures = 0, stopped = false, finishedSince = null;

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
    start: () => { stopped = false; poll(); },
    pollNow: () => { if (!stopped) { if (timer) clearTimeout(timer); poll(); } },
    stop,
    send,
    history: () => getJSON(urls.feed + "?after=0&frames=0"),
    replay: () => getJSON(urls.replay),
  };
}
