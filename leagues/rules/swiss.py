"""The next round of a Swiss (COMPETITIONS.md §9), as a pure function of the rounds played.

``pair_round(entrants, games, round_no=..., rounds=..., bye_points=...)`` pairs one round and
returns a ``SwissRound`` (``pairs``: (home, away) in board order, ``bye``: who rests or None), or
raises ``NoLegalPairing`` naming the absolute rule that cannot be met.

The absolute rules (FIDE C.04.1, the Dutch system C.04.3 read with home and away for white
and black), never broken:

- ``rematch``: no two entrants meet twice (any fixture between them counts, walkovers too);
- ``second_bye``: no entrant gets a second bye while an active entrant has none, and the bye
  goes to the lowest-ranked eligible entrant of the lowest score group, "eligible" meaning
  that the others can then be paired under these rules (C.04.1 c, C.04.3 C.5);
- ``colours``: no entrant home (or away) in three played games running, and its homes minus
  its aways never past +2 or -2 after the round (C.04.1 f, g), with the Dutch system's one
  exception: in the last round a topscorer (more than half the maximum score, C.04.3 A.7)
  may meet an entrant of the same absolute preference (C.3), one of the two then passing
  the rule, as few as can be (C.10, C.11), so that the leaders still meet.

Quality, as far as the absolute rules allow, in this order (C.04.3 C.5 to C.21 condensed):
score group by score group from the top, the fewest pairs floating out of it, then the lowest
of those floaters (so a group that cannot pair floats into the next one down, not its leaders
to the bottom: C.5, C.6 and the PSD of A.8, the Dutch system's bracket order); the fewest
topscorers' colour exceptions; colour preferences (strong before mild, A.6); no float in the
same direction twice running; and within a score group the top half against the bottom half
(S1 against S2), a downfloater being the lowest of its group and meeting the highest of the
group below. Colours are
allocated by C.04.3 E (both preferences; the stronger; alternate to the last round the two
had different colours; the higher ranked's; the higher ranked's pairing number odd: home).

Why our own engine on ``networkx.max_weight_matching`` rather than a library: the pairing
is the competition core of the project (kept pure here), and the two Dutch-system packages on
PyPI are young single-author projects made for chess (white/black, 1-½-0 scores, the float
history left to the caller), neither shipping its tests: ``caissify-pairings`` 0.5.0
(Apache-2.0, 13 releases, checked against bbpPairings by its author, itself built on
networkx) and ``pairing-core`` 0.4.1 (MIT, one release, a release candidate by its README).
networkx (BSD) is well kept; the rules above are ours to test, and the property test in
``tests/leagues/rules/test_swiss.py`` holds every round to them. Each weight is the
lexicographic order of the criteria packed in one integer, so one matching settles them all.

Scores are the competition's points (3-1-0 or any); they are compared in half points.
"""
from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import networkx as nx

from leagues.rules.i18n import gettext as _
from leagues.rules.i18n import gettext_noop

HOME, AWAY = "H", "A"

RULES: dict[str, str] = {
    "entrants": gettext_noop("a round needs at least two entrants to pair"),
    "rematch": gettext_noop("no two entrants meet twice"),
    "second_bye": gettext_noop("no entrant gets a second bye while another has none"),
    "colours": gettext_noop("no entrant plays home (or away) three times running, nor ends a round with its homes and aways more than two apart"),
}


class NoLegalPairing(ValueError):
    """No pairing of the round meets the absolute rules. ``rule``: a key of ``RULES``, the first
    of rematch, second_bye, colours that cannot be met even alone with those before it."""

    def __init__(self, rule: str):
        self.rule = rule
        super().__init__(_("no legal pairing: %(rule)s") % {"rule": _(RULES[rule])})


class Game(NamedTuple):
    """One fixture of a round played: ``away`` None is a bye for ``home`` (it counts the
    ``bye_points`` given to ``pair_round``; ``home_points`` is then ignored). Points are the
    competition's (3 for a win, or 1, or anything).

    ``away`` None with ``allocated`` False is a round ``home`` was not paired in and that was
    not the pairing's bye (a bye it asked for, an absence): it scores ``home_points``, it does
    not count as the bye (C.04.1 c), and like any round not played it is a downfloat
    (C.04.3 A.4 b). A fixture with ``played`` False is a walkover: its points count and the two
    have met, but it gives neither a colour (only played games do, C.04.3 A.6) and, not
    played, it is a downfloat for both."""

    round: int
    home: Hashable
    away: Hashable | None
    home_points: float = 0
    away_points: float = 0
    allocated: bool = True
    played: bool = True


