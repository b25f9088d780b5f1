"""Backups as README's "Backups" says: a season backed up with its commands and restored into a
fresh database gives back every figure (PostgreSQL, through a real worker; the embedded SQLite),
and the digest compared (``tests.bench.backup_season``) tells each part a restore could lose."""
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import F

from leagues.models import Competition, Fixture, FixtureChange, PlayerRating, Result, Standing
from matches.models import MatchAction
from tests.bench import backup_season
from tests.conftest import ROOT, wait_for

DIGEST = "from tests.bench.backup_season import main; main()"
FILL_AND_DIGEST = "from tests.bench.backup_season import main; main(fill_first=True)"
PARTS = ["tables", "sequences", "competitions", "standings", "bracket", "results", "history", "ratings",
         "matches", "pending"]


def readme_backup_lines() -> list[str]:
    """The command lines of README's "Backups" block, as written there."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Backups\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```$", section, re.S | re.M)
    assert block, "README's Backups section has no block of commands"
    return block.group(1).splitlines()


def readme_commands(programs: str) -> list[str]:
    """README's backup lines whose program (after any ``VAR=value``) is one of ``programs``
    ("pg_dump|createdb"), in README's order."""
    def program(line: str) -> str:
        words = [w for w in shlex.split(line, comments=True) if not re.match(r"^[A-Z_]+=", w)]
        return words[0] if words else ""

    return [line for line in readme_backup_lines() if program(line) in programs.split("|")]


