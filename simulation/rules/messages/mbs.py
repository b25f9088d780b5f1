"""Sentences of the MBS referee (the MBS online rules), by message key, besides the shared ones
of ``common`` (which this catalogue may word for its own rules).

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
    "restart.free_kick": gettext_noop("Free kick for {player}"),
    "piece_out": gettext_noop(
        "{player}'s button {piece} went out of the field: it comes straight back where it left"),
    "possession_lost.ball_not_touched": gettext_noop(
        "{player} loses possession: button {piece} moved without touching the ball"),
    "possession_lost.ball_out": gettext_noop(
        "{player} loses possession: the ball went out of the field off one of its pieces"),
    "possession_lost.ball_last_touched_by_opponent": gettext_noop(
        "{player} loses possession: the ball last touched an opposing piece"),
    "possession_lost.shot_missed": gettext_noop(
        "{player} loses possession: the shot on goal failed without a rebound"),
    "turn_timeout.keeper": gettext_noop(
        "{player} did not confirm its goalkeeper in time: the shot goes ahead"),
    "turn_timeout.shootout": gettext_noop(
        "{player} did not take its shoot-out kick in time: it counts as missed"),
    "invalid_goal": gettext_noop(
        "Invalid goal: the ball went into the goal from {player}'s turn without a declared shot; a "
        "goal kick for the opponent"),
    "shot_missed": gettext_noop("{player}'s shot on goal did not score"),
    "foul": gettext_noop(
        "Foul by {player}: its button {piece} hit an opposing button before the ball was touched"),
    "foul.on_keeper": gettext_noop(
        "Foul by {player}: its button {piece} hit the opposing goalkeeper before the ball was touched"),
    "expulsion.violent_foul": gettext_noop(
        "{player}'s button {piece} is sent off: a foul with much violence"),
    "expulsion.unsporting_foul": gettext_noop(
        "{player}'s button {piece} is sent off: a foul away from the play"),
    "disqualification": gettext_noop("{player} is disqualified: four of its buttons were sent off"),
    "technical_foul.missed_ball_on_shot": gettext_noop(
        "Technical foul against {player}: it missed the ball on a declared shot"),
    "technical_foul.inversion": gettext_noop(
        "Technical foul against {player}: it did not take its kick-off, free kick or penalty kick"),
    "inversion.turn_timeout": gettext_noop(
        "Inversion: {player} did not take its set piece in time, so it passes to the opponent"),
    "inversion.missed_ball": gettext_noop(
        "Inversion: {player} missed the ball at its set piece, so it passes to the opponent"),
    # -- refusals ---------------------------------------------------------------------------
    "refused.set_piece_taker_again": gettext_noop(
        "Button {piece} took the set piece and may not play the ball again before a team-mate "
        "has touched it"),
    "refused.ready_before_flick": gettext_noop(
        "The buttons are placed for the set piece: press Ready, then flick"),
    "refused.shot_phase": gettext_noop(
        "A shot may be declared in open play, at a free kick or at a penalty kick"),
    "refused.shot_after_kick_off_in_circle": gettext_noop(
        "After a kick-off the ball must be outside the centre circle to shoot"),
    "refused.keeper_only_for_shot": gettext_noop(
        "The goalkeeper may be placed only when a shot has been declared"),
    "refused.placing_not_taker": gettext_noop("Buttons are placed only by the side taking a set piece"),
    "refused.placing_over": gettext_noop("The placing is over (ready was said)"),
    "refused.two_buttons": gettext_noop(
        "Only two buttons are placed for a set piece: the taker and the one that receives"),
    "refused.by_ball": gettext_noop("The button must be placed by the ball (within {distance:g} mm)"),
    "refused.ball_never_placed": gettext_noop("The ball is never placed by hand"),
    "refused.spot_not_free": gettext_noop("That spot is not free on the table"),
}