@dataclass(frozen=True)
class SwissRound:
    pairs: list[tuple[Hashable, Hashable]]  # (home, away), the top board first
    bye: Hashable | None = None


@dataclass
class _State:
    seed: int  # 0 = the top of the seeding
    score: float = 0
    colours: dict[int, str] = field(default_factory=dict)  # round -> H/A, played games only
    opponents: set = field(default_factory=set)
    byes: int = 0
    last_float: int = 0  # in the previous round: +1 up, -1 down (a bye is a downfloat), 0

    def sequence(self) -> list[str]:
        return [self.colours[r] for r in sorted(self.colours)]

    def difference(self) -> int:
        seq = self.colours.values()
        return sum(1 for c in seq if c == HOME) - sum(1 for c in seq if c == AWAY)

    def may(self, colour: str, *, running: bool = True, difference: bool = True) -> bool:
        """Whether playing ``colour`` keeps the absolute colour rules."""
        seq = self.sequence()
        if running and seq[-2:] == [colour, colour]:
            return False
        step = 1 if colour == HOME else -1
        return not (difference and abs(self.difference() + step) > 2)

    def preference(self) -> tuple[str | None, int]:
        """(colour, strength): 3 absolute, 2 strong, 1 mild, 0 none (C.04.3 A.6)."""
        seq, diff = self.sequence(), self.difference()
        if diff >= 2 or seq[-2:] == [HOME, HOME]:
            return AWAY, 3
        if diff <= -2 or seq[-2:] == [AWAY, AWAY]:
            return HOME, 3
        if diff:
            return (AWAY if diff > 0 else HOME), 2
        if seq:
            return (AWAY if seq[-1] == HOME else HOME), 1
        return None, 0


def _other(colour: str) -> str:
    return AWAY if colour == HOME else HOME


def _states(entrants: Sequence[Hashable], games: Iterable[Game], round_no: int,
            bye_points: float) -> dict:
    states = {e: _State(seed=i) for i, e in enumerate(entrants)}
    if len(states) != len(entrants):
        raise ValueError(_("an entrant is given twice"))
    by_round: dict[int, list[Game]] = {}
    for game in games:
        for who in (game.home, game.away):
            if who is not None and who not in states:
                raise ValueError(_("a game names an entrant not in the competition: %(who)r") % {"who": who})
        if not 1 <= game.round < round_no:
            raise ValueError(_("a game of round %(round)s is not before round %(next)s")
                             % {"round": game.round, "next": round_no})
        by_round.setdefault(game.round, []).append(game)
    for rnd in sorted(by_round):
        before = {e: s.score for e, s in states.items()}
        seen: set = set()
        for game in by_round[rnd]:
            for who in (game.home, game.away):
                if who in seen:
                    raise ValueError(_("%(who)r plays twice in round %(round)s") % {"who": who, "round": rnd})
                if who is not None:
                    seen.add(who)
            home = states[game.home]
            if game.away is None:
                home.byes += game.allocated
                home.score += bye_points if game.allocated else game.home_points
                if rnd == round_no - 1:
                    home.last_float = -1
                continue
            away = states[game.away]
            home.opponents.add(game.away)
            away.opponents.add(game.home)
            home.score += game.home_points
            away.score += game.away_points
            if not game.played:
                if rnd == round_no - 1:
                    home.last_float = away.last_float = -1
                continue
            home.colours[rnd], away.colours[rnd] = HOME, AWAY
            if rnd == round_no - 1:
                gap = before[game.home] - before[game.away]
                home.last_float = -1 if gap > 0 else (1 if gap < 0 else 0)
                away.last_float = -home.last_float
    return states


