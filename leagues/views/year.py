"""Pages of the federation's year: the ranking, the ratings, and what the player's page shows
of them (a rating with its deviation, its history and the rank history as SVG charts drawn
here: no script); sign-up on the competition's page and its organisers' tools."""
from __future__ import annotations

from datetime import date, timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.formats import date_format
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from leagues.charts import line_chart
from leagues.forms import RegistrationForm
from leagues.models import (
    Competition,
    Player,
    RankingScale,
    RankingTier,
    RatingRun,
    Registration,
    SignUp,
)
from leagues.permissions import can_manage_competition
from leagues.rules.placings import format_points, ordinal_band
from leagues.selectors.year import (
    current_ratings_now,
    federation_ranking,
    rank_histories,
    rank_history,
    rating_history,
    rating_now,
)
from leagues.services import registration
from leagues.services.locks import Busy


def month_label(day: date) -> str:
    """A chart's month, "Dec 2026", in the reader's language ("dic 2026", "dez 2026")."""
    return date_format(day, "M Y")


def player_year_context(player: Player) -> dict:
    """What the player's page shows of ratings and the ranking."""
    history = rating_history(player=player)
    rating = rating_now(history[-1]) if history else None
    rating_chart = line_chart(
        [(month_label(h.period_start), h.rating, h.rating - h.deviation, h.rating + h.deviation)
         for h in history], width=560, height=220)
    ranks = rank_history(player=player)
    worst = max((rank for _day, rank, _points in ranks if rank), default=1)
    rank_chart = line_chart([(month_label(day), rank, None, None) for day, rank, _points in ranks],
                            width=560, height=170, invert=True, ticks=2, y_range=(1, max(worst, 3)))
    ranked_now = ranks[-1] if ranks else None
    return {
        "rating": rating, "rating_history": history, "rating_chart": rating_chart,
        "rank_now": ranked_now[1] if ranked_now else None,
        "rank_points": format_points(ranked_now[2]) if ranked_now else "0",
        "rank_chart": rank_chart, "rank_history": ranks,
    }


