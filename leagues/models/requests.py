"""The first answer given to a result sent with an idempotency key (COMPETITIONS.md §12): a
phone on a hall's flaky network that sends a result again (a retry after a lost answer, a
double tap) gets the first answer again, and the result is stored once, with one history entry."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .fixtures import Fixture


class ResultRequest(models.Model):
    """A result sent with a key: the API's ``Idempotency-Key`` header, or the hidden key of a
    result form (a uuid made when the form is shown). A key is its user's (unique per user,
    across fixtures); ``request_hash`` is the SHA-256 of the request it was first used for (its
    fixture and body): the same key for another request is refused
    (``leagues.services.result_requests``). Only an accepted result is kept: a refused one
    changed nothing, and its retry is checked again."""

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="result_requests",
                                verbose_name=_("fixture"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("user"))
    key = models.CharField(max_length=100, verbose_name=_("key"))
    request_hash = models.CharField(max_length=64, verbose_name=_("request hash"))
    status_code = models.PositiveSmallIntegerField(verbose_name=_("status code"))
    response = models.JSONField(default=dict, blank=True, verbose_name=_("response"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("result request")
        verbose_name_plural = _("result requests")
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="result_request_key_unique_per_user"),
        ]

    def __str__(self) -> str:
        return f"fixture {self.fixture_id}: {self.key}"
