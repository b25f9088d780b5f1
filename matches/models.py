"""Matches and their official results (COMPETITIONS.md §4).

A ``Match`` is the game played for a fixture (or a friendly, with no fixture). It freezes the
rule set and parameters it is played under when it is created; online play (action log, state)
extends it in a later issue. Its ``Result`` holds what was recorded at the table and, once
adjudicated, the official score and winner.
"""
from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from leagues.models import Entrant, Fixture, InvalidTransition


class Match(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        CHECKED_IN = "checked_in", "Checked in"  # online: one or both players in, not kicked off
        LIVE = "live", "Live"  # online: being played on the simulated table
        WALKOVER = "walkover", "Walkover, awaiting adjudication"  # online: a side did not check in
        IN_PROGRESS = "in_progress", "In progress"
        ABANDONED = "abandoned", "Abandoned"
        FINISHED = "finished", "Finished, awaiting adjudication"
        ADJUDICATED = "adjudicated", "Official result"
        CANCELLED = "cancelled", "Cancelled"

    # The only status changes allowed; ``set_status`` refuses the rest.
    TRANSITIONS: dict[str, frozenset[str]] = {
        Status.SCHEDULED: frozenset({Status.IN_PROGRESS, Status.FINISHED, Status.CANCELLED,
                                     Status.CHECKED_IN, Status.LIVE, Status.WALKOVER, Status.ABANDONED}),
        # Online play (matches.services.online): check-in, kick-off, full time or a walkover.
        Status.CHECKED_IN: frozenset({Status.LIVE, Status.WALKOVER, Status.ABANDONED, Status.CANCELLED}),
        Status.LIVE: frozenset({Status.FINISHED, Status.ABANDONED}),
        Status.WALKOVER: frozenset({Status.ADJUDICATED, Status.FINISHED}),
        Status.IN_PROGRESS: frozenset({Status.FINISHED, Status.ABANDONED}),
        Status.ABANDONED: frozenset({Status.FINISHED, Status.CANCELLED, Status.ADJUDICATED}),
        Status.FINISHED: frozenset({Status.ADJUDICATED}),
        # An organiser's correction reopens an official result for a new adjudication.
        Status.ADJUDICATED: frozenset({Status.FINISHED}),
        Status.CANCELLED: frozenset(),
    }

    class RuleSet(models.TextChoices):
        ONE_TOUCH = "one_touch", "One touch (FISTF)"
        MBS = "mbs", "MBS"

    fixture = models.OneToOneField(
        Fixture, null=True, blank=True, on_delete=models.CASCADE, related_name="match",
        help_text="Empty for a friendly or practice game.",
    )
    rule_set = models.CharField(max_length=20, choices=RuleSet.choices, editable=False)
    rule_params = models.JSONField(default=dict, blank=True, editable=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SCHEDULED)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    # --- Online play (issue 7; matches.services.online) ------------------------------------
    class Kind(models.TextChoices):
        TABLE = "table", "At a real table"
        ONLINE = "online", "Online, on the simulated table"
        PRACTICE = "practice", "Practice against the computer"

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TABLE)
    home_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="Who plays the home side online (empty: the computer, or nobody yet).",
    )
    away_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    computer_sides = models.JSONField(default=list, blank=True, help_text='Sides the computer plays: ["away"].')
    scheduled_at = models.DateTimeField(null=True, blank=True)
    checkin_deadline_at = models.DateTimeField(
        null=True, blank=True, help_text="Scheduled time plus the competition's check-in grace."
    )
    home_checked_in_at = models.DateTimeField(null=True, blank=True)
    away_checked_in_at = models.DateTimeField(null=True, blank=True)
    kicked_off_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    walkover_side = models.CharField(max_length=4, blank=True, help_text="The side that did not show.")
    # The table: the initial and current state (SIMULATION_CONTRACT.md §4 JSON), the number of
    # accepted log rows (``seq``) and the hash of the current state.
    initial_state = models.JSONField(null=True, blank=True, editable=False)
    state = models.JSONField(null=True, blank=True)
    state_hash = models.CharField(max_length=64, blank=True)
    seq = models.PositiveIntegerField(default=0)
    # The match clock runs with wall time from an anchor: clock(now) = clock_anchor_s +
    # (now - clock_anchor_at) seconds. The next deadline (turn, shot wait, period) in wall time.
    clock_anchor_s = models.FloatField(default=0.0)
    clock_anchor_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True)
    deadline_kind = models.CharField(max_length=20, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(rule_set__in=["one_touch", "mbs"]), name="match_rule_set_valid"),
            models.CheckConstraint(
                condition=Q(status__in=[
                    "scheduled", "in_progress", "abandoned", "finished", "adjudicated", "cancelled",
                    "checked_in", "live", "walkover",
                ]), name="match_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk}: {self.fixture}" if self.fixture_id else f"Friendly {self.pk}"

    def can_transition(self, new: str) -> bool:
        return new in self.TRANSITIONS[self.status]

    def set_status(self, new: str, *, by=None, now: datetime | None = None, save: bool = True) -> None:
        """Moves the match to ``new``; raises ``InvalidTransition`` where the table forbids it.

        Callers hold the match row lock (``select_for_update``)."""
        if not self.can_transition(new):
            raise InvalidTransition(f"match {self.pk}: {self.status} -> {new} is not allowed")
        self.status = new
        self.status_changed_at = now or timezone.now()
        self.status_changed_by = by
        if save:
            self.save(update_fields=["status", "status_changed_at", "status_changed_by"])


class Outcome(models.TextChoices):
    PLAYED = "played", "Played"
    WALKOVER = "walkover", "Walkover"
    DISQUALIFICATION = "disqualification", "Disqualification"
    BYE = "bye", "Bye"


class Side(models.TextChoices):
    HOME = "home", "Home"
    AWAY = "away", "Away"


class Result(models.Model):
    """A match's result: as recorded at the table, then official once adjudicated (§4).

    ``table_*_goals`` are the regulation-time score on the table (for a disqualification, the
    score at that moment); ``*_et_goals`` the extra-time goals; ``*_shootout`` the shoot-out,
    kept apart. ``home_goals``/``away_goals`` are the official score (extra time included),
    empty until ``adjudicated_at``.
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="result")
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.PLAYED)
    outcome_side = models.CharField(
        max_length=4, choices=Side.choices, blank=True,
        help_text="Walkover: the side that did not show. Disqualification: the side disqualified.",
    )
    table_home_goals = models.PositiveSmallIntegerField(default=0)
    table_away_goals = models.PositiveSmallIntegerField(default=0)
    home_et_goals = models.PositiveSmallIntegerField(default=0)
    away_et_goals = models.PositiveSmallIntegerField(default=0)
    home_shootout = models.PositiveSmallIntegerField(null=True, blank=True)
    away_shootout = models.PositiveSmallIntegerField(null=True, blank=True)
    home_discipline = models.PositiveSmallIntegerField(default=0)
    away_discipline = models.PositiveSmallIntegerField(default=0)

    home_goals = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Official.")
    away_goals = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Official.")
    winner_side = models.CharField(max_length=4, choices=Side.choices, blank=True, help_text="Empty: a draw.")
    winner = models.ForeignKey(Entrant, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    recorded_at = models.DateTimeField(default=timezone.now)
    adjudicated_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome__in=[c.value for c in Outcome]), name="result_outcome_valid"
            ),
            models.CheckConstraint(
                condition=Q(outcome__in=["played", "bye"], outcome_side="")
                | Q(outcome__in=["walkover", "disqualification"], outcome_side__in=["home", "away"]),
                name="result_outcome_side_matches_outcome",
            ),
            models.CheckConstraint(
                condition=Q(home_shootout__isnull=True, away_shootout__isnull=True)
                | (Q(home_shootout__isnull=False, away_shootout__isnull=False)
                   & ~Q(home_shootout=F("away_shootout"))),
                name="result_shootout_both_sides_and_decisive",
            ),
        ]

    def __str__(self) -> str:
        if self.home_goals is None:
            return f"{self.table_home_goals}-{self.table_away_goals} (not adjudicated)"
        text = f"{self.home_goals}-{self.away_goals}"
        if self.home_shootout is not None:
            text += f", {self.home_shootout}-{self.away_shootout} on penalties"
        if self.outcome != Outcome.PLAYED:
            text += f" ({self.get_outcome_display().lower()})"
        return text

    @property
    def is_official(self) -> bool:
        return self.adjudicated_at is not None


class MatchAction(models.Model):
    """One accepted action of an online match (or a deadline the server applied: ``tick``).

    A match is the fold of the referee's ``apply`` over these rows, in ``seq`` order, from
    ``Match.initial_state``; ``state_hash`` is the hash of the state after the row, which a
    replay must reproduce exactly. ``frames`` holds each flick's animation frames.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField(help_text="1 for the first action of the match.")
    side = models.CharField(max_length=4, blank=True, help_text="Empty for a deadline (tick).")
    action = models.JSONField(help_text="The action as applied, with the server's clock time t.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(help_text="Server time the action was accepted.")
    state_hash = models.CharField(max_length=64)
    events = models.JSONField(default=list, blank=True)
    frames = models.JSONField(default=list, blank=True, help_text="One list of frames per flick.")

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="match_action_one_per_seq"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="match_action_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} #{self.seq} {self.action.get('type')}"


class ActionRequest(models.Model):
    """The first answer given to a submission with an ``Idempotency-Key``: a retry gets it again.

    A key is the user's (unique per user, across matches); ``request_hash`` is the SHA-256 of the
    request it was first used for (its match, ``seq`` and action): the same key for another
    request is refused (``matches.services.online.submit_action``)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="action_requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100)
    request_hash = models.CharField(max_length=64, blank=True)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="action_request_key_unique_per_user"),
        ]
