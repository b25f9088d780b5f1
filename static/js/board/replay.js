/* The replay of a match that is over: Play/Pause, a step back and forward, a slider, and a
 * button for each goal.
 *
 * Owns the replay panel and its position. The log comes from /matches/<id>/replay.json, with
 * the state after every row (the server folds the referee over the log), so any position is
 * shown at once; playing animates each row from its frames. The feed shows the calls up to
 * the position. A finished match opens at full time.
 */
import {fill, mmss} from "./hud.js";

const $ = (id) => document.getElementById(id);

/* host: load() -> Promise of the replay log; show(state) draws a state; animate(row, done)
 * plays a row from the state shown; hud (addRow, clearFeed); changed() refreshes the rest;
 * sides, words. */
export function createReplay(host) {
  const r = {rows: [], states: [], pos: 0, playing: false, loading: true};
  const words = host.words;

  function rebuildFeed() {
    host.hud.clearFeed();
    for (let i = 0; i < r.pos; i++) host.hud.addRow(r.rows[i]);
  }

  function refresh() {
    $("rp-pos").textContent = r.pos + " / " + r.rows.length;
    $("rp-range").value = r.pos;
    $("rp-play").textContent = r.playing ? words.replay.pause : words.replay.play;
    host.changed();
  }

  function jump(pos) {
    r.playing = false;
    r.pos = Math.max(0, Math.min(pos, r.rows.length));
    host.show(r.states[r.pos]);
    rebuildFeed();
    refresh();
  }

  function stepForward(then) {
    const row = r.rows[r.pos];
    host.show(r.states[r.pos]);
    host.animate(row, () => {
      r.pos += 1;
      host.hud.addRow(row);
      host.show(r.states[r.pos]);
      refresh();
      if (then) then();
    });
  }

  /* Plays from the position; with ``until``, stops after that row. */
  function play(on, until) {
    r.playing = on;
    refresh();
    if (!on) return;
    (function next() {
      if (!r.playing) return;
      if (r.pos >= r.rows.length || (until !== undefined && r.pos >= until)) {
        r.playing = false; refresh(); return;
      }
      stepForward(() => setTimeout(next, 150));
    })();
  }

  function goalButtons() {
    const goals = $("rp-goals"), score = {home: 0, away: 0};
    r.rows.forEach((row, i) => {
      for (const ev of row.events || []) {
        if (ev.type !== "goal" || !host.sides[ev.side]) continue;
        score[ev.side] += 1;
        const b = document.createElement("button");
        b.type = "button"; b.className = "btn small secondary goal-jump";
        b.textContent = mmss((row.action || {}).t || 0) + " " + host.sides[ev.side].short + " " + score.home + "–" + score.away;
        b.addEventListener("click", () => { jump(i); play(true, i + 1); });
        goals.appendChild(b);
      }
    });
    if (!goals.querySelector(".goal-jump")) {
      const none = document.createElement("span");
      none.className = "small muted"; none.textContent = words.replay.none;
      goals.appendChild(none);
    }
  }

  $("rp-play").addEventListener("click", () => {
    if (r.loading) return;
    if (!r.playing && r.pos >= r.rows.length) jump(0);
    play(!r.playing);
  });
  $("rp-step").addEventListener("click", () => {
    if (r.loading || r.pos >= r.rows.length) return;
    r.playing = false;
    stepForward();
  });
  $("rp-back").addEventListener("click", () => { if (!r.loading) jump(r.pos - 1); });
  $("rp-range").addEventListener("input", (ev) => { if (!r.loading) jump(parseInt(ev.target.value, 10)); });

  host.load().then((data) => {
    r.rows = data.actions || [];
    r.states = [data.initial_state].concat(r.rows.map((row) => row.state));
    r.loading = false;
    $("replay").hidden = false;
    $("rp-range").max = r.rows.length;
    goalButtons();
    jump(r.rows.length);
  }).catch(() => host.hud.say(fill(words.say.replay_failed, {}), true));

  return {
    pos: () => r.pos,
    state: () => r.states[r.pos] || null,
    playing: () => r.playing,
  };
}
