"""Reads of the federation's year: ratings and the federation ranking (keyword-only, no writes).

The ratings and placings are stored by the worker (``leagues.services.ratings``); the ranking is
the pure ``leagues.rules.placings.rank`` over the stored placings, the scale and the tiers as they
are now, on any day (so a change of the scale or a tier shows at once).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from leagues.models import Placing, Player, PlayerRating, RankingScale
from leagues.rules import placings, ratings


def rating_of(*, player: Player | int) -> PlayerRating | None:
    """The player's latest rating (``None``: never rated)."""
    return PlayerRating.objects.filter(player=player).order_by("-period_start").first()


def rating_history(*, player: Player | int) -> list[PlayerRating]:
    """The player's rating at the end of each period, earliest first."""
    return list(PlayerRating.objects.filter(player=player).order_by("period_start"))


def provisional_threshold() -> float:
    return float(getattr(settings, "RATING_PROVISIONAL_RD", ratings.PROVISIONAL_DEVIATION))


def rating_now(row: PlayerRating, *, today: date | None = None) -> PlayerRating:
    """``row`` (a player's latest stored rating) as it stands in the current rating period: its
    deviation widened by Glicko-2's step 6 for every period without games since (capped at 350),
    ``period_start`` the current period's first day, and no games unless ``row`` is of the current
    period. An unsaved ``PlayerRating`` (never stored: derived on reading)."""
    today = today or timezone.localdate()
    months = int(getattr(settings, "RATING_PERIOD_MONTHS", 1))
    current = ratings.period_of(today, months=months)
    last = ratings.period_of(row.period_start, months=months)
    if current <= last:
        return row
    widened = ratings.aged(ratings.Rating(row.rating, row.deviation, row.volatility), current - last)
    now = PlayerRating(player_id=row.player_id, period_start=ratings.period_start(current, months=months),
                       rating=widened.rating, deviation=widened.deviation, volatility=widened.volatility,
                       games=0, wins=0, draws=0, losses=0)
    if "player" in row._state.fields_cache:
        now.player = row.player
    return now


def is_provisional(row: PlayerRating) -> bool:
    """Whether ``row``'s deviation is above ``RATING_PROVISIONAL_RD`` (default 110)."""
    return ratings.is_provisional(row.deviation, threshold=provisional_threshold())


def current_ratings_now(*, today: date | None = None, players=None) -> list[PlayerRating]:
    """Each rated player's current rating (``rating_now``), highest first (then surest, then name)."""
    rows = current_ratings()
    if players is not None:
        rows = rows.filter(player__in=players)
    aged = [rating_now(row, today=today) for row in rows]
    return sorted(aged, key=lambda r: (-r.rating, r.deviation, r.player.last_name, r.player.first_name, r.player_id))


def current_ratings() -> QuerySet[PlayerRating]:
    """Each rated player's latest stored rating, highest first (then surest, then name)."""
    latest = PlayerRating.objects.filter(player=OuterRef("player")).order_by("-period_start").values("pk")[:1]
    return (PlayerRating.objects.filter(pk=Subquery(latest)).select_related("player")
            .order_by("-rating", "deviation", "player__last_name", "player__first_name"))


def scale_now() -> tuple[placings.Scale, int]:
    """The ranking's scale and window (months), as stored (or the defaults)."""
    stored = RankingScale.current()
    return placings.Scale(first=stored.first, second=stored.second, third_fourth=stored.third_fourth,
                         fifth_eighth=stored.fifth_eighth, ninth_sixteenth=stored.ninth_sixteenth,
                         other=stored.other), stored.window_months


def finishes() -> list[placings.Finish]:
    """Every stored placing of a player, with its competition's name and tier factor."""
    rows = Placing.objects.filter(player__isnull=False).select_related("competition__ranking_tier")
    return [placings.Finish(
        player=p.player_id, competition=p.competition_id, competition_name=p.competition.name,
        band=placings.Band(p.place, p.place_to), finished_on=p.finished_on,
        factor=p.competition.ranking_tier.factor if p.competition.ranking_tier_id else Decimal(1),
    ) for p in rows]


@dataclass
class RankedPlayer:
    row: placings.RankingRow
    player: Player

    @property
    def rank(self) -> int:
        return self.row.rank


def federation_ranking(*, at: date | None = None) -> list[RankedPlayer]:
    """The federation ranking on ``at`` (default today): rows with their player and explanation."""
    at = at or timezone.localdate()
    scale, window = scale_now()
    rows = placings.rank(finishes(), at=at, scale=scale, window_months=window)
    players = Player.objects.in_bulk([r.player for r in rows])
    return [RankedPlayer(row=r, player=players[r.player]) for r in rows if r.player in players]


def month_ends(at: date, months: int) -> list[date]:
    """The last day of each of the ``months`` months before ``at``'s month, then ``at``."""
    days = []
    for back in range(months - 1, -1, -1):
        year, month = divmod(at.year * 12 + at.month - 1 - back, 12)
        days.append(date(year, month + 1, 1) - timedelta(days=1))  # the day before that month's first
    return [*days, at]


def rank_history(*, player: Player | int, at: date | None = None, months: int = 12) -> list[tuple[date, int | None, Decimal]]:
    """The player's (day, rank or ``None`` when unranked, points) at the end of each of the last
    ``months`` months and on ``at``."""
    at = at or timezone.localdate()
    player_id = player.pk if isinstance(player, Player) else player
    scale, window = scale_now()
    all_finishes = finishes()
    out = []
    for day in month_ends(at, months):
        row = next((r for r in placings.rank(all_finishes, at=day, scale=scale, window_months=window)
                    if r.player == player_id), None)
        out.append((day, row.rank if row else None, row.points if row else Decimal(0)))
    return out


def rank_histories(*, at: date | None = None, months: int = 12) -> tuple[list[date], dict[int, list[int | None]]]:
    """Every ranked player's rank at the end of each of the last ``months`` months and on ``at``:
    (the days, player id -> ranks, ``None`` where unranked)."""
    at = at or timezone.localdate()
    scale, window = scale_now()
    all_finishes = finishes()
    days = month_ends(at, months)
    ranks: dict[int, list[int | None]] = {}
    for index, day in enumerate(days):
        for row in placings.rank(all_finishes, at=day, scale=scale, window_months=window):
            ranks.setdefault(row.player, [None] * len(days))[index] = row.rank
    return days, ranks
