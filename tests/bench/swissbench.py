"""Benchmark of the Swiss pairing engine (``leagues.rules.swiss``; not a test).

``python -m tests.bench.swissbench [--sizes 64,256] [--opens 3] [--seed 1]``

For each size, ``--opens`` random opens (results won, drawn and lost at random, 3-1-0 points,
a withdrawal now and then) are paired round after round, ``log2(n) + 2`` rounds; every
round's pairing is timed (``time.perf_counter``, the engine alone: the history is built
before the clock starts). Printed per size: the rounds paired, the median and the slowest
round, against the targets of 1 s for 64 entrants and 10 s for 256 (round 1 included).
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

from django.conf import settings

if not settings.configured:  # the pure core's gettext needs settings, the bench no more than these
    settings.configure(USE_I18N=False)

from leagues.rules.swiss import Game, pair_round  # noqa: E402 - after the settings it reads

TARGETS = {64: 1.0, 256: 10.0}
POINTS = {"h": (3, 0), "d": (1, 1), "a": (0, 3)}


def one_open(n: int, rng: random.Random) -> list[float]:
    """The seconds each round of one random open of ``n`` took to pair."""
    entrants = list(range(n))
    withdrawn: set = set()
    games: list[Game] = []
    rounds = int(math.log2(n)) + 2
    took = []
    for round_no in range(1, rounds + 1):
        if round_no > 1 and rng.random() < 0.3:
            withdrawn.add(rng.choice(entrants))
        start = time.perf_counter()
        paired = pair_round(entrants, games, round_no=round_no, rounds=rounds, bye_points=3,
                            withdrawn=withdrawn)
        took.append(time.perf_counter() - start)
        for home, away in paired.pairs:
            games.append(Game(round_no, home, away, *POINTS[rng.choice("hhdaa")]))
        if paired.bye is not None:
            games.append(Game(round_no, paired.bye, None))
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,256")
    parser.add_argument("--opens", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    failed = False
    for n in (int(s) for s in args.sizes.split(",")):
        took = [t for _ in range(args.opens) for t in one_open(n, rng)]
        target = TARGETS.get(n)
        verdict = "" if target is None else (" ok" if max(took) <= target else " OVER")
        failed |= verdict == " OVER"
        print(f"{n:4d} entrants: {len(took)} rounds paired, median {statistics.median(took):.3f} s, "
              f"slowest {max(took):.3f} s" + (f" (target {target:g} s){verdict}" if target else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
