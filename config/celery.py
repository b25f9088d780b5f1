"""The Celery app. With ``REDIS_URL`` unset, tasks run in-process (eager); see settings.

Every task of the project is a ``Task`` (below): ``task.enqueue_on_commit(**kwargs)`` sends it
once the current transaction commits, and a broker that cannot be reached then never turns the
committed write into an error: the failure is logged, and the sweeper (``matches.tasks.sweep``
and ``leagues.tasks.sweep``, run by beat) finds the pending work in the database later.
"""
from __future__ import annotations

import logging
import os

from celery import Celery
from celery import Task as BaseTask
from django.db import transaction

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger("botonera.tasks")


class Task(BaseTask):
    """A task whose sending after a commit never fails the request that committed."""

    def enqueue(self, **kwargs) -> bool:
        """Sends the task now; returns False (and logs) when the broker cannot take it."""
        try:
            self.apply_async(kwargs=kwargs)
        except Exception:  # noqa: BLE001 - any broker failure: the sweeper will find the work
            logger.warning("could not enqueue %s(%s): the sweeper will pick it up", self.name, kwargs,
                           exc_info=True)
            return False
        return True

    def enqueue_on_commit(self, **kwargs) -> None:
        """Sends the task after the current transaction commits (at once outside one)."""
        transaction.on_commit(lambda: self.enqueue(**kwargs))


app = Celery("botonera", task_cls=Task)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
