"""The federation's derived year: every player's rating history and every finished
competition's final placings, recomputed from all the official results, never incremented.

``ratings_recompute`` (what ``leagues.tasks.recompute_ratings`` calls) locks the one
``RatingRun`` row (a lock of its own, never taken with another: the competition locks of
``leagues.services.locks`` are not taken here), reads every competition's ``results_version``
*first* and the results *after*, so what it stores is at least as new as the versions it
records (``RatingBasis``: one (competition id, results_version, rated) per competition). Work
is pending (``ratings_stale``) when a competition's version or ``rated`` flag differs from its
pair, a pair's competition is gone, or the settings changed: the sweeper sends it again.

Rated games (``rated_games``): the official results of fixtures played between two entrants
who are players, in competitions that are ``rated``: played, or decided by a disqualification.
Walkovers (a double no-show included), byes and results struck by a withdrawal are not games.
A result decided by a shoot-out counts as a draw (the match was level). A game's rating period
is that of its fixture's date (else its round's, the competition's first date, or the day the
result became official).

Settings: ``RATING_PERIOD_MONTHS`` (default 1: a period a month) and ``RATING_TAU`` (Glicko-2's
system constant, default 0.5).
"""
from __future__ import annotations

import logging
from datetime import date, datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.utils import timezone

from leagues.models import (
    Competition,
    Entrant,
    Fixture,
    Outcome,
    Placing,
    PlayerRating,
    RatingBasis,
    RatingRun,
    Result,
    Stage,
)
from leagues.rules import bracket_layout, placings, ratings
from leagues.selectors import is_third_place
from leagues.services.bulk import objects_insert
from leagues.services.double_elimination import double_elimination_placings, is_double_elimination
from leagues.services.standings import competition_tables

logger = logging.getLogger(__name__)

def period_months() -> int:
    return int(getattr(settings, "RATING_PERIOD_MONTHS", 1))


def tau() -> float:
    return float(getattr(settings, "RATING_TAU", ratings.DEFAULT_TAU))


def settings_key() -> str:
    return f"period_months={period_months()};tau={tau()!r}"


def _game_day(row: dict) -> date:
    for key in ("fixture__date", "fixture__round__date", "fixture__competition__first_date"):
        if row[key] is not None:
            return row[key]
    return timezone.localdate(row["adjudicated_at"])


def rated_games(*, competition_ids: list[int] | None = None) -> list[ratings.Game]:
    """The rated games (see the module) of ``competition_ids`` (default: every rated
    competition), between players (ids), in rating periods of ``RATING_PERIOD_MONTHS``."""
    results = Result.objects.filter(
        fixture__status=Fixture.Status.PLAYED, outcome__in=[Outcome.PLAYED, Outcome.DISQUALIFICATION],
        fixture__home__player__isnull=False, fixture__away__player__isnull=False,
    )
    if competition_ids is None:
        results = results.filter(fixture__competition__rated=True)
    else:
        results = results.filter(fixture__competition_id__in=competition_ids)
    months = period_months()
    games = []
    for row in results.values("fixture__home__player_id", "fixture__away__player_id", "winner_side",
                              "home_shootout", "fixture__date", "fixture__round__date",
                              "fixture__competition__first_date", "adjudicated_at"):
        home, away = row["fixture__home__player_id"], row["fixture__away__player_id"]
        if home == away:
            continue
        if row["home_shootout"] is not None or not row["winner_side"]:
            score = 0.5
        else:
            score = 1.0 if row["winner_side"] == "home" else 0.0
        games.append(ratings.Game(period=ratings.period_of(_game_day(row), months=months), a=home, b=away, score=score))
    return games + team_rated_games(competition_ids=competition_ids, months=months)


