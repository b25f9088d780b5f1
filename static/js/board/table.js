/* The table: its geometry on the screen, its drawing, and the animation of the log's rows.
 *
 * Owns the canvas. The world is SIMULATION_CONTRACT.md's frame (mm, origin at the centre spot,
 * x along the pitch, y across it); the screen is CSS pixels of the canvas. A player always
 * attacks to the right, or upwards on a narrow screen, where the table stands upright and
 * fills the width with the player's own half at the bottom. ``draw(scene)`` paints a scene
 * (positions, whose turn, the buttons that may not play, a drag in progress) and knows
 * nothing of the server; ``animateRow`` moves the pieces of a view along a row's frames.
 */

const PORTRAIT_BELOW_PX = 640;   // a narrower board stands the table upright
const MAX_ANIM_S = 4;            // a longer flick is played faster

export function toView(state) {
  if (!state) return null;
  const view = {ball: state.ball.slice(), pieces: {home: {}, away: {}}};
  for (const side of ["home", "away"]) {
    const group = (state.pieces || {})[side] || {};
    for (const pid of Object.keys(group)) if (group[pid]) view.pieces[side][pid] = group[pid].slice();
  }
  return view;
}

/* The side's attacking direction along x: +1 or -1. */
export function attackSign(side, state) {
  const homeAttacks = (state && state.home_attacks) || "+x";
  const attacks = side === "home" ? homeAttacks : (homeAttacks === "+x" ? "-x" : "+x");
  return attacks === "+x" ? 1 : -1;
}

/* Rulebook §5: in a goal kick's arrangement no button is placed within 6 cm of an opponent. */
export const ARRANGEMENT_GAP_MM = 60;

/* The goal kick's arrangement stage under way: {side, half: "offensive"|"defensive"}, or null. */
export function arrangementStage(state) {
  const placing = state && state.memo && state.memo.placing;
  if (!placing || placing.kind !== "goal_kick" || placing.stage === null || placing.stage === undefined) return null;
  const row = (placing.order || [])[placing.stage];
  return row ? {side: row[0], half: row[1]} : null;
}

/* Rulebook §5: [have, need], how many of ``side``'s buttons lie wholly in its offensive half
 * (one touching the halfway line does not) and how many must when its stage ends. */
export function offensiveCount(state, side, buttonRadius) {
  const sign = attackSign(side, state);
  const group = (state && state.pieces && state.pieces[side]) || {};
  const buttons = Object.keys(group).filter((pid) => pid !== "gk" && group[pid]);
  const have = buttons.filter((pid) => sign * group[pid][0] > buttonRadius).length;
  return [have, Math.min(3, buttons.length)];
}

