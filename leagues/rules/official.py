"""How a match ends officially (COMPETITIONS.md §4), as a pure function. No ORM.

``official_result(recorded, rules)`` turns what was recorded at the table into the official
score and the winning side, or raises ``ResultError`` naming the field that is wrong:

- ``played``: the score on the table; extra-time goals count; in a knockout a level score
  after extra time needs a shoot-out, which decides who goes through but is kept apart;
- ``walkover``: the side that did not show (``outcome_side``) loses by the walkover score;
  ``outcome_side`` ``both`` is a double no-show: 0-0, lost by both (``double_loss``), nobody
  goes through;
- ``disqualification``: the disqualified side (``outcome_side``) loses 2-0, unless its
  opponent was already winning by more than two goals: then the score at that moment stands
  (from the opponent's side: 5-1 stands; 3-1 becomes 2-0; 0-1 becomes 2-0);
- ``bye``: no match, no goals; the present side (home) goes through.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from leagues.rules.i18n import gettext as _

OUTCOMES = ("played", "walkover", "disqualification", "bye")
SIDES = ("home", "away")
BOTH = "both"
DISQUALIFICATION_SCORE = (2, 0)


class ResultError(ValueError):
    """A recorded result that cannot be official; ``field`` names the wrong value."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Recorded:
    """What was recorded at the table (goals in regulation time; a disqualification's score is
    the score at that moment)."""

    home_goals: int
    away_goals: int
    outcome: str = "played"
    outcome_side: str = ""
    home_et_goals: int = 0
    away_et_goals: int = 0
    home_shootout: int | None = None
    away_shootout: int | None = None


@dataclass(frozen=True)
class Rules:
    """The parts of a competition's format a result depends on (§3-4)."""

    knockout: bool = False
    extra_time: bool = True
    shootout: bool = True
    shootout_kicks: int = 5
    walkover_score: tuple[int, int] = (2, 0)


@dataclass(frozen=True)
class Official:
    home_goals: int
    away_goals: int
    winner_side: str  # "home", "away", or "" for a draw (or nobody, with ``double_loss``)
    double_loss: bool = False  # a double no-show: both sides lose

    def score_for(self, side: str) -> tuple[int, int]:
        return (self.home_goals, self.away_goals) if side == "home" else (self.away_goals, self.home_goals)


def _other(side: str) -> str:
    return "away" if side == "home" else "home"


def _by_side(side: str, mine: int, theirs: int) -> tuple[int, int]:
    """(home, away) goals from ``side``'s (mine, theirs)."""
    return (mine, theirs) if side == "home" else (theirs, mine)


