"""Celery entry points of ``notifications``: thin, idempotent, taking ids."""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from leagues.notifications import services

RETRY = {"autoretry_for": (OperationalError, InterfaceError), "retry_backoff": 1, "retry_backoff_max": 30,
         "retry_jitter": True, "max_retries": 8}


@shared_task(name="notifications.tasks.send_email", **RETRY)
def send_email(notification_id: int) -> bool:
    """Sends a notification's e-mail unless another worker has (or had) it. True: sent now."""
    return services.email_send(notification_id=notification_id)


@shared_task(name="notifications.tasks.sweep", ignore_result=True, **RETRY)
def sweep() -> dict[str, int]:
    """Sends the e-mails still pending (beat): a broker that was down, a worker that died, a
    mail server that failed. Each is claimed first, so a task sending it at the same moment
    does not send it twice."""
    pending = services.emails_pending()
    sent = sum(1 for notification_id in pending if services.email_send(notification_id=notification_id))
    return {"pending": len(pending), "sent": sent}
