"""A fixture's row in a list of matches in Python (``{% match_row fixture %}``, what
``leagues/_match.html`` draws): the same HTML a template would give, built without the template
engine's per-variable lookups, since a knockout of 256 with placement matches lists a thousand
fixtures on its page (the page's budget is 0.3 s cold, ``tests/bench/bracketbench.py``).

``show_meta``: the competition, round, group and kick-off under the row (lists across
competitions); ``record_link``: the organiser's "Record result" / "Correct result" button."""
from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from leagues.selectors.calls import table_label
from leagues.templatetags.botonera import halves, result_of, score_note, shown, who
from leagues.templatetags.kickoff import kickoff

register = template.Library()

_MARK = 987654321  # an id no row has: reversed once per call, then replaced by each row's


class _Urls:
    """``reverse`` once per name and list (the script prefix is the request's), then the id put in."""

    def __init__(self):
        self._made: dict[str, str] = {}

    def __call__(self, name: str, key) -> str:
        if name not in self._made:
            self._made[name] = reverse(name, args=[_MARK])
        return self._made[name].replace(str(_MARK), str(key))


def _side(fixture, side: str, won: str, urls) -> SafeString:
    entrant = getattr(fixture, side)
    classes = f"side {side}" + (" won" if won == side else "") + (" withdrawn" if entrant and entrant.withdrawn else "")
    if entrant:
        if entrant.player_id:
            body = format_html('<a href="{}">{}</a>', urls("site:player", entrant.player_id), who(entrant))
        else:
            body = format_html("{}", entrant.name)
        if entrant.club and entrant.club.name != entrant.name:  # a team named after its club: once
            body += format_html('<span class="club">{}</span>', entrant.club.name)
    elif side == "away" and fixture.status == "bye":
        body = mark_safe('<span class="muted">—</span>')
    elif fixture.status == "cancelled":
        body = format_html('<span class="muted">{}</span>', _("nobody"))
    else:
        body = format_html('<span class="muted">{}</span>', _("To be decided"))
    return format_html('  <span class="{}">\n    {}\n  </span>\n', classes, body)


def _score(fixture, result, note: str) -> SafeString:
    if result is not None and result.home_game_points is not None:  # a team tie: its game points, as its page
        return format_html('<span class="score" title="{}">{}–{}</span>', note, halves(result.home_game_points),
                           halves(result.away_game_points))
    if result is not None:
        return format_html('<span class="score" title="{}">{}–{}</span>', note, result.home_goals, result.away_goals)
    if fixture.status == "bye":
        return format_html('<span class="score pending">{}</span>', _("bye"))
    if fixture.status == "postponed":
        return format_html('<span class="score pending" title="{}">{}</span>', _("Postponed"),
                           pgettext("postponed, in a score's place", "PP"))
    if fixture.status in ("cancelled", "annulled"):
        return format_html('<span class="score pending">{}</span>', fixture.get_status_display())
    if fixture.kickoff_at:
        when = kickoff(fixture, "H:i", short=True)
    elif fixture.date:
        when = date_format(fixture.date, "j M")
    else:
        when = "v"
    return format_html('<span class="score pending">{}</span>', when)


def _called(fixture) -> SafeString:
    """"Table 5 now", for an open fixture called to a hall table ("" otherwise)."""
    if fixture.hall_table is None or fixture.status not in ("scheduled", "postponed"):
        return mark_safe("")
    return format_html('<b class="fixture-called">{}</b>', _("Table %(table)s now") % {
        "table": table_label(fixture.competition, fixture.hall_table)})


def _meta(fixture, note: str, show_meta: bool, urls) -> SafeString:
    called = _called(fixture)
    if called:
        note = format_html("{} · {}", called, note) if note else called
    if show_meta:
        parts = [format_html('<a href="{}">{}</a> · {}', reverse("site:competition", args=[fixture.competition.slug]),
                             fixture.competition.name, shown(fixture.round))]
        if fixture.group:
            parts.append(format_html(" · {}", _("Group %(name)s") % {"name": fixture.group.name}))
        if fixture.date or fixture.kickoff_at:
            parts.append(format_html(" · {}", kickoff(fixture)))
        if note:
            parts.append(format_html(" · {}", note))
        return format_html('  <span class="match-meta">{}</span>\n', mark_safe("".join(parts)))
    scheduled = fixture.kickoff_at and fixture.status == "scheduled"
    if not (note or fixture.label or scheduled):
        return mark_safe("")
    parts = [format_html("{}", shown(fixture.label))] if fixture.label else []
    if note:
        parts.append(format_html("{}{}", " · " if fixture.label else "", note))
    elif scheduled:
        parts.append(format_html("{}{} {}", " · " if fixture.label else "", _("Kick-off"), kickoff(fixture)))
    return format_html('  <span class="match-meta">{}</span>\n', mark_safe("".join(parts)))


def _link(fixture, urls) -> SafeString:
    if not (fixture.home_id and fixture.away_id and fixture.status != "bye"):
        return mark_safe("")
    match = fixture.match
    if match is not None and match.status == "live":
        what = format_html('<span class="badge live">{}</span>', _("Live"))
    elif fixture.is_online and fixture.status in ("scheduled", "postponed"):
        what = _("Play online")
    else:
        what = _("Match")
    return format_html('  <span class="action"><a class="small fixture-link" href="{}">{}</a></span>\n',
                       urls("site:fixture", fixture.pk), what)


@register.simple_tag(takes_context=True)
def match_row(context, fixture, show_meta=False, record_link=False) -> SafeString:
    """The ``<li class="match">`` of ``fixture``: both sides (the winner marked, the withdrawn
    struck), the score or the status or the kick-off, the note, the link to the fixture's page."""
    urls = context.render_context.setdefault(_Urls, _Urls())
    result = result_of(fixture)
    won = result.winner_side if result is not None else ""
    note = score_note(fixture)
    parts = ['<li class="match">\n', _side(fixture, "home", won, urls), "  ", _score(fixture, result, note), "\n",
             _side(fixture, "away", won, urls), _meta(fixture, note, show_meta, urls), _link(fixture, urls)]
    if record_link:
        parts.append(format_html('  <span class="action"><a class="btn small secondary" href="{}">{}</a></span>\n',
                                 urls("site:record-result", fixture.pk),
                                 _("Correct result") if result is not None else _("Record result")))
    parts.append("</li>")
    return mark_safe("".join(parts))  # every part above is escaped by format_html
