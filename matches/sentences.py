"""What the board says, in sentences: the referee's calls, the players' moves, a refused move,
the buttons that may not play, the official result, and the board's own words
(``board_strings``, for its scripts).

Every sentence is rendered here, on the server, through gettext, with the players' names
(``names``: ``selectors.side_names``, each side's ``short`` name is used). The referee gives
each event and each refusal a message ``{"key", "params"}`` of its catalogue
(``simulation.rules.messages``): the English template is translated, then filled, ``{player}``
with the name of the player of ``params["side"]``. An event logged before the referee gave
messages is put in words from its fields (``type``, ``reason``, ``kind``...). A call is never
shown as its bare key.

- ``event_sentence(event, names)``, ``action_sentence(action, names)``,
  ``refusal_sentence(reason, message, names)``: one sentence each ("" for what the feed does not
  show: a ``touch``, a ``tick``, a ``declare_shot``, whose event says it);
- ``may_not_play(barred, names)``: the referee's ``may_not_play`` with a sentence and the rule's
  page for each button;
- ``rule_url(rule)``: the ``/rules/`` page at the section a ``rule`` cites (or ``None``);
- ``with_texts(row, names)``: a log row as the board reads it, with ``text`` on the row and
  ``text``, ``rule_url`` and ``rule_label`` on each event;
- ``official_sentence(official, names)``: "Official result: Rossi 2–1 Costa.";
- ``board_strings()``: the labels and short sentences the board's scripts show.
"""
from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

from matches.rulebooks import rule_anchor, rule_label
from simulation.rules.messages import template

SIDES = ("home", "away")


def restart_kinds() -> dict[str, str]:
    """Each restart kind (SIMULATION_CONTRACT.md §5) by its name, lower case."""
    return {
        "kick_off": _("kick-off"), "free_kick": _("free kick"),
        "free_kick_two_touch": _("two-touch free kick"), "indirect_free_kick": _("indirect free kick"),
        "penalty_kick": _("penalty kick"), "throw_in": _("throw-in"),
        "throw_in_two_touch": _("two-touch throw-in"), "corner_kick": _("corner kick"),
        "corner_kick_two_touch": _("two-touch corner kick"), "goal_kick": _("goal kick"),
    }


def periods() -> dict[str, str]:
    return {
        "first_half": _("first half"), "second_half": _("second half"),
        "extra_time_first": _("first half of extra time"), "extra_time_second": _("second half of extra time"),
        "shootout": _("shoot-out"),
    }


def _name(side: Any, names: dict[str, dict[str, Any]]) -> str:
    if side in SIDES:
        entry = names.get(side) or {}
        return entry.get("short") or entry.get("name") or (_("Home") if side == "home" else _("Away"))
    return _("the referee")


def _other(side: Any) -> str | None:
    return {"home": "away", "away": "home"}.get(side)


def _piece(piece: Any) -> str:
    if piece in (None, ""):
        return _("a button")
    if str(piece) == "gk":
        return _("the goalkeeper")
    if str(piece) == "ball":
        return _("the ball")
    return _("button %(piece)s") % {"piece": piece}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


TECHNICAL_REASONS = {
    # reason -> sentence after "Technical foul by {player}: "
    "delay_of_game": lambda: _("delay of game, the turn ran out"),
    "triangle": lambda: _("the ball stopped inside a triangle of three of their buttons 18 cm or less apart"),
    "rectangle": lambda: _("the ball stayed between two of their buttons 6 cm or less apart"),
    "missed_ball_on_shot": lambda: _("the declared shot missed the ball"),
    "inversion_turn_timeout": lambda: _("the set piece was not taken in time"),
    "inversion_missed_ball": lambda: _("the set piece missed the ball"),
}
POSSESSION_REASONS = {
    "ball_not_touched": lambda: _("the button did not touch the ball"),
    "ball_out": lambda: _("the ball went out off one of their own pieces"),
    "ball_last_touched_by_opponent": lambda: _("the ball last touched an opponent"),
    "shot_missed": lambda: _("the shot missed without a rebound"),
}


