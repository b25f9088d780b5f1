"""What the players of a table fixture say before anything is official (COMPETITIONS.md §11):
a result one of them reports for the opponent to confirm, and a kick-off one of them proposes for
the opponent to accept. Neither is official by itself: ``leagues.services.reports`` makes a
confirmed report the fixture's result through the organiser's own service, and an accepted
proposal moves the kick-off through the organisers' reschedule service."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .fixtures import Fixture, Outcome


class ResultReport(models.Model):
    """A score reported by one side (``side``: home or away) of a table fixture, the same body
    as an organiser's result. ``status``: ``waiting`` (for the opponent, until ``confirm_by``),
    ``disputed`` (the opponent said no, or the two sides reported different scores: the
    organisers decide), ``official`` (confirmed, both reported it, or the clock made it so),
    ``replaced`` (its reporter sent another), ``closed`` (the organisers recorded the result)."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for the opponent's confirmation")
        DISPUTED = "disputed", _("Disputed")
        OFFICIAL = "official", _("Official")
        REPLACED = "replaced", _("Replaced by a later report")
        CLOSED = "closed", _("Closed by the organisers' result")

    ACTIVE = frozenset({Status.WAITING, Status.DISPUTED})

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="reports", verbose_name=_("fixture"))
    side = models.CharField(max_length=4, choices=[("home", _("Home")), ("away", _("Away"))], verbose_name=_("side"))
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
                           verbose_name=_("by"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, verbose_name=_("status"))
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.PLAYED, verbose_name=_("outcome"))
    outcome_side = models.CharField(max_length=4, blank=True, verbose_name=_("outcome side"))
    home_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("home goals"))
    away_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("away goals"))
    home_et_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("home et goals"))
    away_et_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("away et goals"))
    home_shootout = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("home shootout"))
    away_shootout = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("away shootout"))
    home_discipline = models.PositiveSmallIntegerField(default=0, verbose_name=_("home discipline"))
    away_discipline = models.PositiveSmallIntegerField(default=0, verbose_name=_("away discipline"))
    reported_at = models.DateTimeField(default=timezone.now, verbose_name=_("reported at"))
    confirm_by = models.DateTimeField(db_index=True, help_text=_("Unanswered by then, it becomes official."),
                                      verbose_name=_("confirm by"))
    official_at = models.DateTimeField(null=True, blank=True, verbose_name=_("official at"))
    by_clock = models.BooleanField(default=False, help_text=_("Made official because nobody answered in time."),
                                   verbose_name=_("by clock"))
    confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+", verbose_name=_("confirmed by"))
    disputed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("disputed at"))
    disputed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+", verbose_name=_("disputed by"))
    dispute_reason = models.TextField(blank=True, max_length=1000, verbose_name=_("dispute reason"))

    class Meta:
        verbose_name = _("result report")
        verbose_name_plural = _("result reports")
        constraints = [
            models.CheckConstraint(condition=Q(side__in=["home", "away"]), name="result_report_side_valid"),
            models.UniqueConstraint(fields=["fixture", "side"], condition=Q(status__in=["waiting", "disputed"]),
                                    name="result_report_one_open_per_side"),
        ]

    def __str__(self) -> str:
        return f"{self.fixture_id} {self.side}: {self.home_goals}-{self.away_goals} ({self.status})"

    def score_key(self) -> tuple:
        """What two reports must share to be the same result."""
        return (self.outcome, self.outcome_side, self.home_goals, self.away_goals, self.home_et_goals,
                self.away_et_goals, self.home_shootout, self.away_shootout, self.home_discipline,
                self.away_discipline)


class KickoffProposal(models.Model):
    """A new kick-off proposed by one side of a fixture; the opponent accepts or declines it.
    ``status``: ``open``, ``accepted`` (the kick-off moved), ``declined``, ``withdrawn`` (its
    proposer proposed again, or the organisers moved the kick-off themselves)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for the opponent")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="kickoff_proposals",
                                verbose_name=_("fixture"))
    side = models.CharField(max_length=4, choices=[("home", _("Home")), ("away", _("Away"))], verbose_name=_("side"))
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
                           verbose_name=_("by"))
    kickoff_at = models.DateTimeField(verbose_name=_("kickoff at"))
    reason = models.TextField(blank=True, max_length=1000, verbose_name=_("reason"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status"))
    proposed_at = models.DateTimeField(default=timezone.now, verbose_name=_("proposed at"))
    answered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("answered at"))
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+", verbose_name=_("answered by"))

    class Meta:
        verbose_name = _("kick-off proposal")
        verbose_name_plural = _("kick-off proposals")
        constraints = [
            models.UniqueConstraint(fields=["fixture"], condition=Q(status="open"),
                                    name="kickoff_proposal_one_open_per_fixture"),
        ]

    def __str__(self) -> str:
        return f"{self.fixture_id} {self.side}: {self.kickoff_at:%Y-%m-%d %H:%M} ({self.status})"
