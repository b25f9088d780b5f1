/* The board of an online match (/matches/<id>/): the page's entry point. ES modules, no build.
 *
 * Owns the board's state (the latest match header from the server, the positions drawn, the
 * rows waiting to be animated, the mode of a drag, a move being sent) and wires the modules:
 * table.js draws and animates, aim.js turns a drag into a move, transport.js talks to the
 * server, hud.js says what happens, replay.js replays a match that is over. The page gives
 * its configuration and words as JSON data blocks (``board-config``, ``board-strings``);
 * there is no inline script.
 */
import {attachAim} from "./aim.js";
import {createHud, fill, hintFor} from "./hud.js";
import {createReplay} from "./replay.js";
import {animateRow, attackSign, createTable, toView} from "./table.js";
import {createTransport} from "./transport.js";

const $ = (id) => document.getElementById(id);
const cfg = JSON.parse($("board-config").textContent);
const words = JSON.parse($("board-strings").textContent);
const HINTS_KEY = "botonera.hints";

const board = {
  header: cfg.initial.match,
  lastSeq: cfg.initial.match.seq,
  view: toView(cfg.initial.match.state),
  queue: [],
  animating: false,
  busy: false,
  mode: "aim",
  replay: null,
  offset: 0,            // server time - client time (ms)
};
setOffset(board.header.server_now);

const table = createTable($("board"), $("canvas-wrap"), cfg.table);
const hud = createHud(cfg, words);
const transport = createTransport({feed: cfg.feedUrl, replay: cfg.replayUrl, actions: cfg.actionsUrl, live: cfg.liveUrl}, {
  lastSeq: () => board.lastSeq, onFeed: receive, onConnection: (ok) => hud.setConnection(ok), player: !!cfg.yourSide,
});

function setOffset(serverNow) { if (serverNow) board.offset = Date.parse(serverNow) - Date.now(); }
function serverNow() { return Date.now() + board.offset; }
function drawnState() { return (board.replay && board.replay.state()) || board.header.state; }
function barred() { return (!board.replay && board.header.may_not_play) || {}; }
function toMove() { return board.header.status === "live" && !board.replay ? (board.header.state || {}).to_move : null; }

function myTurn() {
  const h = board.header;
  return !!cfg.yourSide && h.status === "live" && !!h.state && h.state.to_move === cfg.yourSide && !board.replay;
}

function idle() { return !board.animating && !board.queue.length && !board.busy; }

function shouldFlip() {
  const st = board.header.state;
  return !!cfg.yourSide && !!st && attackSign(cfg.yourSide, st) < 0;   // you always attack right (or up)
}

// --- drawing -------------------------------------------------------------------------------------

let aim = null;

function redraw() {
  const drag = aim && aim.drag();
  const a = aim && aim.aim();
  table.draw({
    view: board.view, state: drawnState(), sides: cfg.sides, yourSide: cfg.yourSide, toMove: toMove(),
    myTurn: myTurn() && idle(), mayNotPlay: barred(), drag, aim: a, maxSpeed: cfg.maxSpeed,
    speedLabel: a ? fill(words.speed, {speed: a.speed}) : "",
  });
}

/* Under a landscape table: the turn line, the controls (a player's) and a line of message. */
const ROOM_BELOW_PX = cfg.yourSide ? 130 : 60;

function layout() { table.layout(shouldFlip(), ROOM_BELOW_PX); redraw(); }

/* On a phone the message lies over one end of the table: the end the ball is not in. */
function placeMessage() {
  const ball = board.view && board.view.ball;
  if (!ball) return;
  const canvas = $("board"), s = table.toScreen(ball[0], ball[1]);
  $("canvas-wrap").classList.toggle("message-low", s[1] < canvas.clientHeight / 2);
}

function clockNow() {
  const h = board.header, st = drawnState();
  if (!st) return 0;
  if (board.replay || !h.clock_running || !h.clock_anchor_at) return st.clock_s;
  let c = h.clock_anchor_s + (serverNow() - Date.parse(h.clock_anchor_at)) / 1000;
  if (h.period_end_s !== null && h.period_end_s !== undefined) c = Math.min(c, h.period_end_s);
  return Math.max(c, st.clock_s);
}

function hints() {
  const box = $("hint");
  if (!box) return;
  const on = hintsOn();
  $("hints-toggle").setAttribute("aria-pressed", on ? "true" : "false");
  $("hints-toggle").textContent = on ? words.hints_toggle.hide : words.hints_toggle.show;
  const key = on && !board.header.finished ? hintFor(board.header.state, cfg.yourSide, cfg.ruleSet, cfg.table) : "";
  box.hidden = !key;
  if (key && box.dataset.key !== key) { box.dataset.key = key; $("hint-text").textContent = words.hints[key] || ""; }
}

function hintsOn() {
  const stored = window.localStorage ? localStorage.getItem(HINTS_KEY) : null;
  return stored ? stored === "on" : !!cfg.hints;
}

function update() {
  placeMessage();
  hud.update({header: board.header, state: drawnState(), clock: clockNow(), replaying: !!board.replay,
              myTurn: myTurn(), busy: board.busy, serverNow: serverNow()});
  hints();
}

// --- the feed from the server ---------------------------------------------------------------------

