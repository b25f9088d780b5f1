"""Matches: the games played on the simulated table (SIMULATION_CONTRACT.md), online or in practice.

A ``Match`` is one game: the rule set and parameters it is played under (frozen when it is set
up), who plays each side, its check-in window and kick-off, the action log (``MatchAction``)
and its current state. It knows nothing of competitions: whoever sets a match up (a
competition's fixture, in ``leagues``; a practice game) gives it its names and its window,
and takes its result from ``log_result`` once the log is adjudicated (replayed and checked).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.status import InvalidTransition, StatusMachine  # noqa: F401  (InvalidTransition: re-exported)


class Match(StatusMachine, models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        CHECKED_IN = "checked_in", _("Checked in")  # one or both players in, not kicked off
        LIVE = "live", _("Live")  # being played on the simulated table
        WALKOVER = "walkover", _("Walkover, awaiting adjudication")  # a side (or both) did not check in
        ABANDONED = "abandoned", _("Abandoned")
        FINISHED = "finished", _("Finished, awaiting adjudication")
        ADJUDICATED = "adjudicated", _("Adjudicated")  # the log is replayed and checked: ``log_result``
        CANCELLED = "cancelled", _("Annulled")  # by an organiser's decision: to be replayed, or not

    # The only status changes allowed; ``set_status`` refuses the rest.
    TRANSITIONS: dict[str, frozenset[str]] = {
        Status.SCHEDULED: frozenset({Status.CHECKED_IN, Status.LIVE, Status.WALKOVER, Status.CANCELLED}),
        Status.CHECKED_IN: frozenset({Status.LIVE, Status.WALKOVER, Status.ABANDONED, Status.CANCELLED}),
        Status.LIVE: frozenset({Status.FINISHED, Status.ABANDONED, Status.CANCELLED}),
        Status.WALKOVER: frozenset({Status.ADJUDICATED, Status.CANCELLED}),
        Status.ABANDONED: frozenset({Status.CANCELLED}),
        Status.FINISHED: frozenset({Status.ADJUDICATED, Status.CANCELLED}),
        Status.ADJUDICATED: frozenset({Status.CANCELLED}),
        Status.CANCELLED: frozenset(),
    }
    # Statuses in which the match has started (a check-in counts) and is not annulled.
    STARTED = frozenset({Status.CHECKED_IN, Status.LIVE, Status.WALKOVER, Status.FINISHED,
                         Status.ADJUDICATED, Status.ABANDONED})
    # Statuses in which the log's result is still to be adjudicated.
    AWAITING_ADJUDICATION = frozenset({Status.FINISHED, Status.WALKOVER})

    class RuleSet(models.TextChoices):
        ONE_TOUCH = "one_touch", _("One touch (FISTF)")
        MBS = "mbs", _("MBS")

    class Kind(models.TextChoices):
        ONLINE = "online", _("Online, on the simulated table")
        PRACTICE = "practice", _("Practice against the computer")

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.ONLINE, verbose_name=_("kind"))
    rule_set = models.CharField(max_length=20, choices=RuleSet.choices, editable=False, verbose_name=_("rule set"))
    rule_params = models.JSONField(default=dict, blank=True, editable=False, verbose_name=_("rule params"))
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SCHEDULED, verbose_name=_("status"))
    status_changed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("status changed at"))
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("status changed by")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    # Who plays, as the one who set the match up named them (the board shows these).
    title = models.CharField(max_length=200, blank=True, help_text=_('e.g. "Liga Botonera, Round 5".'), verbose_name=_("title"))
    url = models.CharField(max_length=200, blank=True, help_text=_("The page the match was set up from."), verbose_name=_("URL"))
    sides = models.JSONField(
        default=dict, blank=True,
        help_text=_('Per side: {"name", "short", "club", "club_slug"}, as the board shows them.'), verbose_name=_("sides")
    )
    home_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text=_("Who plays the home side online (empty: the computer, or nobody yet)."), verbose_name=_("home user")
    )
    away_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("away user")
    )
    computer_sides = models.JSONField(default=list, blank=True, help_text=_('Sides the computer plays: ["away"].'), verbose_name=_("computer sides"))
    # a match the computer plays on both sides moves only while someone watches it:
    # the boards' feed and the watchers' rooms push this forward, the clock's driver reads it
    watched_until = models.DateTimeField(
        null=True, blank=True, verbose_name=_("watched until"),
        help_text=_("Until when someone is taken to be watching (a computer-against-computer match moves only then)."),
    )

    # When: the kick-off, and the check-in window around it (COMPETITIONS.md §8).
    scheduled_at = models.DateTimeField(null=True, blank=True, help_text=_("The kick-off."), verbose_name=_("scheduled at"))
    checkin_opens_at = models.DateTimeField(null=True, blank=True, verbose_name=_("check-in opens at"))
    checkin_deadline_at = models.DateTimeField(
        null=True, blank=True, help_text=_("The kick-off plus the check-in grace: a side not in by then loses by walkover."), verbose_name=_("check-in deadline at")
    )
    home_checked_in_at = models.DateTimeField(null=True, blank=True, verbose_name=_("home checked in at"))
    away_checked_in_at = models.DateTimeField(null=True, blank=True, verbose_name=_("away checked in at"))
    kicked_off_at = models.DateTimeField(null=True, blank=True, verbose_name=_("kicked off at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    walkover_side = models.CharField(
        max_length=4, blank=True, help_text=_('The side that did not show: "home", "away" or "both".'), verbose_name=_("walkover side")
    )
    # The table: the initial and current state (SIMULATION_CONTRACT.md §4 JSON), the number of
    # accepted log rows (``seq``) and the hash of the current state.
    initial_state = models.JSONField(null=True, blank=True, editable=False, verbose_name=_("initial state"))
    state = models.JSONField(null=True, blank=True, verbose_name=_("state"))
    state_hash = models.CharField(max_length=64, blank=True, verbose_name=_("state hash"))
    seq = models.PositiveIntegerField(default=0, verbose_name=_("seq"))
    # The match clock runs with wall time from an anchor: clock(now) = clock_anchor_s +
    # (now - clock_anchor_at) seconds. The next deadline (turn, shot wait, period) in wall time.
    clock_anchor_s = models.FloatField(default=0.0, verbose_name=_("clock anchor s"))
    clock_anchor_at = models.DateTimeField(null=True, blank=True, verbose_name=_("clock anchor at"))
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True, verbose_name=_("deadline at"))
    deadline_kind = models.CharField(max_length=20, blank=True, verbose_name=_("deadline kind"))

    # What the log says once adjudicated (``matches.services.adjudication``): {"outcome",
    # "outcome_side", "home_goals", "away_goals" (regulation), "home_et_goals", "away_et_goals",
    # "home_shootout", "away_shootout", "home_discipline", "away_discipline"}.
    log_result = models.JSONField(null=True, blank=True, editable=False, verbose_name=_("log result"))
    adjudicated_at = models.DateTimeField(null=True, blank=True, verbose_name=_("adjudicated at"))
    # The official result as its owner states it, for the board: {"home", "away", "text"}.
    official = models.JSONField(null=True, blank=True, editable=False, verbose_name=_("official"))

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        verbose_name_plural = "matches"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(rule_set__in=["one_touch", "mbs"]), name="match_rule_set_valid"),
            models.CheckConstraint(
                condition=Q(status__in=[
                    "scheduled", "abandoned", "finished", "adjudicated", "cancelled", "checked_in", "live",
                    "walkover",
                ]), name="match_status_valid"
            ),
        ]
        indexes = [models.Index(fields=["status"], name="match_status_idx")]

    def __str__(self) -> str:
        if self.title:
            return f"Match {self.pk}: {self.title}"
        return f"Match {self.pk}"

    @property
    def is_started(self) -> bool:
        return self.status in self.STARTED

    @property
    def is_bot_match(self) -> bool:
        """The computer plays both sides: its moves are paced by the clock's driver, and its
        deadlines are applied there (``services.spectating``), never by a read or ``tick_due``."""
        return len(self.computer_sides) >= 2



class MatchAction(models.Model):
    """One accepted action of an online match (or a deadline the server applied: ``tick``).

    A match is the fold of the referee's ``apply`` over these rows, in ``seq`` order, from
    ``Match.initial_state``; ``state_hash`` is the hash of the state after the row, which a
    replay must reproduce exactly. ``frames`` holds each flick's animation frames.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="actions", verbose_name=_("match"))
    seq = models.PositiveIntegerField(help_text=_("1 for the first action of the match."), verbose_name=_("seq"))
    side = models.CharField(max_length=4, blank=True, help_text=_("Empty for a deadline (tick)."), verbose_name=_("side"))
    action = models.JSONField(help_text=_("The action as applied, with the server's clock time t."), verbose_name=_("action"))
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("by"))
    created_at = models.DateTimeField(help_text=_("Server time the action was accepted."), verbose_name=_("created at"))
    state_hash = models.CharField(max_length=64, verbose_name=_("state hash"))
    events = models.JSONField(default=list, blank=True, verbose_name=_("events"))
    frames = models.JSONField(default=list, blank=True, help_text=_("One list of frames per flick."), verbose_name=_("frames"))

    class Meta:
        verbose_name = _("match action")
        verbose_name_plural = _("match actions")
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

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="action_requests", verbose_name=_("match"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user"))
    key = models.CharField(max_length=100, verbose_name=_("key"))
    request_hash = models.CharField(max_length=64, blank=True, verbose_name=_("request hash"))
    status_code = models.PositiveSmallIntegerField(verbose_name=_("status code"))
    response = models.JSONField(verbose_name=_("response"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("action request")
        verbose_name_plural = _("action requests")
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="action_request_key_unique_per_user"),
        ]
