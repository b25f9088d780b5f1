"""Benchmark of the bounded results import (``make bench``, not a test).

``python -m tests.bench.importbench [--database-url URL] [--group-size 16] [--repeat 3] [--json] [--keep]``

Generates, in a temporary folder, results files of groups (``--group-size`` entrants each, a
single round robin, the rounds numbered): 10,000 rows; 100,000 rows; exactly ``IMPORT_MAX_ROWS``
(250,000) rows; one row more; and a file of exactly ``IMPORT_MAX_BYTES`` + 1 bytes (20 MiB + 1) of rows
with long entrant names, so that only its size is over a limit. Each file goes through
``manage.py import_results FILE --competition SLUG --create`` in a child process of its own
(``DEBUG=1``, no broker: the tasks the import sends, the standings and the ratings, run in that
process too, as in the embedded default), on a scratch database (``--database-url``, default
``.../botonera_importbench``, created and migrated when missing; ``sqlite:///PATH`` for SQLite).
Per file: the child's peak resident memory (``ru_maxrss`` from ``wait4``; this process keeps
no Django of its own, so that it stays below any child's), its seconds from
start to exit (Django's start included), its exit code, the last line it wrote to stderr,
and the results the database holds for its competition afterwards; then the competition is
deleted (unless ``--keep``), so that each file meets the same database (the ratings read every
competition). A refused file is run ``--repeat`` times (the median is shown), beside the
*start anchor*: the same command on a file that does not exist, which Django starts for and
refuses without reading anything.

Targets: 100,000 rows in at most 200 s and within 12x the 10,000 rows' seconds (linear growth);
250,000 rows imported whole with a peak under 300 MB; 250,001 rows and 20 MiB + 1
byte refused (exit 2) in under 2 s with nothing saved. Exits 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.bench import loadtest

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/botonera_importbench"
MAX_BYTES, MAX_ROWS = 20 * 1024 * 1024, 250_000  # config/settings.py's defaults
PEAK_TARGET_MB, REFUSAL_TARGET_S = 300, 2.0
# 100,000 rows imported in at most 200 s, and at most 12 times the 10,000 rows' seconds (linear)
HUNDRED_K_TARGET_S, LINEAR_FACTOR = 200.0, 12.0
HEADER = "stage,group,round,home,away,home_goals,away_goals\n"
LONG_NAME = "Sociedade Recreativa e Cultural de Futebol de Mesa n.º"  # a federation's longer names


def groups_rows(rows: int, *, size: int, long_names: bool = False):
    """``rows`` result lines: groups of ``size`` entrants, a single round robin each (the
    circle method: ``size - 1`` rounds of ``size // 2`` matches), the last group cut short."""
    rng = random.Random(7)
    made = group = 0
    while made < rows:
        teams = [f"G{group:05d} {LONG_NAME} {i:02d}" if long_names else f"G{group:05d} T{i:02d}"
                 for i in range(size)]
        circle = list(range(size))
        for rnd in range(1, size):
            for k in range(size // 2):
                if made == rows:
                    return
                home, away = teams[circle[k]], teams[circle[size - 1 - k]]
                yield f"Groups,Group {group:05d},{rnd},{home},{away},{rng.randint(0, 4)},{rng.randint(0, 4)}\n"
                made += 1
            circle = [circle[0], circle[-1], *circle[1:-1]]
        group += 1


def write_rows(path: Path, rows: int, *, size: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER)
        out.writelines(groups_rows(rows, size=size))


def write_bytes(path: Path, total: int, *, size: int) -> int:
    """Valid rows (long names) up to exactly ``total`` bytes, the last line padded with a
    blank line's worth of newlines; returns the rows written."""
    written, rows = len(HEADER), 0
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(HEADER)
        for line in groups_rows(10 * MAX_ROWS, size=size, long_names=True):
            length = len(line.encode("utf-8"))
            if written + length > total:
                break
            out.write(line)
            written, rows = written + length, rows + 1
        out.write("\n" * (total - written))
    return rows


def run_import(path: Path, slug: str, env: dict[str, str]) -> dict:
    """``import_results`` of ``path`` in a child process: its peak RSS, seconds and exit code."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "import_results", str(path), "--competition", slug, "--create",
             "--name", slug, "--format", "groups_knockout"], cwd=ROOT, env=env, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = [line for line in err.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return {"exit": proc.returncode, "seconds": round(seconds, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "stderr": lines[-1] if proc.returncode and lines else ""}


def median_run(path: Path, slug: str, env: dict[str, str], repeat: int) -> dict:
    """``run_import`` ``repeat`` times: the run of the median seconds (the machine is shared)."""
    runs = sorted((run_import(path, slug, env) for _ in range(repeat)), key=lambda r: r["seconds"])
    return runs[len(runs) // 2]


def stored(slug: str, env: dict[str, str], *, keep: bool) -> tuple[bool, int]:
    """Whether the competition ``slug`` exists and the results it holds, read (then deleted,
    unless ``keep``) by a child process: this one stays small, as a child's ``ru_maxrss``
    starts from its parent's resident memory when it is forked."""
    command = [sys.executable, "-m", "tests.bench.importbench", "--child-stored", slug] + (["--keep"] if keep else [])
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    saved, results = json.loads(out.splitlines()[-1])
    return saved, results


def _child_stored(slug: str, *, keep: bool) -> None:
    """In a child process: ``stored``'s figures as JSON, and the competition deleted."""
    import django

    django.setup()
    from leagues.models import Competition, Result

    figures = [Competition.objects.filter(slug=slug).exists(),
               Result.objects.filter(fixture__competition__slug=slug).count()]
    if not keep:
        forget(slug)
    print(json.dumps(figures))


def forget(slug: str) -> None:
    """Deletes the competition ``slug``: its fixtures first (they protect their rounds), a few
    hundred a statement (SQLite takes a bounded number of variables), then SQLite's log folded
    into the database."""
    from django.db import connection

    from leagues.models import Competition, Fixture

    ids = list(Fixture.objects.filter(competition__slug=slug).values_list("pk", flat=True))
    for start in range(0, len(ids), 500):
        Fixture.objects.filter(pk__in=ids[start:start + 500]).delete()
    Competition.objects.filter(slug=slug).delete()
    if connection.vendor == "sqlite":  # the next child would meet (and read) the deletions' write-ahead log
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def growth_problems(figures: list[dict]) -> list[str]:
    """The growth targets the figures so far miss, once the 100,000 rows' figure is in: at
    most ``HUNDRED_K_TARGET_S``, and at most ``LINEAR_FACTOR`` times the 10,000 rows' seconds."""
    by_rows = {f["rows"]: f for f in figures if f["exit"] == 0}
    if 100_000 not in by_rows or figures[-1]["rows"] != 100_000:
        return []
    seconds = by_rows[100_000]["seconds"]
    problems = []
    if seconds > HUNDRED_K_TARGET_S:
        problems.append(f"100,000 rows: {seconds} s, target at most {HUNDRED_K_TARGET_S:.0f}")
    if 10_000 in by_rows and seconds > LINEAR_FACTOR * by_rows[10_000]["seconds"]:
        problems.append(f"100,000 rows: {seconds / by_rows[10_000]['seconds']:.1f}x the 10,000 rows' seconds, "
                        f"target at most {LINEAR_FACTOR:.0f}x")
    return problems


def problems_of(figure: dict) -> list[str]:
    """The targets ``figure`` misses."""
    problems = []
    if figure["rows"] <= MAX_ROWS and figure["bytes"] <= MAX_BYTES:
        if figure["exit"] != 0 or figure["results_stored"] != figure["rows"]:
            problems.append(f"{figure['file']}: not imported whole ({figure['stderr']})")
        if figure["rows"] == MAX_ROWS and figure["peak_rss_mb"] >= PEAK_TARGET_MB:
            problems.append(f"{figure['file']}: peak {figure['peak_rss_mb']} MB, target under {PEAK_TARGET_MB}")
    else:
        if figure["exit"] != 2 or figure["competition_saved"] or figure["results_stored"]:
            problems.append(f"{figure['file']}: not refused cleanly (exit {figure['exit']})")
        if figure["seconds"] >= REFUSAL_TARGET_S:
            problems.append(f"{figure['file']}: refused in {figure['seconds']} s, target under {REFUSAL_TARGET_S}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("IMPORT_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--group-size", type=int, default=16, help="entrants a group (even; default 16)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each refused file (default 3)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the run's competitions")
    parser.add_argument("--child-stored", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_stored:
        _child_stored(args.child_stored, keep=args.keep)
        return 0
    if args.group_size < 2 or args.group_size % 2:
        parser.error("--group-size: an even number of 2 or more")
    url = args.database_url
    if not url.startswith("sqlite"):
        loadtest.ensure_database(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IMPORT_MAX_", "REDIS_URL"))}
    env.update({"DATABASE_URL": url, "DEBUG": "1", "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "config.settings"})
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    run = f"importbench-{uuid.uuid4().hex[:6]}"
    vendor = "sqlite" if url.startswith("sqlite") else "postgresql"
    print(f"import_results on {vendor}, groups of {args.group_size} (a child process per file; tasks in process)")
    print(f"{'file':<20}{'rows':>9}{'bytes':>12}{'exit':>6}{'seconds':>9}{'peak MB':>9}{'stored':>9}  refusal",
          flush=True)
    figures, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for rows in (10_000, 100_000, MAX_ROWS, MAX_ROWS + 1):
            path = Path(tmp) / f"rows-{rows}.csv"
            write_rows(path, rows, size=args.group_size)
            files.append((f"{rows:,} rows", path, rows))
        path = Path(tmp) / "bytes-over.csv"
        files.append((f"{MAX_BYTES + 1:,} bytes", path, write_bytes(path, MAX_BYTES + 1, size=args.group_size)))
        anchor = median_run(Path(tmp) / "missing.csv", f"{run}-missing", env, args.repeat)
        for label, path, rows in files:
            slug = f"{run}-{len(figures)}"
            refused = rows > MAX_ROWS or path.stat().st_size > MAX_BYTES
            measured = median_run(path, slug, env, args.repeat) if refused else run_import(path, slug, env)
            f = {"file": label, "rows": rows, "bytes": path.stat().st_size, **measured}
            # then deleted: each file meets the same database (the ratings read every competition)
            f["competition_saved"], f["results_stored"] = stored(slug, env, keep=args.keep)
            figures.append(f)
            problems += problems_of(f) + growth_problems(figures)
            refusal = f["stderr"].split(": ", 2)[-1]  # the sentence, without "CommandError: PATH"
            print(f"{f['file']:<20}{f['rows']:>9,}{f['bytes']:>12,}{f['exit']:>6}{f['seconds']:>9.2f}"
                  f"{f['peak_rss_mb']:>9.1f}{f['results_stored']:>9,}  {refusal}", flush=True)
    print(f"start anchor (a missing file refused): {anchor['seconds']:.2f} s, {anchor['peak_rss_mb']:.1f} MB")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          + ("targets met" if not problems else "MISSED: " + "; ".join(problems)))
    if args.json:
        print(json.dumps({"database": vendor, "group_size": args.group_size, "figures": figures,
                          "start_anchor": anchor, "problems": problems}))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
