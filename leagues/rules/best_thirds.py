"""Groups then knockout with the best next-placed entrants (COMPETITIONS.md §2, §9). No ORM.

A ``groups_knockout`` competition sends the top ``qualifiers`` of each group to the knockout and,
with ``best`` (``best_thirds``) above 0, that many of the groups' next-placed entrants too (the
third-placed when two go through per group): 3 groups x 2 + 2 = 8, 6 x 2 + 4 = 16, 5 x 2 + 6 = 16.
This module holds the three pure parts:

- ``layout(groups, qualifiers, best)``: the first knockout round, drawn before the groups are
  played, as pairs of sides: a group place (``GroupPlace``, "A1"), a slot for a next-placed
  entrant (``NextSlot``) or a bye (``None``, to the top seeds when the total is not a power of
  two). Without best next-placed and with 1 or 2 per group making a power of two it is today's
  crossover (``leagues.rules.pairings.crossover``); 6 groups x 2 + 4 is UEFA's bracket
  (``UEFA_SIX_GROUPS``); anything else is seeded (``_seeded``).
- ``allocate(layout, qualified)``: which group's next-placed fills each ``NextSlot``, once they
  are known: UEFA's published table where one exists, else the stated rule of ``_matched``
  (never two entrants of the same group in the first round).
- ``next_placed_ranking(groups, place, criteria, ...)``: the next-placed ranked across the groups
  on what is comparable (``COMPARABLE``: points, wins, goals, discipline, lots; head-to-head is
  not), with UEFA's rule for groups of unequal size: the results against the entrants placed
  below the size of the smallest group are left out.

Stored keys (``Fixture.home_source``/``away_source``): a group place is the group's name and the
place, "A1"; a next-placed slot is ``"<place>#<slot>"``, "3#1" (place 3, slot 1; a group's name
never begins with a digit). The fixture's label names the slot for people, in English like
every stored label: "B1 v 3rd of A/D/E/F" (the groups whose next-placed may fill it), or
"A1 v 3rd #2" when more than eight groups could; ``matches.names.shown`` translates it.
"""
from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from leagues.rules import pairings
from leagues.rules.i18n import gettext as _
from leagues.rules.standings import CRITERIA, MatchLine, Points, lots_ticket


@dataclass(frozen=True)
class GroupPlace:
    group: int  # the group's index: 0 is A
    place: int  # 1-based


@dataclass(frozen=True)
class NextSlot:
    slot: int  # 1-based: the seed order of the generic rule, or the published table's column


Side = GroupPlace | NextSlot | None
Pairing = tuple[Side, Side]

# UEFA EURO 2020 and EURO 2024 (six groups of four, the top two and the four best third-placed
# to a round of 16): Regulations of the UEFA European Championship 2018-20, art. 20.03, and
# 2022-24, art. 20.03 ("the table ... depending on which third-placed teams qualify"), as
# quoted in wernerholzapfel/hetekspelapp, src/app/pages/predictions_tab/knockout/knockout.page.ts,
# and checked against the rounds of 16 played (EURO 2020: A, C, D, F -> 1B v 3F, 1C v 3D,
# 1E v 3C, 1F v 3A; EURO 2024: C, D, E, F -> 1B v 3F, 1C v 3E, 1E v 3D, 1F v 3C; uefa.com).
# Key: the groups whose thirds qualify; value: the groups of the thirds that meet the winners
# of B, C, E and F (slots 1, 2, 3, 4). EURO 2016 had another table (1A, 1B, 1C, 1D).
UEFA_THIRDS_TABLE: dict[str, str] = {
    "ABCD": "ADBC", "ABCE": "AEBC", "ABCF": "AFBC", "ABDE": "DEAB", "ABDF": "DFAB",
    "ABEF": "EFBA", "ACDE": "EDCA", "ACDF": "FDCA", "ACEF": "EFCA", "ADEF": "EFDA",
    "BCDE": "EDBC", "BCDF": "FDCB", "BCEF": "FECB", "BDEF": "FEDB", "CDEF": "FEDC",
}
_A, _B, _C, _D, _E, _F = range(6)
# The EURO 2020/2024 round of 16 in bracket order (neighbours meet in the quarter-finals:
# matches 39 v 37, 43 v 44, 41 v 42, 40 v 38; the first four and the last four in the semis).
UEFA_SIX_GROUPS: tuple[Pairing, ...] = (
    (GroupPlace(_C, 1), NextSlot(2)), (GroupPlace(_A, 2), GroupPlace(_B, 2)),
    (GroupPlace(_E, 1), NextSlot(3)), (GroupPlace(_D, 1), GroupPlace(_F, 2)),
    (GroupPlace(_D, 2), GroupPlace(_E, 2)), (GroupPlace(_F, 1), NextSlot(4)),
    (GroupPlace(_B, 1), NextSlot(1)), (GroupPlace(_A, 1), GroupPlace(_C, 2)),
)

