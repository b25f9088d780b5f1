"""Standings as a pure function of results (COMPETITIONS.md §5). No ORM; Django only through ``leagues.rules.i18n`` (gettext).

``rank(results, criteria, entrants=..., points=..., seed=...)`` orders the entrants of one table
by points and then by the ordered tie-break criteria of ``CRITERIA``:

- overall criteria (``wins``, ``goal_difference``...) compare the whole table's results;
- head-to-head criteria (``h2h_*``) are computed only over the matches among the entrants
  still level when the first of a run of them is reached, and keep that mini-league for the
  rest of the run;
- ``h2h_reapply`` runs the head-to-head criteria just before it again, on the matches among
  the entrants of a subset that is still level, as UEFA does (repeatedly, while it helps);
- ``discipline`` prefers fewer discipline points over all matches;
- the Swiss criteria (FIDE Handbook C.07): ``buchholz``, the sum of the opponents' points;
  ``buchholz_cut1`` without the lowest of them, ``median_buchholz`` without the highest and
  the lowest; ``sonneborn_berger``, the points of the opponents beaten and half those of the
  opponents drawn with; ``progressive``, the sum of the running scores after each round
  (``MatchLine.round``). A bye, or a fixture neither side played (a double no-show), counts
  for its entrant as an opponent on the entrant's own points, FIDE's virtual opponent (a bye
  won or drawn as the competition's bye points say), and the sentence says so;
- ``lots`` is a reproducible drawing of lots: each entrant's ticket comes from the
  competition's stored seed, and tickets already drawn (``lots``) are kept as they were.

Each row says in one sentence why it stands above the next row when the two are level on
points: "level on 4 points with Senegal; ahead on discipline, -4 against -6".
"""
from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from leagues.rules.i18n import gettext as _
from leagues.rules.i18n import gettext_noop


@dataclass(frozen=True)
class Criterion:
    key: str
    name: str  # in English, marked for translation: ``leagues.names.criterion_shown`` shows it
    abbr: str
    higher_is_better: bool = True
    head_to_head: bool = False
    virtual_opponent: bool = False  # a bye counts as an opponent on the entrant's own points


CRITERIA: dict[str, Criterion] = {
    c.key: c
    for c in (
        Criterion("points", gettext_noop("points"), "Pts"),
        Criterion("wins", gettext_noop("wins"), "W"),
        Criterion("goal_difference", gettext_noop("goal difference"), "GD"),
        Criterion("goals_for", gettext_noop("goals scored"), "GF"),
        Criterion("goals_against", gettext_noop("goals conceded"), "GA", higher_is_better=False),
        Criterion("h2h_points", gettext_noop("head-to-head points"), "H2H Pts", head_to_head=True),
        Criterion("h2h_goal_difference", gettext_noop("head-to-head goal difference"), "H2H GD", head_to_head=True),
        Criterion("h2h_goals_for", gettext_noop("head-to-head goals scored"), "H2H GF", head_to_head=True),
        Criterion("h2h_reapply", gettext_noop("head-to-head re-applied to those still level"), "H2H again"),
        Criterion("discipline", gettext_noop("discipline"), "Disc", higher_is_better=False),
        Criterion("lots", gettext_noop("drawing of lots"), "Lots", higher_is_better=False),
        Criterion("buchholz", gettext_noop("Buchholz"), "BH", virtual_opponent=True),
        Criterion("buchholz_cut1", gettext_noop("Buchholz cut 1"), "BH-C1", virtual_opponent=True),
        Criterion("median_buchholz", gettext_noop("median Buchholz"), "BH-M1", virtual_opponent=True),
        Criterion("sonneborn_berger", gettext_noop("Sonneborn-Berger"), "SB", virtual_opponent=True),
        Criterion("progressive", gettext_noop("progressive score"), "Prog"),
        Criterion("game_points", gettext_noop("game points"), "GPts"),
    )
}

