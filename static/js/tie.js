/* A team tie's page (templates/leagues/_tie.html): each table played online follows its match
 * live, as a spectator's board does: the spectators' socket (/ws/matches/<id>/, each message a
 * feed answer), or, without it, the match's feed polled every few seconds. Its running score and
 * "Full time" are shown in its card; once every live table has ended the page loads again, for the
 * official results and the tie derived from them. */
(function () {
  "use strict";
  const POLL_MS = 4000;
  const cards = Array.from(document.querySelectorAll(".tie-table[data-feed]"));
  if (!cards.length) return;
  let running = cards.length;

  function follow(card) {
    const score = card.querySelector(".score");
    const badge = card.querySelector(".badge.live");
    let done = false, timer = null, socket = null;

    function show(answer) {
      const match = answer && answer.match;
      if (!match || done) return;
      const st = match.state || {};
      if (st.score) {
        score.textContent = st.score.home + "\u2013" + st.score.away;
        score.classList.remove("pending");
      }
      if (match.finished) {
        done = true;
        if (badge) { badge.textContent = card.dataset.fullTime; badge.classList.remove("live"); badge.classList.add("done"); }
        if (socket) socket.close();
        clearTimeout(timer);
        running -= 1;
        if (running === 0) setTimeout(() => location.reload(), 3000);
      }
    }

    function poll() {
      fetch(card.dataset.feed + "?after=0&frames=0", {headers: {Accept: "application/json"}})
        .then((r) => (r.ok ? r.json() : null)).then(show).catch(() => {})
        .finally(() => { if (!done) timer = setTimeout(poll, POLL_MS); });
    }

    const live = card.dataset.live;
    if (live && "WebSocket" in window) {
      const base = /^wss?:/.test(live) ? "" : (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
      try { socket = new WebSocket(base + live + "?after=0&frames=0&lang=" + document.documentElement.lang); }
      catch (e) { socket = null; }
    }
    if (!socket) { poll(); return; }
    let opened = false;
    socket.onopen = () => { opened = true; };
    socket.onmessage = (event) => { try { show(JSON.parse(event.data)); } catch (e) { /* not a feed answer */ } };
    socket.onclose = () => { socket = null; if (!done) timer = setTimeout(poll, opened ? 0 : POLL_MS / 4); };
  }

  cards.forEach(follow);
})();