def _allocate(a: _State, b: _State, options: list[str], prefs: tuple[tuple, tuple]) -> str:
    """The colour of ``a`` (ranked above ``b``) by C.04.3 E, among the legal ``options``;
    ``prefs``: the two preferences (``_State.preference``)."""
    if len(options) == 1:
        return options[0]
    (ca, sa), (cb, sb) = prefs
    if ca is None and cb is None:
        return HOME if a.seed % 2 == 0 else AWAY  # E.5: the higher ranked's pairing number odd: home
    if cb is None or (ca is not None and ca != cb):
        return ca  # E.1: both preferences granted
    if ca is None:
        return _other(cb)
    if sa != sb:
        return ca if sa > sb else _other(cb)  # E.2: the stronger preference
    if sa == 3 and abs(a.difference()) != abs(b.difference()):  # E.2: topscorers, the wider difference
        return ca if abs(a.difference()) > abs(b.difference()) else _other(cb)
    for rnd in sorted(set(a.colours) & set(b.colours), reverse=True):
        if a.colours[rnd] != b.colours[rnd]:
            return _other(a.colours[rnd])  # E.3: alternate to the last round they differed
    return ca  # E.4: the higher ranked's preference


def pair_round(
    entrants: Sequence[Hashable],
    games: Iterable[Game],
    *,
    round_no: int,
    rounds: int,
    bye_points: float,
    win_points: float = 3,
    withdrawn: Collection[Hashable] = (),
) -> SwissRound:
    """Pairs round ``round_no`` of ``rounds``. ``entrants``: ids in seeding order (the top seed
    first; a late entrant is one with no games, at zero points); ``games``: the rounds played;
    ``withdrawn``: not paired again. ``win_points`` tells the last round's topscorers.

    Raises ``NoLegalPairing`` (its ``rule``) when the absolute rules cannot all be met, and
    ``ValueError`` for a game naming an unknown entrant or a round out of order.
    """
    if not 1 <= round_no <= rounds:
        raise ValueError(_("round %(round)s is not one of 1 to %(rounds)s") % {"round": round_no, "rounds": rounds})
    states = _states(entrants, games, round_no, bye_points)
    out = set(withdrawn)
    active = sorted((e for e in entrants if e not in out), key=lambda e: (-states[e].score, states[e].seed))
    if len(active) < 2:
        raise NoLegalPairing("entrants")
    graph = _graph(active, states, round_no=round_no, rounds=rounds, win_points=win_points)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < len(active) + len(active) % 2:
        raise NoLegalPairing(_diagnose(active, states))
    bye = None
    pairs = []
    for u, v in matching:
        if _BYE in (u, v):
            bye = v if u is _BYE else u
            continue
        pairs.append(graph.edges[u, v]["pair"])
    pairs.sort(key=lambda p: min((-states[e].score, states[e].seed) for e in p))
    return SwissRound(pairs=pairs, bye=bye)


# the quality criteria of an edge's cost, the first weighing most (each packed above the sum of
# all the later ones over a whole round): first, for each score group from the top, the pairs
# floating out of it and how far above the group their higher scorer stands (C.5, C.6), then
_CRITERIA = ("topscorer_colour_break", "strong_colour", "mild_colour", "repeated_float", "downfloater_rank",
             "half_order")


class _Bye:
    def __repr__(self) -> str:
        return "BYE"


_BYE = _Bye()


def _topscorer(state: _State, *, round_no: int, rounds: int, win_points: float) -> bool:
    """More than half the maximum score before the last round (C.04.3 A.7)."""
    return round_no == rounds > 1 and state.score > win_points * (round_no - 1) / 2


def _bye_candidates(active: list, states: dict) -> list:
    """Who may rest, the first choice first: no bye yet (all, if every one has had one), the
    lowest score first and within it the lowest ranked."""
    fresh = [e for e in active if not states[e].byes] or list(active)
    return sorted(fresh, key=lambda e: (states[e].score, -states[e].seed))


def _legal(a: _State, b: _State, *, running: bool = True, difference: bool = True) -> list[str]:
    """The colours ``a`` may take against ``b`` under the absolute rules (empty: they cannot meet)."""
    return [c for c in (HOME, AWAY)
            if a.may(c, running=running, difference=difference)
            and b.may(_other(c), running=running, difference=difference)]