_H2H = ("h2h_points", "h2h_goal_difference", "h2h_goals_for")
_SWISS = ("buchholz", "buchholz_cut1", "median_buchholz", "sonneborn_berger", "progressive")
PRESETS: dict[str, tuple[str, ...]] = {
    "fistf": (*_H2H, "goal_difference", "goals_for", "lots"),
    "fifa_2018": ("goal_difference", "goals_for", *_H2H, "discipline", "lots"),
    "fifa_2026": (*_H2H, "h2h_reapply", "goal_difference", "goals_for", "discipline", "lots"),
    "uefa_euro": (*_H2H, "h2h_reapply", "goal_difference", "goals_for", "discipline", "lots"),
    # FIDE Handbook C.07 for a Swiss
    "fide_swiss": ("buchholz_cut1", "buchholz", "sonneborn_berger", "progressive", "wins", "lots"),
    # team competitions (COMPETITIONS.md §10): tie points, then the games' game points and goals
    "teams": ("game_points", "goal_difference", "goals_for", *_H2H, "lots"),
    "teams_h2h": (*_H2H, "game_points", "goal_difference", "goals_for", "lots"),
}
VIRTUAL_OPPONENT_NOTE = "a bye counted as an opponent on the entrant's own points"


def validate_criteria(keys: Sequence[str]) -> None:
    """Raises ``ValueError`` naming the first unknown key, or an ``h2h_reapply`` with no
    head-to-head criterion before it, or a criterion given twice."""
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key not in CRITERIA:
            raise ValueError(_("unknown tie-break criterion %(key)r; known: %(known)s") % {"key": key, "known": ", ".join(CRITERIA)})
        if key in seen:
            raise ValueError(_("tie-break criterion %(key)r is given twice") % {"key": key})
        seen.add(key)
        if key == "h2h_reapply" and not (i and CRITERIA[keys[i - 1]].head_to_head):
            raise ValueError(_("h2h_reapply must follow a head-to-head criterion"))


@dataclass(frozen=True)
class Points:
    win: int = 3
    draw: int = 1
    loss: int = 0
    bye: int = 0


class MatchLine(NamedTuple):
    """One official result. ``away`` None is a bye for ``home`` (no match, ``Points.bye``).
    ``double_loss``: a double no-show, 0-0 and lost by both, no points for either (§4).
    ``round``: its round's number (``progressive`` reads it; 0 when unknown).
    A named tuple: a season's ten thousand are built in a few milliseconds."""

    home: Hashable
    away: Hashable | None
    home_goals: int = 0
    away_goals: int = 0
    home_discipline: int = 0
    away_discipline: int = 0
    double_loss: bool = False
    round: int = 0
    # a team tie: the game points of each side (who won the tie), the goals above are its games'
    home_game_points: float | None = None
    away_game_points: float | None = None


def _decisive(line: MatchLine) -> tuple[float, float]:
    """What wins a line: the game points of a tie, else the goals."""
    if line.home_game_points is not None:
        return line.home_game_points, line.away_game_points
    return line.home_goals, line.away_goals


@dataclass
class StandingRow:
    entrant: Hashable
    name: str
    position: int = 0
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0
    points: int = 0
    discipline: int = 0
    game_points: float = 0
    tiebreak: str = ""
    tiebreak_criterion: str = ""
    shared: bool = False  # level with a neighbour that the criteria cannot separate ("2=")

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against


@dataclass(frozen=True)
class Ranking:
    rows: list[StandingRow]
    lots_drawn: dict = field(default_factory=dict)  # tickets drawn by this ranking, to record


def lots_ticket(seed: int, entrant: Hashable) -> int:
    """The entrant's ticket in the drawing of lots: reproducible from the seed; lower draws first."""
    return random.Random(f"{seed}:{entrant}").randrange(1, 10**9)


