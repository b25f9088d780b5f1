"""Sign-ins counted per account across addresses (``leagues.services.signins``): each failure of
the last hour, and the lock of an account that had too many (``LOGIN_FAILURE_LIMIT_PER_ACCOUNT``).
The lockouts of a pair (account, address) and of an address are django-axes' (``config.lockout``)."""
from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class SignInFailure(models.Model):
    """One failed sign-in (or one being checked: it is forgotten if the password was right) of
    an account name, from an address. Kept for ``LOGIN_ACCOUNT_WINDOW`` (an hour)."""

    username = models.CharField(_("username"), max_length=255)
    ip_address = models.GenericIPAddressField(_("IP address"), null=True)
    failed_at = models.DateTimeField(_("failed at"), default=timezone.now)

    class Meta:
        verbose_name = _("failed sign-in")
        verbose_name_plural = _("failed sign-ins")
        indexes = [
            models.Index(fields=["username", "failed_at"], name="signin_failure_account"),
            models.Index(fields=["failed_at"], name="signin_failure_age"),
        ]

    def __str__(self) -> str:
        return f"{self.username} from {self.ip_address} at {self.failed_at:%Y-%m-%d %H:%M:%S}"


class AccountLock(models.Model):
    """An account name refused from every address it has never signed in from, until ``until``
    (``LOGIN_ACCOUNT_WINDOW`` after the failure that reached the limit). Deleting the row lifts it."""

    username = models.CharField(_("username"), max_length=255, unique=True)
    locked_at = models.DateTimeField(_("locked at"))
    until = models.DateTimeField(_("until"), db_index=True)
    failures = models.PositiveIntegerField(_("failed sign-ins"), help_text=_("In the hour before the lock."))
    addresses = models.PositiveIntegerField(_("addresses"), help_text=_("The addresses they came from."))

    class Meta:
        verbose_name = _("account locked for new addresses")
        verbose_name_plural = _("accounts locked for new addresses")
        constraints = [
            models.CheckConstraint(condition=models.Q(until__gt=models.F("locked_at")), name="account_lock_ends_after_it_begins"),
        ]

    def __str__(self) -> str:
        return f"{self.username} until {self.until:%Y-%m-%d %H:%M}"
