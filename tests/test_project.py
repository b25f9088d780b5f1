"""The project itself: settings from the environment, the deploy check, the purity contract."""
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(args, **env):
    full_env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    full_env.update(env)
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=full_env, capture_output=True, text=True)


def test_deploy_check_passes_with_production_settings():
    proc = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        DEBUG="0", SECRET_KEY="x" * 64 + "-production-secret-for-the-check", ALLOWED_HOSTS="botonera.example",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues (0 silenced)." in proc.stdout, proc.stdout + proc.stderr


def _settings_of(*names, **env):
    """``names`` of the settings read in a fresh process from ``env`` (DEBUG removed unless given)."""
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG")}
    base.update(env)
    code = ("import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE','config.settings'); "
            "django.setup(); from django.conf import settings as s; "
            f"print(*[getattr(s, n) for n in {list(names)!r}])")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True)


def test_debug_is_off_unless_set():
    unset = _settings_of("DEBUG", SECRET_KEY=secrets.token_urlsafe(50))
    assert unset.returncode == 0 and unset.stdout.split() == ["False"], unset.stderr
    assert _settings_of("DEBUG", SECRET_KEY="").returncode != 0  # and then a SECRET_KEY is required
    assert _settings_of("DEBUG", DEBUG="1").stdout.split() == ["True"]


def test_the_suite_runs_with_debug_set():
    assert os.environ.get("DEBUG") == "1"  # pyproject's pytest env: the suite is development


def test_production_refuses_to_start_without_secret_key():
    proc = _run(["manage.py", "check"], DEBUG="0", SECRET_KEY="")
    assert proc.returncode == 1
    assert proc.stderr == ('ImproperlyConfigured: SECRET_KEY must be set when DEBUG is off (for development set '
                           'DEBUG=1, as the make targets do: make manage ARGS="...")\n')


WEAK_KEYS = {
    "five characters": ("s3cr7", "it has 5 characters, at least 50 are needed"),
    "49 characters": (secrets.token_hex(25)[:49], "it has 49 characters, at least 50 are needed"),
    "one character, 60 times": ("k" * 60, "it has 1 different characters, at least 5 are needed"),
    "four characters, over and over": ("abcd" * 20, "it has 4 different characters, at least 5 are needed"),
    "a development key": ("django-insecure-" + secrets.token_urlsafe(50), "it begins with 'django-insecure-'"),
}


@pytest.mark.parametrize("key, why", WEAK_KEYS.values(), ids=WEAK_KEYS.keys())
def test_production_refuses_a_weak_secret_key_in_one_line(key, why):
    settings_read = _settings_of("DEBUG", DEBUG="0", SECRET_KEY=key)
    assert settings_read.returncode != 0 and "ImproperlyConfigured: SECRET_KEY is too weak" in settings_read.stderr
    assert why in settings_read.stderr and key not in settings_read.stderr  # the key is never shown
    for command, code in ((["manage.py", "check"], 1), (["-c", "import config.wsgi"], 3), (["-c", "import config.asgi"], 3)):
        proc = _run(command, DEBUG="0", SECRET_KEY=key)
        assert proc.returncode == code, (command, proc.stderr)  # 3: gunicorn's master stops, not retries
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("ImproperlyConfigured: SECRET_KEY is too weak"), proc.stderr
        assert why in lines[0] and key not in lines[0]


def test_a_strong_secret_key_starts_and_development_takes_any_key():
    strong = _run(["manage.py", "check"], DEBUG="0", SECRET_KEY=secrets.token_urlsafe(50))
    assert strong.returncode == 0, strong.stderr
    for key in ("s3cr7", "k" * 60):
        assert _run(["manage.py", "check"], DEBUG="1", SECRET_KEY=key).returncode == 0


def test_embedded_defaults_use_sqlite_and_eager_celery():
    proc = _run(["-c", "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE','config.settings'); "
                 "django.setup(); from django.conf import settings as s; "
                 "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER)"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["django.db.backends.sqlite3", "True"]


def _fresh_shell_env() -> dict:
    """A fresh shell's environment: no DEBUG, SECRET_KEY or database of the suite's."""
    return {k: v for k, v in os.environ.items()
            if k in ("PATH", "HOME", "LANG", "TMPDIR") and k not in ("DEBUG", "SECRET_KEY")}


def test_celery_without_secret_key_says_so_in_one_line():
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "celery"), "-A", "config", "worker"], cwd=ROOT,
                          env=_fresh_shell_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        'ImproperlyConfigured: SECRET_KEY must be set when DEBUG is off (for development set DEBUG=1, as the make '
        'targets do: make manage ARGS="...")']


def test_the_readmes_organiser_commands_work_as_written_in_a_fresh_shell():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Organisers' commands", 1)[1].split("\n## ", 1)[0]
    assert "python manage.py" not in section.replace(".venv/bin/python manage.py", "")
    commands = [line.split("#")[0].strip() for line in section.splitlines() if line.startswith("make manage ARGS=")]
    assert len(commands) >= 5
    for args in ("standings --help", "import_results --help"):
        done = subprocess.run(["make", "-s", "manage", f"ARGS={args}"], cwd=ROOT, env=_fresh_shell_env(),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "usage: manage.py" in done.stdout
