"""A fixture's page and what is done from it (COMPETITIONS.md §4, §8).

- ``/fixtures/<id>/``: who plays, when (the kick-off in the competition's time zone), where;
  the official result and how it was reached; for an online fixture, its check-in window and
  the check-in of each player, then its match; for its organisers, the result form, the
  decisions on an online match, a new kick-off, and the history of every change;
- ``/fixtures/<id>/check-in/`` (POST): a player checks in, inside the window;
- ``/manage/fixtures/<id>/result/``: record or correct a table result (a correction that
  changes a later round asks for a confirmation: the cascade);
- ``/manage/fixtures/<id>/decision/``, ``.../annul-match/``, ``.../reschedule/`` (POST);
- ``/manage/<slug>/reschedule-round/`` (POST): a whole round's kick-off.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from leagues import pagecache
from leagues.forms import (
    AnnulMatchForm,
    DecisionForm,
    PlayerReportForm,
    RescheduleForm,
    ResultForm,
    RoundRescheduleForm,
)
from leagues.models import Competition, Fixture, Result, Round
from leagues.permissions import can_manage_competition
from leagues.rules import bracket_layout
from leagues.rules.official import ResultError
from leagues.selectors import is_third_place
from leagues.selectors.calls import table_label
from leagues.selectors.referees import result_recorder
from leagues.selectors.reports import players_part
from leagues.services import online as fixture_online
from leagues.services.entrants import EntrantError
from leagues.services.kickoffs import fixture_reschedule, round_reschedule
from leagues.services.locks import Busy
from leagues.services.results import (
    ResultConflict,
    decision_record,
    match_annul_decision,
    result_record,
    result_token,
)
from leagues.services.teams import (
    is_captain,
    lineup_closed,
    lineup_deadline,
    lineup_set,
    lineup_visible,
    tie_needs_shootout,
)
from leagues.services.ties import games_of
from matches import selectors as match_selectors
from matches.models import Match
from matches.services.play import PlayError


def fixture_qs():
    """Fixtures with what their pages read (a team tie's games too: each has its page)."""
    return Fixture.with_games.select_related(
        "competition", "round__stage", "group", "home__club", "away__club", "home__player__user",
        "away__player__user", "match", "result", "home_player", "away_player", "tie",
    )


def result_of(fixture: Fixture) -> Result | None:
    try:
        return fixture.result
    except Fixture.result.RelatedObjectDoesNotExist:
        return None


def _managed_fixture(request: HttpRequest, pk: int) -> Fixture:
    fixture = get_object_or_404(fixture_qs(), pk=pk)
    if not can_manage_competition(request.user, fixture.competition):
        raise PermissionDenied(_("You do not organise this competition."))
    return fixture


def fixture_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The fixture's page; anonymous visitors get it from the cache (``leagues.pagecache``),
    keyed by its competition's versions and the fixture's and its match's state."""
    scope = pagecache.fixture_scope(pk)
    if scope is None:
        raise Http404("no such fixture")
    return pagecache.cached_page(request, name="fixture", scope=scope, build=lambda: _fixture_page(request, pk))


def _fixture_page(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = get_object_or_404(fixture_qs(), pk=pk)
    competition = fixture.competition
    now = timezone.now()
    match = fixture.match if fixture.match_id else None
    your_side = fixture_online.side_of_user(fixture, request.user)
    refusal = fixture_online.checkin_refusal(fixture, now) if fixture.is_online else None
    checked_in = {side: bool(match and getattr(match, f"{side}_checked_in_at")) for side in ("home", "away")}
    can_check_in = (your_side is not None and refusal is None
                    and (match is None or match.status in (Match.Status.SCHEDULED, Match.Status.CHECKED_IN))
                    and not checked_in[your_side])
    manage = can_manage_competition(request.user, competition)
    # cancelled with one entrant: nobody came from the other side (a bye, a withdrawal earlier)
    alone = fixture.status == Fixture.Status.CANCELLED and bool(fixture.home_id) != bool(fixture.away_id)
    band = bracket_layout.band_of_label(fixture.label)
    context = {
        "fixture": fixture, "competition": competition, "match": match, "result": result_of(fixture),
        "your_side": your_side, "can_check_in": can_check_in, "checkin_refusal": refusal,
        "checked_in": checked_in, "you_checked_in": bool(your_side and checked_in[your_side]),
        "computer_sides": match.computer_sides if match else [],
        "zone": competition.zone, "can_manage": manage, "hall_table": table_label(competition, fixture.hall_table),
        "zone_offset": int(timezone.localtime(fixture.kickoff_at, competition.zone).utcoffset().total_seconds() // 60)
        if fixture.kickoff_at else 0,
        "feed_url": reverse("play:feed", args=[match.pk]) if match else "",
        "goals": match_selectors.goals(match) if match and match.seq else [],
        "third_place_alone": (fixture.home or fixture.away) if alone and is_third_place(fixture) else None,
        "placed_alone": {"entrant": fixture.home or fixture.away, "place": band[0]}
        if alone and band is not None and not is_third_place(fixture) else None,
        "players": players_part(fixture=fixture, user=request.user, now=now),
        "result_recorder": result_recorder(fixture) if fixture.status in Fixture.RESULTED else "",
        "report_form": PlayerReportForm(),
        "propose_form": RescheduleForm(zone=competition.zone),
    }
    if competition.is_team:
        context.update(team_fixture_context(fixture, user=request.user, now=now))
    if manage:
        context.update({
            "history": list(fixture.changes.select_related("by").order_by("-at", "-pk")[:50]),
            "decision_form": DecisionForm(fixture=fixture),
            "annul_form": AnnulMatchForm(),
            "reschedule_form": RescheduleForm(zone=competition.zone, initial={"kickoff": fixture.kickoff_at}),
        })
    return render(request, "leagues/fixture.html", context)


def team_fixture_context(fixture: Fixture, *, user, now) -> dict:
    """A team tie's page: its tables side by side (each game's players, as far as the line-ups
    may be shown to ``user``, and its result), the line-ups' state and the deadline; a game's
    page: its tie and table."""
    if fixture.tie_id is not None:
        return {"tie": fixture.tie, "game_table": fixture.table, "is_game": True,
                "lineup_shown": {side: lineup_visible(fixture.tie, side, user=user, now=now)
                                 for side in ("home", "away")}}
    shown = {side: lineup_visible(fixture, side, user=user, now=now) for side in ("home", "away")}
    games = list(games_of(fixture).select_related("home_player", "away_player", "result", "match"))
    for game in games:
        game.shown_home = game.home_player if shown["home"] else None
        game.shown_away = game.away_player if shown["away"] else None
        game.official = result_of(game)
    return {
        "is_tie": True, "games": games, "lineup_deadline": lineup_deadline(fixture),
        "lineup_closed": lineup_closed(fixture, now=now),
        "lineups_public": bool(fixture.home_lineup_at and fixture.away_lineup_at) or lineup_closed(fixture, now=now),
        "lineup_forms": lineup_forms(fixture, games, user=user, now=now),
        "sides": [(side, fixture.entrant(side)) for side in ("home", "away") if fixture.entrant(side)],
        "lineups_shown": [side for side in ("home", "away") if shown[side]],
        "lineups_in": [side for side in ("home", "away") if getattr(fixture, f"{side}_lineup_at")],
        "needs_shootout": fixture.is_knockout and tie_needs_shootout(fixture),
        # a table played online follows its match by the spectators' socket (``static/js/tie.js``)
        "live_url": f"{settings.LIVE_URL}/",
    }


def lineup_forms(tie: Fixture, games: list[Fixture], *, user, now) -> list[dict]:
    """The line-up forms ``user`` may fill on the tie's page: a side's, for its captain (both for
    an organiser), before the deadline and any game's result: ``side``, ``entrant``, ``squad``
    (its players) and ``tables`` (table number, the player there now)."""
    if lineup_closed(tie, now=now) or any(g.status in Fixture.RESULTED for g in games):
        return []
    organiser = can_manage_competition(user, tie.competition)
    forms = []
    for side in ("home", "away"):
        entrant = tie.entrant(side)
        if entrant is None or not (organiser or is_captain(user, entrant)):
            continue
        squad = [member.player for member in entrant.squad.select_related("player").order_by(
            "player__last_name", "player__first_name")]
        forms.append({"side": side, "entrant": entrant, "squad": squad,
                      "tables": [(g.table, getattr(g, f"{side}_player_id")) for g in games]})
    return forms


@login_required
@require_POST
def fixture_lineup(request: HttpRequest, pk: int) -> HttpResponse:
    """A side's line-up from the tie page's form (``side``, ``table_1``..``table_N``: player ids,
    empty for an empty table at the end)."""
    tie = get_object_or_404(Fixture.objects, pk=pk)
    side = request.POST.get("side", "")
    players = []
    for table in range(1, tie.competition.tables_per_tie + 1):
        value = request.POST.get(f"table_{table}", "")
        if value.isdigit():
            players.append(int(value))
    try:
        lineup_set(tie=tie, side=side, players=players, by=request.user)
    except PermissionError as exc:
        raise PermissionDenied(str(exc)) from exc
    except (EntrantError, ResultConflict) as exc:
        messages.error(request, _("The line-up was not saved: %(reason)s.") % {
            "reason": exc.detail if isinstance(exc, ResultConflict) else str(exc)})
        return redirect("site:fixture", pk=pk)
    messages.success(request, _("The line-up is saved; the other team sees it once both are in."))
    return redirect("site:fixture", pk=pk)


@login_required
@require_POST
def fixture_check_in(request: HttpRequest, pk: int) -> HttpResponse:
    """Checks the signed-in player in; the first check-in sets the online match up. The match
    kicks off when both are in."""
    fixture = get_object_or_404(Fixture.with_games, pk=pk)  # a team tie's game too
    try:
        match = fixture_online.fixture_check_in(fixture=fixture, user=request.user)
    except PlayError as exc:
        messages.error(request, _("You cannot check in: %(reason)s.") % {"reason": exc.detail})
        return redirect("site:fixture", pk=pk)
    if match.status == Match.Status.LIVE:
        return redirect("play:board", pk=match.pk)
    messages.success(request, _("You are checked in. The match kicks off as soon as your opponent checks in."))
    return redirect("site:fixture", pk=pk)


def _refusal_message(exc: Exception) -> str:
    if isinstance(exc, ResultError):
        return capfirst(exc.message)
    return capfirst(exc.detail)


# the result form's values, by the stored result's field that holds each
RESULT_FORM_FIELDS = {
    "outcome": "outcome", "outcome_side": "outcome_side", "home_goals": "table_home_goals",
    "away_goals": "table_away_goals", "home_et_goals": "home_et_goals", "away_et_goals": "away_et_goals",
    "home_shootout": "home_shootout", "away_shootout": "away_shootout", "home_discipline": "home_discipline",
    "away_discipline": "away_discipline",
}


def _same_result(result: Result | None, data: dict) -> bool:
    """Whether the form sends back the result recorded already (a form saved untouched)."""
    if result is None:
        return False
    return all((data.get(name) or 0) == (getattr(result, stored) or 0) if name not in ("outcome", "outcome_side")
               else (data.get(name) or "") == (getattr(result, stored) or "")
               for name, stored in RESULT_FORM_FIELDS.items())


def _after_result(request: HttpRequest, fixture: Fixture) -> HttpResponse:
    """Where a saved result form goes: back to the tournament day page when it was opened from
    there (``?from=day``), else to the fixture's page."""
    if request.GET.get("from") == "day":
        return redirect("site:hall-day", slug=fixture.competition.slug)
    return redirect("site:fixture", pk=fixture.pk)


@login_required
def record_result(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = _managed_fixture(request, pk)
    result = result_of(fixture)
    initial = {}
    if result is not None:
        initial = {
            "outcome": result.outcome, "outcome_side": result.outcome_side,
            "home_goals": result.table_home_goals, "away_goals": result.table_away_goals,
            "home_et_goals": result.home_et_goals, "away_et_goals": result.away_et_goals,
            "home_shootout": result.home_shootout, "away_shootout": result.away_shootout,
            "home_discipline": result.home_discipline, "away_discipline": result.away_discipline,
        }
    initial.update(home_entrant=fixture.home_id, away_entrant=fixture.away_id,
                   previous=result_token(result))
    form = ResultForm(request.POST if request.method == "POST" else None, initial=initial)
    cascade_needed = None
    if request.method == "POST" and form.is_valid() and _same_result(result, form.cleaned_data):
        messages.info(request, _("The result is unchanged."))  # saved untouched: nothing recorded again
        return _after_result(request, fixture)
    if request.method == "POST" and form.is_valid():
        try:
            result_record(fixture=fixture, recorded_by=request.user, **form.cleaned_data)
        except ResultError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        except ResultConflict as exc:
            if exc.code in ("entrants_changed", "result_changed"):  # the form again, for the fixture as it is now
                messages.error(request, capfirst(exc.detail))
                return redirect("site:record-result", pk=fixture.pk)
            form.add_error(None, capfirst(exc.detail))
            if exc.code == "played_on":
                cascade_needed = exc
        except Busy as exc:
            form.add_error(None, capfirst(exc.detail))
        else:
            messages.success(request, _("The result of %(fixture)s is recorded.") % {"fixture": fixture})
            return _after_result(request, fixture)
    return render(request, "leagues/manage/result_form.html", {
        "form": form, "fixture": fixture, "competition": fixture.competition, "correction": result is not None,
        "cascade_needed": cascade_needed,
        "online_started": fixture.match_id is not None and fixture.match.is_started,
    })


def _post_decision(request: HttpRequest, pk: int, form_class, action, success: str) -> HttpResponse:
    fixture = _managed_fixture(request, pk)
    form = form_class(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
        return redirect("site:fixture", pk=pk)
    try:
        action(fixture, form.cleaned_data)
    except (ResultError, ResultConflict, PlayError, Busy) as exc:
        messages.error(request, _refusal_message(exc))
        if isinstance(exc, ResultConflict) and exc.code == "played_on":
            messages.info(request, _("To go ahead, tick “cascade” and send it again."))
    else:
        messages.success(request, success)
    return redirect("site:fixture", pk=pk)


@login_required
@require_POST
def fixture_decision(request: HttpRequest, pk: int) -> HttpResponse:
    return _post_decision(request, pk, DecisionForm, lambda fixture, data: decision_record(
        fixture=fixture, decided_by=request.user, cascade=bool(request.POST.get("cascade")),
        outcome=data["outcome"], outcome_side=data["outcome_side"], reason=data["reason"],
        expected_entrants=data["expected_entrants"],
    ), _("The decision is recorded; it is now the official result."))


@login_required
@require_POST
def fixture_annul_match(request: HttpRequest, pk: int) -> HttpResponse:
    return _post_decision(request, pk, AnnulMatchForm, lambda fixture, data: match_annul_decision(
        fixture=fixture, decided_by=request.user, cascade=bool(request.POST.get("cascade")), reason=data["reason"],
    ), _("The online match is annulled; the fixture is to be played again."))


@login_required
@require_POST
def fixture_reschedule_view(request: HttpRequest, pk: int) -> HttpResponse:
    fixture = _managed_fixture(request, pk)
    form = RescheduleForm(request.POST, zone=fixture.competition.zone, initial={"kickoff": fixture.kickoff_at})
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
        return redirect("site:fixture", pk=pk)
    if form.cleaned_data["kickoff"] == fixture.kickoff_at and fixture.status != Fixture.Status.CANCELLED:
        messages.info(request, _("The kick-off is unchanged."))
        return redirect("site:fixture", pk=pk)
    try:
        fixture_reschedule(fixture=fixture, kickoff_at=form.cleaned_data["kickoff"],
                           reason=form.cleaned_data["reason"], by=request.user)
    except (PlayError, Busy) as exc:
        messages.error(request, capfirst(exc.detail))
    else:
        messages.success(request, _("The kick-off is moved."))
    return redirect("site:fixture", pk=pk)


def round_reschedule_form(competition: Competition, data=None) -> RoundRescheduleForm:
    rounds = Round.objects.filter(stage__competition=competition).order_by("stage__order", "number")
    return RoundRescheduleForm(data, zone=competition.zone, rounds=rounds)


@login_required
@require_POST
def round_reschedule_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    if not can_manage_competition(request.user, competition):
        raise PermissionDenied(_("You do not organise this competition."))
    form = round_reschedule_form(competition, request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
    else:
        try:
            moved = round_reschedule(round=form.cleaned_data["round"], kickoff_at=form.cleaned_data["kickoff"],
                                     reason=form.cleaned_data["reason"], by=request.user)
        except (PlayError, Busy) as exc:
            messages.error(request, _("The round keeps its kick-off: %(reason)s.") % {"reason": exc.detail})
        else:
            messages.success(request, _("%(count)s fixture(s) of %(round)s moved.")
                             % {"count": len(moved), "round": form.cleaned_data["round"]})
    return redirect("site:manage-competition", slug=slug)