_SEARCH_LIMIT = 20000  # orders tried by the seeded layout before it gives up
_MANY = 8  # a label lists at most this many groups


@dataclass(frozen=True)
class Layout:
    """The first knockout round after the groups: ``pairs`` in bracket order, ``place`` the
    place of the next-placed (qualifiers + 1), ``published`` whether UEFA's table allocates."""

    groups: int
    qualifiers: int
    best: int
    pairs: tuple[Pairing, ...]
    published: bool = False

    @property
    def place(self) -> int:
        return self.qualifiers + 1

    def opponent(self, slot: int) -> Side:
        for home, away in self.pairs:
            if home == NextSlot(slot):
                return away
            if away == NextSlot(slot):
                return home
        raise KeyError(slot)

    def candidates(self, slot: int) -> tuple[int, ...]:
        """The groups whose next-placed may fill ``slot``."""
        if self.published:
            return tuple(sorted({ord(row[slot - 1]) - ord("A") for row in UEFA_THIRDS_TABLE.values()}))
        faced = self.opponent(slot)
        return tuple(g for g in range(self.groups)
                     if not (isinstance(faced, GroupPlace) and faced.group == g and self.groups > 1))


def settings_errors(groups: int, qualifiers: int, best: int, *, entrants: int | None = None) -> str | None:
    """Why ``groups`` x ``qualifiers`` + ``best`` cannot make a knockout (a sentence about
    ``best``: ``layout``'s refusals, and, when the number of ``entrants`` is known and makes the
    groups, ``best`` more than the groups hold below their qualifiers), or ``None``."""
    try:
        layout(groups, qualifiers, best)
    except ValueError as exc:
        return str(exc)
    if best and entrants is not None and entrants >= 2 * groups:
        below = sum(max(0, len(seeds) - qualifiers) for seeds in pairings.snake_groups(entrants, groups))
        if below < best:
            return places_short(best)
    return None


def places_short(best: int) -> str:
    return _("the groups hold fewer than %(best)s entrants below their qualifiers") % {"best": best}


def layout(groups: int, qualifiers: int, best: int = 0) -> Layout:
    """The first knockout round for ``groups`` groups, their top ``qualifiers`` and ``best``
    next-placed entrants (see the module; ``best`` may pass the number of groups: then every
    group's next-placed goes through and the best of the place after fill the rest, as in 5
    groups x 2 + 6: the five thirds and the best fourth). Raises ``ValueError`` (a sentence an
    organiser can act on) when ``groups`` < 1, ``qualifiers`` < 1, ``best`` < 0, the total is
    below 2, a single next-placed entrant would have to meet a group place of its own group
    in some outcome (``best`` 1 with two groups or more), or no seeded order keeps the entrants
    of one group apart in the first round. Whether the groups hold ``best`` entrants below
    their qualifiers depends on their sizes: ``places_short``."""
    if groups < 1:
        raise ValueError(_("at least one group"))
    if qualifiers < 1:
        raise ValueError(_("at least one qualifier per group"))
    if best < 0:
        raise ValueError(_("the best next-placed cannot be fewer than none"))
    total = groups * qualifiers + best
    if total < 2:
        raise ValueError(_("a knockout needs at least 2 qualifiers"))
    if best == 1 and groups > 1:
        raise ValueError(_("a single next-placed entrant could meet an entrant of its own group: "
                           "choose none, or at least 2"))
    if best == 0 and qualifiers in (1, 2) and not total & (total - 1):
        pairs = pairings.crossover(groups, qualifiers)
        return Layout(groups, qualifiers, 0, tuple((GroupPlace(*a), GroupPlace(*b)) for a, b in pairs))
    if (groups, qualifiers, best) == (6, 2, 4):
        return Layout(6, 2, 4, UEFA_SIX_GROUPS, published=True)
    return Layout(groups, qualifiers, best, _seeded(groups, qualifiers, best))


