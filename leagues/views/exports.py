"""A competition's tables to take away (``leagues.downloads.tables``):
``/competitions/<slug>/export/<standings|fixtures|results>.<csv|xlsx>``, and the printable sheet
of a round, ``/competitions/<slug>/rounds/<round id>/print/`` (A4: ``static/css/print.css``)."""
from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from leagues.downloads import tables
from leagues.models import Competition, Round


@require_safe
def competition_export(request: HttpRequest, slug: str, what: str, fmt: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    if what not in tables.DATASETS or fmt not in tables.FORMATS:
        raise Http404
    content_type, extension = tables.FORMATS[fmt]
    response = HttpResponse(tables.export(competition, what, fmt), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{competition.slug}-{what}.{extension}"'
    return response


@require_safe
def round_print(request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    rnd = get_object_or_404(Round.objects.select_related("stage"), pk=round_id, stage__competition=competition)
    sheet = tables.round_sheet(competition, rnd)
    return render(request, "leagues/round_print.html", {
        "competition": competition, "sheet": sheet, "zone": competition.zone,
        "multi_stage": competition.stages.count() > 1,
    })
