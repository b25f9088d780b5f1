"""The fixtures of a competition's rounds (COMPETITIONS.md §4-5, §8, §10): each fixture (a team
tie's games too), its official result, its history and the stored standings. A fixture's match
lives in ``matches``. No business logic beyond the fixture's status table: services write,
selectors read."""
from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.status import StatusMachine

from .competitions import Competition, Entrant, Group, Round, Stage, Venue
from .registry import Player, validate_printable


class TiesAndSingles(models.Manager):
    """The fixtures a competition is drawn in: single fixtures and team ties, never the games
    of a tie (those are read through ``Fixture.with_games``, e.g. ``games_of(tie)``)."""

    def get_queryset(self):
        return super().get_queryset().filter(tie__isnull=True)


class Fixture(StatusMachine, models.Model):
    """A scheduled pairing. A knockout fixture may wait for its entrants (empty slots).

    In a team competition a fixture between two teams is a **tie**; its **games** are fixtures
    too (``tie`` set, one per ``table`` 1..N, between ``home_player`` and ``away_player``, the
    tie's entrants as their own), each taking its result as a single fixture does. The default
    manager leaves the games out: what is drawn, ranked and bracketed is ties and singles."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        POSTPONED = "postponed", _("Postponed")
        PLAYED = "played", _("Played")
        WALKOVER = "walkover", _("Walkover")
        BYE = "bye", _("Bye")
        CANCELLED = "cancelled", _("Cancelled")
        ANNULLED = "annulled", _("Annulled")

    # The only status changes allowed; ``set_status`` refuses the rest.
    TRANSITIONS: dict[str, frozenset[str]] = {
        Status.SCHEDULED: frozenset({Status.PLAYED, Status.WALKOVER, Status.POSTPONED, Status.BYE,
                                     Status.CANCELLED, Status.ANNULLED}),
        Status.POSTPONED: frozenset({Status.SCHEDULED, Status.PLAYED, Status.WALKOVER,
                                     Status.CANCELLED, Status.ANNULLED}),
        # A recorded result may be corrected (played <-> walkover), struck out (annulled), or
        # struck by a correction that cascades (back to scheduled, kept in the history).
        Status.PLAYED: frozenset({Status.WALKOVER, Status.ANNULLED, Status.SCHEDULED}),
        Status.WALKOVER: frozenset({Status.PLAYED, Status.ANNULLED, Status.SCHEDULED}),
        # A knockout slot's bye or cancellation is derived from the results: it follows them.
        Status.BYE: frozenset({Status.SCHEDULED, Status.CANCELLED}),
        Status.CANCELLED: frozenset({Status.SCHEDULED, Status.BYE}),
        Status.ANNULLED: frozenset(),
    }
    DONE = frozenset({Status.PLAYED, Status.WALKOVER, Status.BYE})
    RESULTED = frozenset({Status.PLAYED, Status.WALKOVER})  # an official result stands
    OPEN = frozenset({Status.SCHEDULED, Status.POSTPONED})

    class Slot(models.TextChoices):
        HOME = "home", _("Home")
        AWAY = "away", _("Away")

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="fixtures", verbose_name=_("competition"))
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="fixtures", verbose_name=_("round"))
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.CASCADE, related_name="fixtures", verbose_name=_("group"))
    position = models.PositiveIntegerField(default=0, help_text=_("Board or bracket position in the round."), verbose_name=_("position"))  # a round of a 250,000-result import
    label = models.CharField(max_length=60, blank=True, validators=[validate_printable],
                             help_text=_('e.g. "Final", "Third-place match".'), verbose_name=_("label"))
    home = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.PROTECT, related_name="home_fixtures", verbose_name=_("home")
    )
    away = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.PROTECT, related_name="away_fixtures", verbose_name=_("away")
    )
    home_source = models.CharField(
        max_length=20, blank=True, help_text=_('Knockout after groups: the group place that fills home, e.g. "A1".'), verbose_name=_("home source")
    )
    away_source = models.CharField(max_length=20, blank=True, verbose_name=_("away source"))
    date = models.DateField(null=True, blank=True, help_text=_("The kick-off's date in the competition's time zone."), verbose_name=_("date"))
    kickoff_at = models.DateTimeField(null=True, blank=True, db_index=True, verbose_name=_("kickoff at"))
    playable_since = models.DateTimeField(
        null=True, blank=True,
        help_text=_("When it last got its entrants, kick-off or venue: a check-in window counts only if the "
                  "fixture was playable by its kick-off."), verbose_name=_("playable since")
    )
    venue = models.CharField(
        max_length=10, choices=Venue.choices, blank=True, help_text=_("Empty: the competition's venue."), verbose_name=_("venue")
    )
    match = models.OneToOneField(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text=_("Its online match, once set up (at the first check-in)."), verbose_name=_("match")
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SCHEDULED, verbose_name=_("status"))
    status_changed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("status changed at"))
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("status changed by")
    )
    # Knockout: where the winner (and, for a third-place match, the loser) goes next.
    winner_to = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="winner_from", verbose_name=_("winner to")
    )
    winner_to_slot = models.CharField(max_length=4, choices=Slot.choices, blank=True, verbose_name=_("winner to slot"))
    loser_to = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="loser_from", verbose_name=_("loser to")
    )
    loser_to_slot = models.CharField(max_length=4, choices=Slot.choices, blank=True, verbose_name=_("loser to slot"))

    # Team competitions: a game of a tie (its table, its two players), and a tie's line-ups
    tie = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="games", verbose_name=_("tie")
    )
    table = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("A game: its place in its tie (1..N)."), verbose_name=_("table")
    )
    home_player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="home_games", verbose_name=_("home player")
    )
    away_player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="away_games", verbose_name=_("away player")
    )
    home_lineup_at = models.DateTimeField(null=True, blank=True, verbose_name=_("home line-up at"))
    away_lineup_at = models.DateTimeField(null=True, blank=True, verbose_name=_("away line-up at"))
    home_tie_shootout = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("A knockout tie level after its games: the tie's shoot-out."),
        verbose_name=_("home tie shoot-out")
    )
    away_tie_shootout = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("away tie shoot-out"))

    # The tournament day: the hall table it was called to, and when (§12)
    hall_table = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("The hall table it is called to (1..the competition's tables)."),
        verbose_name=_("hall table"))
    called_at = models.DateTimeField(null=True, blank=True, verbose_name=_("called at"))

    objects = TiesAndSingles()
    with_games = models.Manager()

    class Meta:
        base_manager_name = "with_games"
        verbose_name = _("fixture")
        verbose_name_plural = _("fixtures")
        ordering = ["round__stage__order", "round__number", "group__name", "position"]
        constraints = [
            models.CheckConstraint(condition=~Q(home=F("away")), name="fixture_entrants_differ"),
            models.CheckConstraint(
                condition=Q(status__in=[
                    "scheduled", "postponed", "played", "walkover", "bye", "cancelled", "annulled"
                ]), name="fixture_status_valid"
            ),
            models.UniqueConstraint(
                fields=["round", "group", "position"], condition=Q(tie__isnull=True),
                name="fixture_position_unique_in_round_group",
            ),
            models.UniqueConstraint(fields=["tie", "table"], condition=Q(tie__isnull=False),
                                    name="fixture_game_table_unique_in_tie"),
            models.CheckConstraint(condition=Q(tie__isnull=True) | Q(table__gte=1), name="fixture_game_has_a_table"),
            # one open fixture per hall table: two calls to one table cannot both be stored
            models.UniqueConstraint(
                fields=["competition", "hall_table"],
                condition=Q(hall_table__isnull=False, status__in=["scheduled", "postponed"]),
                name="fixture_one_open_call_per_hall_table",
            ),
            models.CheckConstraint(condition=Q(hall_table__isnull=True) | Q(hall_table__gte=1),
                                   name="fixture_hall_table_from_one"),
        ]
        indexes = [models.Index(fields=["competition", "status"])]

    def __str__(self) -> str:
        home = self.home.name if self.home_id else "?"
        away = self.away.name if self.away_id else ("bye" if self.status == self.Status.BYE else "?")
        return f"{home} v {away}"

    def set_status(self, new: str, *, by=None, now: datetime | None = None, save: bool = True) -> None:
        """As ``StatusMachine.set_status``; a fixture that was over and opens again (a result
        struck back to scheduled) leaves the hall table it was played at: that table may hold
        its next call already (``fixture_one_open_call_per_hall_table``). That is saved at once,
        even with ``save=False`` (whose callers save only the status fields)."""
        if self.hall_table is not None and self.status not in self.OPEN and new in self.OPEN:
            self.hall_table = self.called_at = None
            if self.pk is not None:
                self.save(update_fields=["hall_table", "called_at"])
        super().set_status(new, by=by, now=now, save=save)

    @property
    def is_knockout(self) -> bool:
        return self.round.stage.kind == Stage.Kind.KNOCKOUT

    @property
    def is_game(self) -> bool:
        return self.tie_id is not None

    @property
    def is_tie(self) -> bool:
        return self.tie_id is None and self.competition.is_team

    def entrant(self, slot: str) -> Entrant | None:
        return self.home if slot == self.Slot.HOME else self.away

    @property
    def effective_venue(self) -> str:
        return self.venue or self.competition.venue

    @property
    def is_online(self) -> bool:
        return self.effective_venue == Venue.ONLINE

    @property
    def checkin_opens_at(self) -> datetime | None:
        if self.kickoff_at is None:
            return None
        return self.kickoff_at - timedelta(minutes=self.competition.checkin_opens_minutes)

    @property
    def checkin_closes_at(self) -> datetime | None:
        if self.kickoff_at is None:
            return None
        return self.kickoff_at + timedelta(minutes=self.competition.checkin_grace_minutes)

    @property
    def paired_in_time(self) -> bool:
        """Whether the fixture had its entrants, kick-off and venue by its kick-off: only then is
        its check-in window one the players could use (and a no-show a no-show)."""
        return self.kickoff_at is not None and (self.playable_since is None or self.playable_since <= self.kickoff_at)


class Outcome(models.TextChoices):
    PLAYED = "played", _("Played")
    WALKOVER = "walkover", _("Walkover")
    DISQUALIFICATION = "disqualification", _("Disqualification")
    BYE = "bye", _("Bye")


class Side(models.TextChoices):
    HOME = "home", _("Home")
    AWAY = "away", _("Away")
    BOTH = "both", _("Both (a double no-show)")


class Result(models.Model):
    """A fixture's official result (COMPETITIONS.md §4), owned by one source.

    ``table_*_goals`` are the regulation-time score (for a disqualification, the score at that
    moment); ``*_et_goals`` the extra-time goals; ``*_shootout`` the shoot-out, kept apart.
    ``home_goals``/``away_goals`` are the official score, computed by ``leagues.rules.official`` in the
    same transaction that records it: a result stored here is official.

    ``source`` says who owns it: ``table`` (an organiser recorded the score at a real table),
    ``online`` (the adjudicated log of its online match), ``decision`` (an organiser's walkover
    or disqualification over an online match, with its ``reason``), ``import`` (a results file),
    ``withdrawal`` (a walkover that a withdrawal gave).
    """

    class Source(models.TextChoices):
        TABLE = "table", _("Recorded at the table")
        ONLINE = "online", _("From the online match's log")
        DECISION = "decision", _("An organiser's decision")
        IMPORT = "import", _("Imported")
        WITHDRAWAL = "withdrawal", _("A withdrawal")
        TIE = "tie", _("Derived from the games of the tie")

    fixture = models.OneToOneField(Fixture, on_delete=models.CASCADE, related_name="result", verbose_name=_("fixture"))
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.TABLE, verbose_name=_("source"))
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text=_("The online match it comes from, or that the decision was taken on."), verbose_name=_("match")
    )
    reason = models.TextField(blank=True, max_length=1000, verbose_name=_("reason"))
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.PLAYED, verbose_name=_("outcome"))
    outcome_side = models.CharField(
        max_length=4, choices=Side.choices, blank=True,
        help_text=_("Walkover: the side that did not show (both: a double no-show). Disqualification: the side disqualified."), verbose_name=_("outcome side")
    )
    table_home_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("table home goals"))
    table_away_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("table away goals"))
    home_et_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("home et goals"))
    away_et_goals = models.PositiveSmallIntegerField(default=0, verbose_name=_("away et goals"))
    home_shootout = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("home shootout"))
    away_shootout = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("away shootout"))
    home_discipline = models.PositiveSmallIntegerField(default=0, verbose_name=_("home discipline"))
    away_discipline = models.PositiveSmallIntegerField(default=0, verbose_name=_("away discipline"))

    # a team tie's derived result: the game points of its games (its goals are theirs, summed)
    home_game_points = models.DecimalField(max_digits=4, decimal_places=1, null=True, blank=True,
                                           verbose_name=_("home game points"))
    away_game_points = models.DecimalField(max_digits=4, decimal_places=1, null=True, blank=True,
                                           verbose_name=_("away game points"))
    home_goals = models.PositiveSmallIntegerField(help_text=_("Official."), verbose_name=_("home goals"))
    away_goals = models.PositiveSmallIntegerField(help_text=_("Official."), verbose_name=_("away goals"))
    winner_side = models.CharField(max_length=4, blank=True, help_text=_("Empty: a draw, or nobody (a double no-show)."), verbose_name=_("winner side"))
    winner = models.ForeignKey(Entrant, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("winner"))

    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("recorded by")
    )
    recorded_at = models.DateTimeField(default=timezone.now, verbose_name=_("recorded at"))
    adjudicated_at = models.DateTimeField(default=timezone.now, help_text=_("When it became official."), verbose_name=_("adjudicated at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("result")
        verbose_name_plural = _("results")
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome__in=["played", "walkover", "disqualification", "bye"]), name="result_outcome_valid"
            ),
            models.CheckConstraint(
                condition=Q(outcome__in=["played", "bye"], outcome_side="")
                | Q(outcome="walkover", outcome_side__in=["home", "away", "both"])
                | Q(outcome="disqualification", outcome_side__in=["home", "away"]),
                name="result_outcome_side_matches_outcome",
            ),
            models.CheckConstraint(
                condition=Q(home_shootout__isnull=True, away_shootout__isnull=True)
                | (Q(home_shootout__isnull=False, away_shootout__isnull=False)
                   & ~Q(home_shootout=F("away_shootout"))),
                name="result_shootout_both_sides_and_decisive",
            ),
            models.CheckConstraint(
                condition=Q(source__in=["table", "online", "decision", "import", "withdrawal", "tie"]),
                name="result_source_valid",
            ),
        ]

    def __str__(self) -> str:
        text = f"{self.home_goals}-{self.away_goals}"
        if self.home_shootout is not None:
            text += _(", %(home)s-%(away)s on penalties") % {"home": self.home_shootout, "away": self.away_shootout}
        if self.outcome == Outcome.WALKOVER and self.outcome_side == Side.BOTH:
            text += " " + _("(double no-show)")
        elif self.outcome != Outcome.PLAYED:
            text += f" ({self.get_outcome_display().lower()})"
        return text

    @property
    def is_official(self) -> bool:
        return True

    @property
    def is_double_no_show(self) -> bool:
        return self.outcome == Outcome.WALKOVER and self.outcome_side == Side.BOTH


class FixtureChange(models.Model):
    """One accepted change of a fixture: its result, its entrants, its kick-off, its match.

    One entry per accepted change, whatever number of rows it wrote: who, when, what it was
    (``before``), what it became (``after``), and the reason given.
    """

    class Kind(models.TextChoices):
        RESULT = "result", _("Result recorded")
        CORRECTION = "correction", _("Result corrected")
        STRUCK = "struck", _("Result struck by a correction of an earlier round")
        DECISION = "decision", _("Organiser's decision")
        MATCH_ANNULLED = "match_annulled", _("Online match annulled")
        ONLINE_RESULT = "online_result", _("Result from the online match")
        ENTRANTS = "entrants", _("Entrants changed")
        RESCHEDULED = "rescheduled", _("Rescheduled")
        VENUE = "venue", _("Venue changed")
        WITHDRAWAL = "withdrawal", _("Withdrawal")
        STATUS = "status", _("Status changed")
        REPORTED = "reported", _("Result reported by a player")
        REPORT_DISPUTED = "report_disputed", _("Reported result disputed")
        KICKOFF_PROPOSED = "kickoff_proposed", _("Kick-off proposed by a player")
        KICKOFF_ANSWERED = "kickoff_answered", _("Kick-off proposal answered")
        CALLED = "called", _("Called to a hall table")
        UNCALLED = "uncalled", _("Call withdrawn")

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="changes", verbose_name=_("fixture"))
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("by")
    )
    reason = models.TextField(blank=True, max_length=1000, verbose_name=_("reason"))
    before = models.JSONField(default=dict, blank=True, verbose_name=_("before"))
    after = models.JSONField(default=dict, blank=True, verbose_name=_("after"))

    class Meta:
        verbose_name = _("fixture change")
        verbose_name_plural = _("fixture changes")
        ordering = ["fixture", "-at", "-pk"]
        indexes = [models.Index(fields=["fixture", "at"], name="fixture_change_fixture_at")]

    def __str__(self) -> str:
        return f"{self.fixture_id}: {self.get_kind_display()} at {self.at:%Y-%m-%d %H:%M}"


class Standing(models.Model):
    """One stored row of a table; rewritten whole by ``standings_recompute``."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="standings", verbose_name=_("competition"))
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.CASCADE, related_name="standings", verbose_name=_("group"))
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="standings", verbose_name=_("entrant"))
    position = models.PositiveSmallIntegerField(verbose_name=_("position"))
    played = models.PositiveSmallIntegerField(default=0, verbose_name=_("played"))
    won = models.PositiveSmallIntegerField(default=0, verbose_name=_("won"))
    drawn = models.PositiveSmallIntegerField(default=0, verbose_name=_("drawn"))
    lost = models.PositiveSmallIntegerField(default=0, verbose_name=_("lost"))
    goals_for = models.PositiveIntegerField(default=0, verbose_name=_("goals for"))
    goals_against = models.PositiveIntegerField(default=0, verbose_name=_("goals against"))
    goal_difference = models.IntegerField(default=0, verbose_name=_("goal difference"))
    points = models.IntegerField(default=0, verbose_name=_("points"))
    discipline = models.PositiveIntegerField(default=0, verbose_name=_("discipline"))
    game_points = models.DecimalField(
        max_digits=7, decimal_places=1, default=0, help_text=_("Teams: the game points of its ties."),
        verbose_name=_("game points")
    )
    tiebreak = models.CharField(max_length=300, blank=True, help_text=_("Why it stands above the next row."), verbose_name=_("tiebreak"))
    tiebreak_criterion = models.CharField(max_length=40, blank=True, verbose_name=_("tiebreak criterion"))
    shared = models.BooleanField(
        default=False, help_text=_("Level with another row that the criteria cannot separate (\"2=\")."), verbose_name=_("shared")
    )
    computed_at = models.DateTimeField(default=timezone.now, verbose_name=_("computed at"))

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        ordering = ["competition", "group__name", "position", "entrant__name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "entrant"], name="standing_one_row_per_entrant"),
        ]
        indexes = [models.Index(fields=["competition", "group", "position"], name="standing_table_order")]

    def __str__(self) -> str:
        return f"{self.position}. {self.entrant} {self.points}"