def run_shell(line: str, *, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    out = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"{line}\n-> exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out


def tool_env(**extra: str) -> dict[str, str]:
    """The environment of README's commands and of a digest: this venv's ``python`` first on the
    path, tasks in process (no Redis)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["DEBUG"] = "1"
    return {**env, **extra}


def digest_of(database_url: str, command: str = DIGEST) -> dict:
    """The digest of ``database_url``'s database, read by a process of its own."""
    out = subprocess.run([sys.executable, "manage.py", "shell", "--no-imports", "-c", command], cwd=ROOT,
                         env=tool_env(DATABASE_URL=database_url), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


def require_programs(*names: str) -> None:
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        message = f"{', '.join(missing)} not installed"
        if os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false"):
            pytest.fail(f"REQUIRE_SERVICES=1 but {message}")
        pytest.skip(message)


def postgres_url(name: str) -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgresql://{db.get('USER') or ''}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{name}"


# --- The commands README shows -------------------------------------------------------------------


def test_readme_shows_a_backup_and_a_restore_for_both_databases():
    assert [line.split()[0] for line in readme_commands("pg_dump|createdb|pg_restore|python|sqlite3")] == [
        "pg_dump", "createdb", "pg_restore", "DATABASE_URL=\"$NEW_URL\"", "sqlite3", "sqlite3"]
    assert readme_backup_lines()[0].startswith("BACKUP=")  # the names the commands use
    assert "migrate --check" in readme_commands("python")[0]


# --- PostgreSQL: the season, backed up and restored --------------------------------------------


@pytest.mark.integration
@pytest.mark.slow
def test_a_season_backed_up_and_restored_into_a_fresh_database_gives_back_every_figure(
        celery_worker_process, tmp_path):
    require_programs("pg_dump", "pg_restore", "createdb", "dropdb", "bash")
    backup_season.fill(wait=lambda: wait_for(backup_season.settled, timeout=120, interval=0.3))
    site_url = postgres_url(connection.settings_dict["NAME"])
    restored, partial = (f"botonera_backup_{secrets.token_hex(4)}" for _ in range(2))
    env = tool_env(DATABASE_URL=site_url, BACKUP=str(tmp_path / "botonera.dump"), NEW=restored,
                   NEW_URL=postgres_url(restored))
    try:
        before = digest_of(site_url)
        for line in readme_commands("pg_dump|createdb|pg_restore|python"):  # README's, in its order
            run_shell(line, env=env, cwd=ROOT)
        after = digest_of(postgres_url(restored))

        assert list(before) == PARTS and not any(before["pending"].values())  # a settled season...
        assert before["results"] and before["history"] and before["standings"] and before["bracket"]
        assert before["ratings"]["players"] and before["ratings"]["placings"]
        kinds = {row["kind"] for row in before["history"]}
        assert {"correction", "withdrawal", "online_result", "venue", "entrants"} <= kinds
        (match,) = before["matches"]
        assert match["status"] == "adjudicated" and match["log_rows"] > 10
        assert match["replayed_hash"] == match["state_hash"]  # the log replays to its stored state
        assert backup_season.differences(before, after) == []  # ...given back whole
        assert after == before

        # the stored standings and bracket are those a recompute gives: none is needed
        for slug in (backup_season.LEAGUE, backup_season.CUP):
            run_shell(f"python manage.py standings {slug} --recompute", cwd=ROOT,
                      env=tool_env(DATABASE_URL=postgres_url(restored)))
        recomputed = digest_of(postgres_url(restored))
        assert backup_season.differences(before, recomputed) == ["competitions"]
        assert [{**c, "updated_at": None} for c in recomputed["competitions"]] == [
            {**c, "updated_at": None} for c in before["competitions"]]  # the recompute's own stamp

        # a restore that lost one table's rows is told apart
        listing = run_shell(f'pg_restore --list "{env["BACKUP"]}"', env=env, cwd=ROOT).stdout
        (tmp_path / "partial.list").write_text(
            "\n".join(line for line in listing.splitlines() if "TABLE DATA public leagues_fixturechange " not in line))
        run_shell(f"createdb --maintenance-db=\"$DATABASE_URL\" {partial} && pg_restore --no-owner "
                  f"--single-transaction --use-list={tmp_path / 'partial.list'} "
                  f"--dbname={postgres_url(partial)} \"$BACKUP\"", env=env, cwd=ROOT)
        assert backup_season.differences(before, digest_of(postgres_url(partial))) == ["tables", "history"]
    finally:
        for name in (restored, partial):
            subprocess.run(["dropdb", "--if-exists", "--force", f"--maintenance-db={site_url}", name],
                           capture_output=True, timeout=60, env=tool_env())


# --- The embedded SQLite ---------------------------------------------------------------------------


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{folder / 'db.sqlite3'}"


@pytest.fixture(scope="module")
def filled_sqlite(tmp_path_factory) -> tuple[Path, dict]:
    """An embedded site's ``db.sqlite3``, migrated and filled with the season; its digest."""
    site = tmp_path_factory.mktemp("sqlite-site")
    url = sqlite_url(site)
    out = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                         env=tool_env(DATABASE_URL=url), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return site, digest_of(url, FILL_AND_DIGEST)


@contextlib.contextmanager
def site_running(site: Path, write: str):
    """The embedded site at work: a write of its (``write``, a group's name) committed and still in
    the WAL (its connection open, no checkpoint), as at any moment a backup may be taken."""
    db = sqlite3.connect(site / "db.sqlite3")
    try:
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("INSERT INTO auth_group (name) VALUES (?)", (write,))
        db.commit()
        assert (site / "db.sqlite3-wal").stat().st_size > 0
        yield
    finally:
        db.close()


@pytest.mark.slow
def test_the_sqlite_commands_back_up_the_running_site_and_restore_every_figure(filled_sqlite, tmp_path):
    require_programs("sqlite3", "bash")
    site, filled = filled_sqlite
    assert not any(filled["pending"].values()) and filled["matches"][0]["log_rows"] > 10
    backup, restore = readme_commands("sqlite3")
    with site_running(site, "written during the sqlite3 backup"):
        before = digest_of(sqlite_url(site))
        run_shell(backup, env=tool_env(), cwd=site)  # README's line, in the site's folder
    assert before["tables"]["auth_group"] == filled["tables"]["auth_group"] + 1
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    shutil.move(site / "backup.sqlite3", fresh / "backup.sqlite3")
    run_shell(restore, env=tool_env(), cwd=fresh)  # into a folder without a database
    assert digest_of(sqlite_url(fresh)) == before


@pytest.mark.slow
def test_pythons_sqlite_backup_copies_the_running_site_whole(filled_sqlite, tmp_path):
    site, _filled = filled_sqlite
    with site_running(site, "written during Python's backup"):
        before = digest_of(sqlite_url(site))
        source, target = sqlite3.connect(site / "db.sqlite3"), sqlite3.connect(tmp_path / "db.sqlite3")
        try:
            source.backup(target)  # docs/operations.md's Python line
        finally:
            source.close()
            target.close()
    assert digest_of(sqlite_url(tmp_path)) == before


# --- What the digest tells apart ----------------------------------------------------------------


def _set_sequence_back() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT setval(pg_get_serial_sequence('leagues_result', 'id'), 1, false)")
        else:
            cursor.execute("UPDATE sqlite_sequence SET seq = 0 WHERE name = 'leagues_result'")


def _swap_final() -> None:
    Fixture.objects.filter(label="Final").update(home=F("away"), away=F("home"))


def _touch_log() -> None:
    action = MatchAction.objects.filter(action__type="flick").order_by("seq")[1]
    MatchAction.objects.filter(pk=action.pk).update(action={**action.action, "speed_mm_s": action.action["speed_mm_s"] - 1})


LOSSES = [  # what a restore could get wrong -> the parts of the digest that tell it
    ("one score", lambda: Result.objects.filter(pk=Result.objects.order_by("pk")[0].pk).update(
        away_goals=F("away_goals") + 1), ["results"]),
    ("one standing row", lambda: Standing.objects.filter(position=1).update(points=F("points") + 1), ["standings"]),
    ("the final's pairing", _swap_final, ["bracket"]),
    ("one history entry", lambda: FixtureChange.objects.filter(kind="correction").delete(), ["tables", "history"]),
    ("one rating", lambda: PlayerRating.objects.filter(pk=PlayerRating.objects.order_by("pk")[0].pk).update(
        rating=F("rating") + 1e-9), ["ratings"]),
    ("one move of the log", _touch_log, ["matches"]),
    ("a sequence", _set_sequence_back, ["sequences"]),
    ("a derived marker", lambda: Competition.objects.filter(slug=backup_season.LEAGUE).update(derived_version=0),
     ["competitions", "pending"]),
]


@pytest.mark.django_db(transaction=True)
def test_the_digest_tells_each_part_a_restore_could_lose():
    backup_season.fill()
    digest = backup_season.digest()
    assert list(digest) == PARTS
    for what, lose, parts in LOSSES:
        lose()
        changed = backup_season.digest()
        assert backup_season.differences(digest, changed) == parts, what
        digest = changed
    (match,) = digest["matches"]
    assert match["replayed_hash"] is None and "differs from the log at action" in match["replay_error"]
