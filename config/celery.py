"""The Celery app. With ``REDIS_URL`` unset, tasks run in-process (eager); see settings.

Every task of the project is a ``Task`` (below): ``task.enqueue_on_commit(**kwargs)`` sends it
once the current transaction commits, and a broker that cannot be reached then never turns the
committed write into an error: the failure is logged, and the sweeper (``matches.tasks.sweep``
and ``leagues.tasks.sweep``, run by beat) finds the pending work in the database later.

``Consumer`` is the worker's consumer (``CELERY_WORKER_CONSUMER``): after losing the broker it
tries again every second, so a worker is back at work within seconds of Redis coming back.
"""
from __future__ import annotations

import functools
import logging
import os
import sys
from pathlib import Path

from celery import Celery
from celery import Task as BaseTask
from celery.worker.consumer import Consumer as BaseConsumer
from django.db import transaction

from config.boot import settings_or_exit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if Path(sys.argv[0]).name == "celery":  # `celery -A config worker|beat`: a wrong setting is one line, no traceback
    settings_or_exit()

logger = logging.getLogger("botonera.tasks")


class Task(BaseTask):
    """A task whose sending after a commit never fails the request that committed."""

    def enqueue(self, **kwargs) -> bool:
        """Sends the task now; returns False (and logs) when the broker cannot take it."""
        try:
            self.apply_async(kwargs=kwargs)
        except Exception as exc:  # noqa: BLE001 - any broker failure: the sweeper will find the work
            logger.warning("could not enqueue %s(%s): %s: %s; the sweeper will pick it up",
                           self.name, kwargs, type(exc).__name__, exc)
            return False
        return True

    def enqueue_on_commit(self, **kwargs) -> None:
        """Sends the task after the current transaction commits (at once outside one)."""
        transaction.on_commit(lambda: self.enqueue(**kwargs))


# seconds between a worker's attempts to reach a broker it lost (kombu's default is 2, 4, 6...
# up to 30 s: a broker back after half a minute would be seen up to 12 s late)
RECONNECT_INTERVAL = 1.0


class Consumer(BaseConsumer):
    """The worker's consumer: Celery's, trying to reconnect to the broker every
    ``RECONNECT_INTERVAL`` seconds, forever (``broker_connection_max_retries`` None)."""

    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(
            conn.ensure_connection, interval_start=RECONNECT_INTERVAL, interval_step=0,
            interval_max=RECONNECT_INTERVAL,
        )
        return super().ensure_connected(conn)


app = Celery("botonera", task_cls=Task)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