def _foul(event: dict, names: dict) -> str:
    fouled = event.get("fouled")
    if isinstance(fouled, dict):
        fouled = fouled.get("piece")
    params = {"player": _name(event.get("side"), names), "piece": _piece(event.get("piece"))}
    if fouled in (None, ""):
        return _("Foul by %(player)s: %(piece)s touched an opponent before the ball.") % params
    params["fouled"] = _piece(fouled)
    return _("Foul by %(player)s: %(piece)s touched %(fouled)s before the ball.") % params


def _technical(event: dict, names: dict) -> str:
    player = _name(event.get("side"), names)
    reason = event.get("reason")
    if reason == "kick_off":
        detail = event.get("detail")
        if detail:
            return _("Technical foul by %(player)s at the kick-off: %(detail)s.") % {"player": player, "detail": detail}
        return _("Technical foul by %(player)s at the kick-off.") % {"player": player}
    if reason in TECHNICAL_REASONS:
        return _("Technical foul by %(player)s: %(why)s.") % {"player": player, "why": TECHNICAL_REASONS[reason]()}
    return _("Technical foul by %(player)s.") % {"player": player}


def _goal(event: dict, names: dict) -> str:
    player = _name(event.get("side"), names)
    if event.get("own_goal"):
        return _("GOAL for %(player)s: an own goal.") % {"player": player}
    if event.get("piece") not in (None, ""):
        return _("GOAL! %(player)s scores with %(piece)s.") % {"player": player, "piece": _piece(event["piece"])}
    return _("GOAL! %(player)s scores.") % {"player": player}


def _restart(event: dict, names: dict) -> str:
    kind = restart_kinds().get(event.get("kind"), _("restart"))
    return _("%(kind)s to %(player)s.") % {"kind": _capital(kind), "player": _name(event.get("side"), names)}


def _inversion(event: dict, names: dict) -> str:
    side = event.get("side")
    params = {"player": _name(side, names), "opponent": _name(_other(side), names),
              "kind": restart_kinds().get(event.get("kind"), _("set piece"))}
    if event.get("reason") == "missed_ball":
        return _("Inversion: %(player)s missed the ball at the %(kind)s; the restart passes to %(opponent)s.") % params
    if event.get("reason") == "turn_timeout":
        return _("Inversion: %(player)s did not take the %(kind)s in time; the restart passes to %(opponent)s.") % params
    return _("Inversion: the %(kind)s passes from %(player)s to %(opponent)s.") % params


def _possession(event: dict, names: dict) -> str:
    player = _name(event.get("side"), names)
    reason = event.get("reason")
    if reason in POSSESSION_REASONS:
        return _("%(player)s loses possession: %(why)s.") % {"player": player, "why": POSSESSION_REASONS[reason]()}
    return _("%(player)s loses possession.") % {"player": player}


def _expulsion(event: dict, names: dict) -> str:
    params = {"player": _name(event.get("side"), names), "piece": _piece(event.get("piece"))}
    if event.get("reason") == "violent_foul":
        return _("%(piece)s of %(player)s is sent off for a violent foul.") % {
            **params, "piece": _capital(params["piece"])}
    if event.get("reason") == "unsporting_foul":
        return _("%(piece)s of %(player)s is sent off for a foul away from the play.") % {
            **params, "piece": _capital(params["piece"])}
    return _("%(piece)s of %(player)s is sent off.") % {**params, "piece": _capital(params["piece"])}


def _period_end(event: dict, names: dict) -> str:
    if event.get("period") == "first_half":
        return _("Half time.")
    period = periods().get(event.get("period"))
    return _("End of the %(period)s.") % {"period": period} if period else _("End of the period.")


def _full_time(event: dict, names: dict) -> str:
    score = event.get("score") or {}
    if "home" in score and "away" in score:
        return _("Full time: %(home)s %(home_goals)s–%(away_goals)s %(away)s.") % {
            "home": _name("home", names), "away": _name("away", names),
            "home_goals": score["home"], "away_goals": score["away"]}
    return _("Full time.")


def _piece_moved(event: dict, names: dict) -> str:
    params = {"player": _name(event.get("side"), names), "piece": _piece(event.get("piece"))}
    reason = event.get("reason")
    if reason == "goal_area_choice":
        return _("%(player)s moves %(piece)s out of their goal area.") % params
    if reason == "pushed_back_by_choice":
        return _("%(player)s moves %(piece)s back from the spot of the foul.") % params
    if reason == "arrangement":
        return _("The referee moves %(piece)s of %(player)s into their offensive half: at a goal kick "
                 "at least 3 buttons stand there.") % params
    return _("%(piece)s of %(player)s is moved out of the goal area.") % {
        **params, "piece": _capital(params["piece"])}


