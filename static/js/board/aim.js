/* Aiming: what a finger, a mouse or a pen does on the table (pointer events, one pointer).
 *
 * Owns the player's drag. On one of your buttons, in your turn: pull back, like a slingshot,
 * and let go to flick (the further the pull, the faster, up to the rule set's limit; letting
 * go near the button cancels); in Place mode the button is dragged to where it should stand;
 * the keeper is always dragged. A button that may not play this turn is not picked up: a tap
 * (or the mouse over it) explains why. Anywhere else a finger scrolls the page as usual: only
 * a touch that starts on a button you can move is kept from scrolling.
 */

const AIM_FULL_MM = 300;    // a pull of this length (in table mm) is the fastest flick
const AIM_MIN_MM = 12;      // a shorter pull is a cancel

/* The flick a drag stands for: {angle (degrees), speed (mm/s)}, or null (a cancel). */
export function aimOf(drag, maxSpeed) {
  const dx = drag.origin[0] - drag.at[0], dy = drag.origin[1] - drag.at[1];   // the flick goes away from the pull
  const dist = Math.hypot(dx, dy);
  if (dist < AIM_MIN_MM) return null;
  const speed = Math.min(maxSpeed, Math.max(50, maxSpeed * dist / AIM_FULL_MM));
  const angle = Math.atan2(dy, dx) * 180 / Math.PI;
  return {angle: Math.round(angle * 10) / 10, speed: Math.round(speed)};
}

/* Listens on ``canvas``. ``board`` gives: view(), yourSide, canAct(), mode(), barred() (the
 * may-not-play map of the side to move), redraw(); ``on`` receives flick(piece, aim),
 * place(piece, at), keeper(at), cancelled(), notYourTurn() (a press on one of your buttons
 * while you may not act), explain(piece, clientX, clientY) and explain(null). */
export function attachAim(canvas, table, board, on) {
  let drag = null;

  function world(ev) {
    const rect = canvas.getBoundingClientRect();
    return table.toWorld(ev.clientX - rect.left, ev.clientY - rect.top);
  }

  function slack() { return Math.max(8, 14 / table.scale()); }  // a finger is wider than a button

  function ownPieceAt(clientX, clientY) {
    if (!board.yourSide || !board.view()) return null;
    const rect = canvas.getBoundingClientRect();
    const p = table.toWorld(clientX - rect.left, clientY - rect.top);
    return table.pieceAt(board.view(), board.yourSide, p, slack());
  }

  function barredAt(clientX, clientY) {
    const barred = board.barred();
    const side = board.toMove();
    if (!side || !Object.keys(barred).length || !board.view()) return null;
    const rect = canvas.getBoundingClientRect();
    const pid = table.pieceAt(board.view(), side, table.toWorld(clientX - rect.left, clientY - rect.top), 4 / table.scale());
    return pid && pid in barred ? pid : null;
  }

  // A touch that starts on a button you may move now is a drag, not a scroll.
  canvas.addEventListener("touchstart", (ev) => {
    if (ev.touches.length !== 1 || !board.canAct()) return;
    const t = ev.touches[0];
    if (ownPieceAt(t.clientX, t.clientY) && !barredAt(t.clientX, t.clientY)) ev.preventDefault();
  }, {passive: false});

  canvas.addEventListener("pointerdown", (ev) => {
    if (drag || !ev.isPrimary) return;
    const barred = barredAt(ev.clientX, ev.clientY);
    if (barred) { on.explain(barred, ev.clientX, ev.clientY); return; }
    const pid = ownPieceAt(ev.clientX, ev.clientY);
    if (!board.canAct()) { if (pid) on.notYourTurn(); return; }  // said at once, nothing sent
    if (!pid) return;
    ev.preventDefault();
    canvas.setPointerCapture(ev.pointerId);
    on.explain(null);
    const origin = board.view().pieces[board.yourSide][pid].slice();
    const kind = pid === "gk" ? "keeper" : (board.mode() === "place" ? "place" : "aim");
    drag = {side: board.yourSide, piece: pid, origin, at: kind === "aim" ? origin.slice() : world(ev),
            kind, pointer: ev.pointerId};
    board.redraw();
  });

  canvas.addEventListener("pointermove", (ev) => {
    if (!drag) {
      if (ev.pointerType === "mouse") {
        const pid = barredAt(ev.clientX, ev.clientY);
        on.explain(pid, ev.clientX, ev.clientY);
        canvas.style.cursor = pid ? "not-allowed" : (ownPieceAt(ev.clientX, ev.clientY) && board.canAct() ? "grab" : "");
      }
      return;
    }
    if (ev.pointerId !== drag.pointer) return;
    ev.preventDefault();
    drag.at = world(ev);
    board.redraw();
  });

  canvas.addEventListener("pointerleave", (ev) => { if (!drag && ev.pointerType === "mouse") on.explain(null); });

  function end(ev, cancelled) {
    if (!drag || ev.pointerId !== drag.pointer) return;
    const d = drag;
    d.at = world(ev);
    drag = null;
    board.redraw();
    if (cancelled) return;
    const at = [Math.round(d.at[0] * 10) / 10, Math.round(d.at[1] * 10) / 10];
    if (d.kind === "aim") {
      const aim = aimOf(d, board.maxSpeed);
      if (aim) on.flick(d.piece, aim); else on.cancelled();
    } else if (d.kind === "keeper") {
      on.keeper(at);
    } else {
      on.place(d.piece, at);
    }
  }
  canvas.addEventListener("pointerup", (ev) => end(ev, false));
  canvas.addEventListener("pointercancel", (ev) => end(ev, true));

  return {
    drag: () => drag,
    aim: () => (drag && drag.kind === "aim" ? aimOf(drag, board.maxSpeed) : null),
    dragging: () => !!drag,
  };
}
