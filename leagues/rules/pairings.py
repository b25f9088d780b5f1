"""Pairings as pure functions of entrant numbers (COMPETITIONS.md §2). No ORM, no Django.

Numbers are 1-based: a league's pairing numbers, a knockout's seeds. A pairing is
``(home, away)``; ``None`` on one side is a bye.
"""
from __future__ import annotations

from collections.abc import Sequence

from leagues.rules.i18n import gettext as _

Pairing = tuple[int | None, int | None]


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """The FIDE Berger tables (Handbook C.05, Annex 1) for ``n`` entrants, byes included.

    For an odd ``n`` the table for ``n + 1`` is used and the highest number, ``n + 1``, is the
    bye: its pairings are kept, so the caller sees who rests. Round r has the highest number
    on board 1 against ``a`` (``a = (r + 1) / 2`` in odd rounds, where it plays away, and
    ``n/2 + r/2`` in even rounds, at home), and boards j = 1.. pair ``a + j`` (home) with
    ``a - j``, counted modulo ``n - 1`` in 1..n-1. Raises ``ValueError`` below 2 entrants.
    """
    if n < 2:
        raise ValueError(_("a round robin needs at least 2 entrants"))
    size = n + (n % 2)
    last = size - 1  # the rotating numbers are 1..last
    half = size // 2
    rounds = []
    for r in range(1, size):
        a = (r + 1) // 2 if r % 2 else half + r // 2
        boards = [(a, size) if r % 2 else (size, a)]
        for j in range(1, half):
            boards.append(((a + j - 1) % last + 1, (a - j - 1) % last + 1))
        rounds.append(boards)
    return rounds


def round_robin(n: int, *, double: bool = False) -> list[list[Pairing]]:
    """Rounds of pairings for ``n`` entrants: the Berger table, the bye as ``None`` (on the side
    the bye number took). The double round robin repeats it with home and away swapped."""
    first = [
        [(None if h > n else h, None if a > n else a) for h, a in boards]
        for boards in berger_rounds(n)
    ]
    # Keep a bye pairing on one line: the entrant first, the bye second.
    first = [[(h, a) if h is not None else (a, None) for h, a in boards] for boards in first]
    if not double:
        return first
    second = [[(a, h) if a is not None else (h, None) for h, a in boards] for boards in first]
    return first + second


def bracket_order(size: int) -> list[int]:
    """Seeds in bracket order for a power-of-two ``size``: 8 -> 1, 8, 4, 5, 2, 7, 3, 6.

    Adjacent seeds meet in the first round; seeds 1 and 2 can only meet in the final.
    Raises ``ValueError`` unless ``size`` is a power of two of at least 2.
    """
    if size < 2 or size & (size - 1):
        raise ValueError(_("a bracket size is a power of two, not %(size)s") % {"size": size})
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def bracket_size(n: int) -> int:
    """The smallest power of two holding ``n`` entrants (at least 2)."""
    size = 2
    while size < n:
        size *= 2
    return size


def knockout_first_round(n: int) -> list[Pairing]:
    """First-round pairings of a seeded bracket of ``n`` entrants (seeds 1..n).

    When ``n`` is not a power of two the missing seeds are byes, so the byes go to the top
    seeds: 6 entrants -> (1, None), (4, 5), (2, None), (3, 6). Raises ``ValueError`` below 2.
    """
    if n < 2:
        raise ValueError(_("a knockout needs at least 2 entrants"))
    order = [seed if seed <= n else None for seed in bracket_order(bracket_size(n))]
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)]


def knockout_round_names(rounds: int) -> list[str]:
    """Names of the rounds of a bracket, first to last: ..., "Quarter-finals", "Semi-finals", "Final"."""
    names = []
    for r in range(rounds):
        left = 2 ** (rounds - r)
        names.append({2: "Final", 4: "Semi-finals", 8: "Quarter-finals"}.get(left, f"Round of {left}"))
    return names


def snake_groups(n: int, groups: int) -> list[list[int]]:
    """Seeds 1..n dealt into ``groups`` groups in serpentine order.

    4 groups of 8 seeds: A 1, 8; B 2, 7; C 3, 6; D 4, 5. Raises ``ValueError`` when a group
    would hold fewer than 2 entrants.
    """
    if groups < 1 or n < 2 * groups:
        raise ValueError(_("%(n)s entrants cannot make %(groups)s groups of at least 2") % {"n": n, "groups": groups})
    dealt: list[list[int]] = [[] for _group in range(groups)]
    for i in range(n):
        row, col = divmod(i, groups)
        dealt[col if row % 2 == 0 else groups - 1 - col].append(i + 1)
    return dealt


def crossover(groups: int, qualifiers: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """First knockout round after groups, as ((group index, place), (group index, place)).

    Group winners go on separate halves of the bracket and meet the runners-up of their paired
    group: 2 groups, top 2 -> A1-B2, B1-A2; 4 groups -> A1-B2, C1-D2, B1-A2, D1-C2. With one
    qualifier per group the winners are paired in order (A1-B1, C1-D1, ...). Raises
    ``ValueError`` unless the qualifiers make a power of two with 1 or 2 per group.
    """
    total = groups * qualifiers
    if qualifiers not in (1, 2) or total < 2 or total & (total - 1):
        raise ValueError(_("%(groups)s groups x %(qualifiers)s qualifiers cannot make a bracket") % {"groups": groups, "qualifiers": qualifiers})
    if qualifiers == 1:
        return [((g, 1), (g + 1, 1)) for g in range(0, groups, 2)]
    if groups == 1:
        return [((0, 1), (0, 2))]
    firsts = [((g, 1), (g + 1, 2)) for g in range(0, groups, 2)]
    seconds = [((g + 1, 1), (g, 2)) for g in range(0, groups, 2)]
    return firsts + seconds


def group_letter(index: int) -> str:
    return chr(ord("A") + index) if index < 26 else f"G{index + 1}"


def round_robin_for(entrants: Sequence, *, double: bool = False) -> list[list[tuple]]:
    """``round_robin`` over a sequence of entrants (pairing number i + 1 is ``entrants[i]``)."""
    return [
        [(entrants[h - 1], None if a is None else entrants[a - 1]) for h, a in boards]
        for boards in round_robin(len(entrants), double=double)
    ]