def ranking_page(request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    at = parse_date(request.GET.get("at", "") or "") or today
    at = min(max(at, date(1900, 1, 1)), date(2200, 12, 31))
    rows = federation_ranking(at=at)
    scale = RankingScale.current()
    days, histories = rank_histories(at=at)
    last = max((rank for series in histories.values() for rank in series if rank), default=1)
    for ranked in rows:
        series = histories.get(ranked.player.pk, [None] * len(days))
        ranked.sparkline = line_chart([(month_label(day), rank, None, None) for day, rank in zip(days, series,
                                                                                                     strict=True)],
                                      width=150, height=36, invert=True, pad=(5, 5, 5, 5), ticks=1,
                                      y_range=(1, max(last, 2)))
        ranked.month_ago = series[-2] if len(series) > 1 else None
        ranked.points_text = format_points(ranked.row.points)
        ranked.finishes = [{"band": ordinal_band(f.band), "competition": f.competition_name,
                            "competition_id": f.competition, "points": format_points(points)}
                           for f, points in ranked.row.finishes]
    return render(request, "leagues/ranking.html", {
        "rows": rows, "at": at, "today": today, "scale": scale, "tiers": RankingTier.objects.all(),
        "run": RatingRun.objects.filter(pk=1).first(),
    })


def ratings_page(request: HttpRequest) -> HttpResponse:
    return render(request, "leagues/ratings.html", {
        "ratings": current_ratings_now()[:500], "run": RatingRun.objects.filter(pk=1).first(),
    })


# --- Sign-up ------------------------------------------------------------------------------------


def sign_up_context(request: HttpRequest, competition: Competition) -> dict:
    """What the competition's page shows of its registration: the dates and places, the
    requester's own sign-up, and the list."""
    registration = Registration.objects.filter(competition=competition).first()
    if registration is None:
        return {"registration": None}
    now = timezone.now()
    sign_ups = list(SignUp.objects.filter(competition=competition, status__in=SignUp.ACTIVE)
                    .select_related("player").order_by("created_at", "pk"))
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    mine = (SignUp.objects.filter(competition=competition, player=player).order_by("-created_at", "-pk").first()
            if player else None)
    return {
        "registration": registration, "registration_open": registration.is_open(now),
        "registration_upcoming": now < registration.opens_at,
        "sign_ups_holding": [s for s in sign_ups if s.status in SignUp.HOLDS_PLACE],
        "sign_ups_waiting": [s for s in sign_ups if s.status == SignUp.Status.WAITING],
        "places_free": max(registration.capacity - sum(1 for s in sign_ups if s.status in SignUp.HOLDS_PLACE), 0),
        "my_sign_up": mine, "my_player": player, "zone": competition.time_zone,
        "can_withdraw": mine is not None and mine.status in SignUp.ACTIVE and now < registration.closes_at,
    }


def manage_sign_up_context(competition: Competition) -> dict:
    """What the organiser's page shows of sign-up: the registration's form and the sign-ups to decide."""
    registration = Registration.objects.filter(competition=competition).first()
    now = timezone.now().replace(second=0, microsecond=0)
    form = RegistrationForm(instance=registration, zone=competition.zone, initial=None if registration else {
        "opens_at": now, "closes_at": now + timedelta(days=14), "capacity": 16})
    return {
        "registration": registration, "registration_form": form,
        "sign_ups": list(SignUp.objects.filter(competition=competition).select_related("player", "decided_by")
                         .order_by("status", "created_at", "pk")),
    }


def _managed(request: HttpRequest, slug: str) -> Competition:
    competition = get_object_or_404(Competition, slug=slug)
    if not can_manage_competition(request.user, competition):
        raise PermissionDenied("You do not organise this competition.")
    return competition


def _refused(request: HttpRequest, exc: Exception) -> None:
    messages.error(request, capfirst(getattr(exc, "detail", None) or str(exc)))


@login_required
@require_POST
def sign_up_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    player = getattr(request.user, "player", None)
    if player is None:
        messages.error(request, _("Only a registered player can sign up: your account has no player."))
    else:
        try:
            entry = registration.sign_up(competition=competition, player=player)
        except (registration.SignUpRefused, Busy) as exc:
            _refused(request, exc)
        else:
            messages.success(request, _("You are signed up: %(status)s.") % {"status": entry.get_status_display().lower()})
    return redirect(reverse("site:competition", args=[competition.slug]) + "#sign-up")


@login_required
@require_POST
def sign_up_withdraw_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    competition = get_object_or_404(Competition, slug=slug)
    entry = get_object_or_404(SignUp, pk=pk, competition=competition)
    if entry.player.user_id != request.user.pk and not can_manage_competition(request.user, competition):
        raise PermissionDenied("Not your sign-up.")
    try:
        registration.sign_up_withdraw(sign_up=entry, by=request.user)
    except (registration.SignUpRefused, Busy) as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("The sign-up is withdrawn."))
    return redirect(reverse("site:competition", args=[competition.slug]) + "#sign-up")


@login_required
@require_POST
def registration_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _managed(request, slug)
    form = RegistrationForm(request.POST, instance=Registration.objects.filter(competition=competition).first(),
                            zone=competition.zone)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
    else:
        try:
            registration.registration_open(competition=competition, **form.cleaned_data)
        except registration.RegistrationError as exc:
            messages.error(request, f"{exc.field}: {exc}")
        except (registration.SignUpRefused, Busy) as exc:
            _refused(request, exc)
        else:
            messages.success(request, _("Registration is saved."))
    return redirect(reverse("site:manage-competition", args=[competition.slug]) + "#sign-ups")


@login_required
@require_POST
def sign_up_decide_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    competition = _managed(request, slug)
    entry = get_object_or_404(SignUp, pk=pk, competition=competition)
    try:
        if request.POST.get("decision") == "confirm":
            registration.sign_up_confirm(sign_up=entry, by=request.user)
            messages.success(request, _("%(player)s is confirmed and entered.") % {"player": entry.player})
        else:
            registration.sign_up_refuse(sign_up=entry, reason=request.POST.get("reason", ""), by=request.user)
            messages.success(request, _("%(player)s is refused.") % {"player": entry.player})
    except registration.RegistrationError as exc:
        messages.error(request, capfirst(str(exc)))
    except (registration.SignUpRefused, Busy) as exc:
        _refused(request, exc)
    return redirect(reverse("site:manage-competition", args=[competition.slug]) + "#sign-ups")
