"""Ratings (issue 19): Glicko-2 from every rated official result, recomputed, never incremented."""
from __future__ import annotations

import math
import random
from datetime import date, timedelta

import pytest
from django.utils import timezone

from leagues.models import (
    ClubMembership,
    Competition,
    Entrant,
    Fixture,
    Player,
    PlayerRating,
    RatingBasis,
    Result,
)
from leagues.rules import ratings as rating
from leagues.selectors.year import current_ratings, rating_of
from leagues.services.demo import demo_load
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.ratings import rated_games, ratings_recompute, ratings_stale
from leagues.services.results import result_record
from tests.leagues.factories import ClubFactory, PlayerFactory, UserFactory

# --- The arithmetic -----------------------------------------------------------------------------


def test_glickmans_worked_example():
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to
    1550/100 and 1700/300 -> 1464.06 / 151.52 / 0.05999 (the paper rounds its intermediate
    values: exactly, 1464.0507)."""
    new = rating.glicko2_update(
        rating.Rating(1500, 200, 0.06),
        [(rating.Rating(1400, 30), 1), (rating.Rating(1550, 100), 0), (rating.Rating(1700, 300), 0)],
        tau=0.5,
    )
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def _paper_volatility(r, rd, vol, opponents, tau):
    """Step 5 of the paper, written out (Illinois algorithm), for the check below."""
    scale = 173.7178
    mu, phi = (r - 1500) / scale, rd / scale
    g = [1 / math.sqrt(1 + 3 * (o_rd / scale) ** 2 / math.pi ** 2) for _o, o_rd, _s in opponents]
    e = [1 / (1 + math.exp(-gj * (mu - (o - 1500) / scale))) for gj, (o, _rd, _s) in zip(g, opponents, strict=True)]
    v = 1 / sum(gj ** 2 * ej * (1 - ej) for gj, ej in zip(g, e, strict=True))
    delta = v * sum(gj * (s - ej) for gj, ej, (_o, _rd, s) in zip(g, e, opponents, strict=True))
    a = math.log(vol ** 2)

    def f(x):
        return math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x)) / (2 * (phi ** 2 + v + math.exp(x)) ** 2) \
            - (x - a) / tau ** 2

    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    return math.exp(big_a / 2)


def test_volatility_follows_the_paper_away_from_1500():
    """The package's f(x) reads the rating where the paper has the deviation; ours does not."""
    opponents = [(1400, 30, 0), (1550, 100, 0), (1700, 300, 0)]
    new = rating.glicko2_update(rating.Rating(2100, 50, 0.06), [(rating.Rating(o, d), s) for o, d, s in opponents])
    assert new.volatility == pytest.approx(_paper_volatility(2100, 50, 0.06, opponents, 0.5), abs=1e-9)


def test_a_period_without_games_only_widens_the_deviation_up_to_350():
    quiet = rating.glicko2_update(rating.Rating(1600, 100, 0.06), [])
    assert quiet.rating == 1600
    assert 100 < quiet.deviation < 101
    assert rating.glicko2_update(rating.Rating(1600, 349.99, 0.06), []).deviation == 350


def test_games_in_any_order_give_the_same_ratings_to_the_bit():
    rng = random.Random(7)
    games = [rating.Game(period=rng.randrange(5), a=a, b=b, score=rng.choice([0, 0.5, 1]))
             for a, b in (rng.sample(range(12), 2) for _ in range(200))]
    first = rating.rate(games)
    for _ in range(3):
        rng.shuffle(games)
        assert rating.rate(games) == first


def test_periods_are_calendar_months():
    assert rating.period_start(rating.period_of(date(2026, 3, 31)), months=1) == date(2026, 3, 1)
    assert rating.period_start(rating.period_of(date(2026, 5, 2), months=3), months=3) == date(2026, 4, 1)


# --- From the results, in the database ----------------------------------------------------------


def _players_with_accounts(n: int, club) -> list[Player]:
    players = []
    for i in range(n):
        player = PlayerFactory(first_name=f"Gen{i}", last_name=f"Player{i}", user=UserFactory(username=f"gen{i}"))
        ClubMembership.objects.create(player=player, club=club, start_date=date(2020, 1, 1))
        players.append(player)
    return players


def generated_season(players: list[Player], *, first_date: date, slug: str = "generated") -> Competition:
    league = Competition.objects.create(name="Generated season", slug=slug, first_date=first_date,
                                        days_between_rounds=7, double_round_robin=True)
    for seed, player in enumerate(players, start=1):
        entrant_add(competition=league, player=player, seed=seed)
    fixtures_generate(competition=league)
    return league