export function createTable(canvas, wrap, T) {
  const ctx = canvas.getContext("2d");
  const R_BTN = T.button_diameter / 2, R_BALL = T.ball_diameter / 2;
  const KX = T.keeper_size[0] / 2, KY = T.keeper_size[1] / 2;
  const L = T.table_length, W = T.table_width, FL = T.field_length, FW = T.field_width;
  let geo = null;
  let marked = [];

  /* Sizes the canvas to its box: the table's width fills it, never taller than the window
   * leaves room for. ``flip``: the view is turned half a turn (the player attacks -x).
   * ``below``: CSS pixels to keep on screen under a landscape table (the turn, the controls
   * and the message), so that at the top of the page all of them show without scrolling. */
  function layout(flip, below) {
    const column = wrap.parentElement;   // the table's column: as wide as the table it holds
    column.style.maxWidth = "";
    const width = Math.max(240, wrap.clientWidth);
    const portrait = width < PORTRAIT_BELOW_PX;
    let cssW = width, cssH = portrait ? width * L / W : width * W / L;
    const top = wrap.getBoundingClientRect().top + window.scrollY;
    const maxH = Math.max(320, window.innerHeight - (portrait ? 0 : top + (below || 0)));
    if (cssH > maxH && !portrait) { cssH = maxH; cssW = cssH * L / W; }
    column.style.maxWidth = !portrait && cssW < width ? Math.ceil(cssW) + "px" : "";
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = cssW + "px";
    canvas.style.height = cssH + "px";
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    geo = {portrait, w: cssW, h: cssH, dpr, s: portrait ? cssW / W : cssW / L, flip: !!flip};
  }

  function setFlip(flip) { if (geo) geo.flip = !!flip; }

  function toScreen(x, y) {
    if (geo.flip) { x = -x; y = -y; }
    if (geo.portrait) return [geo.w / 2 - y * geo.s, geo.h / 2 - x * geo.s];
    return [geo.w / 2 + x * geo.s, geo.h / 2 - y * geo.s];
  }

  function toWorld(sx, sy) {
    let x, y;
    if (geo.portrait) { y = (geo.w / 2 - sx) / geo.s; x = (geo.h / 2 - sy) / geo.s; }
    else { x = (sx - geo.w / 2) / geo.s; y = (geo.h / 2 - sy) / geo.s; }
    if (geo.flip) { x = -x; y = -y; }
    return [x, y];
  }

  function rectPath(cx, cy, hx, hy) {
    const a = toScreen(cx - hx, cy - hy), b = toScreen(cx + hx, cy + hy);
    ctx.rect(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]));
  }

  function line(x0, y0, x1, y1) {
    const a = toScreen(x0, y0), b = toScreen(x1, y1);
    ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
  }

  function dot(x, y, r, fill) {
    const p = toScreen(x, y);
    ctx.beginPath(); ctx.arc(p[0], p[1], r, 0, 2 * Math.PI);
    ctx.fillStyle = fill; ctx.fill();
  }

  function drawField(scene) {
    const hl = FL / 2, hw = FW / 2, s = geo.s;
    ctx.fillStyle = "#0b3d28";
    ctx.fillRect(0, 0, geo.w, geo.h);
    const stripes = 12, step = FL / stripes;
    for (let i = 0; i < stripes; i++) {
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
    const c = toScreen(0, 0);
    ctx.beginPath(); ctx.arc(c[0], c[1], T.centre_circle_radius * s, 0, 2 * Math.PI); ctx.stroke();
    dot(0, 0, Math.max(1.5, 5 * s), "#fff");
    for (const end of [1, -1]) {
      const gx = end * hl;
      ctx.beginPath();
      rectPath(gx - end * T.penalty_area_depth / 2, 0, T.penalty_area_depth / 2, T.penalty_area_width / 2);
      rectPath(gx - end * T.goal_area_depth / 2, 0, T.goal_area_depth / 2, T.goal_area_width / 2);
      ctx.stroke();
      dot(gx - end * T.penalty_mark_distance, 0, Math.max(1.5, 5 * s), "#fff");
      ctx.beginPath();
      rectPath(gx + end * T.goal_depth / 2, 0, T.goal_depth / 2, T.goal_width / 2);
      ctx.fillStyle = "rgba(255,255,255,.28)";
      ctx.fill();
      ctx.stroke();
      dot(gx, T.goal_width / 2, Math.max(2, T.post_diameter * s), "#fff");
      dot(gx, -T.goal_width / 2, Math.max(2, T.post_diameter * s), "#fff");
    }
    if (scene.drag && scene.drag.kind === "keeper") highlightGoalArea(scene.drag.side, scene.state);
    const st = scene.state;
    const stage = arrangementStage(st);
    if (stage && stage.side === scene.yourSide) highlightArrangement(stage, st, scene.view);
    if (st && st.restart && st.restart.at) {
      const p = toScreen(st.restart.at[0], st.restart.at[1]);
      ctx.beginPath();
      ctx.arc(p[0], p[1], Math.max(6, 60 * s), 0, 2 * Math.PI);
      ctx.setLineDash([4, 4]);
      ctx.strokeStyle = "rgba(242,183,5,.9)";
      ctx.lineWidth = 1.5;
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  /* Rulebook §5, the goal kick's arrangement: the half the side to place may use lit, and a
   * ring of 6 cm around each opposing button (no button of the side may be placed inside it). */
  function highlightArrangement(stage, state, view) {
    const sign = attackSign(stage.side, state) * (stage.half === "offensive" ? 1 : -1);
    ctx.beginPath();
    rectPath(sign * FL / 4, 0, FL / 4, FW / 2);
    ctx.fillStyle = "rgba(242,183,5,.16)";
    ctx.fill();
    const other = stage.side === "home" ? "away" : "home";
    const group = (view && view.pieces[other]) || {};
    ctx.setLineDash([3, 4]);
    ctx.strokeStyle = "rgba(255,255,255,.55)";
    ctx.lineWidth = 1;
    for (const pid of Object.keys(group)) {
      if (pid === "gk" || !group[pid]) continue;
      const p = toScreen(group[pid][0], group[pid][1]);
      ctx.beginPath(); ctx.arc(p[0], p[1], (2 * R_BTN + ARRANGEMENT_GAP_MM) * geo.s, 0, 2 * Math.PI); ctx.stroke();
    }
    ctx.setLineDash([]);
  }

  function highlightGoalArea(side, state) {
    const end = -attackSign(side, state), gx = end * FL / 2;
    ctx.beginPath();
    rectPath(gx - end * T.goal_area_depth / 2, 0, T.goal_area_depth / 2, T.goal_area_width / 2);
    ctx.fillStyle = "rgba(242,183,5,.35)";
    ctx.fill();
  }

  function drawPiece(pid, pos, colours, opts) {
    const s = geo.s;
    ctx.globalAlpha = opts.alpha || 1;
    if (pid === "gk") {
      ctx.beginPath();
      rectPath(pos[0], pos[1], KX, KY);
      ctx.fillStyle = colours.fill; ctx.fill();
      ctx.lineWidth = Math.max(1, 3 * s); ctx.strokeStyle = colours.rim; ctx.stroke();
      ctx.globalAlpha = 1;
      return;
    }
    const p = toScreen(pos[0], pos[1]), r = R_BTN * s;
    if (opts.playable) {
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
    ctx.globalAlpha = 1;
    if (opts.barred) drawBarred(p, r);
  }

  /* A button that may not play this turn: dimmed, under a no-entry sign (a red ring crossed
   * through, edged in white so that it shows on any club's colours). */
  function drawBarred(p, r) {
    const ring = r + Math.max(2, 4 * geo.s);
    const d = ring * Math.SQRT1_2;
    const width = Math.max(2, 5 * geo.s);
    ctx.save();
    ctx.fillStyle = "rgba(20,32,26,.55)";
    ctx.beginPath(); ctx.arc(p[0], p[1], r, 0, 2 * Math.PI); ctx.fill();
    for (const [colour, w] of [["rgba(255,255,255,.9)", width + 2], ["#e53935", width]]) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = w;
      ctx.beginPath(); ctx.arc(p[0], p[1], ring, 0, 2 * Math.PI); ctx.stroke();
      ctx.beginPath(); ctx.moveTo(p[0] - d, p[1] - d); ctx.lineTo(p[0] + d, p[1] + d); ctx.stroke();
    }
    ctx.restore();
  }

  function drawPieces(scene) {
    const view = scene.view, barred = scene.mayNotPlay || {};
    marked = [];
    for (const side of ["home", "away"]) {
      const colours = scene.sides[side];
      const group = view.pieces[side];
      for (const pid of Object.keys(group)) {
        const drag = scene.drag;
        if (drag && drag.side === side && drag.piece === pid && drag.kind !== "aim") continue;
        const isBarred = side === scene.toMove && pid in barred;
        if (isBarred) marked.push(pid);
        drawPiece(pid, group[pid], colours, {
          playable: scene.myTurn && side === scene.yourSide && !isBarred, barred: isBarred});
      }
    }
    const b = toScreen(view.ball[0], view.ball[1]);
    const r = Math.max(3.5, R_BALL * geo.s * 1.2);
    ctx.beginPath(); ctx.arc(b[0], b[1], r, 0, 2 * Math.PI);
    ctx.fillStyle = "#fff"; ctx.fill();
    ctx.lineWidth = 1.2; ctx.strokeStyle = "#111"; ctx.stroke();
  }

  /* The pull and the guide of a flick being aimed: direction and speed only, never a path. */
  function drawAim(drag, aim, maxSpeed, speedLabel) {
    const from = toScreen(drag.origin[0], drag.origin[1]);
    const pt = toScreen(drag.at[0], drag.at[1]);
    ctx.beginPath(); ctx.moveTo(from[0], from[1]); ctx.lineTo(pt[0], pt[1]);
    ctx.strokeStyle = "rgba(255,255,255,.55)"; ctx.lineWidth = 1.5; ctx.setLineDash([3, 4]); ctx.stroke();
    ctx.setLineDash([]);
    if (!aim) return;
    const len = 60 + 240 * aim.speed / maxSpeed;   // mm on the table
    const rad = aim.angle * Math.PI / 180;
    const tipW = [drag.origin[0] + Math.cos(rad) * len, drag.origin[1] + Math.sin(rad) * len];
    const tip = toScreen(tipW[0], tipW[1]);
    const colour = "hsl(" + Math.round(120 - 120 * aim.speed / maxSpeed) + ",90%,55%)";
    const width = geo.portrait ? 5 : 4, head = geo.portrait ? 14 : 12;
    ctx.beginPath(); ctx.moveTo(from[0], from[1]); ctx.lineTo(tip[0], tip[1]);
    ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.lineCap = "round"; ctx.stroke();
    const ang = Math.atan2(tip[1] - from[1], tip[0] - from[0]);
    ctx.beginPath();
    ctx.moveTo(tip[0], tip[1]);
    ctx.lineTo(tip[0] - head * Math.cos(ang - 0.45), tip[1] - head * Math.sin(ang - 0.45));
    ctx.lineTo(tip[0] - head * Math.cos(ang + 0.45), tip[1] - head * Math.sin(ang + 0.45));
    ctx.closePath(); ctx.fillStyle = colour; ctx.fill();
    ctx.font = "bold " + (geo.portrait ? 15 : 13) + "px system-ui, sans-serif";
    ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    const lx = Math.min(geo.w - 40, Math.max(40, tip[0])), ly = Math.max(18, tip[1] - 8);
    ctx.lineWidth = 3; ctx.strokeStyle = "rgba(0,0,0,.7)";
    ctx.strokeText(speedLabel, lx, ly); ctx.fillStyle = "#fff"; ctx.fillText(speedLabel, lx, ly);
  }

  /* scene: {view, state, sides, yourSide, toMove, myTurn, mayNotPlay, drag, aim, maxSpeed,
   * speedLabel}. */
  function draw(scene) {
    if (!geo) return;
    ctx.setTransform(geo.dpr, 0, 0, geo.dpr, 0, 0);
    ctx.clearRect(0, 0, geo.w, geo.h);
    drawField(scene);
    if (scene.view) drawPieces(scene);
    const drag = scene.drag;
    if (drag && drag.kind === "aim") drawAim(drag, scene.aim, scene.maxSpeed, scene.speedLabel);
    else if (drag) drawPiece(drag.piece, drag.at, scene.sides[drag.side], {alpha: 0.75});
  }

  /* The piece of ``side`` at world point ``p`` within ``slack`` mm of its edge, or null. */
  function pieceAt(view, side, p, slack) {
    const group = (view && view.pieces[side]) || {};
    let best = null, bestD = Infinity;
    for (const pid of Object.keys(group)) {
      const q = group[pid];
      let d;
      if (pid === "gk") {
        const ex = Math.max(0, Math.abs(p[0] - q[0]) - KX), ey = Math.max(0, Math.abs(p[1] - q[1]) - KY);
        d = Math.hypot(ex, ey);
      } else {
        d = Math.max(0, Math.hypot(p[0] - q[0], p[1] - q[1]) - R_BTN);
      }
      if (d <= slack && d < bestD) { best = pid; bestD = d; }
    }
    return best;
  }

  return {
    layout, setFlip, toScreen, toWorld, draw, pieceAt,
    scale: () => (geo ? geo.s : 1),
    portrait: () => !!(geo && geo.portrait),
    marked: () => marked.slice(),
  };
}

/* Moves the pieces of ``view`` along the frames of ``row`` (each flick in turn; a placing
 * moves its piece at once), calling ``redraw`` after each step and ``done`` at the end.
 * ``speed`` > 1 plays faster. */
export function animateRow(view, row, redraw, done, speed) {
  speed = speed || 1;
  const flicks = (row.frames || []).filter((f) => f && f.length);
  const a = row.action || {};
  if (!flicks.length) {
    if (view && (a.type === "place" || a.type === "place_goalkeeper") && a.at) {
      const pid = a.type === "place_goalkeeper" ? "gk" : a.piece;
      if (pid === "ball") view.ball = a.at.slice();
      else if (view.pieces[a.side]) view.pieces[a.side][pid] = a.at.slice();
    }
    redraw();
    setTimeout(done, (row.events || []).length ? 350 / speed : 120 / speed);
    return;
  }
  let index = 0;
  function one() {
    if (index >= flicks.length) { done(); return; }
    const frames = flicks[index++];
    const total = frames[frames.length - 1][0] || 0.001;
    const rate = Math.max(1, total / MAX_ANIM_S) * speed;
    let start = null, k = 0;
    function step(ts) {
      if (start === null) start = ts;
      const t = (ts - start) / 1000 * rate;
      while (k < frames.length && frames[k][0] <= t) { applyFrame(view, frames[k]); k += 1; }
      redraw();
      if (k < frames.length) requestAnimationFrame(step); else one();
    }
    requestAnimationFrame(step);
  }
  one();
}

function applyFrame(view, frame) {
  if (!view) return;
  view.ball = frame[1].slice();
  const moved = frame[2] || {};
  for (const key of Object.keys(moved)) {
    const parts = key.split(":");
    if (view.pieces[parts[0]]) view.pieces[parts[0]][parts[1]] = moved[key].slice();
  }
}
