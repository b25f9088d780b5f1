"""Bad input refused cleanly by ``import_results`` (issue 15): every file of ``nasty/`` (NUL
bytes, over-long fields, numbers beyond their column, broken CSV...) exits 2 with one line naming
the line and column (or what is wrong), saves nothing, and raises no traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from leagues.models import Competition, Entrant, Fixture

pytestmark = pytest.mark.django_db

NASTY = Path(__file__).resolve().parent / "nasty"
FILES = sorted(NASTY.iterdir())
ROOT = Path(__file__).resolve().parents[2]


def outcome(path: Path) -> tuple[str, str]:
    """("refused", message) for an exit 2, else ("traceback", what was raised) or ("imported", "")."""
    try:
        call_command("import_results", str(path), "--competition", "nasty", "--create", "--name", "Nasty",
                     stdout=StringIO())
    except CommandError as exc:
        if exc.returncode == 2:
            return "refused", str(exc)
        return "traceback", f"CommandError with exit {exc.returncode}: {exc}"
    except Exception as exc:  # noqa: BLE001 - what the test counts: anything else is a traceback
        return "traceback", f"{type(exc).__name__}: {exc}"
    return "imported", ""


def test_no_nasty_file_makes_a_traceback():
    found = {path.name: outcome(path) for path in FILES}
    tracebacks = {name: what for name, (kind, what) in found.items() if kind == "traceback"}
    imported = [name for name, (kind, _) in found.items() if kind == "imported"]
    assert len(FILES) >= 30
    assert tracebacks == {}
    assert imported == []
    for name, (kind, message) in found.items():
        if kind == "refused":
            assert "\n" not in message and "\x00" not in message, (name, message)
    assert not Competition.objects.exists() and not Entrant.objects.exists()


@pytest.mark.parametrize("name, where", [
    ("nul_in_a_name.csv", "line 2, column home"),
    ("overlong_name.csv", "line 2, column home"),
    ("overlong_stage.csv", "line 2, column stage"),
    ("overlong_group.csv", "line 2, column group"),
    ("round_beyond_its_column.csv", "line 2, column round"),
    ("round_superscript_digit.csv", "line 2, column round"),
    ("goals_huge.csv", "line 2, column home_goals"),
    ("newline_in_a_quoted_name.csv", "line 3, column home"),
    ("field_over_the_csv_limit.csv", "line 2"),
    ("unclosed_quote.csv", "line 2"),
    ("date_huge.csv", "line 2, column date"),
    ("unknown_column_with_newline.csv", "line 1, column 'ho\\nme'"),
])
def test_a_nasty_file_names_its_line_and_column(name, where):
    kind, message = outcome(NASTY / name)
    assert kind == "refused", message
    assert where in message and "nothing imported" in message, message
    assert not Entrant.objects.exists() and not Fixture.objects.exists()


@pytest.fixture(scope="module")
def migrated_env(tmp_path_factory):
    """The environment of a real ``manage.py`` run on a fresh SQLite database, migrated."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path_factory.mktemp('db') / 'db.sqlite3'}"}
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    return env


def test_the_command_itself_exits_2_with_one_line(migrated_env):
    for name in ("nul_in_a_name.csv", "round_superscript_digit.csv", "binary_garbage.csv"):
        proc = subprocess.run(
            [sys.executable, "manage.py", "import_results", str(NASTY / name), "--competition", "nasty",
             "--create", "--name", "Nasty"], cwd=ROOT, capture_output=True, text=True, env=migrated_env,
        )
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("args, option", [
    (["--name", "N" * 161], "--name"),
    (["--name", "bad\x00name"], "--name"),
    (["--season", "s\x00"], "--season"),
])
def test_bad_options_are_refused_naming_the_option(args, option):
    with pytest.raises(CommandError) as exc:
        call_command("import_results", str(NASTY / "goals_negative.csv"), "--competition", "nasty", "--create",
                     *args, stdout=StringIO())
    assert exc.value.returncode == 2 and str(exc.value).startswith(option)


def test_a_directory_is_refused():
    with pytest.raises(CommandError) as exc:
        call_command("import_results", str(NASTY), "--competition", "nasty", "--create", stdout=StringIO())
    assert exc.value.returncode == 2
