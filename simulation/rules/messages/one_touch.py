"""Sentences of the one-touch referee (the Button Soccer Rulebook), by message key, besides the
shared ones of ``common`` (which this catalogue may word for its own rules).

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
    "piece_out": gettext_noop(
        "{player}'s button {piece} went out of the field: it comes back where it left after the "
        "opponent's next turn, and sits out its side's turn after that"),
    "invalid_goal": gettext_noop(
        "The ball went into the goal from {player}'s turn without a declared shot: no goal, a goal kick"),
    "shot_missed": gettext_noop("{player}'s shot on goal did not score"),
    "shot_missed.penalty_kick": gettext_noop("{player}'s penalty kick did not score"),
    "foul": gettext_noop(
        "Foul by {player}: its button {piece} touched an opposing button before the ball"),
    "foul.on_keeper": gettext_noop(
        "Foul by {player}: its button {piece} touched the opposing goalkeeper before the ball"),
    "foul.by_keeper": gettext_noop(
        "Foul by {player}: its goalkeeper touched an opposing piece before the ball"),
    "technical_foul.delay_of_game": gettext_noop(
        "Technical foul against {player}: delay of game, its time for the turn ran out"),
    "technical_foul.kick_off_first_touch": gettext_noop(
        "Technical foul against {player}: the first touch of a kick-off must move the ball forward "
        "and keep it inside the centre circle"),
    "technical_foul.kick_off_second_touch": gettext_noop(
        "Technical foul against {player}: the second touch of a kick-off must take the ball out of "
        "the centre circle"),
    "technical_foul.triangle": gettext_noop(
        "Technical foul against {player}: the ball was left inside the triangle of three of its "
        "buttons"),
    "technical_foul.rectangle": gettext_noop(
        "Technical foul against {player}: the ball was left inside the rectangle of two of its "
        "buttons"),
    "piece_moved.goal_area": gettext_noop(
        "{player}'s button {piece} ended a turn in the opponent's goal area: it is placed just "
        "outside it, where it entered"),
    "piece_moved.goal_area_choice": gettext_noop(
        "{player} moves its button {piece} out of its own goal area, to where it entered"),
    "piece_moved.pushed_back_by_choice": gettext_noop(
        "{player} pushes its own button {piece} back 6 cm from the spot of the foul"),
    # -- refusals ---------------------------------------------------------------------------
    "refused.back_from_out": gettext_noop(
        "Button {piece} came back from out of the field and sits out this turn"),
    "refused.second_touch_same_button": gettext_noop(
        "Button {piece} took the first touch and may not take the second"),
    "refused.special_taker": gettext_noop(
        "Button {piece} took the restart and may not be played again until another button has "
        "touched the ball"),
    "refused.picked_takes_it": gettext_noop(
        "Button {picked} was picked up to take the set piece, so it takes it"),
    "refused.penalty_is_a_shot": gettext_noop("A penalty kick is a shot already"),
    "refused.no_shot_kick_off": gettext_noop("No shot on goal from either touch of a kick-off"),
    "refused.no_shot_from.kick_off": gettext_noop("A shot on goal is not allowed from a kick-off"),
    "refused.no_shot_from.throw_in": gettext_noop("A shot on goal is not allowed from a regular throw-in"),
    "refused.no_shot_from.corner_kick": gettext_noop(
        "A shot on goal is not allowed from a regular corner kick"),
    "refused.no_shot_from.indirect_free_kick": gettext_noop(
        "A shot on goal is not allowed from an indirect free kick"),
    "refused.no_shot_from.goal_kick": gettext_noop("A shot on goal is not allowed from a goal kick"),
    "refused.no_shot_from.throw_in_two_touch": gettext_noop(
        "A shot on goal is not allowed from the first touch of a two-touch throw-in"),
    "refused.no_shot_from.corner_kick_two_touch": gettext_noop(
        "A shot on goal is not allowed from the first touch of a two-touch corner kick"),
    "refused.no_shot_from.free_kick_two_touch": gettext_noop(
        "A shot on goal is not allowed from the first touch of a two-touch free kick"),
    "refused.goal_kick_no_pick_up": gettext_noop(
        "At a goal kick buttons are arranged only in the arrangement's stages, and not at all when "
        "the ball went straight out from the kicking side's own half"),
    "refused.one_button_picked": gettext_noop(
        "Only one button is picked up to take a set piece: button {picked} was"),
    "refused.push_back_6cm": gettext_noop(
        "Button {piece} may be pushed back 6 cm from the spot of the foul (60 to 65 mm) or placed "
        "by the ball to take the free kick"),
    "refused.pick_up_by_ball": gettext_noop(
        "The button picked up to take a set piece is placed by the ball (within 6 cm)"),
    "refused.goal_area_choice_spot": gettext_noop(
        "Button {piece} may be left in its goal area or placed just outside the goal-area line "
        "where it entered, at [{x:g}, {y:g}], nowhere else"),
    "refused.ball_goal_kick_only": gettext_noop(
        "The ball is placed by hand only by the side taking a goal kick"),
    "refused.kick_off_taker_in_circle": gettext_noop(
        "The kick-off is taken by one of the two buttons inside the centre circle, not by button {piece}"),
    "refused.ball_in_penalty_area_keeper_foul": gettext_noop(
        "At the free kick of a foul on the goalkeeper the ball is placed anywhere inside its "
        "penalty area"),
    "refused.ball_in_penalty_area": gettext_noop(
        "At a goal kick the ball is placed anywhere inside the kicking side's own penalty area"),
}