@dataclass
class _Tally:
    points: int = 0
    wins: int = 0
    goals_for: int = 0
    goals_against: int = 0


def _tally(lines: Iterable[MatchLine], among: frozenset | None, points: Points) -> dict:
    """Points, wins and goals per entrant over the lines (only those among ``among``, if given)."""
    table: dict = {}
    for line in lines:
        if line.away is None:
            if among is None:
                table.setdefault(line.home, _Tally()).points += points.bye
            continue
        if among is not None and not (line.home in among and line.away in among):
            continue
        if line.double_loss:
            for me in (line.home, line.away):
                table.setdefault(me, _Tally())
            continue
        home_decisive, away_decisive = _decisive(line)
        for me, gf, ga, mine, theirs in (
            (line.home, line.home_goals, line.away_goals, home_decisive, away_decisive),
            (line.away, line.away_goals, line.home_goals, away_decisive, home_decisive),
        ):
            t = table.setdefault(me, _Tally())
            t.goals_for += gf
            t.goals_against += ga
            if mine > theirs:
                t.wins += 1
                t.points += points.win
            elif mine == theirs:
                t.points += points.draw
            else:
                t.points += points.loss
    return table


def _format(key: str, value: float) -> str:
    if key in ("goal_difference", "h2h_goal_difference"):
        return f"{value:+d}" if value else "0"
    if key == "discipline":
        return str(-value) if value else "0"
    if isinstance(value, float):  # Sonneborn-Berger's halves: 14.5, or 14
        return str(value) if value != int(value) else str(int(value))
    return str(value)