function receive(data) {
  if (data.match.seq < board.header.seq) return;   // older than what the board has (a late push)
  const hadState = !!board.header.state;
  board.header = data.match;
  setOffset(board.header.server_now);
  let rows = data.actions.filter((r) => r.seq > board.lastSeq);
  if (rows.length) board.lastSeq = rows[rows.length - 1].seq;
  if (!hadState && board.header.state) { board.view = toView(board.header.state); table.setFlip(shouldFlip()); }
  if (rows.length > 3) {          // far behind (a reconnect): list the calls, animate the last
    rows.slice(0, -1).forEach((r) => hud.addRow(r));
    board.view = toView(board.header.state) || board.view;
    rows = rows.slice(-1);
  }
  board.queue.push(...rows);
  if (!board.animating) nextAnimation();
  update();
  redraw();
}

function nextAnimation() {
  const row = board.queue.shift();
  if (!row) {
    board.animating = false;
    if (!board.replay && board.header.state && board.header.seq === board.lastSeq) {
      board.view = toView(board.header.state);
      table.setFlip(shouldFlip());
    }
    redraw();
    update();
    if (board.header.finished && !board.replay) startReplay();
    return;
  }
  board.animating = true;
  hud.addRow(row);
  animateRow(board.view, row, redraw, nextAnimation);
}

function startReplay() {
  if (board.replay) return;
  hud.say("");
  hud.explain(null);
  board.replay = createReplay({
    load: transport.replay, hud, sides: cfg.sides, words,
    show: (state) => { board.view = toView(state) || board.view; redraw(); },
    animate: (row, done) => { board.animating = true; animateRow(board.view, row, redraw, () => { board.animating = false; done(); }); },
    changed: update,
  });
  update();
}

// --- the player's moves ----------------------------------------------------------------------------

function send(action, what) {
  if (!myTurn() || board.busy) { hud.say(words.say.not_your_turn); return; }
  board.busy = true;
  action.side = cfg.yourSide;
  hud.say(fill(words.say.sending, {what}));
  update();
  transport.send({seq: board.header.seq + 1, action}).then(({code, data}) => {
    board.busy = false;
    if (code === 201) hud.say(fill(words.say.sent, {what}));
    else if (code === 422) hud.say(data.text, true, data.rule_label || data.rule, data.rule_url);
    else if (code === 409) hud.say(words.say.stale, true);
    else if (code === 0) hud.say(words.say.offline, true);
    else hud.say(data.detail || fill(words.say.server, {code}), true);
    update();
    transport.pollNow();
  });
}

aim = attachAim($("board"), table, {
  yourSide: cfg.yourSide, maxSpeed: cfg.maxSpeed,
  view: () => board.view, canAct: () => myTurn() && idle(), mode: () => board.mode,
  barred, toMove, redraw,
}, {
  flick: (piece, a) => send({type: "flick", piece, angle_deg: a.angle, speed_mm_s: a.speed},
                            fill(words.say.flick, {piece, speed: a.speed})),
  place: (piece, at) => send({type: "place", piece, at}, fill(words.say.place, {piece})),
  keeper: (at) => send({type: "place_goalkeeper", at}, words.say.keeper),
  cancelled: () => hud.say(words.say.cancelled),
  notYourTurn: () => {
    const h = board.header;
    if (myTurn() || board.replay || h.status !== "live" || !h.state) return;  // your turn, still animating
    hud.notYourTurn(h.state);
  },
  explain: (piece, x, y) => {
    const reason = piece ? barred()[piece] : null;
    // a mouse over the button: the tooltip; a tap (no hover): the message line alone, said once
    if (reason && x !== undefined && !window.matchMedia("(hover: hover)").matches) {
      hud.explain(null);
      hud.say(reason.text, false, reason.rule_label || reason.rule, reason.rule_url);
    } else {
      hud.explain(reason, x, y);
    }
  },
});

for (const button of document.querySelectorAll("[data-mode]")) {
  button.addEventListener("click", () => {
    board.mode = button.dataset.mode;
    for (const b of document.querySelectorAll("[data-mode]")) {
      const on = b.dataset.mode === board.mode;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.classList.toggle("secondary", !on);
    }
  });
}
if ($("declare-shot")) $("declare-shot").addEventListener("click", () => send({type: "declare_shot"}, words.say.shot));
if ($("ready")) $("ready").addEventListener("click", () => send({type: "ready"}, words.say.ready));
if ($("hints-toggle")) {
  $("hints-toggle").addEventListener("click", () => {
    if (window.localStorage) localStorage.setItem(HINTS_KEY, hintsOn() ? "off" : "on");
    hints();
  });
}

// --- start ---------------------------------------------------------------------------------------

window.addEventListener("resize", layout);
layout();
update();
setInterval(update, 250);

// A match that is over opens its replay; a live one lists the calls made before this page was
// opened (without frames: nothing to animate), then follows the feed. Either way the feed is
// asked until the result is official.
if (board.header.finished) {
  startReplay();
  if (!board.header.official) transport.start();
} else {
  transport.history().then((data) => {
    data.actions.filter((r) => r.seq <= cfg.initial.match.seq).forEach((r) => hud.addRow(r));
  }).catch(() => {}).finally(() => transport.start());
}

// For people and tests: what the board knows and where a piece is drawn on the page.
window.botonera = {
  header: () => board.header,
  lastSeq: () => board.lastSeq,
  feedCount: () => hud.feedCount(),
  idle,
  replayPos: () => (board.replay ? board.replay.pos() : null),
  marked: () => table.marked(),
  pieces: () => board.view,
  screenOf: (side, pid) => {
    const p = pid === "ball" ? board.view.ball : board.view.pieces[side][pid];
    const s = table.toScreen(p[0], p[1]), rect = $("board").getBoundingClientRect();
    return {x: rect.left + s[0], y: rect.top + s[1], scale: table.scale()};
  },
};
