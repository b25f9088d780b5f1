"""Placing by hand: the goal kick's arrangement (rulebook §5), the keeper (§6), the kick-off
formation (§7), a set piece's taker (§5), the ball at a goal kick (§5.1), and ``ready``, which
ends a placing stage or the wait for a shot's keeper (MBS Saque de banda, Posición del portero).
"""
from __future__ import annotations

import math

from ..actions import BALL_PIECE, Place, PlaceGoalkeeper, Ready
from ..state import MatchState, Restart, round_pos
from ..table import Vec, defended_end, end_sign, other_side
from .core import RESTART_PHASES, Ctx, RuleViolation, gap_to


class Placing:
    """``place``, ``place_goalkeeper`` and ``ready``. Hooks: ``place_refusal``,
    ``set_piece_place_refusal``, ``ball_place_refusal``, ``keeper_refusal``."""

    def place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """*hook* Why ``action`` may not place a button now (``None``: it may). Base: the
        arranging stages of a goal kick (§5: the stage's half, 6 cm from the opponents), the
        taker of a penalty kick (by the ball, §10), the kicking side's own half before a
        kick-off (§7), and the taker of a set piece (a button by the ball, §5)."""
        t = self.table
        side, at = action.side, action.at
        r = t.button_radius
        defended = defended_end(side, state.home_attacks)
        placing = state.memo.get("placing")
        near_ball = gap_to(at, r, state.ball, t.ball_radius) <= 60.0
        if placing and placing.get("stage") is not None and placing.get("kind") == "kick_off":
            return self.kick_off_place_refusal(state, action)
        if placing and placing.get("stage") is not None:
            half = placing["order"][int(placing["stage"])][1]
            in_defensive = end_sign(defended) * at[0] >= -r  # touching the midline: defensive
            if half == "offensive" and in_defensive:
                return self.refusal("refused.arrangement_offensive_stage", self.section("arrangement"),
                                    side=side, piece=action.piece)
            if half == "defensive" and not in_defensive:
                return self.refusal("refused.arrangement_defensive_stage", self.section("arrangement"),
                                    side=side, piece=action.piece)
            for pid, q in state.pieces.get(other_side(side), {}).items():
                if pid != "gk" and t.button_gap(at, q) < 60.0:
                    return self.refusal("refused.arrangement_6cm", self.section("arrangement"), side=side,
                                        piece=action.piece)
            if half == "defensive":
                after = state.with_piece(side, action.piece, at)
                have, need = self.offensive_count(after, side)
                if have < need:
                    return self.refusal("refused.arrangement_keep_three", self.section("arrangement"),
                                        side=side, piece=action.piece, have=have, need=need)
            return None
        pen = state.memo.get("penalty")
        if pen:
            if pen.get("stage") != "taker":
                return self.refusal("refused.penalty_taker_placed", self.section("penalty"), side=side)
            if not near_ball:
                return self.refusal("refused.penalty_taker_by_ball", self.section("penalty"), side=side,
                                    piece=action.piece)
            return None
        if state.phase == "kick_off" and state.restart and state.restart.side == side:
            return self.kick_off_place_refusal(state, action)
        if state.phase in RESTART_PHASES and state.restart and state.restart.side == side:
            return self.set_piece_place_refusal(state, action)
        return self.refusal("refused.no_placing_now", self.section("arrangement"), side=side)

    def set_piece_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """*hook* Why the side taking a pending set piece may not place ``action.piece`` at
        ``action.at`` (``None``: it may). Base: the taker is placed by the ball (within 6 cm)."""
        t = self.table
        if gap_to(action.at, t.button_radius, state.ball, t.ball_radius) > 60.0:
            return self.refusal("refused.set_piece_taker_by_ball", self.section("arrangement"),
                                side=action.side, piece=action.piece)
        return None

    def kick_off_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """Rulebook §7, what no kick-off formation allows: a button outside its own half (or
        touching the halfway line), a button of the defending side inside the centre circle.
        The counts (5 by the line, the kicker's 2 in its half circle) are checked at ``ready``
        (``kick_off_formation_refusal``)."""
        t = self.table
        r = t.button_radius
        side, at = action.side, action.at
        rule = self.section("kick_off")
        if not t.entirely_in_half(at, r, defended_end(side, state.home_attacks)):
            return self.refusal("refused.kick_off_own_half", rule, side=side, piece=action.piece)
        kicker = state.restart.side if state.restart else state.to_move
        if side != kicker and math.hypot(*at) < t.centre_circle_radius + r:
            return self.refusal("refused.kick_off_defender_in_circle", rule, side=side, piece=action.piece)
        return None

    def kick_off_formation_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """Rulebook §7: ``side``'s buttons form a legal kick-off formation: all in its own half
        (none touching the halfway line), 5 within 6 cm of it (the other 5 anywhere in the
        half); the defending side's none inside the centre circle; the kicking side's 2 wholly
        inside the half centre circle in its own half (fewer buttons on the table: as many as
        there are). ``None``: legal."""
        t = self.table
        r = t.button_radius
        rule = self.section("kick_off")
        s = end_sign(defended_end(side, state.home_attacks))
        buttons = [(pid, p) for pid, p in sorted(state.pieces.get(side, {}).items()) if pid != "gk"]
        kicker = state.restart.side if state.restart else state.to_move
        for pid, p in buttons:
            if s * p[0] <= r:
                return self.refusal("refused.kick_off_formation_own_half", rule, side=side, piece=pid)
        near = sum(1 for _, p in buttons if s * p[0] - r <= 60.0)
        if near < min(5, len(buttons)):
            return self.refusal("refused.kick_off_formation_by_line", rule, side=side, count=near)
        circle = t.centre_circle_radius
        if side != kicker:
            inside = [pid for pid, p in buttons if math.hypot(*p) < circle + r]
            if inside:
                return self.refusal("refused.kick_off_formation_defender_in_circle", rule, side=side,
                                    piece=inside[0])
        else:
            inside = [pid for pid, p in buttons if math.hypot(*p) + r <= circle]
            want = min(2, len(buttons))
            if len(inside) != want:
                return self.refusal("refused.kick_off_formation_half_circle", rule, side=side,
                                    count=len(inside))
        return None

    def kick_off_placing(self, state: MatchState, stage: int) -> MatchState:
        """The kick-off placing stages (rulebook §7): the kicking side, then the defending side,
        each ended by ``ready`` once its formation is legal; then the kicker kicks off."""
        kicker = state.restart.side if state.restart else state.to_move
        order = [[kicker, "kick_off"], [other_side(kicker), "kick_off"]]
        return state.replace(to_move=order[stage][0]).with_memo(
            placing={"stage": stage, "order": order, "kind": "kick_off"})

    def ball_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """*hook* Why the side to move may not put the ball ``action.at`` now (``place`` with
        piece ``"ball"``). Base: never."""
        return self.refusal("refused.ball_not_placeable", self.section("arrangement"), side=action.side)

    def on_place_ball(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        """The ball moved by hand where ``ball_place_refusal`` allows it; a pending restart's
        ``at`` follows it."""
        problem = self.ball_place_refusal(state, action)
        if problem is not None:
            raise problem
        if not self.ball_fits(state, action.at):
            raise self.refusal("refused.ball_overlaps", self.section("arrangement"), side=action.side)
        ball = round_pos(action.at)
        restart = state.restart
        if restart is not None:
            restart = Restart(restart.kind, restart.side, ball)
        return state.replace(ball=ball, restart=restart)

    def on_place(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        if action.piece == "gk":
            return self.on_place_goalkeeper(ctx, state, PlaceGoalkeeper(side=action.side, at=action.at))
        if action.piece == BALL_PIECE:
            return self.on_place_ball(ctx, state, action)
        problem = self.place_refusal(state, action)
        if problem is not None:
            raise problem
        if not self.fits(state, action.side, action.piece, action.at) or \
                not self.table.field.touches_disc(action.at, 0.0):
            raise self.refusal("refused.spot_not_free", self.section("arrangement"), side=action.side,
                               piece=action.piece)
        out = [e for e in state.memo.get("out", ())
               if not (e["side"] == action.side and e["piece"] == action.piece)]
        state = state.with_piece(action.side, action.piece, round_pos(action.at)).with_memo(out=out or None)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") == "taker":
            state = state.with_memo(penalty={**dict(pen), "taker": action.piece})
        if state.phase == "kick_off" and state.memo.get("placing") is None:
            state = self.kick_off_placing(state, 0)  # the kicker's placing: ended by ready
        return state

    def offensive_count(self, state: MatchState, side: str) -> tuple[int, int]:
        """Rulebook §5: ``(have, need)``: how many of ``side``'s buttons lie wholly in its
        offensive half (one touching the halfway line is in its defensive half), and how many
        must when its goal-kick arrangement ends: 3, or all its buttons when it has fewer."""
        s = end_sign(defended_end(side, state.home_attacks))
        r = self.table.button_radius
        buttons = [p for pid, p in state.pieces.get(side, {}).items() if pid != "gk"]
        have = sum(1 for p in buttons if s * p[0] < -r)
        return have, min(3, len(buttons))

    def arrangement_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        """Rulebook §5: why ``side`` may not end its stage of a goal kick's arrangement now:
        fewer than 3 buttons in its offensive half. Its offensive stage is checked too, since
        its defensive stage can only take buttons out of that half."""
        have, need = self.offensive_count(state, side)
        if have < need:
            return self.refusal("refused.arrangement_three", self.section("arrangement"), side=side,
                                have=have, need=need)
        return None

    def complete_arrangement(self, ctx: Ctx, state: MatchState, side: str) -> MatchState:
        """Rulebook §5, a stage whose time ran out with fewer than 3 buttons in the side's
        offensive half: the referee moves its buttons nearest the halfway line just across it
        (6 cm from the opponents, on a free spot), one ``piece_moved`` each, until there are 3."""
        s = end_sign(defended_end(side, state.home_attacks))
        t = self.table
        r = t.button_radius
        opponents = [q for pid, q in state.pieces.get(other_side(side), {}).items() if pid != "gk"]

        def ok(q: Vec) -> bool:
            return s * q[0] < -r - 0.5 and t.field.contains_disc(q, r) and \
                all(t.button_gap(q, o) >= 60.0 for o in opponents)

        behind = sorted((s * p[0], pid) for pid, p in state.pieces.get(side, {}).items()
                        if pid != "gk" and s * p[0] >= -r)
        for _, pid in behind:
            have, need = self.offensive_count(state, side)
            if have >= need:
                break
            p = state.piece(side, pid)
            spot = self.free_spot(state.with_piece(side, pid, None), side, pid, (-s * (r + 20.0), p[1]),
                                  ok=ok, max_r=900.0)
            if spot is None:
                continue
            state = state.with_piece(side, pid, spot)
            ctx.emit("piece_moved", "piece_moved.arrangement", side=side, piece=pid, at=spot,
                     rule=self.section("arrangement"),
                     reason="arrangement")
        return state

    def on_ready(self, ctx: Ctx, state: MatchState, action: Ready) -> MatchState:
        placing = state.memo.get("placing") or {}
        if placing.get("kind") == "goal_kick" and placing.get("stage") is not None:
            problem = self.arrangement_refusal(state, action.side)
            if problem is not None:
                raise problem
        if state.phase == "kick_off" and (placing.get("kind") == "kick_off" or not placing):
            # §7: a side's kick-off placing ends only with a legal formation
            problem = self.kick_off_formation_refusal(state, action.side)
            if problem is not None:
                raise problem
            if not placing:  # the kicker places nothing: the defending side may place now
                return self.kick_off_placing(state, 1).replace(turn_started_s=ctx.now)
        if state.phase == "shot_declared" or placing.get("stage") is not None \
                or (state.memo.get("penalty") or {}).get("stage") in ("taker", "keeper"):
            return self.do_ready(ctx, state)
        if state.phase in RESTART_PHASES:
            return state  # nothing to confirm: the placing of a set piece is optional
        raise self.refusal("refused.nothing_to_confirm", self.section("turn"), side=action.side)

    def do_ready(self, ctx: Ctx, state: MatchState) -> MatchState:
        """Ends the current wait: the shot is authorised, or the next placing stage begins."""
        if state.phase == "shot_declared":
            shot = dict(state.memo["shot"])
            shot["armed"] = True
            resume = shot.get("resume", "open_play")
            return state.replace(phase=resume, to_move=shot["side"], turn_started_s=ctx.now).with_memo(shot=shot)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") in ("taker", "keeper"):
            pen = dict(pen)
            if pen["stage"] == "taker":
                pen["stage"] = "keeper"
                to_move = other_side(pen["side"])
            else:
                pen["stage"] = "kick"
                to_move = pen["side"]
            return state.replace(to_move=to_move, turn_started_s=ctx.now).with_memo(penalty=pen)
        placing = dict(state.memo["placing"])
        stage = int(placing["stage"]) + 1
        if stage >= len(placing["order"]):
            taker = state.restart.side if state.restart else state.to_move
            return state.replace(to_move=taker, turn_started_s=ctx.now).with_memo(placing=None)
        placing["stage"] = stage
        return state.replace(to_move=placing["order"][stage][0], turn_started_s=ctx.now).with_memo(placing=placing)

    def keeper_refusal(self, state: MatchState, side: str, at: Vec) -> RuleViolation | None:
        """*hook* Why ``side`` may not put its keeper ``at`` now. Base: entirely within the
        goal area (§6), on a free spot; during a penalty's keeper stage, on the goal line."""
        end = defended_end(side, state.home_attacks)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") == "keeper":
            problem = self.penalty_keeper_refusal(state, side, at)
            if problem is not None:
                return problem
        elif not self.table.keeper_in_goal_area(at, end):
            return self.refusal("refused.keeper_outside_goal_area", self.section("keeper"), side=side)
        if not self.fits(state, side, "gk", at):
            return self.refusal("refused.keeper_overlaps", self.section("keeper"), side=side)
        return None

    def on_place_goalkeeper(self, ctx: Ctx, state: MatchState, action: PlaceGoalkeeper) -> MatchState:
        problem = self.keeper_refusal(state, action.side, action.at)
        if problem is not None:
            raise problem
        return state.with_piece(action.side, "gk", round_pos(action.at))
