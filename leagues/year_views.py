"""Pages of the federation's year: the ranking, the ratings, and what the player's page shows
of them (a rating with its deviation, its history and the rank history as SVG charts drawn
here: no script)."""
from __future__ import annotations

from datetime import date

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_date

from leagues.charts import line_chart
from leagues.models import Player, RankingScale, RankingTier, RatingRun
from leagues.placing import format_points, ordinal_band
from leagues.rankings import current_ratings, federation_ranking, rank_history, rating_history


def player_year_context(player: Player) -> dict:
    """What the player's page shows of ratings and the ranking."""
    history = rating_history(player=player)
    rating = history[-1] if history else None
    rating_chart = line_chart(
        [(h.period_start.strftime("%b %Y"), h.rating, h.rating - h.deviation, h.rating + h.deviation)
         for h in history], height=200)
    ranks = rank_history(player=player)
    rank_chart = line_chart([(day.strftime("%b %Y"), rank, None, None) for day, rank, _points in ranks],
                            height=160, invert=True, ticks=2)
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
    for ranked in rows:
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
        "ratings": list(current_ratings()[:500]), "run": RatingRun.objects.filter(pk=1).first(),
    })