def _scores(fixtures: list[Fixture], seed: int) -> dict[int, tuple[int, int]]:
    rng = random.Random(seed)
    return {f.pk: (rng.choice([0, 1, 1, 2, 3]), rng.choice([0, 0, 1, 2])) for f in fixtures}


def _snapshot() -> list[tuple]:
    return list(PlayerRating.objects.order_by("player_id", "period_start")
                .values_list("player_id", "period_start", "rating", "deviation", "volatility", "games"))


@pytest.mark.django_db
def test_the_demo_and_a_generated_season_rate_the_same_whatever_the_order_results_were_recorded():
    """Done when: the demo's results plus a generated season between players with accounts; the
    season recorded again in another order (other times, other rows) gives the same ratings."""
    today = timezone.localdate()
    demo_load(today=today)
    players = _players_with_accounts(6, ClubFactory()) + list(Player.objects.filter(user__isnull=False)[:4])
    league = generated_season(players, first_date=today - timedelta(days=120))
    fixtures = list(league.fixtures.filter(status=Fixture.Status.SCHEDULED).order_by("pk"))
    scores = _scores(fixtures, seed=3)
    for fixture in fixtures:
        result_record(fixture=fixture, home_goals=scores[fixture.pk][0], away_goals=scores[fixture.pk][1])
    ratings_recompute(force=True)
    first = _snapshot()
    assert len({row[0] for row in first}) >= 16  # the demo's players and the generated ones
    assert not ratings_stale()

    # strike the season's results, then record them again in another order, at other times
    Result.objects.filter(fixture__competition=league).delete()
    Fixture.objects.filter(competition=league, status=Fixture.Status.PLAYED).update(status=Fixture.Status.SCHEDULED)
    shuffled = fixtures[:]
    random.Random(11).shuffle(shuffled)
    later = timezone.now() + timedelta(days=3)
    for n, fixture in enumerate(shuffled):
        result_record(fixture=Fixture.objects.get(pk=fixture.pk), home_goals=scores[fixture.pk][0],
                      away_goals=scores[fixture.pk][1], now=later + timedelta(minutes=n))
    assert ratings_stale()  # the season's results changed: work pending, found by a query
    assert ratings_recompute() is True
    assert _snapshot() == first


@pytest.mark.django_db
def test_walkovers_byes_and_unrated_competitions_are_not_games():
    club = ClubFactory()
    a, b, c = _players_with_accounts(3, club)
    league = generated_season([a, b, c], first_date=date(2026, 1, 5))
    fixtures = list(league.fixtures.exclude(status=Fixture.Status.BYE).order_by("pk"))
    result_record(fixture=fixtures[0], home_goals=2, away_goals=1)
    result_record(fixture=fixtures[1], outcome="walkover", outcome_side="home")
    result_record(fixture=fixtures[2], outcome="walkover", outcome_side="both")
    assert len(rated_games()) == 1
    Competition.objects.filter(pk=league.pk).update(rated=False)
    assert ratings_stale()  # the flag changed: work pending, found by a query
    ratings_recompute()
    assert PlayerRating.objects.count() == 0
    assert RatingBasis.objects.get(competition_id=league.pk).rated is False


@pytest.mark.django_db
def test_a_result_moves_the_ratings_through_the_worker_and_the_pending_work_is_a_query(
        django_capture_on_commit_callbacks):
    a, b = _players_with_accounts(2, ClubFactory())
    with django_capture_on_commit_callbacks(execute=True):
        league = generated_season([a, b], first_date=date(2026, 2, 2))
    assert not ratings_stale()
    assert rating_of(player=a) is None
    fixture = league.fixtures.order_by("pk").first()
    winner = a if fixture.home.player_id == a.pk else b
    with django_capture_on_commit_callbacks(execute=True):  # the result, then its tasks (eager)
        result_record(fixture=fixture, home_goals=3, away_goals=0)
    assert rating_of(player=winner).rating > 1500
    assert rating_of(player=winner).period_start == date(2026, 2, 1)
    assert [r.player_id for r in current_ratings()][0] == winner.pk
    # a competition whose results changed without the worker running is found stale
    Competition.objects.filter(pk=league.pk).update(results_version=league.results_version + 5)
    assert ratings_stale()
    assert ratings_recompute() is True
    assert ratings_recompute() is False
    # a competition deleted leaves a pair behind: stale until recomputed
    Result.objects.all().delete()
    Fixture.objects.all().delete()
    Entrant.objects.all().delete()
    league.delete()
    assert ratings_stale()
    ratings_recompute()
    assert PlayerRating.objects.count() == 0 and RatingBasis.objects.count() == 0
