"""Benchmark of the competition page of a large bracket (not a test).

``python -m tests.bench.bracketbench [--database-url URL] [--size 256] [--repeat 5] [--keep]``

On a scratch database (``--database-url``, default ``.../botonera_bracketbench``, created and
migrated when missing), three competitions of ``--size`` entrants are drawn and played through
(every fixture 2-0 to the higher seed, through ``result_record`` as an organiser records them, in
one transaction): a knockout with a third-place match, a knockout with placement matches, and a
double elimination (with its reset). Then each one's page (``/competitions/<slug>/``) is asked
for by an anonymous visitor with the page cache cleared before every request: *cold*, built
whole (the first request of the process apart, with the templates compiled, then the median of
``--repeat``). Printed per competition: its fixtures, the SQL queries of a build, the first and
the median seconds (wall clock, and this process's CPU: on a shared machine the wall clock
carries the neighbours' load), against the target of 0.3 s. Exits 1 when a median is over it.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_bracketbench"
TARGET_S = 0.3
SHAPES = {  # slug suffix -> the competition's format settings
    "knockout": {"format": "knockout", "third_place_match": True},
    "placement": {"format": "knockout", "placement_matches": True},
    "double": {"format": "double_elimination", "grand_final_reset": True},
}


def _create_database(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    server = url.rsplit("/", 1)[0] + "/postgres"
    exists = subprocess.run(["psql", server, "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
                            capture_output=True, text=True, check=True).stdout.strip()
    if not exists:
        subprocess.run(["psql", server, "-c", f'CREATE DATABASE "{name}"'], check=True, capture_output=True)


def _play_through(competition) -> int:
    """Records every fixture that can be played, the higher seed winning 2-0, until none is left."""
    from django.db import transaction

    from leagues.models import Fixture
    from leagues.services.results import result_record

    played = 0
    with transaction.atomic():  # the recomputations run once, after it
        while True:
            ready = list(competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False,
                                                     away__isnull=False).select_related("home", "away"))
            if not ready:
                return played
            for fixture in ready:
                fixture.refresh_from_db()
                if fixture.status != Fixture.Status.SCHEDULED or not (fixture.home_id and fixture.away_id):
                    continue
                home_wins = fixture.home.seed < fixture.away.seed
                result_record(fixture=fixture, home_goals=2 if home_wins else 0, away_goals=0 if home_wins else 2)
                played += 1


def _forget(competition) -> None:
    """Deletes the competition (its fixtures first: they hold its entrants)."""
    competition.fixtures.all().delete()
    competition.delete()


def _build(size: int, slug: str, settings: dict):
    from leagues.models import Competition, Entrant
    from leagues.services.fixtures import fixtures_generate

    for old in Competition.objects.filter(slug=slug):
        _forget(old)
    competition = Competition.objects.create(name=slug, slug=slug, first_date="2027-01-09", **settings)
    Entrant.objects.bulk_create([Entrant(competition=competition, name=f"Entrant {i:03d}", seed=i)
                                 for i in range(1, size + 1)])
    fixtures_generate(competition=competition)
    _play_through(competition)
    return competition


def _cold(slug: str, repeat: int) -> tuple[float, list[float], list[float], int]:
    from django.core.cache import cache
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    took, cpu = [], []
    queries = 0
    for attempt in range(repeat + 1):
        cache.clear()
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(f"/competitions/{slug}/")
            took.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        assert response.status_code == 200, response.status_code
        if attempt == 1:
            queries = len(captured)
    return took[0], took[1:], cpu[1:], queries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BRACKET_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--keep", action="store_true", help="keep the competitions (and reuse them next time)")
    args = parser.parse_args(argv)
    _create_database(args.database_url)
    os.environ.update({"DATABASE_URL": args.database_url, "DJANGO_SETTINGS_MODULE": "config.settings"})
    os.environ.setdefault("DEBUG", "1")
    import django

    django.setup()
    from django.core.management import call_command

    from leagues.models import Competition

    call_command("migrate", verbosity=0, interactive=False)
    failed = False
    for shape in args.shapes.split(","):
        slug = f"bench-{shape}-{args.size}"
        competition = Competition.objects.filter(slug=slug).first() if args.keep else None
        if competition is None or not competition.fixtures.exists():
            start = time.perf_counter()
            competition = _build(args.size, slug, SHAPES[shape])
            print(f"{slug}: drawn and played in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        first, took, cpu, queries = _cold(slug, args.repeat)
        median = statistics.median(took)
        verdict = "ok" if median <= TARGET_S else "OVER"
        failed |= verdict == "OVER"
        print(f"{shape:9s} {args.size} entrants, {competition.fixtures.count()} fixtures: page cold first "
              f"{first:.3f} s, median {median:.3f} s of {len(took)} (this process's CPU {statistics.median(cpu):.3f} s; "
              f"{queries} queries; target {TARGET_S} s) {verdict}")
        if not args.keep:
            _forget(competition)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
