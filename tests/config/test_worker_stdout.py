"""The worker's stdout (Celery redirects it to the ``celery.redirected`` logger): with no mail
server the console e-mail backend writes every message there, and it is logged as news (INFO),
never as a warning."""
from __future__ import annotations

import logging
import sys

from django.core import mail
from django.test import override_settings

from config.celery import app


@override_settings(EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend")
def test_a_console_email_in_the_worker_is_logged_as_info_not_a_warning(caplog):
    logger = logging.getLogger("celery.redirected")
    saved = sys.stdout, sys.stderr
    try:
        app.log.redirect_stdouts_to_logger(logger, loglevel=app.conf.worker_redirect_stdouts_level)
        with caplog.at_level(logging.DEBUG, logger="celery.redirected"):
            mail.send_mail("Your fixture", "Kick-off at 18:00.", "noreply@botonera.example", ["ana@example.org"])
            sys.stdout.flush()
    finally:
        sys.stdout, sys.stderr = saved
    lines = [r for r in caplog.records if r.name == "celery.redirected"]
    assert any("Your fixture" in r.getMessage() for r in lines)
    assert {r.levelno for r in lines} == {logging.INFO}