class _TieBreaker:
    """Orders the entrants of one table level on points by the criteria after ``points``
    (``split``), and remembers what decided between neighbours (``deciders``: (above, below)
    -> (criterion, value above, value below)) and the tickets it drew (``drawn``).

    A class, not closures in ``rank``: a closure that calls itself (``split``) is a reference
    cycle, so each table's rows, mini-leagues and deciders outlived ``rank`` until the garbage
    collector's next pass found them. The results are the same; a recomputation of the 1,667
    groups of ``tests.bench.scalebench`` runs about 100 young collections instead of 160 (9 instead of
    15 of the middle generation), and one that writes nothing took 0.22-0.25 s instead of
    0.26-0.33 s.
    """

    def __init__(self, rows: dict, lines: list[MatchLine], criteria: list[str], points: Points, seed: int,
                 lots: Mapping[Hashable, int] | None):
        self.rows = rows
        self.lines = lines
        self.criteria = criteria
        self.points = points
        self.seed = seed
        self.recorded = dict(lots or {})
        self.drawn: dict = {}
        self.deciders: dict[tuple, tuple[str, int, int]] = {}
        self.h2h_cache: dict[frozenset, dict] = {}
        self.touching: dict = {}  # entrant -> the indexes of its lines, for the head-to-head mini-leagues
        self.swiss: dict | None = None  # entrant -> the Swiss criteria's values, made when first asked
        self.virtual: set = set()  # the entrants with a virtual opponent (a bye, an unplayed fixture)

    def lines_among(self, among: frozenset) -> list[MatchLine]:
        """The lines between entrants of ``among``: read through the index, not the whole table
        (a league's tie of three needs its few matches, not the season's)."""
        if not self.touching:
            for i, line in enumerate(self.lines):
                if line.away is not None:
                    self.touching.setdefault(line.home, []).append(i)
                    self.touching.setdefault(line.away, []).append(i)
        found = sorted({i for e in among for i in self.touching.get(e, ())})
        return [self.lines[i] for i in found]

    def ticket(self, e: Hashable) -> int:
        if e not in self.recorded:
            self.recorded[e] = self.drawn[e] = lots_ticket(self.seed, e)
        return self.recorded[e]

    def value(self, key: str, e: Hashable, among: frozenset | None) -> int:
        row = self.rows[e]
        if key == "lots":
            return self.ticket(e)
        if key in CRITERIA and CRITERIA[key].head_to_head:
            if among not in self.h2h_cache:
                self.h2h_cache[among] = _tally(self.lines_among(among), among, self.points)
            t = self.h2h_cache[among].get(e, _Tally())
            return {"h2h_points": t.points, "h2h_goal_difference": t.goals_for - t.goals_against,
                    "h2h_goals_for": t.goals_for}[key]
        if key in _SWISS:
            if self.swiss is None:
                self.swiss = self.swiss_values()
            return self.swiss[e][key]
        return {"points": row.points, "wins": row.won, "goal_difference": row.goal_difference,
                "goals_for": row.goals_for, "goals_against": row.goals_against,
                "discipline": row.discipline, "game_points": row.game_points}[key]

    def swiss_values(self) -> dict:
        """Each entrant's Buchholz family, Sonneborn-Berger and progressive score (FIDE C.07)."""
        points, rows = self.points, self.rows
        bye_share = 1.0 if points.bye >= points.win else 0.5 if points.bye and points.bye >= points.draw else 0.0
        faced: dict = {e: [] for e in rows}  # entrant -> [(opponent or None for a virtual one, share)]
        by_round: dict = {e: {} for e in rows}  # entrant -> round -> points earned
        for line in self.lines:
            if line.away is None:
                faced[line.home].append((None, bye_share))
                by_round[line.home][line.round] = by_round[line.home].get(line.round, 0) + points.bye
                continue
            if line.double_loss:
                faced[line.home].append((None, 0.0))
                faced[line.away].append((None, 0.0))
                continue
            home_decisive, away_decisive = _decisive(line)  # a team tie: its game points
            for me, other, gf, ga in ((line.home, line.away, home_decisive, away_decisive),
                                      (line.away, line.home, away_decisive, home_decisive)):
                share, earned = (1.0, points.win) if gf > ga else (0.5, points.draw) if gf == ga else (0.0, points.loss)
                faced[me].append((other, share))
                by_round[me][line.round] = by_round[me].get(line.round, 0) + earned
        rounds = sorted({r for earned in by_round.values() for r in earned})
        values = {}
        for e, games in faced.items():
            scores = sorted(rows[e].points if other is None else rows[other].points for other, _ in games)
            if any(other is None for other, _ in games):
                self.virtual.add(e)
            sonneborn = sum((rows[e].points if other is None else rows[other].points) * share for other, share in games)
            running = progressive = 0
            for r in rounds:
                running += by_round[e].get(r, 0)
                progressive += running
            values[e] = {
                "buchholz": sum(scores), "buchholz_cut1": sum(scores[1:]),
                "median_buchholz": sum(scores[1:-1]), "sonneborn_berger": sonneborn,
                "progressive": progressive,
            }
        return values

    def run_start(self, idx: int) -> int:
        start = idx
        while start > 0 and CRITERIA[self.criteria[start - 1]].head_to_head:
            start -= 1
        return start

    def split(self, block: list, idx: int, among: frozenset | None) -> list:
        """``block`` (entrants level so far) in order by the criteria from index ``idx``;
        ``among``: the mini-league of the head-to-head run in progress."""
        criteria, rows = self.criteria, self.rows
        if len(block) <= 1 or idx >= len(criteria):
            return sorted(block, key=lambda e: rows[e].name)
        key = criteria[idx]
        if key == "h2h_reapply":
            if among is not None and len(block) < len(among):
                return self.split(block, self.run_start(idx), None)
            return self.split(block, idx + 1, None)
        crit = CRITERIA[key]
        if crit.head_to_head:
            among = among if among is not None else frozenset(block)
        else:
            among = None
        sign = 1 if crit.higher_is_better else -1
        values = {e: self.value(key, e, among) for e in block}
        ordered: list = []
        for v in sorted({values[e] for e in block}, key=lambda v: -sign * v):
            sub = self.split([e for e in block if values[e] == v], idx + 1, among)
            if ordered:
                self.deciders[(ordered[-1], sub[0])] = (key, values[ordered[-1]], values[sub[0]])
            ordered.extend(sub)
        return ordered