def _seeded(groups: int, qualifiers: int, best: int) -> tuple[Pairing, ...]:
    """A seeded bracket (``pairings.knockout_first_round``; byes to the top seeds): seeds 1..G
    the group winners A1, B1, ...; then each next place, in a rotation or reversal of the
    groups' order; then the next-placed slots 1..``best``, so that the winners meet the
    next-placed first. The first orders (winners as they are, then each place's order by
    rotation 0, 1, ..., then reversed) in which no two known places of one group meet, and no
    group faces more slots than ``best`` less the next-placed it may send (1, or 2 when ``best``
    passes the groups), are taken: those keep an allocation possible whatever groups the
    next-placed come from (Hall's condition: next-placed of two groups or more may take any
    slot, since a slot keeps out one group; those of one group g have the slots not facing g)."""
    total = groups * qualifiers + best
    first = pairings.knockout_first_round(total)
    orders = [list(range(groups))]
    for shift in range(groups):
        rotated = [(g + shift) % groups for g in range(groups)]
        orders.append(rotated)
        orders.append(rotated[::-1])
    orders = [o for i, o in enumerate(orders) if o not in orders[:i]]
    tried = 0

    def sides(tiers: list[list[int]]) -> list[Side | int]:
        out: list = []
        for place, order in enumerate(tiers, start=1):
            out += [GroupPlace(g, place) for g in order]
        out += [None] * (groups * (qualifiers - len(tiers)))  # tiers still to choose
        return out + [NextSlot(k) for k in range(1, best + 1)]

    def fits(seeds: list) -> bool:
        if groups == 1:
            return True
        faced: list[int] = []
        for a, b in first:
            home, away = seeds[a - 1], None if b is None else seeds[b - 1]
            if isinstance(home, GroupPlace) and isinstance(away, GroupPlace) and home.group == away.group:
                return False
            for mine, other in ((home, away), (away, home)):
                if isinstance(mine, NextSlot) and isinstance(other, GroupPlace):
                    faced.append(other.group)
        most = best // groups + (1 if best % groups else 0)  # next-placed one group may have
        return all(faced.count(g) <= best - most for g in set(faced))

    def search(tiers: list[list[int]]) -> list | None:
        nonlocal tried
        tried += 1
        if tried > _SEARCH_LIMIT:
            return None
        seeds = sides(tiers)
        if not fits(seeds):
            return None
        if len(tiers) == qualifiers:
            return seeds
        for order in orders:
            found = search([*tiers, order])
            if found is not None:
                return found
        return None

    seeds = search([list(range(groups))])
    if seeds is None:
        raise ValueError(_("%(groups)s groups x %(qualifiers)s qualifiers + %(best)s cannot make a bracket that "
                           "keeps the entrants of a group apart") % {"groups": groups, "qualifiers": qualifiers,
                                                                     "best": best})
    return tuple((seeds[a - 1], None if b is None else seeds[b - 1]) for a, b in first)