def team_rated_games(*, competition_ids: list[int] | None, months: int) -> list[ratings.Game]:
    """The games of team ties (COMPETITIONS.md §10) between the two players the line-ups put at
    their table: each counts for its two players like a single game (played or decided by a
    disqualification; walkovers never)."""
    results = Result.objects.filter(
        fixture__tie__isnull=False, fixture__status=Fixture.Status.PLAYED,
        outcome__in=[Outcome.PLAYED, Outcome.DISQUALIFICATION],
        fixture__home_player__isnull=False, fixture__away_player__isnull=False,
    )
    if competition_ids is None:
        results = results.filter(fixture__competition__rated=True)
    else:
        results = results.filter(fixture__competition_id__in=competition_ids)
    games = []
    for row in results.values("fixture__home_player_id", "fixture__away_player_id", "winner_side", "home_shootout",
                              "fixture__date", "fixture__round__date", "fixture__competition__first_date",
                              "adjudicated_at"):
        home, away = row["fixture__home_player_id"], row["fixture__away_player_id"]
        if home == away:
            continue
        score = 0.5 if not row["winner_side"] else 1.0 if row["winner_side"] == "home" else 0.0
        games.append(ratings.Game(period=ratings.period_of(_game_day(row), months=months), a=home, b=away, score=score))
    return games


# --- Final placings -------------------------------------------------------------------------------


def competition_placings(*, competition: Competition) -> dict[int, placings.Band] | None:
    """Entrant id -> final band of a finished competition (every fixture decided, see
    ``leagues.rules.placings``); ``None`` while it is not finished. Withdrawn entrants are not placed."""
    # two small queries, not a season of fixture objects: is it finished, with a result?
    if competition.fixtures.filter(status__in=Fixture.OPEN).exists():
        return None
    if not competition.fixtures.filter(status__in=Fixture.RESULTED).exists():
        return None
    return placings_now(competition=competition)


def placings_now(*, competition: Competition) -> dict[int, placings.Band]:
    """Entrant id -> band, as the results stand (``leagues.rules.placings``): a league's (or a
    knockout-less competition's) from its standings; a knockout's from the last fixture each
    entrant played in (one still in holds the band its next fixture plays for). Withdrawn
    entrants are not placed."""
    withdrawn = set(competition.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))
    knockout = list(competition.fixtures.filter(round__stage__kind=Stage.Kind.KNOCKOUT)
                    .select_related("round__stage", "result"))
    if is_double_elimination(competition):
        return double_elimination_placings(competition=competition, fixtures=knockout, withdrawn=withdrawn)
    if not knockout:
        tables, _lots = competition_tables(competition=competition)
        rows = [(row.entrant, row.position, row.shared) for table in tables for row in table.ranked.rows
                if row.entrant not in withdrawn]
        return placings.table_places(rows)
    # what each fixture plays for: its label's band (a placement match; an imported one names it
    # as its round), else its round's rank among the main bracket's rounds, in playing order (an
    # imported cup may have a stage per round)
    played_for = {f.pk: bracket_layout.band_of_label(f.label) or bracket_layout.band_of_label(f.round.name)
                  or ((3, 4) if is_third_place(f) else None) for f in knockout}
    order = sorted({(f.round.stage.order, f.round.number) for f in knockout})
    main = sorted({(f.round.stage.order, f.round.number) for f in knockout if played_for[f.pk] is None})
    rounds = len(main)
    games = []
    for f in knockout:
        result = getattr(f, "result", None) if f.status in Fixture.RESULTED else None
        winner = result.winner_id if result is not None else None
        if f.status == Fixture.Status.BYE:
            winner = f.home_id or f.away_id
        key = (f.round.stage.order, f.round.number)
        band = played_for[f.pk] or (1, 2 ** (rounds - main.index(key)))
        games.append(placings.KnockoutGame(
            round=order.index(key) + 1, third_place=band == (3, 4), home=f.home_id, away=f.away_id,
            winner=winner, decided=f.status in Fixture.DONE or f.status == Fixture.Status.CANCELLED, band=band,
        ))
    in_bracket = {e for g in games for e in (g.home, g.away) if e is not None}
    others = [pk for pk in competition.entrants.order_by("pk").values_list("pk", flat=True) if pk not in in_bracket]
    return placings.knockout_places(games, rounds=rounds, withdrawn=withdrawn, others=others)


