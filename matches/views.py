"""Pages of online play (issue 8): the board, the fixture's page with check-in, practice.

- ``/matches/<id>/``: the board; players play on it, anyone watches; a match that is over
  replays from its log on the same page;
- ``/matches/<id>/feed/?after=N``: one poll of the board (JSON): the match and the log rows
  after ``N``. Passed deadlines are applied first, and a computer-against-computer match makes
  its next move when it is due (``matches.services.spectating``);
- ``/matches/<id>/replay.json``: the whole log with the state after each row, for replays;
- ``/fixtures/<id>/``: a fixture: who plays, check-in for each player, the live match;
- ``/play/``: your matches, and a practice match against the computer;
- ``/rules/``: the two rulebooks by section; every call on the board links to its section.

Actions are not posted here: the board posts them to ``POST /api/matches/<id>/actions/``.
"""
from __future__ import annotations

import dataclasses

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from leagues.models import Fixture
from matches import selectors, sentences
from matches.models import Match
from matches.rulebooks import rulebooks
from matches.services import online
from matches.services.deadlines import tick_if_due
from matches.services.spectating import bot_match_due, bot_match_step
from simulation.table import Table


def _match_qs():
    return Match.objects.select_related(
        "fixture__competition", "fixture__round", "fixture__home__club", "fixture__away__club",
        "fixture__home__player", "fixture__away__player", "home_user", "away_user",
    )


def _refreshed(match: Match) -> Match:
    """``match`` after its passed deadlines (and a due move of a bot match) are applied."""
    if bot_match_due(match, timezone.now()):
        bot_match_step(match_id=match.pk)
        return _match_qs().get(pk=match.pk)
    ticked = tick_if_due(match)
    return _match_qs().get(pk=match.pk) if ticked is not match else match


def board(request: HttpRequest, pk: int) -> HttpResponse:
    match = _refreshed(get_object_or_404(_match_qs(), pk=pk))
    table = Table.from_params(match.rule_params)
    config = {
        "match": match.pk,
        "feedUrl": reverse("play:feed", args=[match.pk]),
        "replayUrl": reverse("play:replay", args=[match.pk]),
        "actionsUrl": reverse("matches_api:actions", args=[match.pk]),
        "yourSide": online.side_of(match, request.user),
        "sides": selectors.side_names(match),
        "ruleSet": match.rule_set,
        "maxSpeed": float(online.params_of(match).get("max_flick_speed_mm_s", 2500)),
        "table": {k: v for k, v in dataclasses.asdict(table).items()
                  if isinstance(v, (int, float, list, tuple))},
        "initial": selectors.board_feed(match, after=match.seq, user=request.user),
        # a practice match shows the hints of "How to play" when they apply (a toggle keeps the
        # player's choice in the browser)
        "hints": match.kind == Match.Kind.PRACTICE,
    }
    return render(request, "matches/board.html", {
        "match": match, "config": config, "strings": sentences.board_strings(match.rule_set),
        "sides": config["sides"], "your_side": config["yourSide"], "fixture": match.fixture,
        "max_speed": round(config["maxSpeed"]),
        "open_help": bool(config["yourSide"]) and (match.seq < 3 or config["hints"]),
    })


@require_GET
def feed(request: HttpRequest, pk: int) -> JsonResponse:
    match = get_object_or_404(_match_qs(), pk=pk)
    try:
        after = max(0, int(request.GET.get("after", 0)))
    except ValueError:
        return JsonResponse({"error": "malformed", "detail": "after is a whole number"}, status=400)
    match = _refreshed(match)
    frames = request.GET.get("frames", "1") not in ("0", "false")
    return JsonResponse(selectors.board_feed(match, after=after, user=request.user, frames=frames))


@require_GET
def replay(request: HttpRequest, pk: int) -> JsonResponse:
    match = get_object_or_404(Match, pk=pk)
    if match.status == Match.Status.LIVE:
        return JsonResponse({"error": "live", "detail": "a live match is watched, not replayed"}, status=409)
    return JsonResponse(selectors.replay_log(match))


# --- the fixture's page -------------------------------------------------------------------------


def _fixture_qs():
    return Fixture.objects.select_related(
        "competition", "round__stage", "group", "home__club", "away__club", "home__player__user",
        "away__player__user", "match__result",
    )


def _fixture_match(fixture: Fixture) -> Match | None:
    try:
        return fixture.match
    except Match.DoesNotExist:
        return None


def _side_in_fixture(fixture: Fixture, user) -> str | None:
    if not user.is_authenticated:
        return None
    for side in ("home", "away"):
        entrant = getattr(fixture, side)
        if entrant is not None and entrant.player_id and entrant.player.user_id == user.pk:
            return side
    return None