def allocate(plan: Layout, qualified: Sequence[int]) -> dict[int, int]:
    """Slot -> index in ``qualified``: who fills each ``NextSlot`` of ``plan``, given the groups
    of the ``plan.best`` next-placed entrants that qualify, best first (a group twice when
    ``best`` passes the number of groups: its next-placed and the one after).

    With UEFA's layout, the published table (``UEFA_THIRDS_TABLE``). Otherwise the stated rule:
    the next-placed take the slots in rank order, the best the lowest slot (slot k is seed
    G x Q + k, which meets the k-th lowest seeded winner), each passing over a slot whose
    opponent is of its own group or that would leave the ones after it no allocation; the
    first such allocation in that order is taken. Raises ``ValueError`` when ``qualified``
    does not hold ``plan.best`` groups, or (UEFA's table) four different groups of A-F."""
    groups = list(qualified)
    if len(groups) != plan.best:
        raise ValueError(f"{plan.best} groups expected, not {groups}")
    if plan.published:
        key = "".join(sorted(pairings.group_letter(g) for g in groups))
        return {slot: groups.index(ord(letter) - ord("A"))
                for slot, letter in enumerate(UEFA_THIRDS_TABLE[key], start=1)}
    return _matched(plan, groups)


def _matched(plan: Layout, groups: list[int]) -> dict[int, int]:
    allowed = {slot: set(plan.candidates(slot)) for slot in range(1, plan.best + 1)}
    taken: dict[int, int] = {}

    def place(i: int) -> bool:
        if i == len(groups):
            return True
        for slot in range(1, plan.best + 1):
            if slot not in taken and groups[i] in allowed[slot]:
                taken[slot] = i
                if place(i + 1):
                    return True
                del taken[slot]
        return False

    if not place(0):
        raise ValueError(f"no allocation keeps the groups {groups} apart")
    return dict(sorted(taken.items()))


# --- the stored keys and the labels ---------------------------------------------------------

_NEXT_CODE = re.compile(r"^(\d+)#(\d+)$")
_PLACE_CODE = re.compile(r"^(.*?)(\d+)$")
NEXT_GROUP_PREFIX = "#"  # ("#3", 1): the key of slot 1 of the 3rd-placed among the group places


def side_code(side: Side, plan: Layout) -> str:
    """The stored key of a side: "A1", "3#1", or "" for a bye."""
    if side is None:
        return ""
    if isinstance(side, NextSlot):
        return f"{plan.place}#{side.slot}"
    return f"{pairings.group_letter(side.group)}{side.place}"


def parse_code(code: str) -> tuple[str, int]:
    """A stored key as the (group, place) key of the group places: "A1" -> ("A", 1), "B12" ->
    ("B", 12), and a next-placed slot "3#2" -> ("#3", 2). Raises ``ValueError`` for another shape."""
    if match := _NEXT_CODE.match(code):
        return f"{NEXT_GROUP_PREFIX}{match[1]}", int(match[2])
    if match := _PLACE_CODE.match(code):
        return match[1], int(match[2])
    raise ValueError(f"not a group place: {code!r}")


def english_ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def side_label(side: Side, plan: Layout) -> str:
    """A side as the stored label names it: "A1", "3rd of A/D/E/F", "3rd #2" (more than eight
    groups), "3rd-4th of B/C/D/E" (more next-placed than groups), "" for a bye."""
    if not isinstance(side, NextSlot):
        return side_code(side, plan)
    groups = plan.candidates(side.slot)
    places = english_ordinal(plan.place)
    if plan.best > plan.groups:  # the place after too: "3rd-4th"
        places += f"-{english_ordinal(plan.place + (plan.best - 1) // plan.groups)}"
    if len(groups) > _MANY:
        return f"{places} #{side.slot}"
    return f"{places} of {'/'.join(pairings.group_letter(g) for g in groups)}"


def pairing_label(pair: Pairing, plan: Layout) -> str:
    """A first-round fixture's stored label: "A1 v B2", "B1 v 3rd of A/D/E/F", "A1" (a bye)."""
    home, away = (side_label(side, plan) for side in pair)
    return f"{home} v {away}" if away else home


# --- ranking the next-placed across the groups ----------------------------------------------

