"""The federation's registry and its competitions (COMPETITIONS.md §1-3).

Season -> Competition -> Stage (league, groups, knockout) -> Group -> Round -> Fixture. A
fixture's match and official result live in ``matches``. No business logic lives here beyond
the fixture's status transition table: services write, selectors read.
"""
from __future__ import annotations

import secrets
from datetime import date, datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from knox.models import AbstractAuthToken

from .ranking import PRESETS
from .slugs import slug_q


def new_lots_seed() -> int:
    """A fresh seed for the drawing of lots (stored once, so every draw is reproducible)."""
    return secrets.randbelow(2**62)


class TiebreakPreset(models.TextChoices):
    FISTF = "fistf", "FISTF"
    FIFA_2018 = "fifa_2018", "FIFA World Cup 2018"
    FIFA_2026 = "fifa_2026", "FIFA World Cup 2026"
    UEFA_EURO = "uefa_euro", "UEFA EURO"
    CUSTOM = "custom", "Custom list of criteria"


# A competition's first round is played between these days (its later rounds follow it).
FIRST_DATE_MIN = date(1900, 1, 1)
FIRST_DATE_MAX = date(2200, 12, 31)
DAYS_BETWEEN_ROUNDS = (1, 365)


def bounds(low: int, high: int) -> list:
    """Validators of a number from ``low`` to ``high`` inclusive."""
    return [MinValueValidator(low), MaxValueValidator(high)]


def validate_first_date(value: date) -> None:
    if value is not None and not FIRST_DATE_MIN <= value <= FIRST_DATE_MAX:
        raise ValidationError(
            f"Give a date from {FIRST_DATE_MIN.isoformat()} to {FIRST_DATE_MAX.isoformat()}.",
            code="first_date_range",
        )


class InvalidTransition(ValueError):
    """A status change the transition table does not allow (a bug or a stale request)."""


# --- Registry ---------------------------------------------------------------------------------


class Club(models.Model):
    name = models.CharField(max_length=120, unique=True)
    short_name = models.CharField(max_length=20, blank=True)
    slug = models.SlugField(max_length=140, unique=True)
    city = models.CharField(max_length=120, blank=True)
    founded = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=slug_q(), name="club_slug_is_ascii")]

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A licensed player. The club is read from the membership history (``memberships``)."""

    first_name = models.CharField(max_length=80)
    last_name = models.CharField(max_length=80)
    licence_number = models.CharField(max_length=32, unique=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="player",
    )
    clubs = models.ManyToManyField(Club, through="ClubMembership", related_name="players")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["last_name", "first_name"]

    def __str__(self) -> str:
        return self.full_name

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    def club_on(self, day: date) -> Club | None:
        """The club the player belonged to on ``day`` (memberships are [start, end] inclusive)."""
        membership = (
            self.memberships.filter(start_date__lte=day)
            .filter(Q(end_date__isnull=True) | Q(end_date__gte=day))
            .select_related("club")
            .order_by("-start_date")
            .first()
        )
        return membership.club if membership else None

    @property
    def current_club(self) -> Club | None:
        membership = self.memberships.filter(end_date__isnull=True).select_related("club").first()
        return membership.club if membership else None


class ClubMembership(models.Model):
    """A player's time at a club; a transfer closes one membership and opens the next."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="memberships")
    start_date = models.DateField()
    end_date = models.DateField(null=True, blank=True, help_text="Empty while current.")

    class Meta:
        ordering = ["player", "start_date"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__isnull=True) | Q(end_date__gte=F("start_date")),
                name="membership_ends_after_it_starts",
            ),
            models.UniqueConstraint(
                fields=["player"], condition=Q(end_date__isnull=True),
                name="one_current_membership_per_player",
            ),
        ]

    def __str__(self) -> str:
        end = self.end_date.isoformat() if self.end_date else "now"
        return f"{self.player} at {self.club} ({self.start_date.isoformat()} to {end})"


class Season(models.Model):
    name = models.CharField(max_length=60)
    slug = models.SlugField(max_length=80, unique=True)
    start_date = models.DateField()
    end_date = models.DateField()
    is_current = models.BooleanField(default=False)

    class Meta:
        ordering = ["-start_date"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__gt=F("start_date")), name="season_ends_after_it_starts"
            ),
            models.UniqueConstraint(
                fields=["is_current"], condition=Q(is_current=True), name="one_current_season"
            ),
            models.CheckConstraint(condition=slug_q(), name="season_slug_is_ascii"),
        ]

    def __str__(self) -> str:
        return self.name


# --- Competitions -----------------------------------------------------------------------------


