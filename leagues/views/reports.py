"""What the players of a table fixture do from its page (COMPETITIONS.md §11), each a POST that
goes back to the fixture's page with what happened: report the result
(``/fixtures/<id>/report/``), confirm or dispute the opponent's (``.../confirm-result/``,
``.../dispute-result/``), propose a kick-off (``.../propose-kickoff/``), accept or decline the
opponent's (``.../accept-kickoff/``, ``.../decline-kickoff/``). The services decide who may."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from leagues.forms import PlayerReportForm, RescheduleForm
from leagues.models import Fixture
from leagues.rules.official import ResultError
from leagues.services.locks import Busy
from leagues.services.proposals import kickoff_accept, kickoff_decline, kickoff_propose
from leagues.services.reports import report_confirm, report_dispute, report_submit
from leagues.services.results import ResultConflict
from matches.services.play import PlayError


def _optional_id(request: HttpRequest, name: str) -> int | None:
    raw = request.POST.get(name, "")
    return int(raw) if raw.isdigit() and len(raw) < 18 else None


def _do(request: HttpRequest, pk: int, action, success: str) -> HttpResponse:
    fixture = get_object_or_404(Fixture.with_games.select_related("competition"), pk=pk)
    try:
        action(fixture)
    except ResultError as exc:
        messages.error(request, capfirst(exc.message))
    except (PlayError, ResultConflict, Busy) as exc:
        messages.error(request, capfirst(exc.detail))
    else:
        messages.success(request, success)
    return redirect("site:fixture", pk=pk)


def _refused(request: HttpRequest, pk: int, form) -> HttpResponse:
    """Back to the fixture's page with the form's errors said."""
    for errors in form.errors.values():
        messages.error(request, " ".join(errors))
    return redirect("site:fixture", pk=pk)


@login_required
@require_POST
def fixture_report(request: HttpRequest, pk: int) -> HttpResponse:
    form = PlayerReportForm(request.POST)
    if not form.is_valid():
        return _refused(request, pk, form)
    return _do(request, pk, lambda fixture: report_submit(fixture=fixture, user=request.user, **form.cleaned_data),
               _("Your result is reported; your opponent is asked to confirm it."))


@login_required
@require_POST
def fixture_confirm_result(request: HttpRequest, pk: int) -> HttpResponse:
    return _do(request, pk, lambda fixture: report_confirm(fixture=fixture, user=request.user,
                                                           report_id=_optional_id(request, "report")),
               _("You confirmed the result: it is official."))


@login_required
@require_POST
def fixture_dispute_result(request: HttpRequest, pk: int) -> HttpResponse:
    return _do(request, pk, lambda fixture: report_dispute(fixture=fixture, user=request.user,
                                                           reason=request.POST.get("reason", "")[:1000]),
               _("You disputed the result; the organisers decide."))


@login_required
@require_POST
def fixture_propose_kickoff(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = get_object_or_404(Fixture.objects.select_related("competition"), pk=pk)
    form = RescheduleForm(request.POST, zone=fixture.competition.zone)
    if not form.is_valid():
        return _refused(request, pk, form)
    return _do(request, pk, lambda fixture: kickoff_propose(
        fixture=fixture, user=request.user, kickoff_at=form.cleaned_data["kickoff"], reason=form.cleaned_data["reason"]),
        _("Your proposal is sent to your opponent."))


@login_required
@require_POST
def fixture_accept_kickoff(request: HttpRequest, pk: int) -> HttpResponse:
    return _do(request, pk, lambda fixture: kickoff_accept(fixture=fixture, user=request.user,
                                                           proposal_id=_optional_id(request, "proposal")),
               _("You accepted: the kick-off is moved."))


@login_required
@require_POST
def fixture_decline_kickoff(request: HttpRequest, pk: int) -> HttpResponse:
    return _do(request, pk, lambda fixture: kickoff_decline(fixture=fixture, user=request.user,
                                                            proposal_id=_optional_id(request, "proposal")),
               _("You declined: the fixture keeps its kick-off."))
