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