class Competition(models.Model):
    class Format(models.TextChoices):
        LEAGUE = "league", "League (round robin)"
        KNOCKOUT = "knockout", "Knockout"
        GROUPS_KNOCKOUT = "groups_knockout", "Groups then knockout"

    class WithdrawalPolicy(models.TextChoices):
        ANNUL = "annul", "Annul all its results"
        FORFEIT_REMAINING = "forfeit_remaining", "Its remaining fixtures become walkovers"

    class RuleSet(models.TextChoices):
        ONE_TOUCH = "one_touch", "One touch (FISTF)"
        MBS = "mbs", "MBS"

    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="competitions"
    )
    name = models.CharField(max_length=160)
    slug = models.SlugField(max_length=80, unique=True)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.LEAGUE)

    # Format details (§2)
    double_round_robin = models.BooleanField(default=False)
    third_place_match = models.BooleanField(default=False)
    group_count = models.PositiveSmallIntegerField(default=2, help_text="Groups then knockout.")
    qualifiers_per_group = models.PositiveSmallIntegerField(
        default=2, help_text="Groups then knockout: the top N of each group go through (1 or 2)."
    )

    # Match format (§3)
    halves = models.PositiveSmallIntegerField(default=2, validators=bounds(1, 2))
    half_minutes = models.PositiveSmallIntegerField(default=25, validators=bounds(1, 90))
    extra_time = models.BooleanField(default=True, help_text="A drawn knockout match goes to extra time.")
    extra_time_minutes = models.PositiveSmallIntegerField(default=5, validators=bounds(0, 30), help_text="Each of two periods.")
    shootout = models.BooleanField(default=True, help_text="Then a penalty shoot-out.")
    shootout_kicks = models.PositiveSmallIntegerField(default=5, validators=bounds(0, 10))

    # Points and tie-breaks (§5)
    points_win = models.PositiveSmallIntegerField(default=3, validators=bounds(0, 10))
    points_draw = models.PositiveSmallIntegerField(default=1, validators=bounds(0, 10))
    points_loss = models.PositiveSmallIntegerField(default=0, validators=bounds(0, 10))
    points_bye = models.PositiveSmallIntegerField(default=0, validators=bounds(0, 10), help_text="A bye gives no points unless set here.")
    tiebreak_preset = models.CharField(
        max_length=20, choices=TiebreakPreset.choices, default=TiebreakPreset.FISTF
    )
    tiebreak_criteria = models.JSONField(
        default=list, blank=True,
        help_text='With the "custom" preset: the ordered criterion keys after points.',
    )

    # Results (§4)
    walkover_goals_for = models.PositiveSmallIntegerField(default=2)
    walkover_goals_against = models.PositiveSmallIntegerField(default=0)
    withdrawal_policy = models.CharField(
        max_length=20, choices=WithdrawalPolicy.choices, default=WithdrawalPolicy.ANNUL
    )

    # How its matches are played
    rule_set = models.CharField(max_length=20, choices=RuleSet.choices, default=RuleSet.ONE_TOUCH)
    rule_params = models.JSONField(default=dict, blank=True)
    checkin_grace_minutes = models.PositiveSmallIntegerField(
        default=15, help_text="Online: a player not checked in this long after the scheduled time loses by walkover."
    )

    # Scheduling
    first_date = models.DateField(null=True, blank=True, validators=[validate_first_date])
    days_between_rounds = models.PositiveSmallIntegerField(default=7, validators=bounds(*DAYS_BETWEEN_ROUNDS))

    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_competitions"
    )
    lots_seed = models.BigIntegerField(default=new_lots_seed, help_text="Seed of the drawing of lots.")
    lots_drawn = models.JSONField(
        default=dict, blank=True, help_text="Lots already drawn: entrant id -> ticket (kept once made)."
    )
    standings_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "name"]
        constraints = [
            models.CheckConstraint(condition=slug_q(), name="competition_slug_is_ascii"),
            models.CheckConstraint(condition=Q(halves__gte=1), name="competition_at_least_one_half"),
            models.CheckConstraint(
                condition=Q(points_win__gte=F("points_draw")) & Q(points_draw__gte=F("points_loss")),
                name="competition_points_win_draw_loss_ordered",
            ),
            models.CheckConstraint(
                condition=Q(walkover_goals_for__gt=F("walkover_goals_against")),
                name="competition_walkover_has_a_winner",
            ),
            models.CheckConstraint(
                condition=Q(format__in=["league", "knockout", "groups_knockout"]), name="competition_format_valid"
            ),
            models.CheckConstraint(
                condition=Q(rule_set__in=["one_touch", "mbs"]), name="competition_rule_set_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """The match settings are played by the referee: refuse those it would refuse."""
        errors = match_settings_errors(self)
        if errors:
            raise ValidationError(errors)

    @property
    def criteria(self) -> list[str]:
        """The ordered criterion keys, points first (§5)."""
        after = (
            list(self.tiebreak_criteria)
            if self.tiebreak_preset == TiebreakPreset.CUSTOM
            else list(PRESETS[self.tiebreak_preset])
        )
        return ["points", *[key for key in after if key != "points"]]

    def round_date(self, number: int) -> date | None:
        if self.first_date is None:
            return None
        return self.first_date + timedelta(days=self.days_between_rounds * (number - 1))


MATCH_SETTINGS = ("halves", "half_minutes", "extra_time", "extra_time_minutes", "shootout", "shootout_kicks",
                  "rule_params")


def match_settings_errors(source, *, rule_set: str | None = None) -> dict[str, str]:
    """``{field: message}`` for the match settings of ``source`` (a competition, or a mapping
    of its fields) that its referee refuses; empty when they are playable. The one check of the
    model, the API serializer and the organiser form (``matches.services.referee``)."""
    from matches.services.referee import RuleParamsError, check_competition_params

    def get(name):
        return source[name] if isinstance(source, dict) else getattr(source, name)

    rule_set = rule_set or get("rule_set")
    if rule_set not in Competition.RuleSet.values:
        return {}  # the choices refuse it
    values = {name: get(name) for name in MATCH_SETTINGS}
    if any(value is None for value in values.values()):
        return {}  # a missing value is refused by its own field
    try:
        check_competition_params(rule_set, **values)
    except RuleParamsError as exc:
        return {exc.field: str(exc)}
    return {}


class Entrant(models.Model):
    """Who a competition ranks: a player representing a club, or just a name (imports)."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entrants")
    name = models.CharField(max_length=160)
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )
    club = models.ForeignKey(Club, null=True, blank=True, on_delete=models.PROTECT, related_name="entries")
    seed = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 is the top seed.")
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["competition", "seed", "name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="entrant_name_unique_in_competition"),
            models.UniqueConstraint(
                fields=["competition", "seed"], condition=Q(seed__isnull=False),
                name="entrant_seed_unique_in_competition",
            ),
            models.UniqueConstraint(
                fields=["competition", "player"], condition=Q(player__isnull=False),
                name="entrant_player_once_per_competition",
            ),
            models.CheckConstraint(condition=Q(seed__isnull=True) | Q(seed__gte=1), name="entrant_seed_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_at is not None


class Stage(models.Model):
    class Kind(models.TextChoices):
        LEAGUE = "league", "League"
        GROUPS = "groups", "Groups"
        KNOCKOUT = "knockout", "Knockout"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="stages")
    order = models.PositiveSmallIntegerField(default=1)
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.LEAGUE)

    class Meta:
        ordering = ["competition", "order"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "order"], name="stage_order_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.competition}: {self.name}"

    @property
    def is_knockout(self) -> bool:
        return self.kind == self.Kind.KNOCKOUT


