"""Pages of online play (issues 8 and 17): the board, practice, the rules.

- ``/matches/<id>/``: the board; players play on it, anyone watches; a match that is over
  replays from its log on the same page;
- ``/matches/<id>/feed/?after=N``: one poll of the board (JSON): the match and the log rows
  after ``N``. Passed deadlines are applied first (a player's poll, or any poll that finds one
  passed); a poll of a computer-against-computer match only marks it watched: its moves are
  made by the clock's driver (``matches.services.spectating``), never by a request. The board
  is told of changes over ``/ws/matches/<id>/`` (``matches.consumers``) and polls less then;
- ``/matches/<id>/replay.json``: the whole log with the state after each row, for replays;
- ``/play/``: your matches, and a practice match against the computer;
- ``/rules/``: the two rulebooks by section; every call on the board links to its section.

Actions are not posted here: the board posts them to ``POST /api/matches/<id>/actions/``.
"""
from __future__ import annotations

import dataclasses

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from matches import names, selectors, sentences
from matches.models import Match
from matches.rulebooks import rulebooks
from matches.services import online
from matches.services import play as playing
from matches.services.deadlines import tick_if_due
from matches.services.spectating import mark_watched
from simulation.table import Table


def _match_qs():
    return Match.objects.select_related("home_user", "away_user")


def _refreshed(match: Match) -> Match:
    """``match`` after its passed deadlines are applied."""
    ticked = tick_if_due(match)
    return _match_qs().get(pk=match.pk) if ticked is not match else match


def board(request: HttpRequest, pk: int) -> HttpResponse:
    match = _refreshed(get_object_or_404(_match_qs(), pk=pk))
    if match.is_bot_match:
        mark_watched(match.pk)
    table = Table.from_params(match.rule_params)
    config = {
        "match": match.pk,
        "feedUrl": reverse("play:feed", args=[match.pk]),
        "liveUrl": f"{settings.LIVE_URL}/ws/matches/{match.pk}/",  # matches.routing, not the URLconf
        "replayUrl": reverse("play:replay", args=[match.pk]),
        "actionsUrl": reverse("matches_api:actions", args=[match.pk]),
        "yourSide": playing.side_of(match, request.user),
        "sides": selectors.side_names(match),
        "ruleSet": match.rule_set,
        "maxSpeed": float(playing.params_of(match).get("max_flick_speed_mm_s", 2500)),
        "table": {k: v for k, v in dataclasses.asdict(table).items()
                  if isinstance(v, (int, float, list, tuple))},
        "initial": selectors.board_feed(match, after=match.seq, user=request.user),
        # a practice match, and a player's first five matches, show the hints of "How to play"
        # when they apply (a toggle keeps the player's choice in the browser)
        "hints": match.kind == Match.Kind.PRACTICE
        or selectors.matches_played_before(request.user, match) < selectors.HINTS_FIRST_MATCHES,
    }
    return render(request, "matches/board.html", {
        "match": match, "config": config, "strings": sentences.board_strings(match.rule_set),
        "sides": config["sides"], "your_side": config["yourSide"],
        "max_speed": round(config["maxSpeed"]),
        "open_help": bool(config["yourSide"]) and (match.seq < 3 or config["hints"]),
        "compact_header": True,  # the site's header in one row: the table, the turn and the controls fit the screen
    })


@require_GET
def feed(request: HttpRequest, pk: int) -> HttpResponse:
    """One poll of the board. A spectator's poll is answered from the cache when the match has
    not moved (``selectors.feed_head``: one light query), with an ``ETag``: a client that sends
    it back gets a ``304`` and no body. A player's poll, a due deadline or a due bot move go the
    whole way (``_refreshed``)."""
    after = selectors.after_of(request.GET.get("after"))
    if after is None:  # the socket's rule (``selectors.after_of``)
        return JsonResponse({"error": "malformed", "detail": _("after is a whole number")}, status=400)
    frames = request.GET.get("frames", "1") not in ("0", "false")
    now = timezone.now()
    head = selectors.feed_head(pk, now=now)
    if head is None:
        raise Http404("no such match")
    if head.wants_mark(now):
        mark_watched(pk, now=now)
    if head.settled and not head.is_player(request.user):
        return _spectators_answer(request, head, after=after, frames=frames, now=now, build=True)
    match = _refreshed(get_object_or_404(_match_qs(), pk=pk))
    return JsonResponse(selectors.board_feed(match, after=after, user=request.user, frames=frames))


