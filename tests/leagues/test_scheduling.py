"""Pairings (COMPETITIONS.md §2): the FIDE Berger tables, seeded brackets, snake groups."""
from itertools import combinations

import pytest

from leagues.rules.pairings import (
    berger_rounds,
    bracket_order,
    crossover,
    knockout_first_round,
    knockout_round_names,
    round_robin,
    snake_groups,
)


def table(text: str) -> list[list[tuple[int, int]]]:
    return [[tuple(int(x) for x in p.split("-")) for p in line.split()] for line in text.strip().splitlines()]


FIDE = {
    4: table("""
        1-4 2-3
        4-3 1-2
        2-4 3-1
    """),
    # COMPETITIONS.md §2, literally.
    6: table("""
        1-6 2-5 3-4
        6-4 5-3 1-2
        2-6 3-1 4-5
        6-5 1-4 2-3
        3-6 4-2 5-1
    """),
    8: table("""
        1-8 2-7 3-6 4-5
        8-5 6-4 7-3 1-2
        2-8 3-1 4-7 5-6
        8-6 7-5 1-4 2-3
        3-8 4-2 5-1 6-7
        8-7 1-6 2-5 3-4
        4-8 5-3 6-2 7-1
    """),
    10: table("""
        1-10 2-9 3-8 4-7 5-6
        10-6 7-5 8-4 9-3 1-2
        2-10 3-1 4-9 5-8 6-7
        10-7 8-6 9-5 1-4 2-3
        3-10 4-2 5-1 6-9 7-8
        10-8 9-7 1-6 2-5 3-4
        4-10 5-3 6-2 7-1 8-9
        10-9 1-8 2-7 3-6 4-5
        5-10 6-4 7-3 8-2 9-1
    """),
}


@pytest.mark.parametrize("n", sorted(FIDE))
def test_berger_tables_equal_the_fide_handbook(n):
    assert berger_rounds(n) == FIDE[n]


def test_six_entrants_reproduce_the_table_of_the_spec_literally():
    assert [" ".join(f"{h}-{a}" for h, a in r) for r in berger_rounds(6)] == [
        "1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1",
    ]


@pytest.mark.parametrize("n", range(3, 17))
def test_berger_tables_for_3_to_16_follow_the_fide_construction(n):
    size = n + n % 2
    rounds = berger_rounds(n)
    assert len(rounds) == size - 1
    met = set()
    for r, boards in enumerate(rounds, start=1):
        assert sorted(x for pair in boards for x in pair) == list(range(1, size + 1))
        # Board 1: the highest number, away in odd rounds and at home in even ones (C.05 Annex 1).
        a = (r + 1) // 2 if r % 2 else size // 2 + r // 2
        assert boards[0] == ((a, size) if r % 2 else (size, a))
        # The other boards pair a + j (home) with a - j, counted in 1..size-1.
        for j, (home, away) in enumerate(boards[1:], start=1):
            assert home == (a + j - 1) % (size - 1) + 1
            assert away == (a - j - 1) % (size - 1) + 1
        met |= {frozenset(p) for p in boards}
    assert met == {frozenset(p) for p in combinations(range(1, size + 1), 2)}
    # Home and away balance: nobody has more than one home game more than away games.
    for player in range(1, size + 1):
        home = sum(1 for boards in rounds for h, _ in boards if h == player)
        assert abs(home - (size - 1 - home)) <= 1


def test_odd_count_gives_the_highest_number_the_bye():
    rounds = round_robin(5)
    assert len(rounds) == 5
    # Round 1 of the 6-table is 1-6 2-5 3-4: entrant 1 rests.
    assert rounds[0] == [(1, None), (2, 5), (3, 4)]
    for boards in rounds:
        assert sum(1 for _, a in boards if a is None) == 1


def test_double_round_robin_repeats_with_home_and_away_swapped():
    rounds = round_robin(4, double=True)
    assert rounds[3:] == [[(a, h) for h, a in boards] for boards in rounds[:3]]


def test_bracket_order_for_8_and_16():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(ValueError):
        bracket_order(6)


@pytest.mark.parametrize(("n", "byes"), [(5, {1, 2, 3}), (6, {1, 2}), (7, {1}), (8, set()), (12, {1, 2, 3, 4})])
def test_byes_go_to_the_top_seeds(n, byes):
    pairings = knockout_first_round(n)
    assert {h for h, a in pairings if a is None} | {a for h, a in pairings if h is None} == byes
    assert sorted(x for p in pairings for x in p if x is not None) == list(range(1, n + 1))


def test_knockout_first_round_of_eight_and_round_names():
    assert knockout_first_round(8) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    assert knockout_round_names(4) == ["Round of 16", "Quarter-finals", "Semi-finals", "Final"]


def test_snake_seeding():
    assert snake_groups(8, 2) == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert snake_groups(12, 4) == [[1, 8, 9], [2, 7, 10], [3, 6, 11], [4, 5, 12]]
    with pytest.raises(ValueError):
        snake_groups(3, 2)


def test_crossover_puts_group_winners_against_the_other_groups_runners_up():
    # A1-B2, B1-A2
    assert crossover(2, 2) == [((0, 1), (1, 2)), ((1, 1), (0, 2))]
    assert crossover(4, 2) == [((0, 1), (1, 2)), ((2, 1), (3, 2)), ((1, 1), (0, 2)), ((3, 1), (2, 2))]
    assert crossover(4, 1) == [((0, 1), (1, 1)), ((2, 1), (3, 1))]
    with pytest.raises(ValueError):
        crossover(3, 2)
