"""Sentences of the machinery both referees share (``simulation.rules.base``): the clock and
periods, restarts, goals, placing, declared shots, penalty kicks and the shoot-out.

Keys here carry no rule-set prefix; each referee's catalogue takes them under its own name
(``"one_touch.restart.free_kick"``, ``"mbs.restart.free_kick"``) and may word one differently.
``{player}`` is the name of the player of the message's ``side``; every other placeholder is a
parameter of the message. Templates have no final full stop: the site adds the rule after them.
"""
from __future__ import annotations


def gettext_noop(message: str) -> str:
    """Marks ``message`` for translation (Django's ``makemessages`` looks for this name) and
    returns it unchanged: the core cannot import Django."""
    return message


MESSAGES: dict[str, str] = {
    # -- events -----------------------------------------------------------------------------
    "touch": gettext_noop("{player}'s button {piece} touched the ball"),
    "touch.keeper": gettext_noop("{player}'s goalkeeper touched the ball"),
    "restart.kick_off": gettext_noop("Kick-off for {player}"),
    "restart.free_kick": gettext_noop("Direct free kick for {player}"),
    "restart.free_kick_two_touch": gettext_noop("Free kick for {player}, taken in two touches"),
    "restart.indirect_free_kick": gettext_noop("Indirect free kick for {player}"),
    "restart.penalty_kick": gettext_noop("Penalty kick for {player}"),
    "restart.throw_in": gettext_noop("Throw-in for {player}"),
    "restart.throw_in_two_touch": gettext_noop("Throw-in for {player}, taken in two touches"),
    "restart.corner_kick": gettext_noop("Corner kick for {player}"),
    "restart.corner_kick_two_touch": gettext_noop("Corner kick for {player}, taken in two touches"),
    "restart.goal_kick": gettext_noop("Goal kick for {player}"),
    "goal": gettext_noop("Goal for {player}, scored by button {piece}"),
    "goal.own_goal": gettext_noop("Own goal: a goal for {player}"),
    "goal.shootout": gettext_noop("{player} scores in the shoot-out"),
    "shot_missed.shootout": gettext_noop("{player} misses in the shoot-out"),
    "shot_declared": gettext_noop("{player} declares a shot on goal: the opponent may place the goalkeeper"),
    "turn_timeout": gettext_noop("{player}'s time for the turn ran out"),
    "piece_out": gettext_noop("{player}'s button {piece} went out of the field"),
    "piece_moved.arrangement": gettext_noop(
        "{player}'s time to arrange ran out: the referee brought button {piece} into the offensive "
        "half, where at least 3 buttons stand at a goal kick"),
    "period_end.first_half": gettext_noop("End of the first half"),
    "period_end.second_half": gettext_noop("End of the second half"),
    "period_end.extra_time_first": gettext_noop("End of the first half of extra time"),
    "period_end.extra_time_second": gettext_noop("End of extra time"),
    "period_end.shootout": gettext_noop("End of the shoot-out"),
    "full_time": gettext_noop("Full time: {home_goals}-{away_goals}"),
    "full_time.shootout": gettext_noop(
        "Full time: {home_goals}-{away_goals}; {player} wins the shoot-out {home_kicks}-{away_kicks}"),
    "full_time.disqualification": gettext_noop("Full time: {player} is disqualified"),
    # -- refusals ---------------------------------------------------------------------------
    "refused.match_over": gettext_noop("The match is over"),
    "refused.time_backwards": gettext_noop(
        "Time runs forward: {t:g} s is before the match clock, {clock:g} s"),
    "refused.not_your_turn": gettext_noop("It is not {player}'s turn"),
    "refused.keeper_flicked": gettext_noop("The goalkeeper is never flicked; it is placed"),
    "refused.piece_not_on_table": gettext_noop("{player}'s button {piece} is not on the table"),
    "refused.flick_speed": gettext_noop(
        "A flick's speed must be above 0 and at most {max_speed:g} mm/s, not {speed:g}"),
    "refused.flick_angle": gettext_noop("The angle of a flick must be a finite number of degrees"),
    "refused.kick_off_being_placed": gettext_noop(
        "The kick-off formation is being placed: confirm it with ready first"),
    "refused.arrangement_under_way": gettext_noop(
        "The buttons are being arranged: confirm with ready first"),
    "refused.keeper_being_placed": gettext_noop(
        "The defender is placing the goalkeeper for the declared shot"),
    "refused.penalty_being_set": gettext_noop(
        "The penalty kick is being set: the taker is placed, then the keeper, each confirmed with ready"),
    "refused.penalty_taker_only": gettext_noop("The penalty kick is taken by button {taker}"),
    "refused.shot_already_declared": gettext_noop("A shot is already declared"),
    "refused.shot_ball_not_in_opponents_half": gettext_noop(
        "A shot may be declared only with the ball entirely in the opponent's half, no part of it "
        "on the halfway line"),
    "refused.keeper_outside_goal_area": gettext_noop(
        "The goalkeeper must be placed entirely within its goal area"),
    "refused.keeper_overlaps": gettext_noop("The goalkeeper would overlap another piece or the ball"),
    "refused.penalty_keeper_on_goal_line": gettext_noop(
        "At a penalty kick the keeper stands on its goal line, its front face on the line and its "
        "body behind it between the posts, so that part of the line shows in front of it"),
    "refused.arrangement_offensive_stage": gettext_noop(
        "In this stage buttons go in the offensive half (a button touching the halfway line counts "
        "as defensive)"),
    "refused.arrangement_defensive_stage": gettext_noop("In this stage buttons go in the defensive half"),
    "refused.arrangement_6cm": gettext_noop("Arranged buttons keep 6 cm from the opponent's buttons"),
    "refused.arrangement_keep_three": gettext_noop(
        "At least {need} buttons stay in the offensive half (3 buttons, or all there are); there "
        "would be {have}"),
    "refused.arrangement_three": gettext_noop(
        "At least {need} buttons have to be placed in the offensive half (3 buttons, or all there "
        "are); there are {have}"),
    "refused.penalty_taker_placed": gettext_noop("The penalty taker is already placed"),
    "refused.penalty_taker_by_ball": gettext_noop("The penalty taker is placed by the ball"),
    "refused.no_placing_now": gettext_noop("Buttons may not be placed now"),
    "refused.set_piece_taker_by_ball": gettext_noop(
        "The taker of a set piece is placed by the ball (within 6 cm)"),
    "refused.kick_off_own_half": gettext_noop(
        "At a kick-off buttons stand in their own half, not touching the halfway line"),
    "refused.kick_off_defender_in_circle": gettext_noop(
        "At a kick-off no button of the defending side may be inside the centre circle"),
    "refused.kick_off_formation_own_half": gettext_noop(
        "Button {piece} is not in its own half (a button touching the halfway line does not count)"),
    "refused.kick_off_formation_by_line": gettext_noop(
        "5 buttons stand within 6 cm of the halfway line (not touching it); there are {count}"),
    "refused.kick_off_formation_defender_in_circle": gettext_noop(
        "No button of the defending side may be inside the centre circle (button {piece})"),
    "refused.kick_off_formation_half_circle": gettext_noop(
        "The kicking side places 2 buttons inside the half centre circle in its own half; there "
        "are {count}"),
    "refused.ball_not_placeable": gettext_noop("The ball may not be placed now"),
    "refused.ball_overlaps": gettext_noop("The ball would overlap a piece there"),
    "refused.spot_not_free": gettext_noop("That spot is not free on the field"),
    "refused.nothing_to_confirm": gettext_noop("There is nothing to confirm now"),
}