def spectators_feed(request: HttpRequest, pk: int) -> HttpResponse | None:
    """The cached answer to an anonymous spectator's poll (no session, no credentials: asked
    before the session and the user are loaded), or ``None``: then ``feed`` answers."""
    after = selectors.after_of(request.GET.get("after"))
    if after is None:
        return None  # ``feed`` answers 400
    now = timezone.now()
    head = selectors.feed_head(pk, now=now)
    if head is None or not head.settled:
        return None
    if head.wants_mark(now):
        mark_watched(pk, now=now)
    frames = request.GET.get("frames", "1") not in ("0", "false")
    return _spectators_answer(request, head, after=after, frames=frames, now=now, build=False)


def _spectators_answer(request: HttpRequest, head: selectors.FeedHead, *, after: int, frames: bool, now,
                       build: bool) -> HttpResponse | None:
    key = selectors.feed_key(head, after=after, frames=frames, language=get_language())
    etag = f'"{key.rsplit(":", 1)[1]}"'
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        body = selectors.spectators_body(head, after=after, frames=frames, now=now, build=build)
        if body is None:
            if build:
                raise Http404("no such match")
            return None
        response = HttpResponse(selectors.with_server_now(body, now), content_type="application/json")
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def replay(request: HttpRequest, pk: int) -> JsonResponse:
    match = get_object_or_404(Match, pk=pk)
    if match.status == Match.Status.LIVE:
        return JsonResponse({"error": "live", "detail": _("a live match is watched, not replayed")}, status=409)
    return JsonResponse(selectors.replay_log(match))


# --- practice --------------------------------------------------------------------------------------


def _recent_line(match: Match, user) -> dict:
    """One of the player's recent matches (not live) on ``/play/``: what it is, where it stands
    for them (their own check-in, not the match's), and where to go: the page the match was set
    up from (a fixture's, to check in there) or the board."""
    title = names.title_shown(match.title) or gettext("Practice against the computer")
    home, away = ((match.sides or {}).get(s, {}).get("name") for s in ("home", "away"))
    if home and away:
        title = gettext("%(home)s v %(away)s, %(title)s") % {"home": home, "away": away, "title": title}
    side = playing.side_of(match, user)
    board_url = reverse("play:board", args=[match.pk])
    score = (match.state or {}).get("score")
    if match.status in playing.OPEN_STATUSES:
        if side and getattr(match, f"{side}_checked_in_at"):
            where, go = gettext("You are checked in; waiting for your opponent"), gettext("Open")
        else:
            where, go = gettext("Not checked in yet"), gettext("Check in")
        return {"title": title, "where": where, "score": None, "go": go, "url": match.url or board_url}
    if match.official is not None:
        where, score = gettext("Official result"), {"home": match.official.get("home"), "away": match.official.get("away")}
    elif match.status in (Match.Status.FINISHED, Match.Status.ADJUDICATED):
        where = gettext("Full time, the result is being made official")
    else:
        where = match.get_status_display()
    return {"title": title, "where": where, "score": score if match.seq else None,
            "go": gettext("Replay") if match.seq else gettext("Open"), "url": board_url}


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
        messages.error(request, _("The practice match cannot start: %(reason)s.") % {"reason": exc.detail})
        return redirect("play:play")
    return redirect("play:board", pk=match.pk)


# --- the rules -------------------------------------------------------------------------------------


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/rules.html", {"rulebooks": rulebooks()})
