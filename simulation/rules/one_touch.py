"""The one-touch referee: the Button Soccer Rulebook (rules/button-soccer-rulebook.en.txt) as
the game is played on the simulated table. Every event names the section that decided it.

What it decides, by section:

- §3 one touch per turn; the own keeper may be placed during the own turn (§6).
- §4 a shot is declared only with the ball entirely in the opponent's half, never from a
  kick-off, a regular throw-in or corner kick, an indirect free kick, or the first touch of a
  2-touch restart; the defender places its keeper and says ``ready`` (or its
  ``shot_wait_seconds`` run out); a period ending just after a declaration (or a direct foul)
  still lets the shot (or free kick) be taken, a two-touch free kick with both its touches (its
  second may be a declared shot); a shot that fouls gives the opponent its free kick.
- §5 goal kicks: the ball where it lies in the penalty area (else in front of the goal area),
  and the taker may move it (``place`` with piece ``"ball"``, while it is to move) anywhere
  wholly inside its own penalty area before the kick;
  a ball ending a turn wholly inside a goal area, or entering the goal without a goal, is a
  goal kick; the arranging stages (taker offensive, opponent offensive, taker defensive,
  opponent defensive; 6 cm from opponents; a button touching the halfway line is defensive);
  at least 3 buttons in the offensive half whenever a side's stage ends, however they got
  there: a ``ready`` that would leave fewer is refused, and a stage whose time runs out has
  the referee bring the buttons nearest the halfway line across it; §5.2: nobody arranges
  when the ball went straight out from the kicking side's defensive half. Otherwise a side
  may only pick up the one button that takes a free kick, throw-in or corner kick and put it
  by the ball (within 6 cm), and that button takes it; at a goal kick no button is picked up.
- §6 keepers entirely within the goal area; §7 kick-off placing (base): the kicking side may
  ``place`` (which opens its placing stage) and says ``ready``, then the defending side may place
  and says ``ready``; each ``ready`` is refused unless the side's formation is legal (all its
  buttons in its own half, none touching the halfway line, 5 within 6 cm of it; the defenders
  none inside the centre circle; the kicker exactly 2 wholly inside its half circle), and a
  placing whose time runs out puts an illegal formation back to the default one. A kick-off
  flicked without any ``place``/``ready`` keeps the referee's formation. Then: two touches by different buttons, the
  first by one of the two buttons in the centre circle, forward and staying in the circle, the
  second leaving it, else a technical foul; no
  shot on either. ``restart_after_goal = goal_kick`` is the friendly custom.
- §8 buttons out come back touching the line where they left after the opponent's next turn and
  sit out their side's following turn (but may take a set piece); an opposing button ending a
  turn in the goal area goes to the penalty-area side of the goal-area line at its entry point
  (a blocked spot keeps it off the table); an own button there is left where it is unless its
  side, in one of its turns while it is still there, ``place``s it on that same spot (the only
  spot allowed; a blocked spot is refused, so it stays).
- §9 direct fouls (a button of the side to move touching an opposing button or keeper before or
  with the ball): opponents pushed 6 cm from the spot; a 2-touch free kick in the taker's
  defensive half, a direct free kick (declare a shot, or take it as 2 touches) in its offensive
  half; at either, the fouled side may push its own buttons that stood within 6 cm of the spot
  back to 6 cm from it (a ``place`` 60 to 65 mm from the spot, reported as ``piece_moved``,
  §9.1); a foul on the keeper puts the ball in its penalty area, where its side may place it
  anywhere (§9.4). §9.5 technical fouls: the ball
  inside the triangle of 3 buttons of a side at most 18 cm apart; inside the rectangle of 2
  buttons at most 6 cm apart and not cleared by the end of that side's turn, or again on its
  next turn; kick-off faults; delay of game (a turn that runs out). "Special": the taker of a
  regular throw-in or corner kick, a kick-off, an indirect free kick or the first touch of a
  2-touch restart "cannot be played again before the ball has been touched by a different
  button in a subsequent turn": a flick of it is refused (the turn is replayed), whether or
  not it would touch the ball.
- §10 penalty kicks for a direct foul inside the offender's own penalty area (the fouled piece
  touching the area); the defender's keeper stands on its goal line with the line showing in
  front of it: its front face on the line, its body behind it between the posts; §11 throw-ins and corner kicks, regular and 2-touch; §12 own goals.
- Match time: the periods of the format (``halves``, ``half_minutes``), half time with the ends
  swapped, full time; a level ``knockout`` match plays ``extra_time_minutes`` and then a
  shoot-out (``shootout_kicks`` each, then sudden death).

Not applicable online (they exist only at a real table): a ball stopping on top of or under a
button (§9.5), the ball touching a player's pick or body (§9), a ball rolling on its side
(§5.2, §11), a button pushed rather than flicked (§3), improper conduct (§9.5), the crossbar.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations

from ..actions import BALL_PIECE, Flick, Place
from ..physics import piece_key, split_key
from ..state import MatchState, round_pos
from ..table import SIDES, Vec, attacked_end, defended_end, end_sign, other_side
from .base import Ctx, FlickFacts, Referee, RuleViolation, gap_to

TWO_TOUCH = ("free_kick_two_touch", "throw_in_two_touch", "corner_kick_two_touch")
SPECIAL_KINDS = ("throw_in", "corner_kick", "kick_off", "indirect_free_kick") + TWO_TOUCH
NO_SHOT_FROM = ("kick_off", "throw_in", "corner_kick", "indirect_free_kick", "goal_kick") + TWO_TOUCH
SET_PIECES = ("free_kick", "indirect_free_kick", "throw_in", "corner_kick", "penalty_kick") + TWO_TOUCH
#: set pieces for which a side may pick up one button to take them (rulebook §5)
PICK_UP_KINDS = ("free_kick", "indirect_free_kick", "throw_in", "corner_kick") + TWO_TOUCH
#: the free kicks of a direct foul, at which the fouled side may push its own buttons back (§9.1)
DIRECT_FREE_KICKS = ("free_kick", "free_kick_two_touch")
PUSH_BACK_MM = 60.0  # §9.1: buttons are placed 6 cm (edge) from the spot of the foul
PUSH_BACK_BAND_MM = 5.0  # a button pushed back by its side's choice stands 60 to 65 mm from the spot


class OneTouchReferee(Referee):
    """The Button Soccer Rulebook: one touch a turn. See the module docstring."""

    name = "one_touch"
    sections: Mapping[str, str] = {
        **Referee.sections,
        "special": "rulebook 9 Special",
        "technical": "rulebook 9.5",
        "goal_area": "rulebook 8",
    }

    # ------------------------------------------------------------------ refusals
    def flick_refusal(self, state: MatchState, action: Flick) -> RuleViolation | None:
        side, piece = action.side, action.piece
        at_set_piece = state.phase in SET_PIECES and state.restart is not None and state.restart.side == side
        t = self.table
        at = state.piece(side, piece)
        if state.phase == "kick_off" and at is not None and not t.wholly_in_centre_circle(at, t.button_radius):
            # §7: "One of the 2 buttons placed in the center circle is used for the opening kick-off."
            return self.refusal("refused.kick_off_taker_in_circle", self.section("kick_off"), side=side,
                                piece=piece)
        if [side, piece] in [list(x) for x in state.memo.get("locked", ())] and not at_set_piece:
            return self.refusal("refused.back_from_out", self.section("pieces_out"), side=side, piece=piece)
        second = state.memo.get("second")
        if second and second["side"] == side and second["piece"] == piece:
            rule = "rulebook 7" if second.get("kind") == "kick_off" else "rulebook 9.2"
            return self.refusal("refused.second_touch_same_button", rule, side=side, piece=piece)
        special = state.memo.get("special")
        if special and special["side"] == side and special["piece"] == piece:
            return self.refusal("refused.special_taker", self.section("special"), side=side, piece=piece)
        picked = state.memo.get("picked")
        if picked and at_set_piece and picked != piece:
            return self.refusal("refused.picked_takes_it", self.section("arrangement"), side=side,
                                piece=piece, picked=picked)
        return None

    def shot_refusal(self, state: MatchState, side: str) -> RuleViolation | None:
        if state.phase == "penalty_kick":
            return self.refusal("refused.penalty_is_a_shot", self.section("penalty"), side=side)
        second = state.memo.get("second")
        if second and second.get("kind") == "kick_off":
            return self.refusal("refused.no_shot_kick_off", self.section("kick_off"), side=side)
        if state.phase in NO_SHOT_FROM:
            return self.refusal(f"refused.no_shot_from.{state.phase}", self.section("shot"), side=side)
        return super().shot_refusal(state, side)

    def period_may_extend(self, state: MatchState) -> bool:
        """§4, "If a signal announcing the end of a period of play is given right after a shot on
        goal is announced (or a direct foul happens), the shot (or direct free kick) can still be
        taken": a period whose time runs out stays open while a declared shot, a penalty kick or
        a free kick of a direct foul is still to be taken, and that includes the second touch of
        a two-touch free kick (§9.2, or a §9.3 free kick taken in two touches): the free kick is
        its two touches, and the second may itself be a declared shot. It ends once they are
        played (or the second is lost, the first touch having touched an opponent)."""
        second = state.memo.get("second") or {}
        return state.phase in ("shot_declared", "free_kick", "free_kick_two_touch", "penalty_kick") \
            or bool(state.memo.get("shot")) \
            or (second.get("kind") in DIRECT_FREE_KICKS and second.get("side") == state.to_move)

    # ------------------------------------------------------------------ delay of game
    def on_turn_timeout(self, ctx: Ctx, state: MatchState) -> MatchState:
        if state.phase == "shot_declared" or (state.memo.get("placing") or {}).get("stage") is not None \
                or (state.memo.get("penalty") or {}).get("stage") in ("taker", "keeper"):
            return super().on_turn_timeout(ctx, state)
        side = state.to_move
        rule = self.section("technical")
        ctx.emit("turn_timeout", "turn_timeout", side=side, rule=rule)
        ctx.emit("technical_foul", "technical_foul.delay_of_game", side=side, at=state.ball, rule=rule,
                 reason="delay_of_game")
        state = state.with_memo(second=None, special=None, shot=None, penalty=None)
        return self.indirect(ctx, state, other_side(side), state.ball, rule)

    # ------------------------------------------------------------------ restarts
    def award_restart(self, ctx: Ctx, state: MatchState, kind: str, side: str, at: Vec, rule: str,
                      **kw) -> MatchState:
        """The base's restart; at a direct free kick the fouled side's own buttons close to the
        spot may then be pushed back by its choice (§9.1, ``offer_push_back``)."""
        state = state.with_memo(picked=None, own_push=None, ball_anywhere=None)
        new = super().award_restart(ctx, state, kind, side, at, rule, **kw)
        if kind in DIRECT_FREE_KICKS:
            new = self.offer_push_back(new, side)
        return new

    def offer_push_back(self, state: MatchState, side: str) -> MatchState:
        """Rulebook §9.1, "Buttons from the same team may or may not be pushed back according
        to the team's choice": ``side``'s buttons closer than 6 cm (edge) to the spot of the
        foul (the ball) may each be ``place``d 6 cm from it (60 to 65 mm, edge to spot), in any
        direction, before the kick (memo ``own_push``: ``{"side", "spot", "pieces"}``)."""
        need = PUSH_BACK_MM + self.table.button_radius
        spot = state.ball
        near = [pid for pid, p in sorted(state.pieces.get(side, {}).items())
                if pid != "gk" and math.dist(p, spot) < need - 1e-6]
        return state.with_memo(own_push={"side": side, "spot": list(spot), "pieces": near} if near else None)

    def push_back_choice(self, state: MatchState, action: Place) -> bool:
        """``action`` pushes back one of the fouled side's own buttons by its choice (§9.1): the
        button stood closer than 6 cm to the spot and goes 60 to 65 mm (edge) from it."""
        push = state.memo.get("own_push") or {}
        if push.get("side") != action.side or action.piece not in push.get("pieces", ()):
            return False
        d = math.dist(action.at, tuple(push["spot"])) - self.table.button_radius
        return PUSH_BACK_MM - 1e-6 <= d <= PUSH_BACK_MM + PUSH_BACK_BAND_MM

    def set_piece_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """Rulebook §5: at a set piece a side may pick up one button, the one that takes the
        free kick, throw-in or corner kick, and put it by the ball (within 6 cm); at a goal kick
        buttons move only in its arrangement. §9.1: at a direct free kick, the side's own buttons
        close to the spot may also be pushed back 6 cm (``push_back_choice``)."""
        if self.push_back_choice(state, action):
            return None
        kind = state.phase
        rule = self.section("arrangement")
        if kind not in PICK_UP_KINDS:
            if kind == "goal_kick":
                return self.refusal("refused.goal_kick_no_pick_up", rule, side=action.side, piece=action.piece)
            return self.refusal("refused.no_placing_now", rule, side=action.side)
        picked = state.memo.get("picked")
        if picked and picked != action.piece:
            return self.refusal("refused.one_button_picked", rule, side=action.side, piece=action.piece,
                                picked=picked)
        t = self.table
        if gap_to(action.at, t.button_radius, state.ball, t.ball_radius) > 60.0:
            push = state.memo.get("own_push") or {}
            if push.get("side") == action.side and action.piece in push.get("pieces", ()):
                return self.refusal("refused.push_back_6cm", "rulebook 9.1", side=action.side,
                                    piece=action.piece)
            return self.refusal("refused.pick_up_by_ball", rule, side=action.side, piece=action.piece)
        return None

    # ------------------------------------------------------------------ helpers
    def indirect(self, ctx: Ctx, state: MatchState, side: str, at: Vec, rule: str) -> MatchState:
        at = self.in_field(at)
        return self.award_restart(ctx, state, "indirect_free_kick", side, at, rule)

    def in_field(self, p: Vec) -> Vec:
        t = self.table
        r = t.ball_radius
        return round_pos((min(max(p[0], -t.half_length + r), t.half_length - r),
                          min(max(p[1], -t.half_width + r), t.half_width - r)))

    def goal_kick(self, ctx: Ctx, state: MatchState, side: str, rule: str, facts: FlickFacts | None,
                  ball: Vec | None = None) -> MatchState:
        """A goal kick for ``side``; nobody arranges when §5.2 applies."""
        arrange = not (facts is not None and self.straight_out_from_defence(state, facts))
        state = state.with_memo(second=None, special=None)
        new = self.start_goal_kick(ctx, state, side, rule=rule, arrange=arrange, ball=ball)
        return new

    def straight_out_from_defence(self, before_or_after: MatchState, facts: FlickFacts) -> bool:
        """§5.2 and §11: the touch started with the ball in the mover's defensive half and the
        ball touched no button but the flicked one."""
        end = defended_end(facts.side, before_or_after.home_attacks)
        return self.table.in_half(facts.ball_start, end) and facts.touches == (facts.key,)

    # ------------------------------------------------------------------ the flick
    def judge_flick(self, ctx: Ctx, before: MatchState, after: MatchState, facts: FlickFacts) -> MatchState:
        side, opp = facts.side, other_side(facts.side)
        shot = before.memo.get("shot")
        pen = before.memo.get("penalty")
        is_shot = bool(shot and shot.get("armed") and shot["side"] == side) or bool(pen)
        second = before.memo.get("second")
        special = before.memo.get("special")
        if special and any(k != piece_key(special["side"], special["piece"]) for k in facts.touches):
            special = None
        state = after.with_memo(shot=None, penalty=None, second=None, special=special, picked=None,
                                own_push=None, ball_anywhere=None)
        state = state.replace(restart=None)

        # §9 direct foul: before or with the ball
        if facts.opponent_contacts:
            return self.direct_foul(ctx, state, facts)

        # §7 the first touch of a kick-off: forward, and the ball stays in the centre circle
        if before.phase == "kick_off":
            forward = end_sign(attacked_end(side, before.home_attacks)) * (facts.ball_end[0] - facts.ball_start[0])
            left = facts.result.ball_max_r > self.table.centre_circle_radius or facts.crossing is not None
            if forward <= 0 or left or not facts.touches:
                return self.kick_off_fault(ctx, state, side, "first")
            return self.open_play(ctx, state, side).with_memo(
                second={"side": side, "piece": facts.piece, "kind": "kick_off"},
                special={"side": side, "piece": facts.piece})

        crossing = facts.crossing
        if facts.goal_end is not None:
            return self.ball_in_goal(ctx, state, facts, is_shot, crossing.at if crossing else None)
        if is_shot:
            ctx.emit("shot_missed", "shot_missed.penalty_kick" if pen else "shot_missed", side=side,
                     piece=facts.piece, rule=self.section("penalty") if pen else self.section("shot"))
        if facts.ball_out is not None:
            return self.ball_out(ctx, before, state, facts)

        # §5.1: the ball ends the turn wholly inside a goal area
        t = self.table
        for end in ("+x", "-x"):
            if t.wholly_in_goal_area(state.ball, t.ball_radius, end):
                owner = "home" if defended_end("home", state.home_attacks) == end else "away"
                return self.goal_kick(ctx, state, owner, self.section("goal_kick"), None)

        if second and second.get("kind") == "kick_off":
            if facts.result.ball_max_r <= self.table.centre_circle_radius:
                return self.kick_off_fault(ctx, state, side, "second")

        # §9.2/§11 first touch of a 2-touch restart (a direct free kick not shot is one too)
        if before.phase in TWO_TOUCH or (before.phase == "free_kick" and not is_shot):
            state = state.with_memo(special={"side": side, "piece": facts.piece})
            if any(split_key(k)[0] == opp for k in facts.touches):
                return self.open_play(ctx, state, opp)  # the second touch is lost
            return self.open_play(ctx, state, side).with_memo(
                second={"side": side, "piece": facts.piece, "kind": before.phase})
        if before.phase in SPECIAL_KINDS:
            state = state.with_memo(special={"side": side, "piece": facts.piece})
        return self.open_play(ctx, state, opp)

    def kick_off_fault(self, ctx: Ctx, state: MatchState, side: str, touch: str) -> MatchState:
        """§7: the ``"first"`` touch of a kick-off did not move the ball forward within the
        centre circle, or the ``"second"`` did not take it out: a technical foul."""
        rule = self.section("kick_off")
        if touch == "first":
            ctx.emit("technical_foul", "technical_foul.kick_off_first_touch", side=side, at=state.ball,
                     rule=rule, reason="kick_off",
                     detail="the first touch must move the ball forward and keep it in the centre circle")
        else:
            ctx.emit("technical_foul", "technical_foul.kick_off_second_touch", side=side, at=state.ball,
                     rule=rule, reason="kick_off",
                     detail="the second touch must take the ball out of the centre circle")
        return self.indirect(ctx, state.with_memo(special=None, second=None), other_side(side), state.ball, rule)

    def direct_foul(self, ctx: Ctx, state: MatchState, facts: FlickFacts) -> MatchState:
        side, opp = facts.side, other_side(facts.side)
        c = facts.opponent_contacts[0]
        if split_key(c.a)[0] == side:
            offender, fouled, fouled_pos = c.a, c.b, c.b_pos
        else:
            offender, fouled, fouled_pos = c.b, c.a, c.a_pos
        spot = round_pos(c.at)
        t = self.table
        offending_piece, fouled_piece = split_key(offender)[1], split_key(fouled)[1]
        key = "foul.by_keeper" if offending_piece == "gk" else "foul.on_keeper" if fouled_piece == "gk" else "foul"
        ctx.emit("foul", key, side=side, piece=offending_piece, at=spot, rule=self.section("foul"),
                 fouled=fouled_piece)
        state = state.with_memo(special=None, second=None)
        own_end = defended_end(side, state.home_attacks)
        fouled_piece = split_key(fouled)[1]
        pos = fouled_pos if fouled_pos is not None else spot
        if fouled_piece == "gk":
            inside = t.penalty_area(own_end).contains_rect(pos, *t.keeper_half) or \
                t.touches_penalty_area(pos, t.radius_of("gk"), own_end)
        else:
            inside = t.touches_penalty_area(pos, t.button_radius, own_end)
        if inside and fouled_piece != "gk":
            return self.setup_penalty(ctx, state, opp, self.section("penalty"))
        if fouled_piece == "gk":
            # §9.4: the ball in the keeper's penalty area (the foul's spot, brought inside), which
            # the taker may then place anywhere in that area
            keeper_end = defended_end(opp, state.home_attacks)
            area = t.penalty_area(keeper_end)
            r = t.ball_radius
            ball = (min(max(spot[0], area.x0 + r), area.x1 - r), min(max(spot[1], area.y0 + r), area.y1 - r))
            kind = "free_kick_two_touch" if t.in_half(ball, keeper_end) or ball[0] == 0 else "free_kick"
            new = self.award_restart(ctx, state, kind, opp, ball, "rulebook 9.4")
            return new.with_memo(ball_anywhere=keeper_end)  # the taker may move the ball in the area
        taker_defends = defended_end(opp, state.home_attacks)
        if t.in_half(spot, taker_defends) or spot[0] == 0:
            return self.award_restart(ctx, state, "free_kick_two_touch", opp, spot, "rulebook 9.2")
        return self.award_restart(ctx, state, "free_kick", opp, spot, "rulebook 9.3")

    def ball_in_goal(self, ctx: Ctx, state: MatchState, facts: FlickFacts, is_shot: bool,
                     at: Vec | None) -> MatchState:
        side = facts.side
        end = facts.goal_end
        defender = "home" if defended_end("home", state.home_attacks) == end else "away"
        if is_shot and side != defender:
            rule = self.section("penalty") if facts.result is not None and state.phase == "penalty_kick" \
                else self.section("goal")
            return self.score_goal(ctx, state.with_memo(special=None), side, at, rule, piece=facts.piece)
        if side == defender:
            s = end_sign(end)
            res = facts.result
            started = s * facts.ball_start[0] > 0
            stayed = (res.ball_min_x >= 0) if s > 0 else (res.ball_max_x <= 0)
            if started and stayed:
                return self.score_goal(ctx, state.with_memo(special=None), other_side(defender), at,
                                       self.section("own_goal"), own_goal=True, piece=facts.piece)
        if is_shot:
            ctx.emit("shot_missed", "shot_missed", side=side, piece=facts.piece, rule=self.section("shot"))
        ctx.emit("invalid_goal", "invalid_goal", side=side, piece=facts.piece, at=at,
                 rule=self.section("goal_kick"))
        return self.goal_kick(ctx, state, defender, self.section("goal_kick"), facts)

    def ball_out(self, ctx: Ctx, before: MatchState, state: MatchState, facts: FlickFacts) -> MatchState:
        t = self.table
        crossing = facts.ball_out
        last = facts.last_touch or facts.key
        last_side = split_key(last)[0]
        ex, ey = crossing.exit_at
        br = t.ball_radius
        straight = self.straight_out_from_defence(before, facts) and \
            t.in_half((ex, ey), defended_end(facts.side, before.home_attacks))
        rule = self.section("throw_in")
        if crossing.end is None:  # a touch line: throw-in
            taker = other_side(last_side)
            kind = "throw_in_two_touch" if straight and taker != facts.side else "throw_in"
            y = (1 if crossing.line.endswith("+y") else -1) * (t.half_width - br)
            x = min(max(ex, -t.half_length + br), t.half_length - br)
            return self.award_restart(ctx, state, kind, taker, (x, y), rule)
        end = crossing.end
        defender = "home" if defended_end("home", state.home_attacks) == end else "away"
        if last_side == defender:
            taker = other_side(defender)
            kind = "corner_kick_two_touch" if straight and taker != facts.side else "corner_kick"
            x = end_sign(end) * (t.half_length - br)
            y = (1 if ey >= 0 else -1) * (t.half_width - br)
            return self.award_restart(ctx, state, kind, taker, (x, y), rule)
        return self.goal_kick(ctx, state, defender, self.section("goal_kick"), facts)

    # ------------------------------------------------------------------ end of a turn
    def end_of_turn(self, ctx: Ctx, state: MatchState, facts: FlickFacts | None) -> MatchState:
        if facts is None:
            return state
        state = self.goal_area_buttons(ctx, state, facts)
        if state.phase == "open_play":
            state = self.triangle_and_rectangle(ctx, state, facts)
        return state

    def goal_area_buttons(self, ctx: Ctx, state: MatchState, facts: FlickFacts) -> MatchState:
        """§8: an opposing button that ends a turn in a goal area goes just outside its line at
        its entry point; while that spot is blocked it stays off the table."""
        t = self.table
        r = t.button_radius
        out = [dict(e) for e in state.memo.get("out", ())]
        for side in SIDES:
            foreign_end = attacked_end(side, state.home_attacks)  # the opponent's goal area
            area = t.goal_area(foreign_end)
            for pid, p in sorted(state.pieces.get(side, {}).items()):
                if pid == "gk" or not area.touches_disc(p, r) or \
                        (abs(abs(p[0]) - t.half_length) <= r and not area.touches_disc(p, r - 0.5)):
                    continue
                start = _start_of(facts, side, pid)
                spot = self.goal_area_exit(foreign_end, p, start)
                state = state.with_piece(side, pid, None)
                if self.fits(state, side, pid, spot):
                    state = state.with_piece(side, pid, spot)
                else:
                    out.append({"side": side, "piece": pid, "spot": list(spot), "turn": 0, "due": True})
                ctx.emit("piece_moved", "piece_moved.goal_area", side=side, piece=pid, at=spot,
                         rule=self.section("goal_area"), reason="goal_area")
        return self.own_goal_area_buttons(state.with_memo(out=out or None), facts)

    def own_goal_area_buttons(self, state: MatchState, facts: FlickFacts) -> MatchState:
        """§8: an own button that ends a turn in its goal area may be left there or moved to the
        penalty-area side of the goal-area line at its entry point, as its side chooses. The
        choice is a ``place`` of that button on that spot in a turn of its side while it is still
        in the area (memo ``goal_area_choice``: ``[{"side", "piece", "spot"}]``; the spot of its
        first entry is kept while it stays)."""
        t = self.table
        r = t.button_radius
        before = {(e["side"], e["piece"]): e["spot"] for e in state.memo.get("goal_area_choice", ())}
        choices = []
        for side in SIDES:
            own_end = defended_end(side, state.home_attacks)
            area = t.goal_area(own_end)
            for pid, p in sorted(state.pieces.get(side, {}).items()):
                if pid == "gk" or not area.touches_disc(p, r) or \
                        (abs(abs(p[0]) - t.half_length) <= r and not area.touches_disc(p, r - 0.5)):
                    continue
                spot = before.get((side, pid)) or list(self.goal_area_exit(own_end, p, _start_of(facts, side, pid)))
                choices.append({"side": side, "piece": pid, "spot": list(spot)})
        return state.with_memo(goal_area_choice=choices or None)

    def goal_area_choice(self, state: MatchState, side: str, piece: str) -> Vec | None:
        """Where ``side`` may move its button ``piece`` out of its own goal area (§8), if it may."""
        p = state.piece(side, piece)
        t = self.table
        if piece == "gk" or p is None or \
                not t.goal_area(defended_end(side, state.home_attacks)).touches_disc(p, t.button_radius):
            return None
        for e in state.memo.get("goal_area_choice", ()):
            if e["side"] == side and e["piece"] == piece:
                return (float(e["spot"][0]), float(e["spot"][1]))
        return None

    def place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """Besides the base's placing: §8, the own button in its own goal area moved to the
        penalty-area side of the goal-area line at its entry point, and nowhere else."""
        busy = (state.memo.get("placing") or {}).get("stage") is not None or state.memo.get("penalty")
        spot = None if busy else self.goal_area_choice(state, action.side, action.piece)
        if spot is None:
            return super().place_refusal(state, action)
        if math.dist(spot, action.at) > 1.0:
            return self.refusal("refused.goal_area_choice_spot", self.section("goal_area"), side=action.side,
                                piece=action.piece, x=spot[0], y=spot[1])
        return None

    def ball_place_refusal(self, state: MatchState, action: Place) -> RuleViolation | None:
        """§5.1: at its goal kick the taker may put the ball anywhere (wholly) inside its own
        penalty area, before the kick; §9.4: so may the side taking the free kick of a foul on
        its keeper (memo ``ball_anywhere``: the end of that penalty area)."""
        t = self.table
        own_area = defended_end(action.side, state.home_attacks)
        taker = state.restart is not None and state.restart.side == action.side
        if taker and state.phase in DIRECT_FREE_KICKS and state.memo.get("ball_anywhere") == own_area:
            if not t.wholly_in_penalty_area(action.at, t.ball_radius, own_area):
                return self.refusal("refused.ball_in_penalty_area_keeper_foul", "rulebook 9.4", side=action.side)
            return None
        rule = self.section("goal_kick")
        if state.phase != "goal_kick" or not taker:
            return self.refusal("refused.ball_goal_kick_only", rule, side=action.side)
        if not t.wholly_in_penalty_area(action.at, t.ball_radius, own_area):
            return self.refusal("refused.ball_in_penalty_area", rule, side=action.side)
        return None

    def on_place_ball(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        """The base's ball placed by hand; at a §9.4 free kick the opponents are then pushed 6 cm
        from the ball's new spot (§9.1)."""
        new = super().on_place_ball(ctx, state, action)
        if state.memo.get("ball_anywhere") and state.phase in DIRECT_FREE_KICKS:
            new = self.push_away(new, other_side(action.side), new.ball, keepers=True)
        return new

    def on_place(self, ctx: Ctx, state: MatchState, action: Place) -> MatchState:
        busy = (state.memo.get("placing") or {}).get("stage") is not None or state.memo.get("penalty")
        choice = None if busy or action.piece == "gk" else self.goal_area_choice(state, action.side, action.piece)
        pushed = not busy and self.push_back_choice(state, action)
        picking = not busy and choice is None and not pushed and action.piece not in ("gk", BALL_PIECE) \
            and state.phase in PICK_UP_KINDS
        new = super().on_place(ctx, state, action)
        if choice is not None:
            left = [e for e in new.memo.get("goal_area_choice", ())
                    if not (e["side"] == action.side and e["piece"] == action.piece)]
            new = new.with_memo(goal_area_choice=left or None)
            ctx.emit("piece_moved", "piece_moved.goal_area_choice", side=action.side, piece=action.piece,
                     at=round_pos(action.at), rule=self.section("goal_area"), reason="goal_area_choice")
        elif pushed:
            push = dict(new.memo["own_push"])
            left = [pid for pid in push["pieces"] if pid != action.piece]
            new = new.with_memo(own_push={**push, "pieces": left} if left else None)
            ctx.emit("piece_moved", "piece_moved.pushed_back_by_choice", side=action.side, piece=action.piece,
                     at=round_pos(action.at), rule="rulebook 9.1", reason="pushed_back_by_choice")
        elif picking:
            new = new.with_memo(picked=action.piece)
        return new

    def goal_area_exit(self, end: str, p: Vec, start: Vec | None) -> Vec:
        """The centre of a button whose edge barely touches the goal area's line at the point
        where the button (moving from ``start`` to ``p``) entered it."""
        t = self.table
        r = t.button_radius + 0.5
        area = t.goal_area(end)
        x0, y0, x1, y1 = area.x0 - r, area.y0 - r, area.x1 + r, area.y1 + r
        inner_x = x0 if end == "+x" else x1

        def inside(q):
            return x0 < q[0] < x1 and y0 < q[1] < y1

        if start is not None and not inside(start):
            lo, hi = 0.0, 1.0
            for _ in range(40):
                mid = (lo + hi) / 2
                q = (start[0] + (p[0] - start[0]) * mid, start[1] + (p[1] - start[1]) * mid)
                if inside(q):
                    hi = mid
                else:
                    lo = mid
            q = (start[0] + (p[0] - start[0]) * lo, start[1] + (p[1] - start[1]) * lo)
        else:  # already inside: the nearest point of the line on the field side
            options = [(abs(p[0] - inner_x), (inner_x, p[1])), (abs(p[1] - y0), (p[0], y0)),
                       (abs(p[1] - y1), (p[0], y1))]
            q = min(options)[1]
        # never beyond the goal line
        lim = t.half_length - t.button_radius
        return round_pos((min(max(q[0], -lim), lim), q[1]))

    def triangle_and_rectangle(self, ctx: Ctx, state: MatchState, facts: FlickFacts) -> MatchState:
        """§9.5: the ball wholly inside a triangle of 3 buttons (at most 18 cm apart), or a
        rectangle of 2 (at most 6 cm apart) not cleared by the end of that side's turn."""
        t = self.table
        ball = state.ball
        rule = self.section("technical")
        reach = 180.0 + 2 * t.button_radius
        for side in SIDES:
            near = [p for pid, p in sorted(state.pieces.get(side, {}).items())
                    if pid != "gk" and math.dist(p, ball) <= reach]
            for a, b, c in combinations(near, 3):
                if max(t.button_gap(a, b), t.button_gap(b, c), t.button_gap(a, c)) <= 180.0 \
                        and t.ball_in_triangle(ball, (a, b, c)):
                    ctx.emit("technical_foul", "technical_foul.triangle", side=side, at=ball, rule=rule,
                             reason="triangle")
                    st = state.with_memo(special=None, second=None, rect=None)
                    return self.indirect(ctx, st, other_side(side), ball, rule)
        mover = facts.side
        start_in = self.in_rectangle(facts.ball_start, facts.pieces_start.get(mover, {}))
        end_in = self.in_rectangle(ball, state.pieces.get(mover, {}))
        watch = state.memo.get("rect_watch")
        if end_in and (start_in or watch == mover):
            ctx.emit("technical_foul", "technical_foul.rectangle", side=mover, at=ball, rule=rule,
                     reason="rectangle")
            st = state.with_memo(special=None, second=None, rect_watch=None)
            return self.indirect(ctx, st, other_side(mover), ball, rule)
        if start_in and not end_in:
            return state.with_memo(rect_watch=mover)
        if watch == mover:
            return state.with_memo(rect_watch=None)
        return state

    def in_rectangle(self, ball: Vec, pieces: Mapping[str, Vec]) -> bool:
        """The ball wholly inside the rectangle of 2 of these buttons at most 6 cm apart (§9.5)."""
        t = self.table
        near = [p for pid, p in sorted(pieces.items())
                if pid != "gk" and math.dist(p, ball) <= 60.0 + 2 * t.button_radius]
        return any(t.button_gap(a, b) <= 60.0 and t.ball_in_rectangle(ball, a, b) for a, b in combinations(near, 2))


def _start_of(facts: FlickFacts, side: str, pid: str) -> Vec | None:
    """Where a piece stood before the flick (``None``: it was not on the table)."""
    return facts.pieces_start.get(side, {}).get(pid)


__all__ = ["OneTouchReferee"]