def rank(
    results: Iterable[MatchLine],
    criteria: Sequence[str],
    *,
    entrants: Mapping[Hashable, str],
    points: Points = Points(),  # noqa: B008 - a frozen value
    seed: int = 0,
    lots: Mapping[Hashable, int] | None = None,
) -> Ranking:
    """Ranks ``entrants`` (id -> name) over ``results``; ``criteria`` start with ``points``.

    Raises ``ValueError`` for an unknown criterion or a result naming an unknown entrant.
    """
    criteria = list(criteria)
    if not criteria or criteria[0] != "points":
        criteria = ["points", *[c for c in criteria if c != "points"]]
    validate_criteria(criteria)
    lines = list(results)
    for line in lines:
        for who in (line.home, line.away):
            if who is not None and who not in entrants:
                raise ValueError(_("a result names an entrant not in the table: %(who)r") % {"who": who})

    rows = {e: StandingRow(entrant=e, name=name) for e, name in entrants.items()}
    for line in lines:
        home = rows[line.home]
        if line.away is None:
            home.points += points.bye
            continue
        away = rows[line.away]
        home.discipline += line.home_discipline
        away.discipline += line.away_discipline
        if line.double_loss:
            for row in (home, away):
                row.played += 1
                row.lost += 1
            continue
        if line.home_game_points is not None:
            home.game_points += line.home_game_points
            away.game_points += line.away_game_points
        home_decisive, away_decisive = _decisive(line)
        for row, gf, ga, mine, theirs in ((home, line.home_goals, line.away_goals, home_decisive, away_decisive),
                                          (away, line.away_goals, line.home_goals, away_decisive, home_decisive)):
            row.played += 1
            row.goals_for += gf
            row.goals_against += ga
            if mine > theirs:
                row.won += 1
                row.points += points.win
            elif mine == theirs:
                row.drawn += 1
                row.points += points.draw
            else:
                row.lost += 1
                row.points += points.loss

    breaker = _TieBreaker(rows, lines, criteria, points, seed, lots)
    by_points: dict[int, list] = {}
    for e, row in rows.items():
        by_points.setdefault(row.points, []).append(e)
    order: list = []
    for pts in sorted(by_points, reverse=True):
        order.extend(breaker.split(by_points[pts], 1, None))
    deciders = breaker.deciders

    result = [rows[e] for e in order]
    for i, row in enumerate(result):
        row.position = i + 1
        if i and result[i - 1].points == row.points and (result[i - 1].entrant, row.entrant) not in deciders:
            # not separated by the criteria (a custom list without lots): the place is shared
            row.position = result[i - 1].position
            row.shared = result[i - 1].shared = True
        if i + 1 < len(result) and result[i + 1].points == row.points:
            nxt = result[i + 1]
            level = f"level on {row.points} point{'' if row.points == 1 else 's'} with {nxt.name}"
            decided = deciders.get((row.entrant, nxt.entrant))
            if decided is None:
                row.tiebreak = f"{level}; not separated by the criteria"
                continue
            key, mine, theirs = decided
            row.tiebreak_criterion = key
            if key == "lots":
                row.tiebreak = f"{level}; ahead on the drawing of lots"
            else:
                row.tiebreak = (
                    f"{level}; ahead on {CRITERIA[key].name}, "
                    f"{_format(key, mine)} against {_format(key, theirs)}"
                )
                if CRITERIA[key].virtual_opponent and breaker.virtual & {row.entrant, nxt.entrant}:
                    row.tiebreak += f", {VIRTUAL_OPPONENT_NOTE}"
    return Ranking(rows=result, lots_drawn=breaker.drawn)
