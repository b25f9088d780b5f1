/* What the board says around the table: the scoreboard and clocks, the turn line, the message
 * under the table, the official result, the referee's feed, the hints, and the reason a
 * button may not play.
 *
 * Owns those elements of the page. Every sentence comes from the server: the feed's rows and
 * events carry their ``text`` (and the rule's page, ``rule_url``), a refusal its ``text``, and
 * the labels are the page's translated ``words`` (the ``board-strings`` data block).
 */

import {arrangementStage, offensiveCount} from "./table.js";

export function fill(template, params) {
  return String(template).replace(/\{(\w+)\}/g, (m, key) => (key in params ? params[key] : m));
}

export function mmss(seconds) {
  seconds = Math.max(0, Math.floor(seconds));
  const m = Math.floor(seconds / 60), s = seconds % 60;
  return (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
}

const $ = (id) => document.getElementById(id);

function ruleLink(rule, url) {
  const a = document.createElement(url ? "a" : "span");
  a.className = "rule";
  a.textContent = rule;
  if (url) { a.href = url; a.target = "_blank"; a.rel = "noopener"; }
  return a;
}

/* A side's dot in its club's colours (set through the CSSOM: the page has no style attributes). */
export function paintDot(dot, colours) {
  dot.style.setProperty("--fill", colours.fill);
  dot.style.setProperty("--rim", colours.rim);
}

export function createHud(cfg, words) {
  const feedList = $("feed");
  let feedCount = 0;
  for (const dot of document.querySelectorAll(".scoreboard .dot[data-side]")) paintDot(dot, cfg.sides[dot.dataset.side]);

  function name(side) { return (cfg.sides[side] || {}).name || side; }
  function short(side) { return (cfg.sides[side] || {}).short || name(side); }

  /* The message under the table; ``rule``/``url``: the rule it quotes, linked. On a phone it
   * lies over the far end of the table, so it goes after a while (a refusal stays longer), or
   * at a tap. */
  const narrow = window.matchMedia ? window.matchMedia("(max-width: 640px)") : {matches: false};
  let sayTimer = null;
  $("message").addEventListener("click", (e) => { if (narrow.matches && !e.target.closest("a")) say(""); });

  function say(text, bad, rule, url) {
    const el = $("message");
    el.textContent = text || "";
    if (rule) { el.appendChild(document.createTextNode(" ")); el.appendChild(ruleLink(rule, url)); }
    el.classList.toggle("bad", !!bad);
    clearTimeout(sayTimer);
    if (text && narrow.matches) sayTimer = setTimeout(() => say(""), bad ? 9000 : 3500);
  }

  function turnText(st, mine) { return turnLine(st, mine, words, short(st.to_move), cfg.table); }

  /* A press on one of your buttons out of your turn: "Not your turn: Rossi's kick-off". */
  function notYourTurn(st) {
    say(st && st.to_move ? fill(words.say.not_your_turn_now, {what: turnText(st, false)}) : words.say.not_your_turn, true);
  }

  /* b: {header, state (drawn), clock (s), replaying, myTurn, busy, serverNow}. */
  function update(b) {
    const header = b.header, st = b.state, t = words.turn;
    const status = header.official ? "adjudicated" : header.status;
    $("status-badge").textContent = words.status[status] || status;
    $("status-badge").className = "badge " + (header.status === "live" ? "live" : header.finished ? "done" : "");
    $("replay-badge").hidden = !b.replaying;
    if (st) {
      $("score-home").textContent = st.score.home;
      $("score-away").textContent = st.score.away;
      const p = words.periods;
      $("period").textContent = st.phase === "half_time" ? p.half_time : st.phase === "full_time" ? p.full_time
        : (p[st.period] || st.period);
    } else {
      $("period").textContent = words.periods.not_started;
    }
    $("clock").textContent = mmss(b.clock);
    let turn = "", clock = "", low = false;
    if (header.finished) {
      const walkover = header.walkover_side === "both" ? t.walkover_both : fill(t.walkover, {name: name(header.walkover_side)});
      turn = header.status === "walkover" ? walkover
        : header.status === "cancelled" ? t.annulled
        : (header.official ? "" : t.full_time_wait);
    } else if (header.status === "live" && st && st.phase !== "full_time") {
      turn = turnText(st, b.myTurn);
      if (header.deadline_at) {
        const left = (Date.parse(header.deadline_at) - b.serverNow) / 1000;
        clock = header.deadline_kind === "period" ? fill(t.period_clock, {clock: mmss(left)}) : mmss(left);
        low = left < 10;
      }
    } else if (header.status === "scheduled" || header.status === "checked_in") {
      turn = fill(t.waiting, {home: name("home"), away: name("away"),
                              home_mark: header.checked_in.home ? "✓" : "…", away_mark: header.checked_in.away ? "✓" : "…"});
    }
    $("turn").textContent = turn;
    $("turn").classList.toggle("mine", b.myTurn);
    $("turn-clock").textContent = clock;
    $("turn-clock").classList.toggle("low", low);
    $("turn-bar").hidden = !turn && !clock;
    const official = $("official");
    official.hidden = !header.official;
    if (header.official && official.textContent !== header.official.text) official.textContent = header.official.text;
    const controls = $("controls");
    if (controls) {
      controls.hidden = header.finished;
      controls.classList.toggle("disabled", !b.myTurn);
      for (const button of controls.querySelectorAll("button[data-act]")) button.disabled = !b.myTurn || b.busy;
    }
    const help = $("help");
    if (help) help.hidden = header.finished;
    const hintRow = $("hint-row");
    if (hintRow) hintRow.hidden = header.finished;
    if (header.finished && header.official) setConnection(null);
  }

  function setConnection(ok) {
    const el = $("conn");
    if (ok === null) { el.textContent = ""; el.className = "conn"; return; }
    el.textContent = ok ? words.conn.ok : words.conn.bad;
    el.className = "conn " + (ok ? "ok" : "bad");
  }

  function item(cls, seq, clock, side, text, rule, url) {
    const li = document.createElement("li");
    li.className = cls;
    li.dataset.seq = seq;
    const time = document.createElement("span");
    time.className = "t num"; time.textContent = clock;
    li.appendChild(time);
    if (side && cfg.sides[side]) {
      const dot = document.createElement("span");
      dot.className = "dot";
      paintDot(dot, cfg.sides[side]);
      li.appendChild(dot);
    }
    const body = document.createElement("span");
    body.className = "what"; body.textContent = text;
    li.appendChild(body);
    if (rule) li.appendChild(ruleLink(rule, url));
    feedList.insertBefore(li, feedList.firstChild);
    feedCount += 1;
  }

  /* One log row into the feed: the move, then each call of the referee, as sentences. */
  function addRow(row) {
    const a = row.action || {};
    const clock = a.t !== undefined && a.t !== null ? mmss(a.t) : "";
    if (row.text) item("action", row.seq, clock, a.side || row.side, row.text);
    for (const ev of row.events || []) {
      if (!ev.text) continue;
      item("event ev-" + ev.type, row.seq, clock, ev.side, ev.text, ev.rule_label || ev.rule, ev.rule_url);
    }
    $("seq-label").textContent = "#" + row.seq;
  }

  function clearFeed() { feedList.textContent = ""; $("seq-label").textContent = ""; }

  /* The reason ``piece`` may not play, near the pointer (and in the message line). */
  function explain(reason, clientX, clientY) {
    const tip = $("tip");
    if (!reason) { tip.hidden = true; return; }
    tip.textContent = reason.text;
    if (reason.rule) { tip.appendChild(document.createTextNode(" ")); tip.appendChild(ruleLink(reason.rule_label || reason.rule, reason.rule_url)); }
    const box = $("canvas-wrap").getBoundingClientRect();
    tip.hidden = false;
    const x = Math.min(Math.max(8, clientX - box.left - tip.offsetWidth / 2), box.width - tip.offsetWidth - 8);
    const y = clientY - box.top - tip.offsetHeight - 18;
    tip.style.left = x + "px";
    tip.style.top = (y < 4 ? clientY - box.top + 22 : y) + "px";
  }

  return {say, notYourTurn, update, setConnection, addRow, clearFeed, explain, feedCount: () => feedCount, short, name};
}

/* The line under the table saying whose turn it is and what it is for: ``st`` the state,
 * ``mine`` whether the reader is the side to move, ``who`` that side's short name. At a
 * penalty kick the side to move is the taker's while it places its taker, then the keeper's. */
export function turnLine(st, mine, words, who, T) {
  const t = words.turn, memo = st.memo || {};
  if (st.phase === "shot_declared") return mine ? t.your_keeper : fill(t.their_keeper, {name: who});
  const stage = arrangementStage(st);
  if (stage && mine) {
    const [have, need] = offensiveCount(st, stage.side, T ? T.button_diameter / 2 : 0);
    return fill(stage.half === "offensive" ? t.your_arrangement_offensive : t.your_arrangement_defensive,
                {have, need});
  }
  if (memo.placing) return mine ? t.your_placing : fill(t.their_placing, {name: who});
  const pen = st.phase === "penalty_kick" && memo.penalty ? memo.penalty.stage : "";
  if (pen === "taker") return mine ? t.your_penalty_taker : fill(t.their_penalty_taker, {name: who});
  if (pen === "keeper") return mine ? t.your_penalty_keeper : fill(t.their_keeper, {name: who});
  const kind = words.kinds[st.phase];
  if (kind && readyAwaited(st)) return mine ? fill(t.your_ready_first, {kind}) : fill(t.their_kind, {name: who, kind});
  if (kind) return mine ? fill(t.your_kind, {kind}) : fill(t.their_kind, {name: who, kind});
  return mine ? t.yours : fill(t.theirs, {name: who});
}

/* MBS "Saque de banda y tiro de esquina": once the taking side placed a button at a throw-in or
 * corner kick, its flick waits for Ready ("Preparado"). Only the MBS referee keeps ``memo.placed``. */
const READY_BEFORE_FLICK = ["throw_in", "throw_in_two_touch", "corner_kick", "corner_kick_two_touch"];
export function readyAwaited(st) {
  const memo = st.memo || {};
  return READY_BEFORE_FLICK.includes(st.phase) && (memo.placed || []).length > 0 && !memo.ready;
}

const SET_PIECES = ["free_kick", "free_kick_two_touch", "indirect_free_kick", "throw_in", "throw_in_two_touch",
                    "corner_kick", "corner_kick_two_touch", "goal_kick"];

/* The hint that applies now for the player of ``side`` (a key of ``words.hints``), or "". */
export function hintFor(st, side, ruleSet, T) {
  if (!st || !side || st.to_move !== side || st.phase === "full_time" || st.phase === "half_time") return "";
  const memo = st.memo || {};
  if (st.phase === "shot_declared") return "keeper";
  if (memo.placing) return "placing";
  if (st.phase === "kick_off") return ruleSet === "mbs" ? "kick_off_mbs" : "kick_off";
  if (memo.second && memo.second.side === side) return memo.second.kind === "kick_off" ? "kick_off_second" : "second_touch";
  if (st.phase === "penalty_kick") {
    const stage = (memo.penalty || {}).stage;
    return stage === "keeper" ? "penalty_keeper" : stage === "kick" ? "penalty_kick" : "penalty";
  }
  if (readyAwaited(st)) return "set_piece_ready";
  if (SET_PIECES.includes(st.phase)) return "set_piece";
  if (memo.shot && memo.shot.armed) return "shoot";
  const homeAttacks = st.home_attacks || "+x";
  const sign = (side === "home") === (homeAttacks === "+x") ? 1 : -1;
  if (sign * st.ball[0] > T.ball_diameter / 2) return "shot_possible";
  return ruleSet === "mbs" ? "turn_mbs" : "turn";
}

