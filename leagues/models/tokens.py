"""API tokens (django-rest-knox's model, stored as digests)."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from knox.models import AbstractAuthToken


class ApiToken(AbstractAuthToken):
    """A user's API token (django-rest-knox's model, ``KNOX_TOKEN_MODEL``): only a digest of the
    token is stored (``digest``; ``token_key`` is its first 15 characters, to find it).

    It dies at ``expiry`` and as soon as the user's password changes, however it is changed:
    ``password_stamp`` is a keyed hash of the password's hash when the token was made
    (``leagues.services.tokens``). Writes go through that service."""

    password_stamp = models.CharField(max_length=64, verbose_name=_("password stamp"))
    label = models.CharField(max_length=100, blank=True, help_text=_("Where the token was made."), verbose_name=_("label"))

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.token_key[:8]}… ({self.user})"