def _graph(active: list, states: dict, *, round_no: int, rounds: int, win_points: float) -> nx.Graph:
    position: dict = {}
    groups: dict[float, list] = {}
    levels = sorted({states[e].score for e in active}, reverse=True)  # the score groups, the top first
    level = {score: i for i, score in enumerate(levels)}
    for e in active:
        groups.setdefault(states[e].score, []).append(e)
    for members in groups.values():
        for i, e in enumerate(members):
            position[e] = (i, len(members))
    topscorer = {e: _topscorer(states[e], round_no=round_no, rounds=rounds, win_points=win_points) for e in active}
    n = len(active)
    costs: list[tuple[Hashable, Hashable, tuple[int, ...], tuple]] = []
    prefs = {e: states[e].preference() for e in active}
    may = {e: {c: states[e].may(c) for c in (HOME, AWAY)} for e in active}
    for i, x in enumerate(active):
        a = states[x]
        for y in active[i + 1:]:
            b = states[y]
            if y in a.opponents:
                continue
            options = [c for c in (HOME, AWAY) if may[x][c] and may[y][_other(c)]]
            if not options and not (topscorer[x] or topscorer[y]):
                continue  # C.3: only non-topscorers with the same absolute preference never meet
            colour = _allocate(a, b, options or [HOME, AWAY], (prefs[x], prefs[y]))
            breaks = (not may[x][colour]) + (not may[y][_other(colour)])  # C.10, C.11
            pair = (x, y) if colour == HOME else (y, x)
            gap = round(2 * abs(a.score - b.score))
            colour_cost = [0, 0]
            for me, mine in ((x, colour), (y, _other(colour))):
                want, strength = prefs[me]
                if want is None or want == mine:
                    continue
                colour_cost[0 if strength >= 2 else 1] += 1
            (pa, ma), (pb, _) = position[x], position[y]
            if gap:  # the downfloater the lowest of its group, against the highest below
                repeat = (a.last_float == -1) + (b.last_float == 1)
                floater, order = ma - 1 - pa, pb
            else:  # S1 against S2
                repeat, floater, order = 0, 0, abs(pb - pa - ma // 2)
            cost = (*_floats(a.score, b.score, levels, level), breaks, colour_cost[0], colour_cost[1], repeat, floater,
                    order)
            costs.append((x, y, cost, pair))
    pairs_max = n // 2 + 1
    width = 2 * (len(levels) - 1) + len(_CRITERIA)
    widths = [max((c[2][k] for c in costs), default=0) * pairs_max + 1 for k in range(width)]
    scale = [1] * width
    for k in range(width - 2, -1, -1):
        scale[k] = scale[k + 1] * widths[k + 1]
    packed_max = sum((w - 1) * s for w, s in zip(widths, scale, strict=True))
    ceiling = packed_max + 1
    graph = nx.Graph()
    graph.add_nodes_from(active)
    for x, y, cost, pair in costs:
        packed = sum(c * s for c, s in zip(cost, scale, strict=True))
        graph.add_edge(x, y, weight=ceiling - packed, pair=pair)
    if n % 2:
        candidates = _bye_candidates(active, states)
        for k, e in enumerate(candidates):
            graph.add_edge(_BYE, e, weight=ceiling + (ceiling + packed_max) * (len(candidates) - k))
    return graph


def _floats(x: float, y: float, levels: list, level: dict) -> list[int]:
    """The float part of a pair's cost: two figures for each boundary between a score group and
    the next one down (the top first), 1 and the higher scorer's height above the group (in half
    points) when the pair crosses it, else 0 and 0. Minimised group by group from the top, this
    is the Dutch system's bracket order: the fewest downfloaters out of each group, then the
    lowest of them (C.04.3 C.5, C.6 and its PSD, A.8), so that a player floats one group down
    rather than a leader several."""
    high, low = max(x, y), min(x, y)
    out = [0] * (2 * (len(levels) - 1))
    for i in range(level[high], level[low]):
        out[2 * i] = 1
        out[2 * i + 1] = round(2 * (high - levels[i]))
    return out


def _perfect(active: list, states: dict, *, eligible_bye: bool, running: bool, difference: bool) -> bool:
    graph = nx.Graph()
    graph.add_nodes_from(active)
    for i, x in enumerate(active):
        for y in active[i + 1:]:
            if y not in states[x].opponents and _legal(states[x], states[y], running=running, difference=difference):
                graph.add_edge(x, y)
    if len(active) % 2:
        graph.add_edges_from((_BYE, e) for e in (_bye_candidates(active, states) if eligible_bye else active))
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(active) + len(active) % 2


def _diagnose(active: list, states: dict) -> str:
    """The first absolute rule that cannot be met with the ones before it."""
    if not _perfect(active, states, eligible_bye=False, running=False, difference=False):
        return "rematch"
    if not _perfect(active, states, eligible_bye=True, running=False, difference=False):
        return "second_bye"
    return "colours"
