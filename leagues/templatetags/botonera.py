"""Small template helpers of the site: a fixture's score, its result, its winner."""
from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, pgettext

from leagues import names
from leagues.models import KickoffProposal, Result, ResultReport, Side
from leagues.selectors.referees import recorder_sentence

register = template.Library()


@register.filter
def shown(name) -> str:
    """A stage's, round's or fixture label's name in the reader's language (``leagues.names``)."""
    return names.shown(name)


@register.filter
def reason_shown(reason) -> str:
    """A fixture's change's or result's stored reason in the reader's language (``leagues.names``)."""
    return names.reason_shown(reason)


@register.filter
def tiebreak_shown(note: str) -> str:
    """A standings row's tie-break note in the reader's language (``leagues.names``)."""
    return names.tiebreak_shown(note)


@register.filter
def criterion_shown(criterion) -> str:
    """A tie-break criterion's name in the reader's language (``leagues.names``)."""
    return names.criterion_shown(criterion)


@register.filter
def result_of(fixture):
    """The fixture's official result, or None."""
    try:
        return fixture.result
    except fixture.__class__.result.RelatedObjectDoesNotExist:
        return None


@register.filter
def score(fixture) -> str:
    """'2–1', '1–1 (4–3 pens)', or '' before an official result; a team tie: its game points
    ('3–1', '2½–1½')."""
    result = result_of(fixture)
    if result is None:
        return ""
    if result.home_game_points is not None:
        return f"{halves(result.home_game_points)}–{halves(result.away_game_points)}"
    return f"{result.home_goals}–{result.away_goals}"


@register.filter
def halves(value) -> str:
    """Game points as a scoreline writes them: 3, 2½, ½."""
    if value is None:
        return ""
    whole, half = divmod(round(float(value) * 2), 2)
    return (str(whole) if whole or not half else "") + ("½" if half else "")


@register.filter
def score_note(fixture) -> str:
    result = result_of(fixture)
    if result is None:
        return ""
    notes = []
    if result.home_et_goals or result.away_et_goals:
        notes.append(pgettext("score note", "a.e.t."))
    if result.home_shootout is not None:
        notes.append(pgettext("score note", "%(home)s–%(away)s pens") % {
            "home": result.home_shootout, "away": result.away_shootout})
    if result.is_double_no_show:
        notes.append(pgettext("score note", "double no-show"))
    elif result.outcome == "walkover":
        notes.append(pgettext("score note", "walkover"))
    elif result.outcome == "disqualification":
        notes.append(pgettext("score note", "disqualification"))
    return ", ".join(notes)


@register.filter
def winner_side(fixture) -> str:
    result = result_of(fixture)
    return result.winner_side if result is not None else ""


@register.filter
def signed(value) -> str:
    try:
        value = int(value)
    except (TypeError, ValueError):
        return ""
    return f"+{value}" if value > 0 else str(value).replace("-", "−")


@register.filter
def who(entrant) -> str:
    """An entrant as a fan reads it: the player's name (the club is shown apart), else its name."""
    if entrant is None:
        return ""
    player = entrant.player if entrant.player_id else None
    return player.full_name if player is not None else entrant.name


@register.filter
def in_zone(value, zone) -> str:
    """An ISO 8601 time (as a fixture's history keeps it) in ``zone``: "Sat 5 Dec 2026, 18:00"."""
    if not value:
        return ""
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return date_format(timezone.localtime(when, zone), "D j M Y, H:i")


@register.filter
def change_recorder(change) -> str:
    """Who recorded a history entry's result in a capacity of their own ("recorded by referee Rui
    Costa at table 3"), or ``""`` (``leagues.selectors.referees.recorder_sentence``)."""
    return recorder_sentence(change)


@register.filter
def change_sides(change) -> tuple[str, str]:
    """What a fixture's history entry shows before and after the arrow: the result when there is
    one, with the pairing when the entrants changed (a result struck by a cascade reads
    "A v B 1-0 → A v C", never "1-0 → A v C"); the kick-offs of a reschedule are shown apart."""
    before, after = change.before or {}, change.after or {}
    if "report" in after:  # a player's report, or its dispute
        report = after["report"]
        return "—", gettext("reported by %(side)s: %(home)s-%(away)s (%(status)s)") % {
            "side": str(Side(report["by"]).label).lower(), "home": report["home_goals"], "away": report["away_goals"],
            "status": str(ResultReport.Status(report["status"]).label).lower()}
    if "proposal" in after:  # a kick-off proposed or answered
        proposal = after["proposal"]
        return "—", gettext("kick-off %(when)s UTC proposed by %(side)s (%(status)s)") % {
            "when": proposal["kickoff_at"][:16].replace("T", " "), "side": str(Side(proposal["by"]).label).lower(),
            "status": str(KickoffProposal.Status(proposal["status"]).label).lower()}
    if change.kind in ("called", "uncalled"):  # a hall table's call: the table before and after
        def at(state) -> str:
            return gettext("table %(table)s") % {"table": state["hall_table"]} if state.get("hall_table") else "—"

        return at(before), at(after)

    def pairing(state) -> str:
        if not (state.get("home") or state.get("away")):
            return "—"
        return f"{state.get('home') or '?'} v {state.get('away') or '?'}"

    moved = (before.get("home_id"), before.get("away_id")) != (after.get("home_id"), after.get("away_id"))

    def side(state) -> str:
        if state.get("refused"):
            return gettext("refused: %(why)s") % {"why": state["refused"]}
        result = _result_text(state.get("result"))
        if result:
            return f"{pairing(state)} {result}" if moved else result
        return pairing(state)

    return side(before), side(after)


_RESULT_FIELDS = ("home_goals", "away_goals", "home_shootout", "away_shootout", "outcome", "outcome_side")


def _result_text(state) -> str:
    """A result as a history entry keeps it (``leagues.services.history.result_state``), written
    in the reader's language from its fields ("2-0 (walkover)"); its stored ``text`` (in the
    language of whoever wrote it) only when the fields are missing."""
    if not state:
        return ""
    if all(state.get(key) is not None for key in ("home_goals", "away_goals", "outcome")):
        return str(Result(**{key: state.get(key) for key in _RESULT_FIELDS if state.get(key) is not None}))
    return state.get("text") or ""
