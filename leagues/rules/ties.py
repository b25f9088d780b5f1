"""A team tie's result from its games (COMPETITIONS.md §10). Pure: no ORM.

Each game gives game points (``game_points``: a win's and a draw's; a loss none; a double
no-show none to either); the tie is won, drawn or lost on game points. A knockout tie level on
game points is decided, with the ``goal_difference_then_shootout`` decider, by the summed goal
difference of its games, then by the tie's shoot-out (one player of each side); with
``shootout``, by the shoot-out at once. A knockout tie still level waits for its shoot-out
(``TieOutcome.awaiting_shootout``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

GOAL_DIFFERENCE_THEN_SHOOTOUT = "goal_difference_then_shootout"
SHOOTOUT = "shootout"


@dataclass(frozen=True)
class GameScore:
    """One game's official result: goals, the side that won (``""``: a draw or nobody), and
    whether it was a double no-show (lost by both)."""

    home_goals: int
    away_goals: int
    winner_side: str = ""
    double_loss: bool = False


@dataclass(frozen=True)
class TieOutcome:
    home_game_points: float
    away_game_points: float
    home_goals: int  # summed over the games
    away_goals: int
    winner_side: str  # "home", "away", or "" (drawn, or a knockout tie awaiting its shoot-out)
    decided_by: str  # "game_points", "goal_difference", "shootout", "" (drawn or awaiting)
    awaiting_shootout: bool = False
    double_loss: bool = False  # every game a double no-show: the tie is lost by both, as a single fixture's


def _half(value: float) -> float:
    return int(value) if float(value).is_integer() else float(value)


def tie_outcome(
    games: Sequence[GameScore], *, game_points: Sequence[float] = (1, 0.5), knockout: bool = False,
    decider: str = GOAL_DIFFERENCE_THEN_SHOOTOUT, shootout: tuple[int, int] | None = None,
) -> TieOutcome:
    """The tie's result from all its games' official results. ``shootout``: the tie's
    shoot-out (home, away), when one was recorded. Raises ``ValueError`` for an unknown decider
    or a drawn shoot-out."""
    if decider not in (GOAL_DIFFERENCE_THEN_SHOOTOUT, SHOOTOUT):
        raise ValueError(f"unknown tie decider {decider!r}")
    win, draw = game_points
    home_points = away_points = 0.0
    home_goals = away_goals = 0
    for game in games:
        home_goals += game.home_goals
        away_goals += game.away_goals
        if game.double_loss:
            continue
        if game.winner_side == "home":
            home_points += win
        elif game.winner_side == "away":
            away_points += win
        else:
            home_points += draw
            away_points += draw
    base = dict(home_game_points=_half(home_points), away_game_points=_half(away_points),
                home_goals=home_goals, away_goals=away_goals)
    if games and all(game.double_loss for game in games):
        return TieOutcome(**base, winner_side="", decided_by="", double_loss=True)
    if home_points != away_points:
        return TieOutcome(**base, winner_side="home" if home_points > away_points else "away",
                          decided_by="game_points")
    if not knockout:
        return TieOutcome(**base, winner_side="", decided_by="")
    if decider == GOAL_DIFFERENCE_THEN_SHOOTOUT and home_goals != away_goals:
        return TieOutcome(**base, winner_side="home" if home_goals > away_goals else "away",
                          decided_by="goal_difference")
    if shootout is None:
        return TieOutcome(**base, winner_side="", decided_by="", awaiting_shootout=True)
    if shootout[0] == shootout[1]:
        raise ValueError("a shoot-out has a winner")
    return TieOutcome(**base, winner_side="home" if shootout[0] > shootout[1] else "away", decided_by="shootout")


def needs_shootout(games: Sequence[GameScore], *, game_points: Sequence[float] = (1, 0.5),
                   decider: str = GOAL_DIFFERENCE_THEN_SHOOTOUT) -> bool:
    """Whether a knockout tie with these games (all played) is still level for its shoot-out."""
    return tie_outcome(games, game_points=game_points, knockout=True, decider=decider).awaiting_shootout
