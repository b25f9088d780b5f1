"""A competition's round on its own page, ``/competitions/<slug>/rounds/<n>/``: the rest of the
season one click from the competition's page, each page the cost of one round. ``<n>`` numbers
the competition's rounds across its stages (``leagues.selectors.rounds``); ``?group=<name>``
keeps one group's fixtures; ``?page=`` pages on past ``ROUND_PAGE_SIZE`` fixtures. Anonymous
visitors get it from the cache, keyed as the competition's page (``leagues.pagecache``)."""
from __future__ import annotations

from urllib.parse import quote

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from leagues import pagecache
from leagues.models import Competition
from leagues.permissions import can_manage_competition
from leagues.selectors.rounds import (
    ROUND_PAGE_SIZE,
    competition_rounds,
    round_dates,
    round_fixtures_qs,
    round_groups,
)


def round_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """The round ``number`` (from 1) of the competition ``slug``; 404 when there is no such
    competition, round or group."""
    scope = pagecache.competition_scope(slug)
    if scope is None:
        raise Http404("no such competition")
    return pagecache.cached_page(request, name="round", scope=scope,
                                 build=lambda: _round_page(request, slug, number))


def _round_page(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    competition = get_object_or_404(Competition.objects.select_related("season"), slug=slug)
    rounds = competition_rounds(competition)
    if not 1 <= number <= len(rounds):
        raise Http404("no such round")
    entry = rounds[number - 1]
    groups = round_groups(entry.round)
    group = None
    if request.GET.get("group"):
        group = next((g for g in groups if g.name == request.GET["group"]), None)
        if group is None:
            raise Http404("no such group in this round")
    page = Paginator(round_fixtures_qs(entry.round, group), ROUND_PAGE_SIZE).get_page(request.GET.get("page"))
    fixtures = list(page.object_list)
    for fixture in fixtures:  # known: not joined into every row
        fixture.competition, fixture.round = competition, entry.round
    first, last = round_dates(entry.round, fixtures)
    double = competition.format == Competition.Format.DOUBLE_ELIMINATION
    return render(request, "leagues/round_detail.html", {
        "competition": competition, "entry": entry, "rounds": rounds,
        "previous": rounds[number - 2] if number > 1 else None,
        "following": rounds[number] if number < len(rounds) else None,
        "groups": groups if len(groups) > 1 else [], "group": group,
        "page": page, "pager_more": f"&group={quote(group.name)}" if group else "", "fixtures": fixtures, "first": first, "last": last,
        "multi_stage": len({r.round.stage_id for r in rounds}) > 1 and not double,
        "can_manage": can_manage_competition(request.user, competition),
    })