COMPARABLE = ("points", "wins", "goal_difference", "goals_for", "goals_against", "discipline", "lots")


@dataclass(frozen=True)
class GroupResults:
    """One group: its name, its entrants in table order (id, name), and its results."""

    name: str
    ranked: Sequence[tuple[Hashable, str]]
    lines: Sequence[MatchLine]


@dataclass
class NextRow:
    entrant: Hashable
    name: str
    group: str
    place: int  # its place in its group (3: a third-placed)
    position: int = 0  # among the entrants at its place across the groups
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0
    points: int = 0
    discipline: int = 0
    tiebreak: str = ""
    tiebreak_criterion: str = ""
    shared: bool = False
    qualifies: bool = False

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against


@dataclass(frozen=True)
class NextRanking:
    """The next-placed ranked: ``rows`` best first, place by place (the thirds, then, when
    ``best`` passes the groups, the fourths), ``qualifies`` on the ``best`` that go through;
    ``criteria`` the keys used; ``left_out_below`` the size of the smallest group when the
    results against the entrants placed below it were left out in the last place ranked (else
    ``None``); ``decided`` whether the cut between the qualifiers and the rest is made (not
    shared); ``short`` whether the groups hold fewer than ``best`` entrants below their
    qualifiers."""

    rows: list[NextRow]
    criteria: tuple[str, ...]
    left_out_below: int | None = None
    decided: bool = True
    short: bool = False
    lots_drawn: dict = field(default_factory=dict)

    @property
    def qualified(self) -> list[NextRow]:
        return [row for row in self.rows if row.qualifies]


def comparable_criteria(criteria: Sequence[str]) -> tuple[str, ...]:
    """The competition's criteria that compare entrants of different groups, points first:
    the head-to-head ones (and the Swiss ones) are dropped."""
    kept = [key for key in criteria if key in COMPARABLE and key != "points"]
    return ("points", *kept)


def next_placed_ranking(
    groups: Sequence[GroupResults],
    place: int,
    criteria: Sequence[str],
    *,
    best: int,
    points: Points = Points(),  # noqa: B008 - a frozen value
    seed: int = 0,
    lots: Mapping[Hashable, int] | None = None,
    passed_over: frozenset | set = frozenset(),
) -> NextRanking:
    """The entrants at ``place`` (1-based) of each group (``passed_over``, the withdrawn,
    skipped when counting places) ranked by ``comparable_criteria(criteria)`` on their group
    results, the top ``best`` marked ``qualifies``; when ``best`` passes the groups holding
    ``place``, all of them qualify and the entrants at the place after are ranked for the rest.
    When the groups holding a place differ in size, the results against the entrants placed
    below the smallest's size are left out (UEFA's rule, e.g. EURO 2016 qualifying, art. 13.06:
    "the results against the sixth-placed team are not taken into account"). Each row says,
    like a standings row, why it stands above the next one of its place level on points."""
    keys = comparable_criteria(criteria)
    recorded, drawn = dict(lots or {}), {}
    rows: list[NextRow] = []
    left_out: int | None = None
    decided, quota = True, best
    while quota > 0:
        tier, left_out, decided = _tier(groups, place, keys, quota, points=points, seed=seed,
                                        recorded=recorded, drawn=drawn, passed_over=passed_over)
        if not tier:
            break
        rows += tier
        quota -= sum(row.qualifies for row in tier)
        place += 1
    return NextRanking(rows=rows, criteria=keys, left_out_below=left_out, decided=decided, short=quota > 0,
                       lots_drawn=drawn)


