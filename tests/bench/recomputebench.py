"""Benchmark of the standings' recomputation: everything, or one group's table (``make bench``,
not a test).

``python -m tests.bench.recomputebench [--database-url URL] [--groups 1667] [--group-size 12] [--repeat 3] [--json]``

Imports (once; kept between runs, found again by its slug) a groups stage of ``--groups``
groups of ``--group-size`` entrants, a single round robin each (``tests.bench.importbench``'s
file: 1,667 groups of 12 are 110,022 results), on a scratch PostgreSQL database (created and
migrated when missing). Then, each ``--repeat`` times (the median shown):

- **full**: ``standings_recompute(force=True)``, the organiser's repair button: every table
  ranked from every official result;
- **one group**: the worker's recomputation after one result in one group (the competition
  marked as ``results_changed(group_id=...)`` marks it: one version more, that group pending);
- **nothing pending**: the worker's call when the standings are already those of the results.

Target: one group <= 10 % of full. Exits 1 when it is missed. The load average is printed first.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.bench import importbench, loadtest

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_recomputebench"
TARGET_RATIO = 0.10


def _median_seconds(action, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("RECOMPUTE_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--groups", type=int, default=1667)
    parser.add_argument("--group-size", type=int, default=12, help="entrants a group (even; default 12)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.group_size < 2 or args.group_size % 2:
        parser.error("--group-size: an even number of 2 or more")
    loadtest.ensure_database(args.database_url)
    os.environ.update({"DATABASE_URL": args.database_url, "DEBUG": "1", "REDIS_URL": "",
                       "DJANGO_SETTINGS_MODULE": "config.settings"})
    import django

    django.setup()
    from django.core.management import call_command
    from django.db.models import F

    from leagues.models import Competition, Group, Result
    from leagues.services.standings import standings_recompute

    call_command("migrate", "--noinput", verbosity=0)
    rows = args.groups * args.group_size * (args.group_size - 1) // 2
    slug = f"recompute-{args.groups}x{args.group_size}"
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "groups.csv"
            importbench.write_rows(path, rows, size=args.group_size)
            start = time.perf_counter()
            call_command("import_results", str(path), competition=slug, create=True, name=slug,
                         format="groups_knockout", verbosity=0)
            print(f"imported {rows:,} results in {time.perf_counter() - start:.1f} s", flush=True)
        competition = Competition.objects.get(slug=slug)
    results = Result.objects.filter(fixture__competition=competition).count()
    groups = Group.objects.filter(stage__competition=competition)
    one = groups.order_by("name").values_list("pk", flat=True)[len(groups) // 2]
    competitions = Competition.objects.filter(pk=competition.pk)
    print(f"load average {os.getloadavg()[0]:.2f}; {groups.count():,} groups, {results:,} results; "
          f"median of {args.repeat}", flush=True)

    def full():
        standings_recompute(competition_id=competition.pk, force=True)

    def one_group():
        competitions.update(results_version=F("results_version") + 1, pending_groups=[one])
        assert standings_recompute(competition_id=competition.pk)

    def nothing_pending():
        assert not standings_recompute(competition_id=competition.pk)

    figures = {"full_s": _median_seconds(full, args.repeat), "one_group_s": _median_seconds(one_group, args.repeat),
               "nothing_pending_s": _median_seconds(nothing_pending, args.repeat)}
    figures["ratio"] = figures["one_group_s"] / figures["full_s"]
    print(f"full {figures['full_s']:.3f} s; one group {figures['one_group_s'] * 1000:.1f} ms "
          f"({figures['ratio']:.1%} of full; target <= {TARGET_RATIO:.0%}); nothing pending "
          f"{figures['nothing_pending_s'] * 1000:.1f} ms")
    if args.json:
        print(json.dumps({"groups": args.groups, "group_size": args.group_size, "results": results, **figures}))
    return 0 if figures["ratio"] <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
