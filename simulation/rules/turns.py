"""A turn: a flick checked, resolved by the physics, turned into facts and settled; then the
book-keeping after it (rulebook §3, a player's turn; §8, buttons that go out of the field and
come back; MBS Turnos).
"""
from __future__ import annotations

import math
from typing import Any

from ..actions import Flick
from ..physics import BALL, Crossing, FlickResult, resolve_flick, split_key
from ..state import MatchState, round_pos
from ..table import SIDES, Vec, defended_end, end_sign, other_side
from .core import EPS, FIXED_KEYS, Ctx, FlickFacts, RuleViolation


class Turns:
    """The flick from validation to the end of the turn. Hooks: ``flick_refusal``,
    ``judge_flick``, ``return_pieces``, ``end_of_turn``."""

    def validate_flick(self, state: MatchState, action: Flick) -> None:
        """Raises ``RuleViolation`` for a flick the table or the rules do not allow."""
        if action.piece == "gk":
            raise self.refusal("refused.keeper_flicked", self.section("keeper"), side=action.side)
        if state.piece(action.side, action.piece) is None:
            raise self.refusal("refused.piece_not_on_table", self.section("table"), side=action.side,
                               piece=action.piece)
        if not (0 < action.speed_mm_s <= self.max_speed + EPS):
            raise self.refusal("refused.flick_speed", self.section("table"), side=action.side,
                               piece=action.piece, speed=action.speed_mm_s, max_speed=self.max_speed)
        if not math.isfinite(action.angle_deg):
            raise self.refusal("refused.flick_angle", self.section("table"), side=action.side)
        if (state.memo.get("placing") or {}).get("kind") == "kick_off":
            raise self.refusal("refused.kick_off_being_placed", self.section("kick_off"), side=action.side)
        if (state.memo.get("placing") or {}).get("stage") is not None:
            raise self.refusal("refused.arrangement_under_way", self.section("arrangement"), side=action.side)
        if state.phase == "shot_declared":
            raise self.refusal("refused.keeper_being_placed", self.section("shot"), side=action.side)
        pen = state.memo.get("penalty")
        if pen and pen.get("stage") != "kick":
            raise self.refusal("refused.penalty_being_set", self.section("penalty"), side=action.side)
        problem = self.piece_refusal(state, action)
        if problem is not None:
            raise problem

    def piece_refusal(self, state: MatchState, action: Flick) -> RuleViolation | None:
        """Why this button of the side may not be the one flicked now, whatever the flick
        (``None``: it may): the penalty kick's taker only (rulebook §10), then the rule set's
        ``flick_refusal``."""
        pen = state.memo.get("penalty")
        if pen and pen.get("taker") and action.piece != pen["taker"]:
            return self.refusal("refused.penalty_taker_only", self.section("penalty"), side=action.side,
                                piece=action.piece, taker=pen["taker"])
        return self.flick_refusal(state, action)

    def may_not_play(self, state: MatchState) -> dict[str, dict[str, Any]]:
        """The buttons of the side to move that may not be flicked in the coming turn, and why:
        button id -> message ``{"key", "params"}`` (the message of the refusal such a flick
        would meet: a penalty kick's taker only, and the rule set's own, e.g. a set-piece taker
        that may not play again, a button back from out of the field). Empty when every button
        may play. The keeper, which is never flicked, is not listed; an expelled button or one
        off the table is absent. Pure: no clock, no physics."""
        side = state.to_move
        out: dict[str, dict[str, Any]] = {}
        for pid in state.pieces.get(side, {}):
            if pid == "gk":
                continue
            problem = self.piece_refusal(state, Flick(side=side, piece=pid, angle_deg=0.0, speed_mm_s=1.0))
            if problem is not None:
                out[pid] = problem.message
        return out

    def flick_refusal(self, state: MatchState, action: Flick) -> RuleViolation | None:
        """*hook* A rule-set refusal of a flick before it is played (``None``: allowed)."""
        return None

    def resolve(self, state: MatchState, action: Flick) -> FlickResult:
        """The physics of the flick (contract §3)."""
        return resolve_flick(self.table, state.ball, state.plain_pieces(), action.side, action.piece,
                             action.angle_deg, action.speed_mm_s, frames=self.frames)

    def facts(self, state: MatchState, action: Flick, result: FlickResult) -> FlickFacts:
        """What the flick ``action`` did from ``state``, in the referee's terms (``FlickFacts``)."""
        touches: list[str] = []
        for c in result.ball_contacts():
            other = c.other(BALL)
            if other not in FIXED_KEYS and other not in touches:
                touches.append(other)
        first_ball = next((c.t for c in result.contacts if c.involves(BALL)), math.inf)
        side = action.side
        fouls = self.contacts_before_ball(result, side, first_ball)
        crossing = result.ball_out
        goal_end = crossing.end if crossing is not None and crossing.goal else None
        ball_out = crossing if crossing is not None and not crossing.goal else None
        limit = crossing.t if crossing is not None else math.inf
        last = None
        for c in result.ball_contacts():
            if c.t > limit + 1e-9:
                break
            other = c.other(BALL)
            if other not in FIXED_KEYS:
                last = other
        return FlickFacts(side=side, piece=action.piece, result=result, ball_start=state.ball,
                          ball_end=result.ball, touches=tuple(touches), ball_first_t=first_ball,
                          opponent_contacts=tuple(fouls), goal_end=goal_end, ball_out=ball_out,
                          last_touch=last, pieces_out=dict(result.pieces_out),
                          pieces_start=state.plain_pieces())

    def on_flick(self, ctx: Ctx, state: MatchState, action: Flick) -> MatchState:
        self.validate_flick(state, action)
        result = self.resolve(state, action)
        facts = self.facts(state, action, result)
        ctx.flicks.append(result)
        for key in facts.touches:
            s, pid = split_key(key)
            ctx.emit("touch", "touch.keeper" if pid == "gk" else "touch", side=s, piece=pid,
                     rule=self.section("turn"))
        settled = self.settle(ctx, state, facts)
        if state.period == "shootout":
            new = self.judge_shootout_kick(ctx, state, settled, facts)
        else:
            new = self.judge_flick(ctx, state, settled, facts)
        return self.after_turn(ctx, new, facts)

    def settle(self, ctx: Ctx, state: MatchState, facts: FlickFacts) -> MatchState:
        """The resting positions after the flick: pieces that went out are taken off and wait
        to come back (§8, ``out`` memo, ``piece_out`` events); keepers back into their goal
        area (contract §2). The ball rests where the physics left it."""
        pieces = {s: dict(facts.result.pieces.get(s, {})) for s in SIDES}
        out_list = [dict(e) for e in state.memo.get("out", ())]
        turn_no = int(state.memo.get("turn_no", 0))
        for key, crossing in sorted(facts.pieces_out.items()):
            s, pid = split_key(key)
            if pid == "gk":
                continue
            pieces[s].pop(pid, None)
            spot = self.return_spot(crossing)
            out_list.append({"side": s, "piece": pid, "spot": list(spot), "turn": turn_no})
            ctx.emit("piece_out", "piece_out", side=s, piece=pid, at=crossing.exit_at,
                     rule=self.section("pieces_out"))
        new = state.replace(pieces={s: {k: round_pos(v) for k, v in g.items()} for s, g in pieces.items()},
                            ball=round_pos(facts.result.ball))
        new = new.with_memo(out=out_list or None)
        for s in SIDES:
            gk = new.piece(s, "gk")
            if gk is not None and not self.table.keeper_in_goal_area(gk, defended_end(s, new.home_attacks)):
                new = self.keeper_home(new, s)
        return new

    def return_spot(self, crossing: Crossing) -> Vec:
        """Rulebook §8: back on the field touching the line at the point where it left."""
        x, y = crossing.exit_at
        r = self.table.button_radius
        t = self.table
        if crossing.line.startswith("goal_line"):
            x = end_sign(crossing.end or "+x") * (t.half_length - r)
            y = min(max(y, -t.half_width + r), t.half_width - r)
        else:
            y = (1 if crossing.line.endswith("+y") else -1) * (t.half_width - r)
            x = min(max(x, -t.half_length + r), t.half_length - r)
        return round_pos((x, y))

    def judge_flick(self, ctx: Ctx, before: MatchState, after: MatchState, facts: FlickFacts) -> MatchState:
        """*hook* What the flick means under the rule set: fouls, goals, out, the next turn."""
        raise NotImplementedError

    def after_turn(self, ctx: Ctx, state: MatchState, facts: FlickFacts | None) -> MatchState:
        """Book-keeping once a turn has ended: the turn counter, buttons that come back
        (§8), the rule set's ``end_of_turn``, and a period kept open by §4 that now ends."""
        turn_no = int(state.memo.get("turn_no", 0))
        mover = facts.side if facts else None
        if facts is not None:
            locked = [x for x in state.memo.get("locked", ()) if list(x)[0] != mover]
            state = state.with_memo(locked=locked or None)
            state = self.return_pieces(ctx, state, mover, turn_no)
        state = state.with_memo(turn_no=turn_no + 1)
        if state.phase not in ("full_time",) and state.period != "shootout":
            state = self.end_of_turn(ctx, state, facts)
        return self.after_period_overtime(ctx, state)

    def return_pieces(self, ctx: Ctx, state: MatchState, mover: str | None, turn_no: int) -> MatchState:
        """*hook* Buttons out come back after the opposing side's next turn, touching the
        line where they left, and sit out their side's following turn (§8); while the spot is
        blocked they stay off the table."""
        waiting = []
        locked = [list(x) for x in state.memo.get("locked", ())]
        for entry in state.memo.get("out", ()):
            e = dict(entry)
            due = mover == other_side(e["side"]) and turn_no > int(e["turn"])
            if e.get("due"):
                due = True
            spot = tuple(e["spot"])
            if due and self.fits(state, e["side"], e["piece"], spot, margin=0.0):
                state = state.with_piece(e["side"], e["piece"], spot)
                locked.append([e["side"], e["piece"]])
            else:
                if due:
                    e["due"] = True
                waiting.append(e)
        return state.with_memo(out=waiting or None, locked=locked or None)

    def end_of_turn(self, ctx: Ctx, state: MatchState, facts: FlickFacts | None) -> MatchState:
        """*hook* Rule-set checks at the end of every turn (goal area, triangle...)."""
        return state