def fixture_detail(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = get_object_or_404(_fixture_qs(), pk=pk)
    match = _fixture_match(fixture)
    if match is not None and match.kind != Match.Kind.TABLE:
        match = _refreshed(match)
    your_side = _side_in_fixture(fixture, request.user)
    online_match = match if match is not None and match.kind != Match.Kind.TABLE else None
    can_check_in = (
        your_side is not None and fixture.status in Fixture.OPEN and fixture.home_id and fixture.away_id
        and (online_match is None or (online_match.status in online.OPEN_STATUSES
                                      and getattr(online_match, f"{your_side}_checked_in_at") is None))
        and (match is None or match.kind != Match.Kind.TABLE or match.status == Match.Status.SCHEDULED)
    )
    checked_in = {side: bool(online_match and getattr(online_match, f"{side}_checked_in_at"))
                  for side in ("home", "away")}
    return render(request, "matches/fixture.html", {
        "fixture": fixture, "competition": fixture.competition, "match": online_match,
        "your_side": your_side, "can_check_in": can_check_in, "checked_in": checked_in,
        "computer_sides": online_match.computer_sides if online_match else [],
        "sides": selectors.side_names(online_match) if online_match else None,
        "feed_url": reverse("play:feed", args=[online_match.pk]) if online_match else "",
    })


@login_required
@require_POST
def fixture_check_in(request: HttpRequest, pk: int) -> HttpResponse:
    """Checks the signed-in player in for their side of the fixture; the first check-in sets
    up the fixture's online match (scheduled now: the opponent has the competition's
    check-in grace to come). The match kicks off when both are in."""
    fixture = get_object_or_404(_fixture_qs(), pk=pk)
    if _side_in_fixture(fixture, request.user) is None:
        messages.error(request, "Only the two players of this fixture can check in.")
        return redirect("play:fixture", pk=pk)
    try:
        match = _fixture_match(fixture)
        if match is None or (match.kind == Match.Kind.TABLE and match.status == Match.Status.SCHEDULED
                             and not match.seq):
            match = online.match_create_online(fixture=fixture)
        match = online.check_in(match_id=match.pk, user=request.user)
    except online.PlayError as exc:
        messages.error(request, f"You cannot check in: {exc.detail}.")
        return redirect("play:fixture", pk=pk)
    if match.status == Match.Status.LIVE:
        return redirect("play:board", pk=match.pk)
    messages.success(request, "You are checked in. The match kicks off as soon as your opponent checks in.")
    return redirect("play:fixture", pk=pk)


# --- practice --------------------------------------------------------------------------------------


def _recent_line(match: Match, user) -> dict:
    """One of the player's recent matches (not live) on ``/play/``: what it is, where it stands
    for them (their own check-in, not the match's), and where to go."""
    if match.fixture_id:
        title = str(match.fixture)
    else:
        title = gettext("Practice against the computer")
    side = online.side_of(match, user)
    board_url = reverse("play:board", args=[match.pk])
    fixture_url = reverse("play:fixture", args=[match.fixture_id]) if match.fixture_id else board_url
    score = match.state.get("score") if match.state else None
    result = getattr(match, "result", None)
    if match.status in online.OPEN_STATUSES:
        if side and getattr(match, f"{side}_checked_in_at"):
            where, go, url = gettext("You are checked in; waiting for your opponent"), gettext("Open"), fixture_url
        else:
            where, go, url = gettext("Not checked in yet"), gettext("Check in"), fixture_url
        score = None
    elif match.status == Match.Status.ADJUDICATED and result is not None and result.home_goals is not None:
        where, go, url = gettext("Official result"), gettext("Replay"), board_url
        score = {"home": result.home_goals, "away": result.away_goals}
    elif match.status == Match.Status.FINISHED:
        where, go, url = gettext("Full time, the result is being made official"), gettext("Replay"), board_url
    else:
        where, go, url = match.get_status_display(), gettext("Open"), board_url if match.seq else fixture_url
    return {"match": match, "title": title, "where": where, "score": score, "go": go, "url": url}


@login_required
def play(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/play.html", {
        "live": list(selectors.live_matches(user=request.user)[:10]),
        "watch": [m for m in selectors.live_matches()[:12]
                  if m.home_user_id != request.user.pk and m.away_user_id != request.user.pk],
        "recent": [_recent_line(m, request.user) for m in selectors.recent_matches_of(request.user)
                   if m.status != Match.Status.LIVE],  # those are listed above
        "rule_sets": Match.RuleSet.choices,
    })


@login_required
@require_POST
def practice_start(request: HttpRequest) -> HttpResponse:
    try:
        minutes = int(request.POST.get("half_minutes", 5))
    except ValueError:
        minutes = 5
    try:
        match = online.practice_create(
            user=request.user, rule_set=request.POST.get("rule_set", "one_touch"),
            side=request.POST.get("side", "home"), rule_params={"half_minutes": max(1, min(minutes, 25))},
        )
    except online.PlayError as exc:
        messages.error(request, f"The practice match cannot start: {exc.detail}.")
        return redirect("play:play")
    return redirect("play:board", pk=match.pk)


# --- the rules -------------------------------------------------------------------------------------


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/rules.html", {"rulebooks": rulebooks()})
