"""What the site tells its users: an inbox entry and an e-mail per notification.

A ``Notification`` is written in the same transaction as what it announces (by the app that
makes the event: ``leagues.services.notices``), so it exists exactly when the event does. Its
e-mail is sent by a worker (``notifications.services.email_send``) that claims the row with one
atomic status update (``pending`` -> ``sending``): two workers, or a task and the sweeper, never
both send it. A broker that is down loses nothing: the sweeper finds the ``pending`` rows.

This app knows users, not competitions: it imports nothing of ``leagues`` or ``matches``
(import-linter).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    """What a notification is about; each user chooses, kind by kind, what they receive."""

    FIXTURE_SCHEDULED = "fixture_scheduled", _("Fixtures scheduled")
    FIXTURE_RESCHEDULED = "fixture_rescheduled", _("A fixture rescheduled")
    CHECKIN_OPEN = "checkin_open", _("Check-in window open")
    OPPONENT_CHECKED_IN = "opponent_checked_in", _("Your opponent checked in")
    WALKOVER_WARNING = "walkover_warning", _("Walkover warning")
    RESULT_OFFICIAL = "result_official", _("Result official")
    SIGN_UP_CONFIRMED = "sign_up_confirmed", _("Sign-up confirmed")
    SIGN_UP_REFUSED = "sign_up_refused", _("Sign-up refused")
    SIGN_UP_MOVED_UP = "sign_up_moved_up", _("Moved up from the waiting list")


class EmailStatus(models.TextChoices):
    PENDING = "pending", _("To send")
    SENDING = "sending", _("Being sent")
    SENT = "sent", _("Sent")
    SKIPPED = "skipped", _("Not sent (not wanted, or no address)")
    FAILED = "failed", _("Failed")


class Notification(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    subject = models.CharField(max_length=200)
    body = models.TextField(max_length=4000)
    url = models.CharField(max_length=300, blank=True, help_text="A path on the site.")
    key = models.CharField(
        max_length=200, null=True, blank=True, unique=True,
        help_text="The event it announces, when it must be announced once (e.g. a check-in window).",
    )
    created_at = models.DateTimeField(default=timezone.now)
    in_inbox = models.BooleanField(default=True, help_text="False: the user does not want these in the inbox.")
    read_at = models.DateTimeField(null=True, blank=True)
    email_status = models.CharField(max_length=10, choices=EmailStatus.choices, default=EmailStatus.PENDING)
    email_to = models.EmailField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["email_status", "created_at"], name="notification_email_queue"),
            models.Index(fields=["user", "in_inbox", "read_at"], name="notification_inbox"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(email_status__in=["pending", "sending", "sent", "skipped", "failed"]),
                name="notification_email_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.subject}"


class Preference(models.Model):
    """A user's choice for one kind (no row: both on)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    inbox = models.BooleanField(default=True)
    email = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="preference_one_per_kind")]

    def __str__(self) -> str:
        return f"{self.user} {self.kind}: inbox {self.inbox}, e-mail {self.email}"
