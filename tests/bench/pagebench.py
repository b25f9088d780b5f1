"""Benchmark of the competition pages of long seasons and large draws (not a test; ``make bench``).

``python -m tests.bench.pagebench [--database-url URL] [--parts league,knockout,swiss] [--entrants 200]
[--size 256] [--repeat 3] [--keep] [--json]``

On a scratch database (``--database-url``, default ``.../botonera_pagebench``, created and
migrated when missing):

- **league**: a double round robin of ``--entrants`` (200: 398 rounds, 39,800 fixtures, drawn by
  ``fixtures_generate``), its first three rounds played (``result_record``, as an organiser
  records them) and its standings computed. Measured: the competition page's size (bytes) and
  fixture rows, its cold render (seconds), and a round page's cold render (round 300 of 398:
  ``/competitions/<slug>/rounds/300/``). Targets: page ≤ 300 KB and ≤ 0.3 s, round page ≤ 0.1 s.
- **knockout**: a knockout of ``--size`` (256) with a third-place match, played through
  (``tests.bench.bracketbench``'s builder): its page cold. Target ≤ 0.3 s.
- **swiss**: a Swiss of ``--size`` (256), ``--swiss-rounds`` (5) rounds paired and played, the
  next paired: its page cold. Target ≤ 0.3 s.

*Cold*: an anonymous visitor's request through Django's test client with the page cache
cleared before it, so the page is built whole; each page is asked for once first (the
templates compiled, the database's caches warm), then ``--repeat`` times: the median is the
figure (wall clock, and this process's CPU beside it: on a shared machine the wall clock
carries the neighbours' load, printed with the load average). Exits 1 when a median is over
its target. The competitions are deleted at the end unless ``--keep`` (then reused next run).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from tests.bench import bracketbench

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_pagebench"
PAGE_BYTES = 300 * 1024
PAGE_S = 0.3
ROUND_S = 0.1


def _league(slug: str, entrants: int):
    """A double round robin of ``entrants``, drawn in bulk (``_draw_in_bulk``), its first three
    rounds played through ``result_record`` and its standings computed."""
    from django.db import transaction

    from leagues.models import Competition, Entrant, Fixture
    from leagues.services.results import result_record
    from leagues.services.standings import standings_recompute

    for old in Competition.objects.filter(slug=slug):
        bracketbench._forget(old)
    competition = Competition.objects.create(name=slug, slug=slug, first_date="2027-01-09", double_round_robin=True)
    Entrant.objects.bulk_create([Entrant(competition=competition, name=f"Entrant {i:03d}", seed=i)
                                 for i in range(1, entrants + 1)])
    competition.refresh_from_db()  # its dates as dates
    _draw_in_bulk(competition)
    with transaction.atomic():  # the recomputation once, after it
        for fixture in (Fixture.objects.filter(competition=competition, round__number__lte=3,
                                               status=Fixture.Status.SCHEDULED).select_related("home", "away")):
            result_record(fixture=fixture, home_goals=(fixture.home.seed + fixture.away.seed) % 3, away_goals=1)
    standings_recompute(competition_id=competition.pk, force=True)
    return competition


def _draw_in_bulk(competition) -> None:
    """The league's stage, rounds and fixtures as ``fixtures_generate`` makes them (the same
    pairings, ``leagues.rules.pairings.round_robin_for``, dates and fields), written by
    ``bulk_create``: ``fixtures_generate`` saves its 39,800 fixtures one by one."""
    from django.utils import timezone

    from leagues.models import Fixture, Round, Stage
    from leagues.rules import pairings
    from leagues.services.fixtures import entrants_in_seed_order

    now = timezone.now()
    entrants = entrants_in_seed_order(competition=competition)
    boards = list(pairings.round_robin_for(entrants, double=competition.double_round_robin))
    stage = Stage.objects.create(competition=competition, order=1, name="League", kind=Stage.Kind.LEAGUE)
    rounds = Round.objects.bulk_create([
        Round(stage=stage, number=n, name=f"Round {n}", date=competition.round_date(n))
        for n in range(1, len(boards) + 1)])
    Fixture.objects.bulk_create([
        Fixture(competition=competition, round=rnd, position=position, home=home, away=away, date=rnd.date,
                kickoff_at=competition.kickoff_on(rnd.date),
                status=Fixture.Status.BYE if away is None else Fixture.Status.SCHEDULED,
                status_changed_at=now, playable_since=now)
        for rnd, pairs in zip(rounds, boards, strict=True) for position, (home, away) in enumerate(pairs)],
        batch_size=2000)


def _swiss(slug: str, size: int, rounds: int):
    """A Swiss of ``size``, ``rounds`` rounds paired and played (the higher seed winning), the
    next paired."""
    from leagues.models import Competition, Entrant
    from leagues.services.fixtures import fixtures_generate
    from leagues.services.standings import standings_recompute

    for old in Competition.objects.filter(slug=slug):
        bracketbench._forget(old)
    competition = Competition.objects.create(name=slug, slug=slug, first_date="2027-01-09", format="swiss",
                                             rounds=rounds + 2)
    Entrant.objects.bulk_create([Entrant(competition=competition, name=f"Entrant {i:03d}", seed=i)
                                 for i in range(1, size + 1)])
    for _round in range(rounds):
        fixtures_generate(competition=competition)
        bracketbench._play_through(competition)
        standings_recompute(competition_id=competition.pk, force=True)
    fixtures_generate(competition=competition)
    return competition


def _analyze() -> None:
    """The planner's statistics brought up to date, as autovacuum does after bulk writes (here
    at once, not a minute later)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def _cold(path: str, repeat: int) -> dict:
    """``path`` asked for ``repeat + 1`` times with the cache cleared before each: the first
    apart, then the median of the others (seconds, wall and CPU), the size, the queries."""
    from django.core.cache import cache
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    took, cpu = [], []
    for _attempt in range(repeat + 1):
        cache.clear()
        reset_queries()  # the log holds 9,000 queries at most: a build's would be lost past it
        with CaptureQueriesContext(connection) as captured:
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(path)
            took.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        assert response.status_code == 200, (path, response.status_code)
    return {"path": path, "first_s": took[0], "median_s": statistics.median(took[1:]), "runs_s": took[1:],
            "cpu_s": statistics.median(cpu[1:]), "bytes": len(response.content), "queries": len(captured),
            "rows": response.content.count(b'<li class="match">')}