def _tier(groups: Sequence[GroupResults], place: int, keys: tuple[str, ...], quota: int, *, points: Points,
          seed: int, recorded: dict, drawn: dict, passed_over) -> tuple[list[NextRow], int | None, bool]:
    """The entrants at ``place`` ranked, the top ``quota`` qualifying; the size below which
    results were left out (or ``None``); whether the cut is decided."""
    holding = [g for g in groups if len([e for e, _n in g.ranked if e not in passed_over]) >= place]
    smallest = min((len(g.ranked) for g in holding), default=0)
    left_out = smallest if any(len(g.ranked) > smallest for g in holding) else None
    rows: dict[Hashable, NextRow] = {}
    for group in holding:
        entrant, name = [(e, n) for e, n in group.ranked if e not in passed_over][place - 1]
        below = {e for e, _n in group.ranked[smallest:]} if left_out else set()
        row = rows[entrant] = NextRow(entrant=entrant, name=name, group=group.name, place=place)
        for line in group.lines:
            if entrant not in (line.home, line.away):
                continue
            if line.away is None:
                row.points += points.bye
                continue
            home = line.home == entrant
            if (line.away if home else line.home) in below:
                continue
            row.played += 1
            row.discipline += line.home_discipline if home else line.away_discipline
            if line.double_loss:
                row.lost += 1
                continue
            gf, ga = (line.home_goals, line.away_goals) if home else (line.away_goals, line.home_goals)
            row.goals_for += gf
            row.goals_against += ga
            if gf > ga:
                row.won, row.points = row.won + 1, row.points + points.win
            elif gf == ga:
                row.drawn, row.points = row.drawn + 1, row.points + points.draw
            else:
                row.lost, row.points = row.lost + 1, row.points + points.loss

    def value(key: str, row: NextRow) -> int:
        if key == "lots":
            if row.entrant not in recorded:
                recorded[row.entrant] = drawn[row.entrant] = lots_ticket(seed, row.entrant)
            return recorded[row.entrant]
        return {"points": row.points, "wins": row.won, "goal_difference": row.goal_difference,
                "goals_for": row.goals_for, "goals_against": row.goals_against,
                "discipline": row.discipline}[key]

    deciders: dict[tuple, tuple[str, int, int]] = {}

    def split(block: list[NextRow], idx: int) -> list[NextRow]:
        if len(block) <= 1 or idx >= len(keys):
            return sorted(block, key=lambda r: (r.group, r.name))
        key = keys[idx]
        sign = -1 if CRITERIA[key].higher_is_better else 1
        ordered: list[NextRow] = []
        for v in sorted({value(key, r) for r in block}, key=lambda v: sign * v):
            sub = split([r for r in block if value(key, r) == v], idx + 1)
            if ordered:
                deciders[(ordered[-1].entrant, sub[0].entrant)] = (key, value(key, ordered[-1]), value(key, sub[0]))
            ordered.extend(sub)
        return ordered

    result = split(list(rows.values()), 0)
    for i, row in enumerate(result):
        row.position = i + 1
        if i and (result[i - 1].entrant, row.entrant) not in deciders:
            row.position = result[i - 1].position
            row.shared = result[i - 1].shared = True
        if i + 1 < len(result) and result[i + 1].points == row.points:
            row.tiebreak, row.tiebreak_criterion = _sentence(row, result[i + 1], deciders)
    for row in result[:quota]:
        row.qualifies = True
    decided = not (0 < quota < len(result) and result[quota].position == result[quota - 1].position)
    return result, left_out, decided


def _sentence(row: NextRow, nxt: NextRow, deciders: dict) -> tuple[str, str]:
    """The standings' sentence (``leagues.rules.standings.rank``; ``leagues.names.tiebreak_shown``
    translates it) on why ``row`` stands above ``nxt``, level on points."""
    level = f"level on {row.points} point{'' if row.points == 1 else 's'} with {nxt.name}"
    decided = deciders.get((row.entrant, nxt.entrant))
    if decided is None:
        return f"{level}; not separated by the criteria", ""
    key, mine, theirs = decided
    if key == "lots":
        return f"{level}; ahead on the drawing of lots", key
    shown = {"goal_difference": lambda v: f"{v:+d}" if v else "0", "discipline": lambda v: str(-v) if v else "0"}
    fmt = shown.get(key, str)
    return f"{level}; ahead on {CRITERIA[key].name}, {fmt(mine)} against {fmt(theirs)}", key