def _simple(template: str):
    def render(event: dict, names: dict) -> str:
        side = event.get("side")
        return _(template) % {"player": _name(side, names), "opponent": _name(_other(side), names),
                              "piece": _piece(event.get("piece"))}
    return render


EVENTS = {
    "goal": _goal,
    "invalid_goal": _simple(gettext_noop("No goal: %(player)s put the ball in without declaring a shot.")),
    "shot_declared": _simple(gettext_noop("%(player)s declares a shot on goal; %(opponent)s may place the goalkeeper.")),
    "shot_missed": _simple(gettext_noop("The shot of %(player)s is missed.")),
    "foul": _foul,
    "technical_foul": _technical,
    "restart": _restart,
    "possession_lost": _possession,
    "inversion": _inversion,
    "turn_timeout": _simple(gettext_noop("The turn of %(player)s ran out.")),
    "piece_out": _simple(gettext_noop("%(piece)s of %(player)s left the field.")),
    "piece_moved": _piece_moved,
    "expulsion": _expulsion,
    "disqualification": _simple(gettext_noop("%(player)s is disqualified: four buttons have been sent off.")),
    "period_end": _period_end,
    "full_time": _full_time,
}


def message_sentence(message: dict[str, Any] | None, names: dict[str, dict[str, Any]]) -> str | None:
    """The sentence of a referee's message ``{"key", "params"}``: its template translated, then
    filled; ``None`` when there is no message, or its key or a parameter is unknown."""
    if not message or not message.get("key"):
        return None
    params = message.get("params") or {}
    try:
        text = _(template(message["key"]))
        text = text.format(**{**params, "player": _name(params.get("side"), names)})
    except (KeyError, IndexError, ValueError):
        return None
    return _capital(text) + "."


def event_sentence(event: dict[str, Any], names: dict[str, dict[str, Any]]) -> str:
    """The sentence for one referee event; "" for a ``touch`` (the feed does not list them)."""
    kind = event.get("type")
    if kind == "touch":
        return ""
    said = message_sentence(event.get("message"), names)
    if said is not None:
        return said
    render = EVENTS.get(kind)  # an event logged before the referee gave messages
    if render is None:
        return _("The referee calls a %(call)s.") % {"call": str(kind or "").replace("_", " ")}
    return _capital(render(event, names))


def action_sentence(action: dict[str, Any], names: dict[str, dict[str, Any]]) -> str:
    """The sentence for a player's move; "" for a ``declare_shot`` (its event says it) and for
    a ``tick`` (the server's, with events of its own)."""
    kind = action.get("type")
    player = _name(action.get("side"), names)
    if kind == "flick":
        try:
            speed = round(float(action.get("speed_mm_s") or 0))
        except (TypeError, ValueError):
            speed = 0
        return _("%(player)s flicks %(piece)s at %(speed)s mm/s.") % {
            "player": player, "piece": _piece(action.get("piece")), "speed": speed}
    if kind == "place_goalkeeper":
        return _("%(player)s places the goalkeeper.") % {"player": player}
    if kind == "place":
        return _("%(player)s places %(piece)s.") % {"player": player, "piece": _piece(action.get("piece"))}
    if kind == "ready":
        return _("%(player)s is ready.") % {"player": player}
    return ""


def refusal_sentence(reason: str | None, message: dict[str, Any] | None = None,
                     names: dict[str, dict[str, Any]] | None = None) -> str:
    """The sentence for a move the referee refused: its ``message`` in words, or its ``reason``."""
    said = message_sentence(message, names or {})
    if said is None and reason:
        said = _capital(reason.rstrip(".")) + "."
    if said is None:
        return _("That move is not allowed.")
    return _("Not allowed. %(why)s") % {"why": said}