def _line(what: str, figure: dict, target_s: float, *, target_bytes: int | None = None) -> tuple[str, bool]:
    over = figure["median_s"] > target_s or (target_bytes is not None and figure["bytes"] > target_bytes)
    size = f"{figure['bytes'] / 1024:.0f} KB" + (f" (target ≤ {target_bytes // 1024} KB)" if target_bytes else "")
    return (f"{what:<34} {figure['median_s']:.3f} s cold, median of {len(figure['runs_s'])} "
            f"({', '.join(f'{t:.3f}' for t in figure['runs_s'])}; CPU {figure['cpu_s']:.3f} s; first "
            f"{figure['first_s']:.3f} s; target ≤ {target_s} s); {size}, {figure['rows']} fixture rows, "
            f"{figure['queries']} queries  {'OVER' if over else 'ok'}"), over


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("PAGE_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--parts", default="league,knockout,swiss")
    parser.add_argument("--entrants", type=int, default=200, help="the double round robin's entrants")
    parser.add_argument("--round", type=int, default=300, help="the league's round whose page is measured")
    parser.add_argument("--size", type=int, default=256, help="the knockout's and the Swiss's entrants")
    parser.add_argument("--swiss-rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the competitions (and reuse them next time)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    bracketbench._create_database(args.database_url)
    os.environ.update({"DATABASE_URL": args.database_url, "DJANGO_SETTINGS_MODULE": "config.settings"})
    os.environ.setdefault("DEBUG", "1")
    os.environ.pop("REDIS_URL", None)  # the cache in this process's memory: cleared before each request
    import django

    django.setup()
    from django.core.management import call_command

    from leagues.models import Competition

    call_command("migrate", verbosity=0, interactive=False)
    builders = {
        "league": (f"bench-league-{args.entrants}", lambda slug: _league(slug, args.entrants)),
        "knockout": (f"bench-knockout-{args.size}",
                     lambda slug: bracketbench._build(args.size, slug, bracketbench.SHAPES["knockout"])),
        "swiss": (f"bench-swiss-{args.size}", lambda slug: _swiss(slug, args.size, args.swiss_rounds)),
    }
    report: dict = {"load_before": os.getloadavg()}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    failed = False
    for part in args.parts.split(","):
        slug, build = builders[part]
        competition = Competition.objects.filter(slug=slug).first() if args.keep else None
        if competition is None or not competition.fixtures.exists():
            start = time.perf_counter()
            competition = build(slug)
            _analyze()
            print(f"{slug}: built in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        fixtures = competition.fixtures.count()
        page = _cold(f"/competitions/{slug}/", args.repeat)
        text, over = _line(f"{part} ({fixtures} fixtures) page", page, PAGE_S,
                           target_bytes=PAGE_BYTES if part == "league" else None)
        print(text, f"[load {os.getloadavg()[0]:.2f}]")
        failed |= over
        report[part] = {"fixtures": fixtures, "page": page}
        if part == "league":
            round_page = _cold(f"/competitions/{slug}/rounds/{args.round}/", args.repeat)
            text, over = _line(f"league round {args.round} page", round_page, ROUND_S)
            print(text, f"[load {os.getloadavg()[0]:.2f}]")
            failed |= over
            report[part]["round_page"] = round_page
        if not args.keep:
            bracketbench._forget(competition)
    report["load_after"] = os.getloadavg()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        print(json.dumps(report))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
