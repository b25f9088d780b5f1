"""``python manage.py run_clock [--every 0.5] [--once]``: the online matches' clock where no
Celery beat runs (``make run``, the embedded set-up), in a process of its own beside the web
server: every ``--every`` seconds it applies the passed deadlines of online matches
(``deadlines.tick_due``, beat's ``matches.tasks.tick_matches``) and plays the due move of each
watched computer-against-computer match (``spectating.play_due``, beat's
``matches.tasks.play_computer_moves``). With a worker and beat (``REDIS_URL``) it is not needed;
run beside them, it does the same work under the same row locks, never twice.

An error in one round (the database away) is logged and the next round tries again; Ctrl-C
or SIGTERM stops it.
"""
from __future__ import annotations

import logging
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections
from django.utils.translation import gettext as _

from matches.services import deadlines, spectating

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = _("Applies online matches' passed deadlines and plays watched computer matches' moves, "
             "every --every seconds (where no Celery beat runs).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--every", type=float, default=0.5, help=_("seconds between two rounds (0.1 to 60)"))
        parser.add_argument("--once", action="store_true", help=_("one round, then stop"))

    def handle(self, *args, every: float, once: bool, **options) -> None:
        if not 0.1 <= every <= 60:
            raise CommandError(_("--every must be between 0.1 and 60 seconds"))
        if not once:
            self.stdout.write(_("The matches' clock runs every %(every)s s (Ctrl-C stops it).") % {"every": every})
        try:
            while True:
                started = time.monotonic()
                self.round()
                if once:
                    return
                time.sleep(max(0.0, every - (time.monotonic() - started)))
        except KeyboardInterrupt:
            return

    def round(self) -> None:
        close_old_connections()
        try:
            deadlines.tick_due()
            spectating.play_due()
        except Exception:  # the database away, a bug in one match: the next round tries again
            logger.exception("the matches' clock: a round failed")
