/* The hall screen (leagues/views/hall.py): follows the tournament day without a reload.
 *
 * The server says over /ws/competitions/<slug>/hall/ (leagues.consumers) that the day moved (a
 * call, a call withdrawn, a result); the page then fetches /competitions/<slug>/hall/parts/ (the
 * HTML of the changing parts) and swaps it in. With the socket open it also looks every
 * lookSeconds (a message lost while Redis restarted); without it (closed, refused, a server
 * without Redis: close code 4501) it polls every pollSeconds and opens the socket again with a
 * growing pause. A failed fetch keeps the last parts on screen and says so in the header.
 */
(function () {
  "use strict";
  const cfgNode = document.getElementById("hall-config");
  if (!cfgNode) return;
  const cfg = JSON.parse(cfgNode.textContent);
  const parts = document.getElementById("hall-parts");
  const status = document.getElementById("hall-connection");
  const clock = document.getElementById("hall-clock");
  const NO_PUSH = 4501;          // the server has no Redis: it never pushes
  const NO_PUSH_RETRY_MS = 300000;
  let socket = null, socketOpen = false, socketFailures = 0;
  let timer = null, busy = false, again = false, failures = 0, shown = null;

  function state(name) {
    document.body.dataset.state = name;
    if (status) status.textContent = status.dataset[name] || status.textContent;
  }

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(refresh, ms);
  }

  function nextLook() {
    return 1000 * (socketOpen ? cfg.lookSeconds : cfg.pollSeconds);
  }

  function refresh() {
    timer = null;
    if (busy) { again = true; return; }
    busy = true;
    again = false;
    fetch(cfg.partsUrl, {credentials: "same-origin", cache: "no-store"})
      .then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.text(); })
      .then((html) => {
        if (html !== shown) {
          parts.innerHTML = html;
          shown = html;
        }
        failures = 0;
        state(socketOpen ? "live" : "polling");
        busy = false;
        parts.dataset.refreshed = String((Number(parts.dataset.refreshed) || 0) + 1);
        if (again) refresh(); else schedule(nextLook());
      })
      .catch(() => {
        busy = false;
        failures += 1;
        state("offline");
        schedule(Math.min(1000 * cfg.pollSeconds, 1000 * Math.pow(2, failures)));
      });
  }

  function openSocket() {
    if (!cfg.socketUrl || !("WebSocket" in window) || socket) return;
    const base = /^wss?:/.test(cfg.socketUrl) ? "" : (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
    try { socket = new WebSocket(base + cfg.socketUrl); } catch (e) { socket = null; return; }
    socket.onopen = () => {
      socketOpen = true;
      socketFailures = 0;
      state("live");
      refresh();   // what moved while it was closed
    };
    socket.onmessage = () => { refresh(); };
    socket.onclose = (event) => {
      const was = socketOpen;
      socket = null;
      socketOpen = false;
      if (event.code === NO_PUSH) {
        setTimeout(openSocket, NO_PUSH_RETRY_MS);
      } else {
        socketFailures += 1;
        setTimeout(openSocket, Math.min(60000, 1000 * Math.pow(2, socketFailures)));
      }
      if (was) { state("polling"); schedule(1000 * cfg.pollSeconds); }
    };
  }

  let clockFormat = null;
  try {
    clockFormat = new Intl.DateTimeFormat("en-GB", {hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: cfg.timeZone});
  } catch (e) { clockFormat = null; }   // a zone the browser does not know: the display's own time

  function tick() {
    const now = new Date();
    if (!clock) return;
    clock.textContent = clockFormat ? clockFormat.format(now)
      : String(now.getHours()).padStart(2, "0") + ":" + String(now.getMinutes()).padStart(2, "0");
  }

  state("polling");
  tick();
  setInterval(tick, 5000);
  schedule(1000 * cfg.pollSeconds);
  openSocket();
  window.hallScreen = {refresh, socketOpen: () => socketOpen};
})();
