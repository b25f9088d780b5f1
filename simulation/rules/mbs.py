"""The MBS referee: the online rules (``mbs-online-rules.es.txt``) on the shared base.

Every decision is taken under one heading of the MBS rules, which is the ``rule`` of its event
("MBS Falta", "MBS Inversión"...). The English terms follow STYLE.md §12.

- **Turnos**: a side's turn lasts ``turn_seconds`` (30 s) from the moment it began
  (``state.turn_started_s``); within it the side flicks as often as it keeps possession; losing
  possession ends the turn at once; when the time runs out the turn passes (``turn_timeout``).
- **Pérdida de posesión**: a flicked button that does not touch the ball; the ball last
  touching an opposing button or keeper; the ball going out last touched by an own piece; a
  declared shot that fails without a rebound (``shot_missed``). A *rebound* is any touch of the
  ball, after the shooter's, by something else (a post, the rim, a button, a keeper).
- **Saque de banda y tiro de esquina** (and every set piece): the taking side may ``place`` up
  to two buttons (the taker by the ball, within ``set_piece_distance_mm`` (100) edge to edge;
  the receiver anywhere; at a free kick both by the ball; at a throw-in or corner the taker
  may stand on the run-off) and says
  ``ready``. At a throw-in or corner kick the text asks for it ("Después, él debe tocar en el
  botón 'Preparado'"): once the taking side has placed a button, its flick is refused until it
  says ``ready``; a flick with no button placed takes the set piece as the buttons stand. At the
  other set pieces the text names no "Preparado": a flick ends the placing. The taker of a
  throw-in, corner kick, goal kick or free kick may not play again before another button of its
  side touched the ball: its flick is refused (memo ``taker``) under the heading of that set
  piece (Falta for a free kick).
- **Falta**: a button of the side in turn (the flicked one, or a team-mate it knocked on)
  hitting an opposing piece before (or as) anything touches the ball: a free kick at the spot
  of the foul, which may be shot directly when **Disparo a la meta**
  allows (``declare_shot`` in the ``free_kick`` phase). **Penal** when the fouled piece touches
  the offender's own penalty area: the ball on the penalty mark, the area cleared, the keeper
  on its line; the taker may be placed, a shot may be declared (the keeper is then placed),
  and the kick is a shot whether declared or not.
- **Falta técnica**: missing the ball on a declared shot, a free kick or a kick-off: a free
  kick for the opponent where the ball lies.
- **Inversión**: a set piece not taken within the turn, or taken without touching the ball,
  passes to the opponent: a kick-off, free kick or penalty kick becomes a technical foul (a
  free kick) for it; a throw-in another throw-in; a corner kick a goal kick and a goal kick a
  corner kick.
- **Expulsión**: at a foul, the offending button faster than ``violent_foul_speed_mm_s`` at the
  impact (``violent_foul``), or the fouled piece farther than ``unsporting_foul_distance_mm``
  from the ball, centre to centre (``unsporting_foul``), is sent off; the free kick stands.
- **Descalificación**: the fourth button sent off: ``disqualification``, then ``full_time``;
  the score on the table stays (the official 2-0 is applied at adjudication).
- **Disparo a la meta**: ``declare_shot`` in open play, at a free kick or a penalty kick, with
  the ball entirely in the opponent's half and, in the possession that began with a kick-off,
  wholly outside the centre circle. **Posición del portero**: the defender may place its keeper
  only while a shot waits (wholly in its goal area, on no piece) and says ``ready`` within
  ``shot_wait_seconds``; when that time runs out the shot goes ahead.
- **Gol inválido**: a goal without a declared shot: a goal kick for the other side.
  **Gol contra**: the ball into the mover's own goal counts for the opponent, whoever touched
  it on the way. **Pelota del portero**: a ball at rest wholly inside a goal area: a goal kick.
- Match time, extra time and the shoot-out are the base's. The MBS rules have no heading on
  match time, nor on a button that leaves the field (it comes straight back, ``return_pieces``):
  those events cite ``NO_HEADING`` ("MBS (sin sección)") rather than a heading that does not
  say it. The full time of a disqualification cites Descalificación.

Memo keys of this referee: ``taker`` ([side, piece] that may not play yet), ``kickoff`` (the
side whose possession began with a kick-off), ``placed`` (ids placed for the pending set
piece), ``ready`` (the placing of the pending set piece is over), ``taker_rule`` (the heading
under which ``taker`` may not play yet).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from ..actions import BALL_PIECE, Flick, Place, PlaceGoalkeeper, Ready
from ..physics import BALL, Contact, Crossing, split_key
from ..state import MatchState, round_pos
from ..table import SIDES, Vec, defended_end, distance, end_sign, other_side
from .base import RESTART_PHASES, Ctx, FlickFacts, Referee, RuleViolation, gap_to

TURNOS = "MBS Turnos"
POSESION = "MBS Pérdida de posesión"
BANDA = "MBS Saque de banda y tiro de esquina"
FALTA = "MBS Falta"
TECNICA = "MBS Falta técnica"
INVERSION = "MBS Inversión"
EXPULSION = "MBS Expulsión"
DESCALIFICACION = "MBS Descalificación"
DISPARO = "MBS Disparo a la meta"
PORTERO = "MBS Posición del portero"
INVALIDO = "MBS Gol inválido"
CONTRA = "MBS Gol contra"
PENAL = "MBS Penal"
PELOTA_PORTERO = "MBS Pelota del portero"
#: what the MBS rules do not cover (a button out of the field comes straight back)
NO_HEADING = "MBS (sin sección)"

MBS_DEFAULTS: dict[str, Any] = {
    "turn_seconds": 30.0,
    "shot_wait_seconds": 30.0,
    "violent_foul_speed_mm_s": 1500.0,
    "unsporting_foul_distance_mm": 300.0,
    "set_piece_distance_mm": 100.0,
    "restart_after_goal": "kick_off",
    "max_flick_speed_mm_s": 2500.0,
}
#: set pieces whose inversion is a technical foul for the opponent (MBS Inversión)
TECHNICAL_ON_INVERSION = ("kick_off", "free_kick", "free_kick_two_touch", "indirect_free_kick",
                          "penalty_kick")
#: set pieces whose taker may not play again before a team-mate touched the ball
TAKER_LOCKED = ("throw_in", "throw_in_two_touch", "corner_kick", "corner_kick_two_touch",
                "goal_kick", "free_kick", "free_kick_two_touch", "indirect_free_kick")
#: set pieces whose text asks for "Preparado" after the placing (MBS Saque de banda y tiro de esquina)
READY_BEFORE_FLICK = ("throw_in", "throw_in_two_touch", "corner_kick", "corner_kick_two_touch")
FREE_KICKS = ("free_kick", "free_kick_two_touch", "indirect_free_kick")
#: the phases in which a shot may be declared
SHOT_PHASES = ("open_play", "free_kick", "penalty_kick")
DISQUALIFY_AT = 4


class MbsReferee(Referee):
    """The MBS online rules. ``apply(state, action) -> Outcome``; refusals raise
    ``RuleViolation`` with the MBS heading that refuses."""

    name = "mbs"
    sections: Mapping[str, str] = {
        "turn": TURNOS, "shot": DISPARO, "goal_kick": PELOTA_PORTERO, "arrangement": BANDA,
        "keeper": PORTERO, "kick_off": TURNOS, "pieces_out": NO_HEADING, "foul": FALTA,
        "penalty": PENAL, "throw_in": BANDA, "own_goal": CONTRA, "goal": DISPARO,
        "shootout": PENAL, "table": TURNOS, "time": NO_HEADING, "disqualification": DESCALIFICACION,
    }

    def __init__(self, params: Mapping[str, Any]):
        merged = dict(MBS_DEFAULTS)
        merged.update(params or {})
        super().__init__(merged)
        for key in ("violent_foul_speed_mm_s", "unsporting_foul_distance_mm", "set_piece_distance_mm"):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"params.{key} must be a positive number, not {value!r}")
        self.violent_speed = float(merged["violent_foul_speed_mm_s"])
        self.unsporting_distance = float(merged["unsporting_foul_distance_mm"])
        self.set_piece_distance = float(merged["set_piece_distance_mm"])

    # ======================================================================================
    # turns and possession
    # ======================================================================================
    def open_play(self, ctx: Ctx, state: MatchState, side: str) -> MatchState:
        """Open play with ``side`` to move in a fresh turn (its possession begins)."""
        state = state.with_memo(shot=None, taker=None, taker_rule=None, kickoff=None, placed=None, ready=None)
        return super().open_play(ctx, state, side)

    def award_restart(self, ctx: Ctx, state: MatchState, kind: str, side: str, at: Vec, rule: str,
                      **kw: Any) -> MatchState:
        state = state.with_memo(taker=None, taker_rule=None, kickoff=None, placed=None, ready=None)
        return super().award_restart(ctx, state, kind, side, at, rule, **kw)

    def set_piece_rule(self, kind: str) -> str:
        """The MBS heading that governs the placing and the taking of a set piece of ``kind``:
        Falta for the free kicks, Penal, Pelota del portero for a goal kick, Turnos for a
        kick-off, Saque de banda y tiro de esquina for those two."""
        if kind in FREE_KICKS:
            return FALTA
        if kind == "penalty_kick":
            return PENAL
        if kind == "goal_kick":
            return PELOTA_PORTERO
        if kind == "kick_off":
            return self.section("kick_off")
        return BANDA

    def lose_possession(self, ctx: Ctx, state: MatchState, side: str, reason: str) -> MatchState:
        """MBS Pérdida de posesión: ``side``'s turn ends at once; the opponent's begins.
        ``reason``: ``"ball_last_touched_by_opponent"`` or ``"shot_missed"``."""
        key = "possession_lost.shot_missed" if reason == "shot_missed" \
            else "possession_lost.ball_last_touched_by_opponent"
        ctx.emit("possession_lost", key, side=side, reason=reason, rule=POSESION)
        return self.open_play(ctx, state, other_side(side))

    def on_turn_timeout(self, ctx: Ctx, state: MatchState) -> MatchState:
        """The side to move let its time run out (MBS Turnos). The wait for a keeper ends and
        the shot goes ahead (Posición del portero); a set piece not taken is inverted
        (Inversión); in open play the turn passes."""
        side = state.to_move
        if state.phase == "shot_declared":
            ctx.emit("turn_timeout", "turn_timeout.keeper", side=side, rule=PORTERO)
            return self.do_ready(ctx, state)
        pen = state.memo.get("penalty") or {}
        if (state.memo.get("placing") or {}).get("stage") is not None:
            return super().on_turn_timeout(ctx, state)  # a goal kick's arrangement (rulebook §5)
        if pen.get("stage") in ("taker", "keeper"):
            return self.do_ready(ctx, state)
        if state.period == "shootout":
            ctx.emit("turn_timeout", "turn_timeout.shootout", side=side, rule=PENAL)
            facts = FlickFacts(side=side, piece=str(pen.get("taker") or ""), result=None,  # type: ignore[arg-type]
                               ball_start=state.ball, ball_end=state.ball, touches=(),
                               ball_first_t=math.inf, opponent_contacts=(), goal_end=None,
                               ball_out=None, last_touch=None, pieces_out={})
            return self.judge_shootout_kick(ctx, state, state, facts)
        ctx.emit("turn_timeout", "turn_timeout", side=side, rule=TURNOS)
        if state.phase in RESTART_PHASES and state.restart is not None:
            return self.invert(ctx, state, state.phase, side, state.restart.at or state.ball,
                               reason="turn_timeout")
        return self.open_play(ctx, state, other_side(side))

    def period_may_extend(self, state: MatchState) -> bool:
        """A declared shot still to be taken when the period's time runs out may be taken."""
        return state.phase == "shot_declared" or bool(state.memo.get("shot"))

    def return_pieces(self, ctx: Ctx, state: MatchState, mover: str | None, turn_no: int) -> MatchState:
        """The MBS rules keep no button off the table: one that went out comes straight back
        touching the line where it left (or the nearest free spot)."""
        waiting = []
        for entry in state.memo.get("out", ()):
            e = dict(entry)
            spot = tuple(e["spot"])
            found = self.free_spot(state, e["side"], e["piece"], spot)
            if found is None:
                waiting.append(e)
            else:
                state = state.with_piece(e["side"], e["piece"], found)
        return state.with_memo(out=waiting or None)

    # ======================================================================================
    # the flick
    # ======================================================================================
    def flick_refusal(self, state: MatchState, action: Flick) -> RuleViolation | None:
        """The taker of a set piece playing again before a team-mate touched the ball; a flick
        at a throw-in or corner kick after a button was placed and before ``ready``."""
        taker = state.memo.get("taker")
        if taker and list(taker) == [action.side, action.piece]:
            return self.refusal("refused.set_piece_taker_again", state.memo.get("taker_rule") or BANDA,
                                side=action.side, piece=action.piece)
        if state.phase in READY_BEFORE_FLICK and state.memo.get("placed") and not state.memo.get("ready") \
                and state.restart is not None and state.restart.side == action.side:
            return self.refusal("refused.ready_before_flick", BANDA, side=action.side, piece=action.piece)
        return None

    def judge_flick(self, ctx: Ctx, before: MatchState, after: MatchState, facts: FlickFacts) -> MatchState:
        side = facts.side
        kind = before.phase if before.phase in RESTART_PHASES else None
        shot = before.memo.get("shot") or {}
        armed = bool(shot.get("armed")) or kind == "penalty_kick"
        state = after.with_memo(placed=None, ready=None)
        me = facts.key
        contacts = facts.result.contacts
        my_ball_t = next((c.t for c in contacts if c.involves(me) and c.involves(BALL)), None)

        facts = self._ball_beyond_line(facts)
        foul = self._foul_contact(facts)
        if foul is not None:
            return self.foul(ctx, before, state, facts, foul)

        if my_ball_t is None:
            spot = before.ball
            if kind is not None:
                state = state.replace(ball=round_pos(before.restart.at if before.restart and before.restart.at
                                                     else spot))
                return self.invert(ctx, state, kind, side, state.ball, reason="missed_ball")
            if armed:
                return self.technical_foul(ctx, state.replace(ball=round_pos(spot)), side, spot,
                                           "missed_ball_on_shot")
            ctx.emit("possession_lost", "possession_lost.ball_not_touched", side=side, piece=facts.piece,
                     reason="ball_not_touched", rule=POSESION)
            return self.ball_outcome(ctx, before, state, facts, armed=False, keep=False)
        return self.ball_outcome(ctx, before, state, facts, armed=armed, keep=True, kind=kind)

    def _ball_beyond_line(self, facts: FlickFacts) -> FlickFacts:
        """A ball at rest wholly beyond a line is out (or in the goal) even when the physics
        reported no crossing (a ball that started on the line): contract §2."""
        if facts.result.ball_out is not None:
            return facts
        t = self.table
        ball = facts.result.ball
        line = t.line_wholly_beyond(ball, t.ball_radius)
        if line is None:
            return facts
        x, y = ball
        if line.startswith("goal_line"):
            end = line[-2:]
            if abs(y) < t.goal_width / 2 - t.ball_radius:
                return dataclasses.replace(facts, goal_end=end)
            exit_at = (end_sign(end) * t.half_length, min(max(y, -t.half_width), t.half_width))
        else:
            exit_at = (min(max(x, -t.half_length), t.half_length), (1 if line.endswith("+y") else -1) * t.half_width)
        crossing = Crossing(t=facts.result.duration_s, line=line, at=ball, exit_at=exit_at, goal=False)
        return dataclasses.replace(facts, ball_out=crossing)

    @staticmethod
    def _foul_contact(facts: FlickFacts) -> Contact | None:
        """MBS Falta, "un botón de un jugador golpea cualquier otro botón de su adversario antes
        de tocar la pelota": the first contact of any button of the side in turn (the flicked
        one, or a team-mate it knocked on) with an opposing piece, at or before the ball's first
        touch by anything (``FlickFacts.opponent_contacts``); the own keeper is no button."""
        for c in facts.opponent_contacts:
            own = c.a if split_key(c.a)[0] == facts.side else c.b
            if split_key(own)[1] != "gk":
                return c
        return None

    def ball_outcome(self, ctx: Ctx, before: MatchState, state: MatchState, facts: FlickFacts, *,
                     armed: bool, keep: bool, kind: str | None = None) -> MatchState:
        """Where the ball went: a goal, out of the field, the keeper's ball, or in play (and
        then who keeps possession). ``keep`` is false when possession is already lost."""
        side = facts.side
        opp = other_side(side)
        t = self.table
        result = facts.result
        rebound = self._rebound(facts) if armed else False
        home_attacks = before.home_attacks
        at = facts.crossing.at if facts.crossing is not None else None
        if facts.goal_end is not None:
            if facts.goal_end == defended_end(side, home_attacks):
                return self.score_goal(ctx, state, opp, at, CONTRA, own_goal=True)
            if armed:
                rule = PENAL if kind == "penalty_kick" else DISPARO
                return self.score_goal(ctx, state, side, at, rule, piece=facts.piece)
            ctx.emit("invalid_goal", "invalid_goal", side=side, piece=facts.piece, at=at, rule=INVALIDO)
            return self.start_goal_kick(ctx, state, opp, rule=INVALIDO, arrange=False)

        if armed and not rebound:
            ctx.emit("shot_missed", "shot_missed", side=side, piece=facts.piece, rule=DISPARO)
        if facts.ball_out is not None:
            crossing = facts.ball_out
            last_side = split_key(facts.last_touch)[0] if facts.last_touch else side
            if keep and last_side == side:
                ctx.emit("possession_lost", "possession_lost.ball_out", side=side, reason="ball_out",
                         rule=POSESION)
            taker = other_side(last_side)
            end = crossing.end
            if end is None:
                y = (1 if crossing.line.endswith("+y") else -1) * (t.half_width - t.ball_radius)
                x = min(max(crossing.exit_at[0], -t.half_length + t.ball_radius), t.half_length - t.ball_radius)
                return self.award_restart(ctx, state, "throw_in", taker, (x, y), BANDA, push=False)
            if defended_end(last_side, home_attacks) == end:
                return self.award_restart(ctx, state, "corner_kick", taker,
                                          self.corner_spot(end, crossing.exit_at[1]), BANDA, push=False)
            return self.start_goal_kick(ctx, state, taker, rule=BANDA, arrange=False)

        for end in ("+x", "-x"):
            if t.wholly_in_goal_area(result.ball, t.ball_radius, end):
                keeper_side = next(s for s in SIDES if defended_end(s, home_attacks) == end)
                return self.start_goal_kick(ctx, state, keeper_side, rule=PELOTA_PORTERO, arrange=False)

        if not keep:
            return self.open_play(ctx, state, opp)
        last = facts.last_touch
        if last is not None and split_key(last)[0] == opp:
            return self.lose_possession(ctx, state, side, "ball_last_touched_by_opponent")
        if armed and not rebound:
            return self.lose_possession(ctx, state, side, "shot_missed")
        # possession kept: the turn goes on
        taker, taker_rule = state.memo.get("taker"), state.memo.get("taker_rule")
        if kind in TAKER_LOCKED:
            taker, taker_rule = [side, facts.piece], self.set_piece_rule(kind)
        if taker and any(k != f"{taker[0]}:{taker[1]}" and split_key(k)[0] == side for k in facts.touches):
            taker, taker_rule = None, None
        kickoff = side if kind == "kick_off" else state.memo.get("kickoff")
        return state.replace(phase="open_play", to_move=side, restart=None).with_memo(
            shot=None, taker=taker, taker_rule=taker_rule, kickoff=kickoff, penalty=None)

    @staticmethod
    def _rebound(facts: FlickFacts) -> bool:
        """After the shooter's first touch, the ball touched something else."""
        me = facts.key
        seen = False
        for c in facts.result.ball_contacts():
            other = c.other(BALL)
            if other == me:
                seen = True
            elif seen:
                return True
        return False

    def corner_spot(self, end: str, y: float) -> Vec:
        t = self.table
        sy = 1.0 if y >= 0 else -1.0
        return (end_sign(end) * (t.half_length - t.ball_radius), sy * (t.half_width - t.ball_radius))

    # ======================================================================================
    # fouls, technical fouls, inversion, expulsion
    # ======================================================================================
    def foul(self, ctx: Ctx, before: MatchState, state: MatchState, facts: FlickFacts, c: Contact) -> MatchState:
        """MBS Falta (or Penal): a free kick for the opponent at the spot of the foul; the
        offending button may be sent off (Expulsión), the fourth one disqualifies the side."""
        side = facts.side
        opp = other_side(side)
        t = self.table
        offender = c.a if split_key(c.a)[0] == side else c.b
        offending_piece = split_key(offender)[1]
        fouled = c.other(offender)
        fouled_pos = c.b_pos if c.b == fouled else c.a_pos
        speed = c.a_speed_mm_s if c.a == offender else c.b_speed_mm_s
        fouled_side, fouled_piece = split_key(fouled)
        own_area = defended_end(side, before.home_attacks)
        penalty = fouled_pos is not None and t.touches_penalty_area(
            fouled_pos, t.radius_of(fouled_piece), own_area)
        rule = PENAL if penalty else FALTA
        ctx.emit("foul", "foul.on_keeper" if fouled_piece == "gk" else "foul", side=side,
                 piece=offending_piece, at=c.at, rule=rule, fouled={"side": fouled_side, "piece": fouled_piece},
                 speed_mm_s=round(speed, 1), params={"fouled_side": fouled_side, "fouled_piece": fouled_piece})
        reason = None
        if speed > self.violent_speed:
            reason = "violent_foul"
        elif fouled_pos is not None and distance(fouled_pos, c.ball_at) > self.unsporting_distance:
            reason = "unsporting_foul"
        if reason is not None:
            state = self.expel(ctx, state, side, offending_piece, reason)
            if state.phase == "full_time":
                return state
        if penalty:
            # the base sets the kick (ball on the mark, the area cleared, the keeper on its
            # line); in MBS the kick is then a set piece like any other: the taker may be
            # placed, a shot may be declared for the keeper, and the flick is a shot
            return self.setup_penalty(ctx, state, opp, PENAL).with_memo(penalty=None)
        return self.award_restart(ctx, state, "free_kick", opp, c.at, rule)

    def expel(self, ctx: Ctx, state: MatchState, side: str, piece: str, reason: str) -> MatchState:
        """MBS Expulsión: ``piece`` of ``side`` leaves the table for the match; the fourth
        button sent off disqualifies the side (MBS Descalificación) and ends the match."""
        expelled = {s: list(state.expelled.get(s, ())) for s in SIDES}
        if piece not in expelled[side]:
            expelled[side].append(piece)
        state = state.with_piece(side, piece, None).replace(expelled=expelled)
        out = [e for e in state.memo.get("out", ()) if not (e["side"] == side and e["piece"] == piece)]
        state = state.with_memo(out=out or None)
        ctx.emit("expulsion", "expulsion.violent_foul" if reason == "violent_foul" else "expulsion.unsporting_foul",
                 side=side, piece=piece, reason=reason, rule=EXPULSION)
        if sum(1 for p in expelled[side] if p != "gk") >= DISQUALIFY_AT:
            ctx.emit("disqualification", "disqualification", side=side, rule=DESCALIFICACION)
            return self.finish(ctx, state, disqualified=side)
        return state

    def technical_foul(self, ctx: Ctx, state: MatchState, side: str, spot: Vec, reason: str) -> MatchState:
        """MBS Falta técnica: a free kick for the opponent where the ball lies."""
        ctx.emit("technical_foul", "technical_foul.missed_ball_on_shot" if reason == "missed_ball_on_shot"
                 else "technical_foul.inversion", side=side, at=spot, reason=reason, rule=TECNICA)
        return self.award_restart(ctx, state.with_memo(penalty=None), "free_kick", other_side(side),
                                  spot, TECNICA)

    def invert(self, ctx: Ctx, state: MatchState, kind: str, side: str, spot: Vec, *, reason: str) -> MatchState:
        """MBS Inversión: ``side`` did not take its ``kind`` (time ran out, or it missed the
        ball): the set piece passes to the opponent, as the rule says for each kind."""
        opp = other_side(side)
        ctx.emit("inversion", "inversion.turn_timeout" if reason == "turn_timeout" else "inversion.missed_ball",
                 side=side, kind=kind, at=spot, reason=reason, rule=INVERSION)
        state = state.with_memo(penalty=None, placing=None)
        if kind in TECHNICAL_ON_INVERSION:
            return self.technical_foul(ctx, state, side, spot, f"inversion_{reason}")
        if kind in ("throw_in", "throw_in_two_touch"):
            return self.award_restart(ctx, state, "throw_in", opp, spot, INVERSION, push=False)
        if kind in ("corner_kick", "corner_kick_two_touch"):
            # the corner was at the end opp defends: opp takes a goal kick there
            return self.start_goal_kick(ctx, state, opp, rule=INVERSION, arrange=False)
        # a goal kick inverted: a corner kick at that end for the opponent
        end = defended_end(side, state.home_attacks)
        return self.award_restart(ctx, state, "corner_kick", opp, self.corner_spot(end, spot[1]),
                                  INVERSION, push=False)

    # ======================================================================================
    # shots and keepers
    # ======================================================================================
    def shot_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """MBS Disparo a la meta: in open play, at a free kick or a penalty kick; the ball
        entirely in the opponent's half; after a kick-off, wholly outside the centre circle."""
        if state.phase not in SHOT_PHASES:
            return self.refusal("refused.shot_phase", DISPARO, side=side)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") != "kick":
            return self.refusal("refused.penalty_being_set", PENAL, side=side)
        problem = super().shot_refusal(state, side)
        if problem is not None:
            return problem.with_rule(DISPARO)
        t = self.table
        if (state.memo.get("kickoff") == side or state.phase == "kick_off") \
                and t.in_centre_circle(state.ball, t.ball_radius):
            return self.refusal("refused.shot_after_kick_off_in_circle", DISPARO, side=side)
        return None

    def penalty_keeper_spot(self, state: MatchState, side: str, y: float = 0.0) -> Vec:
        """MBS Posición del portero: the keeper is only ever in its goal area ("solo puede estar
        en la pequeña área"), so at a penalty it waits there, its back on the goal line, until a
        declared shot lets its side place it."""
        return self.table.keeper_on_goal_line(y, defended_end(side, state.home_attacks))

    def keeper_refusal(self, state: MatchState, side: str, at: Vec) -> RuleViolation | None:
        """MBS Posición del portero: only while a shot waits, wholly in the goal area, on no
        piece (the base's penalty-kick keeper stage keeps its goal line)."""
        pen = state.memo.get("penalty") or {}
        if state.phase != "shot_declared" and pen.get("stage") != "keeper":
            return self.refusal("refused.keeper_only_for_shot", PORTERO, side=side)
        problem = super().keeper_refusal(state, side, at)
        if problem is not None:
            return problem if pen.get("stage") == "keeper" else problem.with_rule(PORTERO)
        return None

    # ======================================================================================
    # placing for a set piece
    # ======================================================================================
    def place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """MBS Saque de banda y tiro de esquina / Falta: the side taking the set piece places
        two buttons, the taker by the ball (both by the ball at a free kick), before ``ready``."""
        placing = state.memo.get("placing") or {}
        pen = state.memo.get("penalty") or {}
        if placing.get("stage") is not None or pen:
            return super().place_refusal(state, action)
        if state.phase not in RESTART_PHASES or state.restart is None or state.restart.side != action.side:
            return self.refusal("refused.placing_not_taker", self.set_piece_rule(state.phase), side=action.side)
        rule = self.set_piece_rule(state.phase)
        if state.memo.get("ready"):
            return self.refusal("refused.placing_over", rule, side=action.side)
        placed = list(state.memo.get("placed", ()))
        if action.piece not in placed and len(placed) >= 2:
            return self.refusal("refused.two_buttons", rule, side=action.side, piece=action.piece)
        t = self.table

        def near(p: Vec) -> bool:
            return gap_to(p, t.button_radius, state.ball, t.ball_radius) <= self.set_piece_distance

        others = [q for q in placed if q != action.piece and state.piece(action.side, q) is not None]
        # at a free kick both buttons stand by the ball; at the other set pieces one of the
        # two (the taker) does, the other (the receiver) anywhere
        both = state.phase in ("free_kick", "free_kick_two_touch", "indirect_free_kick")
        taker_elsewhere = any(near(state.piece(action.side, q)) for q in others)
        if not near(action.at) and (both or (others and not taker_elsewhere)):
            return self.refusal("refused.by_ball", rule, side=action.side, piece=action.piece,
                                distance=self.set_piece_distance)
        return None

    def on_place(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        if action.piece == "gk":
            return self.on_place_goalkeeper(ctx, state, PlaceGoalkeeper(side=action.side, at=action.at))
        rule = self.set_piece_rule(state.phase)
        if action.piece == BALL_PIECE:
            raise self.refusal("refused.ball_never_placed", rule, side=action.side)
        if state.piece(action.side, action.piece) is None:
            raise self.refusal("refused.piece_not_on_table", rule, side=action.side, piece=action.piece)
        problem = self.place_refusal(state, action)
        if problem is not None:
            raise problem
        t = self.table
        off_field_ok = state.phase in ("throw_in", "throw_in_two_touch", "corner_kick", "corner_kick_two_touch")
        on_field = t.field.touches_disc(action.at, 0.0)
        if not self.fits(state, action.side, action.piece, action.at) or not (on_field or off_field_ok):
            raise self.refusal("refused.spot_not_free", rule, side=action.side, piece=action.piece)
        state = state.with_piece(action.side, action.piece, round_pos(action.at))
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") == "taker":
            return state.with_memo(penalty={**dict(pen), "taker": action.piece})
        if (state.memo.get("placing") or {}).get("stage") is not None:
            return state
        placed = list(state.memo.get("placed", ()))
        if action.piece not in placed:
            placed.append(action.piece)
        return state.with_memo(placed=placed)

    def on_ready(self, ctx: Ctx, state: MatchState, action: Ready) -> MatchState:
        if (state.memo.get("placing") or {}).get("stage") is not None:
            return super().on_ready(ctx, state, action)  # a goal kick's arrangement (rulebook §5)
        if state.phase == "shot_declared" \
                or (state.memo.get("penalty") or {}).get("stage") in ("taker", "keeper"):
            return self.do_ready(ctx, state)
        if state.phase in RESTART_PHASES and state.restart is not None and not state.memo.get("ready"):
            return state.with_memo(ready=True)
        raise self.refusal("refused.nothing_to_confirm", TURNOS, side=action.side)


__all__ = ["MbsReferee", "MBS_DEFAULTS"]
