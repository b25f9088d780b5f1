"""Starting a process with a setting that is wrong: one line on stderr, then an exit, never a
traceback. ``config.settings`` refuses what it cannot run with (``ImproperlyConfigured``: a
production ``SECRET_KEY`` missing or too weak, a number or a boolean that is not one), naming the
variable; ``manage.py`` and the servers' entry points (``config.wsgi``, ``config.asgi``) read the
settings through ``settings_or_exit`` before anything else."""
from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# gunicorn's WORKER_BOOT_ERROR: a worker that exits with it stops the master ("Worker failed to
# boot"), instead of being started again and again
BOOT_ERROR = 3


def settings_or_exit(*, exit_code: int = 1) -> None:
    """Reads the settings; when they are refused, writes ``ImproperlyConfigured: <why>`` on
    stderr and exits with ``exit_code``. Raises ``SystemExit`` only."""
    try:
        settings.INSTALLED_APPS  # noqa: B018 - reading a setting imports config.settings
    except ImproperlyConfigured as exc:
        sys.stderr.write(f"ImproperlyConfigured: {exc}\n")
        sys.stderr.flush()
        raise SystemExit(exit_code) from None