class Group(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(max_length=40)
    entrants = models.ManyToManyField(Entrant, blank=True, related_name="groups")

    class Meta:
        ordering = ["stage", "name"]
        constraints = [models.UniqueConstraint(fields=["stage", "name"], name="group_name_unique_in_stage")]

    def __str__(self) -> str:
        return self.name


class Round(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80, blank=True)
    date = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_number_unique_in_stage"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
        ]

    def __str__(self) -> str:
        return self.name or f"Round {self.number}"


class Fixture(models.Model):
    """A scheduled pairing. A knockout fixture may wait for its entrants (empty slots)."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        POSTPONED = "postponed", "Postponed"
        PLAYED = "played", "Played"
        WALKOVER = "walkover", "Walkover"
        BYE = "bye", "Bye"
        CANCELLED = "cancelled", "Cancelled"
        ANNULLED = "annulled", "Annulled"

    # The only status changes allowed; ``set_status`` refuses the rest.
    TRANSITIONS: dict[str, frozenset[str]] = {
        Status.SCHEDULED: frozenset({Status.PLAYED, Status.WALKOVER, Status.POSTPONED, Status.BYE,
                                     Status.CANCELLED, Status.ANNULLED}),
        Status.POSTPONED: frozenset({Status.SCHEDULED, Status.PLAYED, Status.WALKOVER,
                                     Status.CANCELLED, Status.ANNULLED}),
        # A recorded result may be corrected (played <-> walkover) or struck out (annulled).
        Status.PLAYED: frozenset({Status.WALKOVER, Status.ANNULLED}),
        Status.WALKOVER: frozenset({Status.PLAYED, Status.ANNULLED}),
        Status.BYE: frozenset(),
        Status.CANCELLED: frozenset({Status.SCHEDULED}),
        Status.ANNULLED: frozenset(),
    }
    DONE = frozenset({Status.PLAYED, Status.WALKOVER, Status.BYE})
    OPEN = frozenset({Status.SCHEDULED, Status.POSTPONED})

    class Slot(models.TextChoices):
        HOME = "home", "Home"
        AWAY = "away", "Away"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="fixtures")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="fixtures")
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.CASCADE, related_name="fixtures")
    position = models.PositiveSmallIntegerField(default=0, help_text="Board or bracket position in the round.")
    label = models.CharField(max_length=60, blank=True, help_text='e.g. "Final", "Third-place match".')
    home = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.PROTECT, related_name="home_fixtures"
    )
    away = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.PROTECT, related_name="away_fixtures"
    )
    date = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.SCHEDULED)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Knockout: where the winner (and, for a third-place match, the loser) goes next.
    winner_to = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="winner_from"
    )
    winner_to_slot = models.CharField(max_length=4, choices=Slot.choices, blank=True)
    loser_to = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="loser_from"
    )
    loser_to_slot = models.CharField(max_length=4, choices=Slot.choices, blank=True)

    class Meta:
        ordering = ["round__stage__order", "round__number", "group__name", "position"]
        constraints = [
            models.CheckConstraint(condition=~Q(home=F("away")), name="fixture_entrants_differ"),
            models.CheckConstraint(
                condition=Q(status__in=[
                    "scheduled", "postponed", "played", "walkover", "bye", "cancelled", "annulled"
                ]), name="fixture_status_valid"
            ),
            models.UniqueConstraint(
                fields=["round", "group", "position"], name="fixture_position_unique_in_round_group",
            ),
        ]
        indexes = [models.Index(fields=["competition", "status"])]

    def __str__(self) -> str:
        home = self.home.name if self.home_id else "?"
        away = self.away.name if self.away_id else ("bye" if self.status == self.Status.BYE else "?")
        return f"{home} v {away}"

    def can_transition(self, new: str) -> bool:
        return new in self.TRANSITIONS[self.status]

    def set_status(self, new: str, *, by=None, now: datetime | None = None, save: bool = True) -> None:
        """Moves the fixture to ``new``; raises ``InvalidTransition`` where the table forbids it."""
        if not self.can_transition(new):
            raise InvalidTransition(f"fixture {self.pk}: {self.status} -> {new} is not allowed")
        self.status = new
        self.status_changed_at = now or timezone.now()
        self.status_changed_by = by
        if save:
            self.save(update_fields=["status", "status_changed_at", "status_changed_by"])

    @property
    def is_knockout(self) -> bool:
        return self.round.stage.kind == Stage.Kind.KNOCKOUT

    def entrant(self, slot: str) -> Entrant | None:
        return self.home if slot == self.Slot.HOME else self.away


class Standing(models.Model):
    """One stored row of a table; rewritten whole by ``standings_recompute``."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="standings")
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.CASCADE, related_name="standings")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="standings")
    position = models.PositiveSmallIntegerField()
    played = models.PositiveSmallIntegerField(default=0)
    won = models.PositiveSmallIntegerField(default=0)
    drawn = models.PositiveSmallIntegerField(default=0)
    lost = models.PositiveSmallIntegerField(default=0)
    goals_for = models.PositiveIntegerField(default=0)
    goals_against = models.PositiveIntegerField(default=0)
    goal_difference = models.IntegerField(default=0)
    points = models.IntegerField(default=0)
    discipline = models.PositiveIntegerField(default=0)
    tiebreak = models.CharField(max_length=300, blank=True, help_text="Why it stands above the next row.")
    tiebreak_criterion = models.CharField(max_length=40, blank=True)
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["competition", "group__name", "position"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "entrant"], name="standing_one_row_per_entrant"),
            models.UniqueConstraint(
                fields=["competition", "group", "position"], name="standing_position_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.entrant} {self.points}"


# --- API tokens --------------------------------------------------------------------------------


class ApiToken(AbstractAuthToken):
    """A user's API token (django-rest-knox's model, ``KNOX_TOKEN_MODEL``): only a digest of the
    token is stored (``digest``; ``token_key`` is its first 15 characters, to find it).

    It dies at ``expiry`` and as soon as the user's password changes, however it is changed:
    ``password_stamp`` is a keyed hash of the password's hash when the token was made
    (``leagues.services.tokens``). Writes go through that service."""

    password_stamp = models.CharField(max_length=64)
    label = models.CharField(max_length=100, blank=True, help_text="Where the token was made.")

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.token_key[:8]}… ({self.user})"
