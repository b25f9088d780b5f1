"""Glicko-2 ratings of players, as a pure function of their games (no ORM).

Glickman, "Example of the Glicko-2 system" (2013): each player has a rating ``r`` (Glicko
points, 1500 for a newcomer), a rating deviation ``RD`` (350 for a newcomer: how unsure the
rating is) and a volatility ``sigma`` (0.06). Games are grouped in rating periods; within a
period every game counts at once against the opponents' ratings *at the start of the period*,
so the order of the games inside a period never matters. A player without a game in a period
(after their first) only grows less sure: ``RD`` widens (capped at 350).

The arithmetic is the ``glicko2`` package's, under a thin class that puts right one line of
its volatility step: its ``f(x)`` uses the squared rating where the paper has the squared
deviation (``phi**2``). Glickman's worked example comes out as in the paper (1464.05, 151.52,
0.05999; the paper's 1464.06 rounds its intermediate values).

``rate(games, tau=...)`` sorts everything it is given, so the same games in any order give the
same ratings, to the bit.
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import date

import glicko2

DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.5
PROVISIONAL_DEVIATION = 110.0  # above it a rating is provisional (Lichess's threshold)


class _Glicko2(glicko2.Player):
    """``glicko2.Player`` with the volatility function of the paper (step 5, ``f(x)``)."""

    def __init__(self, rating: float, rd: float, vol: float, tau: float):
        super().__init__(rating, rd, vol)
        self._tau = tau

    def _f(self, x, delta, v, a):
        phi2 = self._Player__rd ** 2  # the package reads the rating here
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi2 - v - ex)) / (2 * (phi2 + v + ex) ** 2) - (x - a) / (self._tau ** 2)


@dataclass(frozen=True, order=True)
class Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY


@dataclass(frozen=True, order=True)
class Game:
    """One rated game: ``score`` is what ``a`` scored against ``b`` (1 a win, 0.5 a draw, 0 a
    loss), in rating period ``period`` (an integer, earlier first)."""

    period: int
    a: Hashable
    b: Hashable
    score: float


@dataclass(frozen=True)
class PeriodRating:
    """A player's rating at the end of ``period``, and their games in it."""

    period: int
    rating: Rating
    games: int
    wins: int
    draws: int
    losses: int


def glicko2_update(player: Rating, results: Iterable[tuple[Rating, float]], *, tau: float = DEFAULT_TAU) -> Rating:
    """One rating period for ``player``: ``results`` are (the opponent's rating at the start of
    the period, the score: 1, 0.5, 0). No results: the deviation only widens (capped at 350).
    Raises ``ValueError`` for a score outside [0, 1] or a non-positive deviation or tau."""
    if tau <= 0:
        raise ValueError("tau must be positive")
    results = sorted(results, key=lambda item: (item[0], item[1]))
    engine = _Glicko2(player.rating, player.deviation, player.volatility, tau)
    if not results:
        engine.did_not_compete()
        return Rating(engine.rating, min(engine.rd, DEFAULT_DEVIATION), engine.vol)
    for opponent, score in results:
        if not 0 <= score <= 1:
            raise ValueError(f"a score is 0, 0.5 or 1, not {score}")
        if opponent.deviation <= 0:
            raise ValueError("a deviation must be positive")
    engine.update_player([o.rating for o, _s in results], [o.deviation for o, _s in results],
                         [s for _o, s in results])
    return Rating(engine.rating, engine.rd, engine.vol)


def rate(games: Iterable[Game], *, tau: float = DEFAULT_TAU) -> dict[Hashable, list[PeriodRating]]:
    """Every player's rating after each period, from their first game to the last period of any
    game: ``{player: [PeriodRating, ...]}``, periods in order. The input's order is irrelevant."""
    by_period: dict[int, list[Game]] = defaultdict(list)
    for game in sorted(games, key=lambda g: (g.period, repr(g.a), repr(g.b), g.score)):
        if game.a == game.b:
            raise ValueError("a player does not play themselves")
        by_period[game.period].append(game)
    if not by_period:
        return {}
    state: dict[Hashable, Rating] = {}
    history: dict[Hashable, list[PeriodRating]] = defaultdict(list)
    for period in range(min(by_period), max(by_period) + 1):
        played: dict[Hashable, list[tuple[Hashable, float]]] = defaultdict(list)
        for game in by_period.get(period, ()):
            played[game.a].append((game.b, game.score))
            played[game.b].append((game.a, 1 - game.score))
        start = dict(state)  # everybody's rating at the start of the period
        for player in set(played) - set(start):
            start[player] = Rating()
        for player in sorted(start, key=repr):
            results = played.get(player, [])
            state[player] = glicko2_update(start[player], [(start[o], s) for o, s in results], tau=tau)
            history[player].append(PeriodRating(
                period=period, rating=state[player], games=len(results),
                wins=sum(1 for _o, s in results if s == 1), draws=sum(1 for _o, s in results if s == 0.5),
                losses=sum(1 for _o, s in results if s == 0),
            ))
    return dict(history)


def period_of(day: date, *, months: int = 1) -> int:
    """The rating period holding ``day``, for periods of ``months`` calendar months counted from
    January of year 1 (with ``months`` 1: one a month)."""
    if months < 1:
        raise ValueError("a rating period is at least one month")
    return (day.year * 12 + day.month - 1) // months


def period_start(period: int, *, months: int = 1) -> date:
    """The first day of ``period`` (the inverse of ``period_of``)."""
    index = period * months
    return date(index // 12, index % 12 + 1, 1)


def aged(rating: Rating, periods: int) -> Rating:
    """``rating`` after ``periods`` rating periods without games: Glicko-2's step 6 each time
    (phi* = sqrt(phi**2 + sigma**2), on the Glicko-2 scale), the deviation capped at the initial
    350; the rating and volatility unchanged. Raises ``ValueError`` for a negative ``periods``."""
    if periods < 0:
        raise ValueError("a rating is not aged backwards")
    for _period in range(periods):
        if rating.deviation >= DEFAULT_DEVIATION:
            return Rating(rating.rating, DEFAULT_DEVIATION, rating.volatility)
        rating = glicko2_update(rating, [])
    return rating


def is_provisional(deviation: float, *, threshold: float = PROVISIONAL_DEVIATION) -> bool:
    """True when a rating's deviation is above ``threshold`` (too few recent games to trust it)."""
    return deviation > threshold


def conservative(rating: Rating) -> float:
    """The rating less twice its deviation: about 97.7 % sure the player is at least this strong
    (what seeding by rating orders by, so a provisional newcomer is not seeded first)."""
    return rating.rating - 2 * rating.deviation