def finished_on(*, competition: Competition) -> date:
    """The competition's last day: its latest fixture date (else its first date, else the day
    its latest result became official)."""
    last = competition.fixtures.aggregate(day=Max("date"))["day"]
    if last is not None:
        return last
    if competition.first_date is not None:
        return competition.first_date
    at = Result.objects.filter(fixture__competition=competition).aggregate(at=Max("adjudicated_at"))["at"]
    return timezone.localdate(at) if at else timezone.localdate()


# --- The worker ---------------------------------------------------------------------------------


def _lock_run() -> RatingRun:
    run = RatingRun.objects.select_for_update().filter(pk=1).first()
    if run is None:
        try:
            with transaction.atomic():
                RatingRun.objects.create(pk=1)
        except IntegrityError:
            pass  # made by a worker at the same moment
        run = RatingRun.objects.select_for_update().get(pk=1)
    return run


def ratings_stale() -> bool:
    """True when the stored ratings and placings are not those of the current results: a
    competition's ``results_version`` or ``rated`` flag differs from the pair they were computed
    from (or it has none), a pair's competition is gone, or the settings changed."""
    run = RatingRun.objects.filter(pk=1).first()
    if run is None or run.computed_at is None:
        return Competition.objects.exists()
    if run.settings_key != settings_key():
        return True
    current = RatingBasis.objects.filter(competition_id=OuterRef("pk"), results_version=OuterRef("results_version"),
                                         rated=OuterRef("rated"))
    if Competition.objects.filter(~Exists(current)).exists():
        return True
    return RatingBasis.objects.exclude(competition_id__in=Competition.objects.values("pk")).exists()


def ratings_recompute(*, now: datetime | None = None, force: bool = False) -> bool:
    """Recomputes and stores every player's rating history (``PlayerRating``) and every finished
    competition's placings (``Placing``) from all the official results, and the pairs they come
    from (``RatingBasis``). Returns False (writing nothing) when they are current, unless
    ``force``."""
    now = now or timezone.now()
    with transaction.atomic():
        run = _lock_run()
        if not force and not ratings_stale():
            return False
        # the versions first, the results after: what is stored is at least as new as its pairs
        basis = list(Competition.objects.order_by("pk").values_list("pk", "results_version", "rated"))
        months = period_months()
        history = ratings.rate(rated_games(competition_ids=[pk for pk, _v, rated in basis if rated]), tau=tau())
        rows = [
            PlayerRating(player_id=player, period_start=ratings.period_start(p.period, months=months),
                         rating=p.rating.rating, deviation=p.rating.deviation, volatility=p.rating.volatility,
                         games=p.games, wins=p.wins, draws=p.draws, losses=p.losses)
            for player, periods in history.items() for p in periods
        ]
        PlayerRating.objects.all().delete()
        objects_insert(PlayerRating, rows)

        placing_rows = []
        players = dict(Entrant.objects.filter(player__isnull=False).values_list("pk", "player_id"))
        finished = (Competition.objects.filter(pk__in=[pk for pk, _v, _r in basis])
                    .annotate(fixture_count=Count("fixtures"),
                              open_count=Count("fixtures", filter=Q(fixtures__status__in=Fixture.OPEN)))
                    .filter(fixture_count__gt=0, open_count=0).order_by("pk"))
        for competition in finished:
            bands = competition_placings(competition=competition)
            if not bands:
                continue
            day = finished_on(competition=competition)
            placing_rows += [Placing(competition=competition, entrant_id=entrant, player_id=players.get(entrant),
                                 place=band.place, place_to=band.place_to, finished_on=day)
                         for entrant, band in bands.items()]
        Placing.objects.all().delete()
        objects_insert(Placing, placing_rows)  # a federation's seasons: tens of thousands of rows

        RatingBasis.objects.all().delete()
        RatingBasis.objects.bulk_create([RatingBasis(competition_id=pk, results_version=version, rated=rated)
                                         for pk, version, rated in basis])
        run.computed_at = now
        run.settings_key = settings_key()
        run.save(update_fields=["computed_at", "settings_key"])
    logger.info("ratings: %s players, %s placings", len(history), len(placing_rows))
    return True
