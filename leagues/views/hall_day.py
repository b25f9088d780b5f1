"""The organisers' page of a tournament day in a hall (COMPETITIONS.md §12):
``/manage/<slug>/day/`` shows each table with what plays there now (and a button withdrawing
its call), the fixtures ready to be called (each with "Call to table [n]"), those waiting for a
player's rest, and the free tables. The calls are POSTed to ``/manage/fixtures/<id>/call/``
and ``/uncall/``, and ``/manage/<slug>/day/call-next/`` sends the next ready fixture to every
free table at once (``leagues.services.calls``); a refusal comes back as a message in the
reader's language, the page as it now stands.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from leagues.models import Competition, Fixture
from leagues.permissions import can_manage_competition
from leagues.rules.official import ResultError
from leagues.selectors.calls import hall_day, table_label
from leagues.services.calls import fixture_call, fixture_uncall, free_tables_fill
from leagues.services.locks import Busy
from leagues.services.results import ResultConflict


def _managed(request: HttpRequest, competition: Competition) -> Competition:
    if not can_manage_competition(request.user, competition):
        raise PermissionDenied(_("You do not organise this competition."))
    return competition


def pairing(fixture: Fixture) -> str:
    """"E1 v E4"; a team game: "Ana Silva (Lisbon) v Rui Costa (Porto)"."""
    if fixture.tie_id is not None and fixture.home_player_id and fixture.away_player_id:
        return _("%(home)s (%(home_team)s) v %(away)s (%(away_team)s)") % {
            "home": fixture.home_player.full_name, "home_team": fixture.home.name,
            "away": fixture.away_player.full_name, "away_team": fixture.away.name}
    return str(fixture)


@login_required
def hall_day_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _managed(request, get_object_or_404(Competition, slug=slug))
    now = timezone.now()
    day = hall_day(competition=competition, now=now)
    zone = competition.zone
    tables = [{"number": t.number, "label": t.label, "fixture": t.fixture,
               "pairing": pairing(t.fixture) if t.fixture else "",
               "called_at": timezone.localtime(t.fixture.called_at, zone) if t.fixture and t.fixture.called_at else None}
              for t in day.tables]
    return render(request, "leagues/manage/hall_day.html", {
        "competition": competition,
        "tables": tables,
        "free": [{"number": n, "label": table_label(competition, n)} for n in day.free],
        "ready": [{"fixture": f, "pairing": pairing(f)} for f in day.ready],
        "resting": [{"fixture": f, "pairing": pairing(f), "until": timezone.localtime(until, zone)}
                    for f, until in day.resting],
    })


@login_required
@require_POST
def free_tables_fill_view(request: HttpRequest, slug: str) -> HttpResponse:
    """"Call the next to every free table": the ready fixtures, in order, lowest table first."""
    competition = _managed(request, get_object_or_404(Competition, slug=slug))
    try:
        made = free_tables_fill(competition=competition, by=request.user)
    except Busy as exc:
        messages.error(request, capfirst(exc.detail))
    else:
        if made:
            messages.success(request, ngettext("%(count)d fixture is called.", "%(count)d fixtures are called.",
                                               len(made)) % {"count": len(made)})
        else:
            messages.info(request, _("Nothing to call: no table is free, or no fixture is ready."))
    return redirect("site:hall-day", slug=competition.slug)


def _back(fixture: Fixture):
    return redirect("site:hall-day", slug=fixture.competition.slug)


def _refused(request: HttpRequest, exc: Exception) -> None:
    if isinstance(exc, ResultError):
        messages.error(request, capfirst(exc.message))
    else:
        messages.error(request, capfirst(exc.detail))


@login_required
@require_POST
def fixture_call_view(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = get_object_or_404(Fixture.with_games.select_related("competition"), pk=pk)
    _managed(request, fixture.competition)
    try:
        table = int(request.POST.get("hall_table", ""))
    except ValueError:
        messages.error(request, _("Choose a table."))
        return _back(fixture)
    if fixture.hall_table is not None and fixture.hall_table != table:
        # The page's only call form is the ready list's: a fixture at a table by now was called
        # from another tab or by another organiser while this page was open. Its players were
        # sent to that table: the page does not move it behind their backs (the API still does).
        messages.error(request, _("%(fixture)s is at table %(table)s already: withdraw that call first to call "
                                  "it to another table.") % {
            "fixture": pairing(fixture), "table": table_label(fixture.competition, fixture.hall_table)})
        return _back(fixture)
    try:
        fixture = fixture_call(fixture=fixture, hall_table=table, by=request.user)
    except (ResultError, ResultConflict, Busy) as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("%(fixture)s is called to table %(table)s.") % {
            "fixture": pairing(fixture), "table": table_label(fixture.competition, table)})
    return _back(fixture)


@login_required
@require_POST
def fixture_uncall_view(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = get_object_or_404(Fixture.with_games.select_related("competition"), pk=pk)
    _managed(request, fixture.competition)
    table = fixture.hall_table
    try:
        fixture = fixture_uncall(fixture=fixture, by=request.user, reason=(request.POST.get("reason") or "")[:500])
    except (ResultConflict, Busy) as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("The call of %(fixture)s to table %(table)s is withdrawn.") % {
            "fixture": pairing(fixture), "table": table_label(fixture.competition, table)})
    return _back(fixture)
