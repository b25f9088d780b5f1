/* Botonera: the board of an online match. Plain JavaScript, no build step.
 *
 * Draws the table to scale on a canvas (SIMULATION_CONTRACT.md frame: mm, origin at the centre
 * spot, x along the pitch, y across it), animates each flick from its frames, and lets a player
 * act: pull back from one of their buttons to flick (slingshot), drag the keeper to place it,
 * place set-piece buttons, declare a shot, say ready. Actions go to
 * POST /api/matches/<id>/actions/ with the next sequence number and an Idempotency-Key.
 *
 * Live: short polling of /matches/<id>/feed/?after=N every POLL_MS (the rows after the last
 * one this page has; a page that lost its connection catches up from the log). A match that is
 * over replays from /matches/<id>/replay.json (the state after every row).
 */
(function () {
  "use strict";

  var POLL_MS = 500;
  var IDLE_POLL_MS = 2000;
  var AIM_FULL_MM = 300;    // a pull of this length (in table mm) is the fastest flick
  var AIM_MIN_MM = 12;      // a shorter pull is a cancel
  var MAX_ANIM_S = 4;       // a longer flick is played faster

  var cfg = JSON.parse(document.getElementById("board-config").textContent);
  var T = cfg.table;
  var L = T.table_length, W = T.table_width, FL = T.field_length, FW = T.field_width;
  var R_BTN = T.button_diameter / 2, R_BALL = T.ball_diameter / 2;
  var KX = T.keeper_size[0] / 2, KY = T.keeper_size[1] / 2;

  var canvas = document.getElementById("board");
  var ctx = canvas.getContext("2d");
  var wrap = document.getElementById("canvas-wrap");
  var $ = function (id) { return document.getElementById(id); };

  var header = cfg.initial.match;      // the latest match header from the server
  var lastSeq = header.seq;             // the last log row this page has
  var view = toView(header.state);      // what is drawn: positions of the ball and pieces
  var queue = [];                       // log rows waiting to be animated
  var anim = null;                      // the row being animated
  var drag = null;                      // the player's drag in progress
  var mode = "aim";
  var busy = false;                     // an action is being sent
  var offset = 0;                       // server time - client time (ms)
  var geo = null;                       // the current world <-> screen transform
  var failures = 0;
  var replay = null;                    // replay mode: {rows, states, pos, playing}
  var feedCount = 0;

  setOffset(header.server_now);

  // --- geometry --------------------------------------------------------------------------------

  function layout() {
    var width = Math.max(240, wrap.clientWidth);
    var portrait = width < 560;
    var cssW = width, cssH = portrait ? width * L / W : width * W / L;
    var maxH = Math.max(320, window.innerHeight - 40);
    if (portrait && cssH > maxH) { cssH = maxH; cssW = cssH * W / L; }
    var dpr = window.devicePixelRatio || 1;
    canvas.style.width = cssW + "px";
    canvas.style.height = cssH + "px";
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    geo = {portrait: portrait, w: cssW, h: cssH, dpr: dpr, s: portrait ? cssW / W : cssW / L,
           flip: shouldFlip()};
    draw();
  }

  function shouldFlip() {
    if (!cfg.yourSide || !header.state) return false;
    var homeAttacks = header.state.home_attacks || "+x";
    var attacks = cfg.yourSide === "home" ? homeAttacks : (homeAttacks === "+x" ? "-x" : "+x");
    return attacks === "-x";   // you always attack to the right (or up, on a phone)
  }

  function toScreen(x, y) {
    if (geo.flip) { x = -x; y = -y; }
    if (geo.portrait) return [geo.w / 2 - y * geo.s, geo.h / 2 - x * geo.s];
    return [geo.w / 2 + x * geo.s, geo.h / 2 - y * geo.s];
  }

  function toWorld(sx, sy) {
    var x, y;
    if (geo.portrait) { y = (geo.w / 2 - sx) / geo.s; x = (geo.h / 2 - sy) / geo.s; }
    else { x = (sx - geo.w / 2) / geo.s; y = (geo.h / 2 - sy) / geo.s; }
    if (geo.flip) { x = -x; y = -y; }
    return [x, y];
  }

  // A world rectangle (centre, half sizes along x and y) as a screen rectangle.
  function rectPath(cx, cy, hx, hy) {
    var a = toScreen(cx - hx, cy - hy), b = toScreen(cx + hx, cy + hy);
    ctx.rect(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]));
  }

  // --- the state as drawn ------------------------------------------------------------------------

  function toView(state) {
    if (!state) return null;
    var v = {ball: state.ball.slice(), pieces: {home: {}, away: {}}};
    ["home", "away"].forEach(function (side) {
      var group = (state.pieces || {})[side] || {};
      Object.keys(group).forEach(function (pid) { v.pieces[side][pid] = group[pid].slice(); });
    });
    return v;
  }

  // --- drawing -----------------------------------------------------------------------------------

  function draw() {
    if (!geo) return;
    ctx.setTransform(geo.dpr, 0, 0, geo.dpr, 0, 0);
    ctx.clearRect(0, 0, geo.w, geo.h);
    drawTable();
    if (view) drawPieces();
    if (drag) drawDrag();
  }

  function line(x0, y0, x1, y1) {
    var a = toScreen(x0, y0), b = toScreen(x1, y1);
    ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
  }

  function drawTable() {
    var hl = FL / 2, hw = FW / 2, s = geo.s;
    // run-off and the field, with mown stripes
    ctx.fillStyle = "#0b3d28";
    ctx.fillRect(0, 0, geo.w, geo.h);
    var stripes = 12, step = FL / stripes;
    for (var i = 0; i < stripes; i++) {
      ctx.beginPath();
      rectPath(-hl + step * (i + 0.5), 0, step / 2, hw);
      ctx.fillStyle = i % 2 ? "#1a7a4f" : "#1f8656";
      ctx.fill();
    }
    ctx.strokeStyle = "rgba(255,255,255,.92)";
    ctx.lineWidth = Math.max(1, 4 * s);
    ctx.beginPath();
    rectPath(0, 0, hl, hw);
    line(0, -hw, 0, hw);
    ctx.stroke();
    var c = toScreen(0, 0);
    ctx.beginPath(); ctx.arc(c[0], c[1], T.centre_circle_radius * s, 0, 2 * Math.PI); ctx.stroke();
    dot(0, 0, Math.max(1.5, 5 * s), "#fff");
    [1, -1].forEach(function (end) {
      var gx = end * hl;
      ctx.beginPath();
      rectPath(gx - end * T.penalty_area_depth / 2, 0, T.penalty_area_depth / 2, T.penalty_area_width / 2);
      rectPath(gx - end * T.goal_area_depth / 2, 0, T.goal_area_depth / 2, T.goal_area_width / 2);
      ctx.stroke();
      dot(gx - end * T.penalty_mark_distance, 0, Math.max(1.5, 5 * s), "#fff");
      // the goal: the net behind the line, the posts at the mouth
      ctx.beginPath();
      rectPath(gx + end * T.goal_depth / 2, 0, T.goal_depth / 2, T.goal_width / 2);
      ctx.fillStyle = "rgba(255,255,255,.28)";
      ctx.fill();
      ctx.stroke();
      dot(gx, T.goal_width / 2, Math.max(2, T.post_diameter * s), "#fff");
      dot(gx, -T.goal_width / 2, Math.max(2, T.post_diameter * s), "#fff");
    });
    if (drag && drag.kind === "keeper") highlightGoalArea(drag.side);
    var st = header.state;
    if (st && st.restart && st.restart.at) {
      var p = toScreen(st.restart.at[0], st.restart.at[1]);
      ctx.beginPath();
      ctx.arc(p[0], p[1], Math.max(6, 60 * s), 0, 2 * Math.PI);
      ctx.setLineDash([4, 4]);
      ctx.strokeStyle = "rgba(242,183,5,.9)";
      ctx.lineWidth = 1.5;
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  function highlightGoalArea(side) {
    var end = defendedSign(side), gx = end * FL / 2;
    ctx.beginPath();
    rectPath(gx - end * T.goal_area_depth / 2, 0, T.goal_area_depth / 2, T.goal_area_width / 2);
    ctx.fillStyle = "rgba(242,183,5,.35)";
    ctx.fill();
  }

  function defendedSign(side) {
    var homeAttacks = (header.state && header.state.home_attacks) || "+x";
    var attacks = side === "home" ? homeAttacks : (homeAttacks === "+x" ? "-x" : "+x");
    return attacks === "+x" ? -1 : 1;
  }

  function dot(x, y, r, fill) {
    var p = toScreen(x, y);
    ctx.beginPath(); ctx.arc(p[0], p[1], r, 0, 2 * Math.PI);
    ctx.fillStyle = fill; ctx.fill();
  }

  function myTurn() {
    return cfg.yourSide && header.status === "live" && header.state && header.state.to_move === cfg.yourSide
      && !replay;
  }

  function drawPieces() {
    var s = geo.s, st = header.state || {};
    var toMove = header.status === "live" ? st.to_move : null;
    ["home", "away"].forEach(function (side) {
      var colours = cfg.sides[side];
      var group = view.pieces[side];
      Object.keys(group).forEach(function (pid) {
        if (drag && drag.side === side && drag.piece === pid && drag.kind !== "aim") return;
        drawPiece(side, pid, group[pid], colours, side === toMove, 1);
      });
    });
    // the ball, never smaller than a few pixels
    var b = toScreen(view.ball[0], view.ball[1]);
    var r = Math.max(3.5, R_BALL * s * 1.2);
    ctx.beginPath(); ctx.arc(b[0], b[1], r, 0, 2 * Math.PI);
    ctx.fillStyle = "#fff"; ctx.fill();
    ctx.lineWidth = 1.2; ctx.strokeStyle = "#111"; ctx.stroke();
  }

  function drawPiece(side, pid, pos, colours, toMove, alpha) {
    var s = geo.s;
    ctx.globalAlpha = alpha;
    if (pid === "gk") {
      ctx.beginPath();
      rectPath(pos[0], pos[1], KX, KY);
      ctx.fillStyle = colours.fill; ctx.fill();
      ctx.lineWidth = Math.max(1, 3 * s); ctx.strokeStyle = colours.rim; ctx.stroke();
    } else {
      var p = toScreen(pos[0], pos[1]), r = R_BTN * s;
      if (toMove && myTurn() && side === cfg.yourSide) {
        ctx.beginPath(); ctx.arc(p[0], p[1], r + Math.max(2, 6 * s), 0, 2 * Math.PI);
        ctx.fillStyle = "rgba(242,183,5,.45)"; ctx.fill();
      }
      ctx.beginPath(); ctx.arc(p[0], p[1], r, 0, 2 * Math.PI);
      ctx.fillStyle = colours.rim; ctx.fill();
      ctx.beginPath(); ctx.arc(p[0], p[1], r * 0.78, 0, 2 * Math.PI);
      ctx.fillStyle = colours.fill; ctx.fill();
      ctx.lineWidth = 1; ctx.strokeStyle = "rgba(0,0,0,.45)";
      ctx.beginPath(); ctx.arc(p[0], p[1], r, 0, 2 * Math.PI); ctx.stroke();
      if (r >= 7) {
        ctx.fillStyle = colours.rim;
        ctx.font = "bold " + Math.round(r * 0.9) + "px system-ui, sans-serif";
        ctx.textAlign = "center"; ctx.textBaseline = "middle";
        ctx.fillText(pid, p[0], p[1] + 0.5);
      }
    }
    ctx.globalAlpha = 1;
  }

  function drawDrag() {
    var colours = cfg.sides[drag.side];
    if (drag.kind === "aim") {
      var aim = aimOf(drag);
      var from = toScreen(drag.origin[0], drag.origin[1]);
      // the pull: a thin line to the pointer
      var pt = toScreen(drag.at[0], drag.at[1]);
      ctx.beginPath(); ctx.moveTo(from[0], from[1]); ctx.lineTo(pt[0], pt[1]);
      ctx.strokeStyle = "rgba(255,255,255,.5)"; ctx.lineWidth = 1.5; ctx.setLineDash([3, 4]); ctx.stroke();
      ctx.setLineDash([]);
      if (!aim) return;
      // the guide: direction and speed only, never a path
      var len = 60 + 240 * aim.speed / cfg.maxSpeed;        // mm on the table
      var rad = aim.angle * Math.PI / 180;
      var tip = toScreen(drag.origin[0] + Math.cos(rad) * len, drag.origin[1] + Math.sin(rad) * len);
      var hot = aim.speed / cfg.maxSpeed;
      var colour = "hsl(" + Math.round(120 - 120 * hot) + ",90%,55%)";
      ctx.beginPath(); ctx.moveTo(from[0], from[1]); ctx.lineTo(tip[0], tip[1]);
      ctx.strokeStyle = colour; ctx.lineWidth = 4; ctx.lineCap = "round"; ctx.stroke();
      var ang = Math.atan2(tip[1] - from[1], tip[0] - from[0]);
      ctx.beginPath();
      ctx.moveTo(tip[0], tip[1]);
      ctx.lineTo(tip[0] - 12 * Math.cos(ang - 0.45), tip[1] - 12 * Math.sin(ang - 0.45));
      ctx.lineTo(tip[0] - 12 * Math.cos(ang + 0.45), tip[1] - 12 * Math.sin(ang + 0.45));
      ctx.closePath(); ctx.fillStyle = colour; ctx.fill();
      var label = Math.round(aim.speed) + " mm/s";
      ctx.font = "bold 13px system-ui, sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "bottom";
      ctx.lineWidth = 3; ctx.strokeStyle = "rgba(0,0,0,.7)";
      ctx.strokeText(label, tip[0], tip[1] - 8); ctx.fillStyle = "#fff"; ctx.fillText(label, tip[0], tip[1] - 8);
    } else {
      drawPiece(drag.side, drag.piece, drag.at, colours, false, 0.75);
    }
  }

  function aimOf(d) {
    var dx = d.origin[0] - d.at[0], dy = d.origin[1] - d.at[1];   // pull back: the flick goes away
    var dist = Math.hypot(dx, dy);
    if (dist < AIM_MIN_MM) return null;
    var speed = Math.min(cfg.maxSpeed, Math.max(50, cfg.maxSpeed * dist / AIM_FULL_MM));
    var angle = Math.atan2(dy, dx) * 180 / Math.PI;
    return {angle: Math.round(angle * 10) / 10, speed: Math.round(speed)};
  }

  // --- the player's input (pointer events: mouse, pen and touch alike) ------------------------

  function eventWorld(ev) {
    var rect = canvas.getBoundingClientRect();
    return toWorld(ev.clientX - rect.left, ev.clientY - rect.top);
  }

  function pieceAt(side, p, slack) {
    var group = view.pieces[side] || {}, best = null, bestD = Infinity;
    Object.keys(group).forEach(function (pid) {
      var q = group[pid], d;
      if (pid === "gk") {
        var ex = Math.max(0, Math.abs(p[0] - q[0]) - KX), ey = Math.max(0, Math.abs(p[1] - q[1]) - KY);
        d = Math.hypot(ex, ey);
      } else {
        d = Math.max(0, Math.hypot(p[0] - q[0], p[1] - q[1]) - R_BTN);
      }
      if (d <= slack && d < bestD) { best = pid; bestD = d; }
    });
    return best;
  }

  canvas.addEventListener("pointerdown", function (ev) {
    if (!myTurn() || busy || anim || queue.length || !view) return;
    var p = eventWorld(ev);
    var slack = Math.max(8, 14 / geo.s);   // a finger is wider than a button on a phone
    var pid = pieceAt(cfg.yourSide, p, slack);
    if (!pid) return;
    ev.preventDefault();
    canvas.setPointerCapture(ev.pointerId);
    var origin = view.pieces[cfg.yourSide][pid].slice();
    var kind = pid === "gk" ? "keeper" : (mode === "place" ? "place" : "aim");
    drag = {side: cfg.yourSide, piece: pid, origin: origin, at: kind === "aim" ? origin.slice() : p,
            kind: kind, pointer: ev.pointerId};
    draw();
  });

  canvas.addEventListener("pointermove", function (ev) {
    if (!drag || ev.pointerId !== drag.pointer) return;
    ev.preventDefault();
    drag.at = eventWorld(ev);
    draw();
  });

  function endDrag(ev, cancelled) {
    if (!drag || ev.pointerId !== drag.pointer) return;
    var d = drag;
    d.at = eventWorld(ev);
    drag = null;
    draw();
    if (cancelled) return;
    var at = [Math.round(d.at[0] * 10) / 10, Math.round(d.at[1] * 10) / 10];
    if (d.kind === "aim") {
      var aim = aimOf(d);
      if (!aim) { say("Flick cancelled."); return; }
      send({type: "flick", piece: d.piece, angle_deg: aim.angle, speed_mm_s: aim.speed},
           "Flick of " + d.piece + " at " + aim.speed + " mm/s");
    } else if (d.kind === "keeper") {
      send({type: "place_goalkeeper", at: at}, "Goalkeeper placed");
    } else {
      send({type: "place", piece: d.piece, at: at}, "Button " + d.piece + " placed");
    }
  }
  canvas.addEventListener("pointerup", function (ev) { endDrag(ev, false); });
  canvas.addEventListener("pointercancel", function (ev) { endDrag(ev, true); });

  document.querySelectorAll("[data-mode]").forEach(function (button) {
    button.addEventListener("click", function () { setMode(button.getAttribute("data-mode")); });
  });
  function setMode(m) {
    mode = m;
    document.querySelectorAll("[data-mode]").forEach(function (b) {
      var on = b.getAttribute("data-mode") === m;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.classList.toggle("secondary", !on);
    });
  }
  if ($("declare-shot")) $("declare-shot").addEventListener("click", function () {
    send({type: "declare_shot"}, "Shot declared");
  });
  if ($("ready")) $("ready").addEventListener("click", function () { send({type: "ready"}, "Ready"); });

  function csrfToken() {
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "k" + Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function send(action, what) {
    if (!myTurn() || busy) { say("It is not your turn."); return; }
    busy = true;
    action.side = cfg.yourSide;
    var body = JSON.stringify({seq: header.seq + 1, action: action});
    var key = newKey(), tries = 0;
    say(what + "…");
    function attempt() {
      tries += 1;
      fetch(cfg.actionsUrl, {
        method: "POST", credentials: "same-origin", body: body,
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken(), "Idempotency-Key": key},
      }).then(function (response) {
        return response.json().then(function (data) { return {code: response.status, data: data}; });
      }).then(function (r) {
        busy = false;
        if (r.code === 201) {
          say(what + ".");
        } else if (r.code === 422) {
          say("Not allowed: " + r.data.reason + (r.data.rule ? " (" + r.data.rule + ")" : "") + ".", true);
        } else if (r.code === 409) {
          say("The match moved on before your move arrived: " + (r.data.detail || "") + ".", true);
        } else {
          say((r.data && r.data.detail) || ("The server answered " + r.code + "."), true);
        }
        pollNow();
      }).catch(function () {
        if (tries < 4) { setTimeout(attempt, 500 * tries); return; }   // same key: never two moves
        busy = false;
        say("Your move could not be sent; check your connection.", true);
      });
    }
    attempt();
  }

  function say(text, bad) {
    var el = $("message");
    el.textContent = text;
    el.classList.toggle("bad", !!bad);
  }

  // --- live: polling the log ---------------------------------------------------------------------

  var pollTimer = null, polling = false;

  function pollNow() { if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; } poll(); }

  function schedulePoll(ms) {
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, ms);
  }

  function poll() {
    if (polling || replay) return;
    polling = true;
    fetch(cfg.feedUrl + "?after=" + lastSeq, {credentials: "same-origin", cache: "no-store"})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (data) {
        polling = false;
        failures = 0;
        setConn(true);
        receive(data);
        if (header.finished) { if (!queue.length && !anim) startReplay(); return; }
        var more = data.actions.length >= 500;
        schedulePoll(more ? 0 : (header.status === "live" ? POLL_MS : IDLE_POLL_MS));
      })
      .catch(function () {
        polling = false;
        failures += 1;
        setConn(false);
        schedulePoll(Math.min(5000, 500 * Math.pow(2, failures)));   // back off, then catch up
      });
  }

  function setConn(ok) {
    var el = $("conn");
    el.textContent = ok ? "● live" : "● reconnecting…";
    el.className = "conn " + (ok ? "ok" : "bad");
  }

  function receive(data) {
    var wasLive = header.status === "live";
    var hadState = !!header.state;
    header = data.match;
    setOffset(header.server_now);
    var rows = data.actions.filter(function (r) { return r.seq > lastSeq; });
    if (rows.length) lastSeq = rows[rows.length - 1].seq;
    if (!hadState && header.state) { view = toView(header.state); geo.flip = shouldFlip(); }
    if (rows.length > 3) {          // far behind (a reconnect): show the calls, animate the last
      rows.slice(0, -1).forEach(function (r) { addRow(r); });
      view = toView(header.state) || view;
      rows = rows.slice(-1);
    }
    rows.forEach(function (r) { queue.push(r); });
    if (!anim) nextAnimation();
    if (wasLive !== (header.status === "live")) geo.flip = shouldFlip();
    hud();
  }

  // --- animation ----------------------------------------------------------------------------------

  function nextAnimation() {
    var row = queue.shift();
    if (!row) {
      anim = null;
      if (!replay && header.state && header.seq === lastSeq) {
        view = toView(header.state);
        var flip = shouldFlip();
        if (geo && flip !== geo.flip) geo.flip = flip;
      }
      draw();
      hud();
      if (!replay && header.finished) startReplay();
      return;
    }
    playRow(row, function () {
      if (row.state) view = toView(row.state);
      nextAnimation();
    });
  }

  // Animates one log row: each flick from its frames, a placing by moving the piece.
  function playRow(row, done, speed) {
    speed = speed || 1;
    if (!replay || replay.feedFollow) addRow(row);
    var flicks = (row.frames || []).filter(function (f) { return f && f.length; });
    var a = row.action || {};
    if (!flicks.length) {
      if (view && (a.type === "place" || a.type === "place_goalkeeper") && a.at) {
        var pid = a.type === "place_goalkeeper" ? "gk" : a.piece;
        if (view.pieces[a.side]) view.pieces[a.side][pid] = a.at.slice();
      }
      draw();
      anim = {row: row};
      setTimeout(done, (row.events || []).length ? 350 / speed : 120 / speed);
      return;
    }
    var index = 0;
    function one() {
      if (index >= flicks.length) { done(); return; }
      var frames = flicks[index++];
      var total = frames[frames.length - 1][0] || 0.001;
      var rate = Math.max(1, total / MAX_ANIM_S) * speed;
      var start = null, k = 0;
      anim = {row: row};
      function step(ts) {
        if (start === null) start = ts;
        var t = (ts - start) / 1000 * rate;
        while (k < frames.length && frames[k][0] <= t) { applyFrame(frames[k]); k += 1; }
        draw();
        if (k < frames.length) requestAnimationFrame(step); else one();
      }
      requestAnimationFrame(step);
    }
    one();
  }

  function applyFrame(frame) {
    if (!view) return;
    view.ball = frame[1].slice();
    var moved = frame[2] || {};
    Object.keys(moved).forEach(function (key) {
      var parts = key.split(":");
      if (view.pieces[parts[0]]) view.pieces[parts[0]][parts[1]] = moved[key].slice();
    });
  }

  // --- the scoreboard, clocks and the referee's feed --------------------------------------------

  var PERIODS = {first_half: "1st half", second_half: "2nd half", extra_time_first: "Extra time, 1st",
                 extra_time_second: "Extra time, 2nd", shootout: "Shoot-out"};
  var KINDS = {kick_off: "kick-off", free_kick: "free kick", free_kick_two_touch: "two-touch free kick",
               indirect_free_kick: "indirect free kick", penalty_kick: "penalty kick", throw_in: "throw-in",
               throw_in_two_touch: "two-touch throw-in", corner_kick: "corner kick",
               corner_kick_two_touch: "two-touch corner kick", goal_kick: "goal kick"};
  var STATUS = {scheduled: "Scheduled", checked_in: "Checking in", live: "Live", finished: "Full time",
                adjudicated: "Official result", walkover: "Walkover", abandoned: "Abandoned",
                cancelled: "Cancelled", in_progress: "In progress"};

  function setOffset(serverNow) { if (serverNow) offset = Date.parse(serverNow) - Date.now(); }
  function serverNow() { return Date.now() + offset; }

  function mmss(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var m = Math.floor(seconds / 60), s = seconds % 60;
    return (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
  }

  function nameOf(side) { return (cfg.sides[side] || {}).name || side; }
  function shortOf(side) { return (cfg.sides[side] || {}).short || nameOf(side); }

  function clockNow() {
    var st = replayState() || header.state;
    if (!st) return 0;
    if (replay || !header.clock_running || !header.clock_anchor_at) return st.clock_s;
    var c = header.clock_anchor_s + (serverNow() - Date.parse(header.clock_anchor_at)) / 1000;
    if (header.period_end_s !== null && header.period_end_s !== undefined) c = Math.min(c, header.period_end_s);
    return Math.max(c, st.clock_s);
  }

  function replayState() { return replay ? replay.states[replay.pos] : null; }

  function hud() {
    var st = replayState() || header.state;
    var badge = $("status-badge");
    badge.textContent = replay ? "Replay" : (STATUS[header.status] || header.status);
    badge.className = "badge " + (header.status === "live" && !replay ? "live" : header.finished ? "done" : "");
    if (st) {
      $("score-home").textContent = st.score.home;
      $("score-away").textContent = st.score.away;
      $("period").textContent = st.phase === "half_time" ? "Half time" : st.phase === "full_time" ? "Full time"
        : (PERIODS[st.period] || st.period);
    } else {
      $("period").textContent = "Not kicked off";
    }
    $("clock").textContent = mmss(clockNow());
    var turn = "", turnClock = "";
    if (replay) {
      turn = header.official ? "Official result " + header.official.text : "";
    } else if (header.status === "live" && st && st.phase !== "full_time") {
      turn = turnText(st);
      if (header.deadline_at) {
        var left = (Date.parse(header.deadline_at) - serverNow()) / 1000;
        turnClock = (header.deadline_kind === "period" ? "period " : "") + mmss(left);
        $("turn-clock").classList.toggle("low", left < 10);
      }
    } else if (header.status === "scheduled" || header.status === "checked_in") {
      turn = "Waiting for check-in: " + nameOf("home") + (header.checked_in.home ? " ✓" : " …") + ", "
        + nameOf("away") + (header.checked_in.away ? " ✓" : " …");
    } else if (header.status === "walkover") {
      turn = "Walkover: " + nameOf(header.walkover_side) + " did not check in";
    }
    $("turn").textContent = turn;
    $("turn").classList.toggle("mine", myTurn());
    $("turn-clock").textContent = turnClock;
    $("seq-label").textContent = lastSeq ? "#" + lastSeq : "";
    var controls = $("controls");
    if (controls) {
      controls.classList.toggle("disabled", !myTurn());
      controls.querySelectorAll("button").forEach(function (b) { b.disabled = !myTurn() || busy; });
    }
  }

  function turnText(st) {
    var side = st.to_move, mine = cfg.yourSide && side === cfg.yourSide;
    var who = mine ? "Your" : shortOf(side) + "'s";
    var placing = st.memo && st.memo.placing;
    if (st.phase === "shot_declared") {
      return mine ? "Shot declared: place your goalkeeper, then Ready" : shortOf(side) + " places the goalkeeper";
    }
    if (placing) return mine ? "Place your buttons, then Ready" : shortOf(side) + " is placing";
    if (KINDS[st.phase]) return who + " " + KINDS[st.phase];
    return mine ? "Your turn" : shortOf(side) + " to play";
  }

  function describe(ev) {
    var who = ev.side ? shortOf(ev.side) : "";
    switch (ev.type) {
      case "goal": return "GOAL! " + who + (ev.own_goal ? " (own goal)" : "");
      case "invalid_goal": return "No goal: the ball went in without a declared shot";
      case "shot_declared": return who + " declares a shot";
      case "shot_missed": return "The shot is missed";
      case "foul": return "Foul by " + who + (ev.piece ? " (button " + ev.piece + ")" : "");
      case "technical_foul": return "Technical foul by " + who + (ev.reason ? ": " + ev.reason.replace(/_/g, " ") : "");
      case "restart": return (KINDS[ev.kind] || ev.kind).replace(/^./, function (c) { return c.toUpperCase(); })
        + " to " + who;
      case "possession_lost": return who + " loses possession";
      case "inversion": return "Inversion: the restart passes from " + who;
      case "turn_timeout": return who + " let the turn time run out";
      case "piece_out": return "A button of " + who + " left the field" + (ev.piece ? " (" + ev.piece + ")" : "");
      case "expulsion": return "Button " + ev.piece + " of " + who + " is sent off"
        + (ev.reason ? " (" + ev.reason.replace(/_/g, " ") + ")" : "");
      case "disqualification": return who + " is disqualified";
      case "period_end": return "End of the " + (PERIODS[ev.period] || ev.period || "period");
      case "full_time": return "Full time";
      default: return (ev.type || "").replace(/_/g, " ") + (who ? " · " + who : "");
    }
  }

  function describeAction(a) {
    var who = a.side ? shortOf(a.side) : "";
    switch (a.type) {
      case "flick": return who + " flicks " + a.piece + " (" + Math.round(a.speed_mm_s) + " mm/s)";
      case "declare_shot": return "";   // the event says it
      case "place_goalkeeper": return who + " places the goalkeeper";
      case "place": return who + " places button " + a.piece;
      case "ready": return who + " is ready";
      default: return "";
    }
  }

  function addRow(row) {
    var list = $("feed");
    var a = row.action || {};
    var clock = a.t !== undefined && a.t !== null ? mmss(a.t) : "";
    var items = [];
    var text = describeAction(a);
    if (text) items.push({text: text, side: a.side, cls: "action"});
    (row.events || []).forEach(function (ev) {
      if (ev.type === "touch") return;
      items.push({text: describe(ev), side: ev.side, rule: ev.rule, cls: "event ev-" + ev.type});
    });
    items.forEach(function (item) {
      var li = document.createElement("li");
      li.className = item.cls;
      li.setAttribute("data-seq", row.seq);
      var time = document.createElement("span");
      time.className = "t num"; time.textContent = clock;
      li.appendChild(time);
      if (item.side && cfg.sides[item.side]) {
        var d = document.createElement("span");
        d.className = "dot";
        d.style.setProperty("--fill", cfg.sides[item.side].fill);
        d.style.setProperty("--rim", cfg.sides[item.side].rim);
        li.appendChild(d);
      }
      var body = document.createElement("span");
      body.className = "what"; body.textContent = item.text;
      li.appendChild(body);
      if (item.rule) {
        var rule = document.createElement("span");
        rule.className = "rule"; rule.textContent = item.rule;
        li.appendChild(rule);
      }
      list.insertBefore(li, list.firstChild);
      feedCount += 1;
    });
  }

  // --- replay -----------------------------------------------------------------------------------

  function startReplay() {
    if (replay) return;
    replay = {rows: [], states: [], pos: 0, playing: false, feedFollow: true, loading: true};
    if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
    $("conn").textContent = "";
    hud();
    fetch(cfg.replayUrl, {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (data) {
      var rows = data.actions || [];
      replay.rows = rows;
      replay.states = [data.initial_state].concat(rows.map(function (r) { return r.state; }));
      replay.loading = false;
      var panel = $("replay");
      panel.hidden = false;
      $("rp-range").max = rows.length;
      var goals = $("rp-goals"), score = {home: 0, away: 0};
      rows.forEach(function (row, i) {
        (row.events || []).forEach(function (ev) {
          if (ev.type !== "goal" || !cfg.sides[ev.side]) return;
          score[ev.side] += 1;
          var b = document.createElement("button");
          b.type = "button"; b.className = "btn small secondary goal-jump";
          b.textContent = mmss((row.action || {}).t || 0) + " " + nameOf(ev.side) + " " + score.home + "–" + score.away;
          b.addEventListener("click", function () { jump(i); play(true, i + 1); });
          goals.appendChild(b);
        });
      });
      if (goals.children.length === 1) goals.appendChild(textSpan("none"));
      jump(rows.length);   // a finished match opens at full time
    }).catch(function () { say("The replay could not be loaded.", true); });
  }

  function textSpan(text) { var s = document.createElement("span"); s.className = "small muted"; s.textContent = text; return s; }

  function rebuildFeed(upto) {
    var list = $("feed");
    list.innerHTML = "";
    for (var i = 0; i < upto; i++) addRow(replay.rows[i]);
  }

  function jump(pos) {
    replay.playing = false;
    replay.pos = Math.max(0, Math.min(pos, replay.rows.length));
    view = toView(replay.states[replay.pos]);
    rebuildFeed(replay.pos);
    replayHud();
    draw();
  }

  function replayHud() {
    $("rp-pos").textContent = replay.pos + " / " + replay.rows.length;
    $("rp-range").value = replay.pos;
    $("rp-play").textContent = replay.playing ? "Pause" : "Play";
    hud();
  }

  // Plays the replay from its position; with ``until``, stops after that row.
  function play(on, until) {
    replay.playing = on;
    replayHud();
    if (!on) return;
    (function next() {
      if (!replay.playing) return;
      if (replay.pos >= replay.rows.length || (until !== undefined && replay.pos >= until)) {
        replay.playing = false; replayHud(); return;
      }
      var row = replay.rows[replay.pos];
      view = toView(replay.states[replay.pos]);
      playRow(row, function () {
        replay.pos += 1;
        view = toView(replay.states[replay.pos]);
        anim = null;
        replayHud(); draw();
        setTimeout(next, 150);
      });
    })();
  }

  $("rp-play").addEventListener("click", function () {
    if (!replay || replay.loading) return;
    if (!replay.playing && replay.pos >= replay.rows.length) jump(0);
    play(!replay.playing);
  });
  $("rp-step").addEventListener("click", function () {
    if (!replay || replay.loading || replay.pos >= replay.rows.length) return;
    replay.playing = false;
    var row = replay.rows[replay.pos];
    playRow(row, function () { replay.pos += 1; view = toView(replay.states[replay.pos]); anim = null; replayHud(); draw(); });
  });
  $("rp-back").addEventListener("click", function () { if (replay && !replay.loading) jump(replay.pos - 1); });
  $("rp-range").addEventListener("input", function () { if (replay) jump(parseInt(this.value, 10)); });

  // --- start -------------------------------------------------------------------------------------

  window.addEventListener("resize", layout);
  layout();
  hud();
  setInterval(hud, 250);

  // The calls made before this page was opened (without frames: nothing to animate).
  fetch(cfg.feedUrl + "?after=0&frames=0", {credentials: "same-origin"}).then(function (r) { return r.json(); })
    .then(function (data) {
      if (replay) return;
      data.actions.filter(function (r) { return r.seq <= lastSeq; }).forEach(addRow);
    }).finally(function () {
      if (header.finished) startReplay(); else poll();
    });

  // For people and tests: where a piece is drawn on the page, and what the board knows.
  window.botonera = {
    header: function () { return header; },
    lastSeq: function () { return lastSeq; },
    feedCount: function () { return feedCount; },
    idle: function () { return !anim && !queue.length && !busy; },
    replayPos: function () { return replay ? replay.pos : null; },
    screenOf: function (side, pid) {
      var p = pid === "ball" ? view.ball : view.pieces[side][pid];
      var s = toScreen(p[0], p[1]), rect = canvas.getBoundingClientRect();
      return {x: rect.left + s[0], y: rect.top + s[1], scale: geo.s};
    },
    pieces: function () { return view; },
  };
})();