def may_not_play(barred: dict[str, dict[str, Any]], names: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The referee's ``may_not_play`` (button id -> message) for the board: for each button the
    sentence (``text``), its ``rule``, the rule's page (``rule_url``) and name (``rule_label``)."""
    out = {}
    for piece, message in barred.items():
        rule = (message.get("params") or {}).get("rule")
        text = message_sentence(message, names) or _("Button %(piece)s may not play this turn.") % {"piece": piece}
        out[piece] = {"text": text, "rule": rule, "rule_url": rule_url(rule), "rule_label": rule_label(rule)}
    return out


def rule_url(rule: str | None) -> str | None:
    anchor = rule_anchor(rule)
    return f"{reverse('play:rules')}#{anchor}" if anchor else None


def with_texts(row: dict[str, Any], names: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``row`` (``selectors.row_json``) with ``text`` (its move) and, on each event, ``text``
    and ``rule_url``."""
    events = []
    for event in row.get("events") or []:
        rule = event.get("rule")
        events.append({**event, "text": event_sentence(event, names), "rule_url": rule_url(rule),
                       "rule_label": rule_label(rule)})
    action = {**(row.get("action") or {})}
    action.setdefault("side", row.get("side"))
    return {**row, "events": events, "text": action_sentence(action, names)}


def official_sentence(official: dict[str, Any], names: dict[str, dict[str, Any]]) -> str:
    """"Official result: Rossi 2–1 Costa." from the match's ``official`` (``{"home", "away",
    "text"}``, as its owner states it), with what its owner adds to the score (a walkover, a
    disqualification, the shoot-out)."""
    params = {"home": _name("home", names), "away": _name("away", names),
              "home_goals": official.get("home"), "away_goals": official.get("away")}
    text = _("Official result: %(home)s %(home_goals)s–%(away_goals)s %(away)s") % params
    note = str(official.get("text") or "")
    score = f"{official.get('home')}-{official.get('away')}"
    if note.startswith(score):
        note = note[len(score):].strip(" ,")
    if note.startswith("(") and note.endswith(")"):
        note = note[1:-1]
    if note:
        text = _("%(result)s (%(note)s)") % {"result": text, "note": note}
    return text + "."


def hints(rule_set: str) -> dict[str, str]:
    """What a newcomer needs to know at the moment it applies (``static/js/board/hud.js``
    ``hintFor`` picks the key), for ``rule_set``."""
    one_touch = rule_set != "mbs"
    return {
        "turn": _("Your turn: one touch. Press on one of your buttons and pull back, like a slingshot; "
                  "let go to flick. The further you pull, the faster it goes."),
        "turn_mbs": _("Your turn: 30 seconds, and as many flicks as you keep the ball. Press on a button "
                      "and pull back, like a slingshot; let go to flick."),
        "kick_off": _("Your kick-off: two touches, by two different buttons. First, flick one of the two "
                      "buttons in the centre circle gently into the ball, forwards: the ball must stay "
                      "inside the circle. Then another button takes it out of the circle. No shot from "
                      "either touch."),
        "kick_off_second": _("Second touch of the kick-off: flick another button (not the one that took "
                             "the first touch) to take the ball out of the centre circle."),
        "kick_off_mbs": _("Your kick-off: flick a button into the ball (missing it gives your opponent a "
                          "free kick). You may declare a shot once the ball is out of the centre circle "
                          "and in your opponent's half."),
        "second_touch": _("Second touch of the set piece: another button plays now; the one that took "
                          "the first touch may not."),
        "set_piece": (_("Your set piece: you may switch to Place and put the taker next to the ball "
                        "(within 6 cm), then press Ready, or simply flick.") if one_touch else
                      _("Your set piece: switch to Place to put the taker by the ball and a second "
                        "button where it should receive it, then press Ready, or simply flick. At a "
                        "throw-in or corner kick, once a button is placed the flick waits for Ready.")),
        "set_piece_ready": _("Your buttons are placed: press Ready (the rules' “Preparado”), then "
                             "flick the taker."),
        "penalty": _("Your penalty kick: switch to Place and put your taker by the ball if you wish, "
                     "then press Ready (a flick waits for it). Your opponent then sets the goalkeeper, "
                     "and you flick: a penalty kick is a shot."),
        "penalty_keeper": _("A penalty kick against you: your goalkeeper stands on its goal line; drag it "
                            "along the line if you wish, then press Ready."),
        "penalty_kick": _("Your penalty kick: the goalkeeper is set. Flick now: a penalty kick is a shot."),
        "shot_possible": _("The ball is in your opponent's half: to score, press Declare shot before "
                           "you flick. A goal without a declared shot does not count."),
        "shoot": _("Your shot: the goalkeeper is set. Flick now."),
        "keeper": _("Your opponent has declared a shot: drag your goalkeeper within your goal area "
                    "(it lights up), then press Ready."),
        "placing": _("Place your buttons: switch to Place, drag them where the rules allow, then "
                     "press Ready."),
    }


def board_strings(rule_set: str = "one_touch") -> dict[str, Any]:
    """The words the board's scripts show, translated; ``{name}`` and the like are filled in
    by the script."""
    return {
        "hints": hints(rule_set),
        "hints_toggle": {"show": _("Show hints"), "hide": _("Hide hints")},
        "status": {
            "scheduled": _("Scheduled"), "checked_in": _("Checking in"), "live": _("Live"),
            "finished": _("Full time"), "adjudicated": _("Official result"), "walkover": _("Walkover"),
            "abandoned": _("Abandoned"), "cancelled": _("Cancelled"), "replay": _("Replay"),
        },
        "periods": {
            "first_half": _("1st half"), "second_half": _("2nd half"), "extra_time_first": _("Extra time, 1st"),
            "extra_time_second": _("Extra time, 2nd"), "shootout": _("Shoot-out"),
            "half_time": _("Half time"), "full_time": _("Full time"), "not_started": _("Not kicked off"),
        },
        "kinds": restart_kinds(),
        "turn": {
            "yours": _("Your turn"), "theirs": _("{name} to play"),
            "your_kind": _("Your {kind}"), "their_kind": _("{name}'s {kind}"),
            "your_ready_first": _("Your {kind}: press Ready, then flick"),
            "your_keeper": _("Shot declared: place your goalkeeper, then Ready"),
            "their_keeper": _("{name} places the goalkeeper"),
            "your_placing": _("Place your buttons, then Ready"), "their_placing": _("{name} is placing"),
            "your_arrangement_offensive": _("Goal kick: arrange your buttons in the half you attack (lit), "
                                            "{have} of {need} there, at least 6 cm from every opponent; then Ready"),
            "your_arrangement_defensive": _("Goal kick: arrange your buttons in your own half (lit), keeping "
                                            "{need} in the half you attack ({have} there), at least 6 cm from "
                                            "every opponent; then Ready"),
            "your_penalty_taker": _("Your penalty kick: place the taker if you wish, then Ready"),
            "their_penalty_taker": _("{name} prepares the penalty kick"),
            "your_penalty_keeper": _("Penalty kick against you: set your goalkeeper, then Ready"),
            "period_clock": pgettext("turn clock", "period {clock}"),
            "waiting": _("Waiting for check-in: {home} {home_mark}, {away} {away_mark}"),
            "walkover": _("Walkover: {name} did not check in"),
            "walkover_both": _("Neither side checked in"),
            "full_time_wait": _("Full time. The result becomes official in a moment…"),
            "annulled": _("The organisers annulled this match: it is not played on"),
        },
        "say": {
            "sending": _("{what}…"), "sent": _("{what}."),
            "flick": _("Flick of button {piece} at {speed} mm/s"),
            "keeper": _("Goalkeeper placed"), "place": _("Button {piece} placed"),
            "shot": _("Shot declared"), "ready": _("Ready"),
            "cancelled": _("Flick cancelled: pull back further from the button to flick."),
            "not_your_turn": _("It is not your turn."),
            "not_your_turn_now": _("Not your turn: {what}"),
            "stale": _("The match moved on before your move arrived."),
            "server": _("The server answered {code}."),
            "offline": _("Your move could not be sent; check your connection."),
            "replay_failed": _("The replay could not be loaded."),
            "may_not_play": _("Button {piece} may not play this turn."),
        },
        "conn": {"ok": _("● live"), "bad": _("● reconnecting…")},
        "replay": {"play": pgettext("a replay", "Play"), "pause": _("Pause"), "none": _("none")},
        "rule_link": _("The rule: {rule}"),
        "speed": _("{speed} mm/s"),
    }