def official_result(recorded: Recorded, rules: Rules = Rules()) -> Official:  # noqa: B008 - frozen
    """The official result of ``recorded`` under ``rules``; raises ``ResultError``."""
    r = recorded
    for name in ("home_goals", "away_goals", "home_et_goals", "away_et_goals", "home_shootout", "away_shootout"):
        value = getattr(r, name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise ResultError(name, _("must be a whole number of 0 or more, not %(value)r") % {"value": value})
    if r.outcome not in OUTCOMES:
        raise ResultError("outcome", _("must be one of %(choices)s, not %(value)r") % {"choices": ", ".join(OUTCOMES), "value": r.outcome})
    shootout_given = r.home_shootout is not None or r.away_shootout is not None
    et_given = bool(r.home_et_goals or r.away_et_goals)

    if r.outcome in ("played", "bye"):
        if r.outcome_side:
            raise ResultError("outcome_side", _("is only given for a walkover or a disqualification, not for %(outcome)s") % {"outcome": r.outcome})
    elif r.outcome == "walkover" and r.outcome_side == BOTH:
        pass  # a double no-show
    elif r.outcome_side not in SIDES:
        if r.outcome == "walkover":
            raise ResultError("outcome_side", _("a walkover needs the side it applies to: home, away or both"))
        raise ResultError("outcome_side", _("a disqualification needs the side it applies to: home or away"))

    if r.outcome == "bye":
        return Official(0, 0, "home")

    if r.outcome == "walkover":
        if et_given or shootout_given:
            raise ResultError("home_et_goals" if et_given else "home_shootout", "a walkover has no extra time or shoot-out")
        if r.outcome_side == BOTH:
            return Official(0, 0, "", double_loss=True)
        winner = _other(r.outcome_side)
        return Official(*_by_side(winner, *rules.walkover_score), winner)

    if r.outcome == "disqualification":
        if shootout_given:
            raise ResultError("home_shootout", _("a disqualified side takes no shoot-out"))
        winner = _other(r.outcome_side)
        home = r.home_goals + r.home_et_goals
        away = r.away_goals + r.away_et_goals
        mine, theirs = (home, away) if winner == "home" else (away, home)
        if mine - theirs > 2:
            return Official(home, away, winner)
        return Official(*_by_side(winner, *DISQUALIFICATION_SCORE), winner)

    # played
    if et_given:
        if not rules.knockout:
            raise ResultError("home_et_goals", _("extra time is only played in a knockout"))
        if not rules.extra_time:
            raise ResultError("home_et_goals", _("this competition plays no extra time"))
        if r.home_goals != r.away_goals:
            raise ResultError("home_et_goals", _("extra time is only played after a draw"))
    home = r.home_goals + r.home_et_goals
    away = r.away_goals + r.away_et_goals
    if shootout_given:
        if r.home_shootout is None or r.away_shootout is None:
            raise ResultError("home_shootout" if r.home_shootout is None else "away_shootout", "give both sides' shoot-out goals")
        if not rules.knockout:
            raise ResultError("home_shootout", _("a shoot-out is only taken in a knockout"))
        if not rules.shootout:
            raise ResultError("home_shootout", _("this competition has no shoot-out"))
        if home != away:
            raise ResultError("home_shootout", _("a shoot-out is only taken when the match is level"))
        if r.home_shootout == r.away_shootout:
            raise ResultError("home_shootout", _("a shoot-out cannot end level"))
        _check_shootout_reachable(r.home_shootout, r.away_shootout, rules.shootout_kicks)
        return Official(home, away, "home" if r.home_shootout > r.away_shootout else "away")
    if home == away:
        if rules.knockout:
            if rules.shootout:
                if rules.extra_time:
                    message = _("the match is level after extra time (%(home)s-%(away)s) and needs a "
                                "shoot-out: give both sides' shoot-out goals")
                else:
                    message = _("the match is level at full time (%(home)s-%(away)s) and needs a "
                                "shoot-out: give both sides' shoot-out goals")
                raise ResultError("home_shootout", message % {"home": home, "away": away})
            raise ResultError(
                "home_shootout", _("a knockout match cannot end level without extra time or a shoot-out")
            )
        return Official(home, away, "")
    return Official(home, away, "home" if home > away else "away")


def _check_shootout_reachable(home: int, away: int, kicks: int) -> None:
    """Raises ``ResultError`` unless a shoot-out of ``kicks`` each (then sudden death in pairs)
    can end ``home``-``away`` (§3): a best of N stops as soon as one side cannot be caught
    (best of 5: 3-0 can happen, 4-0 and 5-0 cannot), and sudden death is won by one."""
    high, low = max(home, away), min(home, away)
    if high - low == 1:
        return  # sudden death after a level shoot-out ends one goal apart (and so may the N kicks)
    if (high, low) in shootout_finals(kicks):
        return
    if high > kicks:
        raise ResultError("home_shootout", _("a shoot-out in sudden death ends one goal apart, not %(home)s-%(away)s") % {"home": home, "away": away})
    raise ResultError(
        "home_shootout",
        _("a shoot-out of %(kicks)s kicks each cannot end %(home)s-%(away)s: it stops as soon as one side cannot "
          "be caught") % {"kicks": kicks, "home": home, "away": away},
    )


@lru_cache(maxsize=16)
def shootout_finals(kicks: int) -> frozenset[tuple[int, int]]:
    """Every (winner's goals, loser's goals) a shoot-out of ``kicks`` kicks each can end on
    within those kicks, whichever side kicks first: the state at the kick that decides it."""
    finals: set[tuple[int, int]] = set()
    # (kicks taken by the first kicker, by the second, goals of the first, of the second)
    seen: set[tuple[int, int, int, int]] = set()
    todo = [(0, 0, 0, 0)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        taken_1, taken_2, goals_1, goals_2 = state
        first_kicks = taken_1 == taken_2
        for scored in (0, 1):
            if first_kicks:
                nxt = (taken_1 + 1, taken_2, goals_1 + scored, goals_2)
            else:
                nxt = (taken_1, taken_2 + 1, goals_1, goals_2 + scored)
            t1, t2, g1, g2 = nxt
            if g1 > g2 + (kicks - t2) or g2 > g1 + (kicks - t1):
                finals.add((max(g1, g2), min(g1, g2)))
            elif t1 < kicks or t2 < kicks:
                todo.append(nxt)
    return frozenset(finals)
