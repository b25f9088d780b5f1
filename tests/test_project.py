"""The project itself: settings from the environment, the deploy check, the purity contract."""
import os
import subprocess
import sys
from pathlib import Path

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
    unset = _settings_of("DEBUG", SECRET_KEY="k" * 60)
    assert unset.returncode == 0 and unset.stdout.split() == ["False"], unset.stderr
    assert _settings_of("DEBUG", SECRET_KEY="").returncode != 0  # and then a SECRET_KEY is required
    assert _settings_of("DEBUG", DEBUG="1").stdout.split() == ["True"]


def test_the_suite_runs_with_debug_set():
    assert os.environ.get("DEBUG") == "1"  # pyproject's pytest env: the suite is development


def test_production_refuses_to_start_without_secret_key():
    proc = _run(["manage.py", "check"], DEBUG="0", SECRET_KEY="")
    assert proc.returncode != 0
    assert "SECRET_KEY must be set" in proc.stderr


def test_embedded_defaults_use_sqlite_and_eager_celery():
    proc = _run(["-c", "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE','config.settings'); "
                 "django.setup(); from django.conf import settings as s; "
                 "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER)"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["django.db.backends.sqlite3", "True"]
