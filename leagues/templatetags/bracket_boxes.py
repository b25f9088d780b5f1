"""A bracket's match box in Python (``{% bracket_box fixture %}``): the same HTML as a template
would give, built once per fixture without the template engine's per-variable lookups, since a
bracket of 256 with placement matches draws a thousand of them (the page's budget is 0.3 s cold,
``tests/bench/bracketbench.py``)."""
from __future__ import annotations

from django import template
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from leagues.templatetags.botonera import result_of, score_note, shown, who

register = template.Library()

_PLAIN_LABELS = ("Final", "Third-place match")


def _goals(goals, shootout) -> str:
    return f"{goals} ({shootout})" if shootout is not None else f"{goals}"


def _side(fixture, side: str, result, won: str, *, away_bye: bool) -> str:
    entrant = getattr(fixture, side)
    classes = "row" + (" won" if won == side else "") + ("" if entrant else " tbd")
    if entrant:
        name = who(entrant)
    elif away_bye and fixture.status == "bye":
        name = _("bye")
    elif fixture.status == "cancelled":
        name = _("nobody")
    else:
        name = _("To be decided")
    goals = _goals(getattr(result, f"{side}_goals"), getattr(result, f"{side}_shootout")) if result else ""
    title = format_html(' title="{}"', entrant.name if entrant else "") if side == "home" else ""
    return format_html('  <div class="{}">\n    <span class="who"{}>{}</span>\n    <span class="g">{}</span>\n  </div>\n',
                       classes, title, name, goals)


@register.simple_tag
def bracket_box(fixture, under_heading: bool = False) -> str:
    """One fixture's box in a bracket: both sides (the winner marked), the goals (a shoot-out's
    in brackets), the label of a slot still empty, and a note (a.e.t., walkover, cancelled, or the
    date of a fixture to play)."""
    result = result_of(fixture)
    won = result.winner_side if result is not None else ""
    label = fixture.label
    parts = [format_html('<div class="bm{}">\n', " final" if label == "Final" else "")]
    if label and label not in _PLAIN_LABELS and not fixture.home and not under_heading:
        parts.append(format_html('  <div class="label">{}</div>\n', shown(label)))
    parts.append(_side(fixture, "home", result, won, away_bye=False))
    parts.append(_side(fixture, "away", result, won, away_bye=True))
    note = score_note(fixture)
    if note:
        parts.append(format_html('  <div class="note">{}</div>\n', note))
    elif fixture.status == "cancelled":
        parts.append(format_html('  <div class="note">{}</div>\n', _("Cancelled")))
    elif not result and fixture.date and fixture.home and fixture.away:
        parts.append(format_html('  <div class="note">{}</div>\n', date_format(fixture.date, "D j M")))
    parts.append("</div>")
    return mark_safe("".join(parts))  # every part above is escaped by format_html
