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
    ACCOUNT_LOCKED = "account_locked", _("Your account locked for new addresses")
    REPORT_WAITING = "report_waiting", _("A result waits for your confirmation")
    REPORT_DISPUTED = "report_disputed", _("A reported result disputed")
    REPORT_OFFICIAL = "report_official", _("A reported result made official by the clock")
    KICKOFF_PROPOSED = "kickoff_proposed", _("A new kick-off proposed")
    KICKOFF_ANSWERED = "kickoff_answered", _("A kick-off proposal answered")
    FIXTURE_OVERDUE = "fixture_overdue", _("A fixture overdue")
    SIGN_UPS_WAITING = "sign_ups_waiting", _("Sign-ups waiting for your decision")
    FIXTURE_CALLED = "fixture_called", _("Called to a hall table")


class EmailStatus(models.TextChoices):
    PENDING = "pending", _("To send")
    SENDING = "sending", _("Being sent")
    SENT = "sent", _("Sent")
    SKIPPED = "skipped", _("Not sent (not wanted, or no address)")
    FAILED = "failed", _("Failed")


class Notification(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications", verbose_name=_("user"))
    kind = models.CharField(max_length=30, choices=Kind.choices, verbose_name=_("kind"))
    subject = models.CharField(max_length=200, verbose_name=_("subject"))
    body = models.TextField(max_length=4000, verbose_name=_("body"))
    url = models.CharField(max_length=300, blank=True, help_text=_("A path on the site."), verbose_name=_("URL"))
    key = models.CharField(
        max_length=200, null=True, blank=True, unique=True,
        help_text=_("The event it announces, when it must be announced once (e.g. a check-in window)."), verbose_name=_("key")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    in_inbox = models.BooleanField(default=True, help_text=_("False: the user does not want these in the inbox."), verbose_name=_("in inbox"))
    read_at = models.DateTimeField(null=True, blank=True, verbose_name=_("read at"))
    email_status = models.CharField(max_length=10, choices=EmailStatus.choices, default=EmailStatus.PENDING, verbose_name=_("email status"))
    email_to = models.EmailField(blank=True, verbose_name=_("email to"))
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("attempts"))
    claimed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("claimed at"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent at"))
    language = models.CharField(
        max_length=10, blank=True, default="", verbose_name=_("language"),
        help_text=_("The language its subject and body were written in (blank: the site's default)."),
    )
    last_error = models.TextField(blank=True, verbose_name=_("last error"))

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
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

    @property
    def written_in(self) -> str:
        """The language code of its subject and body."""
        return self.language or settings.LANGUAGE_CODE

    def __str__(self) -> str:
        return f"{self.user}: {self.subject}"


class Preference(models.Model):
    """A user's choice for one kind (no row: both on)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences", verbose_name=_("user"))
    kind = models.CharField(max_length=30, choices=Kind.choices, verbose_name=_("kind"))
    inbox = models.BooleanField(default=True, verbose_name=_("inbox"))
    email = models.BooleanField(default=True, verbose_name=_("email"))

    class Meta:
        verbose_name = _("preference")
        verbose_name_plural = _("preferences")
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="preference_one_per_kind")]

    def __str__(self) -> str:
        return f"{self.user} {self.kind}: inbox {self.inbox}, e-mail {self.email}"


class Profile(models.Model):
    """How the site speaks to a user: the language they chose (blank: none chosen; the browser's
    ``Accept-Language``, then the site's ``LANGUAGE_CODE``). The switcher of every page saves it
    (``config.language.set_language``); it is applied at sign-in, and the e-mails use it."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile", verbose_name=_("user"))
    language = models.CharField(
        _("language"), max_length=10, blank=True, choices=settings.LANGUAGES,
        help_text=_("The language of the pages and e-mails; blank: the browser's."),
    )

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return f"{self.user}: {self.language or '-'}"
