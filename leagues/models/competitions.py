"""Competitions (COMPETITIONS.md §2-3): Competition -> Stage (league, groups, knockout) -> Group
-> Round, and the entrants; the fixtures of the rounds, their results, history and the standings
are in ``leagues.models.fixtures``. No business logic: services write, selectors read."""
from __future__ import annotations

import secrets
import zoneinfo
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from leagues.rules.standings import PRESETS
from leagues.slugs import slug_q
from matches.services.referee import RuleParamsError, check_competition_params

from .registry import Club, Player, Season, validate_printable


def new_lots_seed() -> int:
    """A fresh seed for the drawing of lots (stored once, so every draw is reproducible)."""
    return secrets.randbelow(2**62)


class TiebreakPreset(models.TextChoices):
    FISTF = "fistf", _("FISTF")
    FIFA_2018 = "fifa_2018", _("FIFA World Cup 2018")
    FIFA_2026 = "fifa_2026", _("FIFA World Cup 2026")
    UEFA_EURO = "uefa_euro", _("UEFA EURO")
    FIDE_SWISS = "fide_swiss", _("FIDE Swiss system")
    TEAMS = "teams", _("Teams: game points, goal difference, goals, head-to-head")
    TEAMS_H2H = "teams_h2h", _("Teams: head-to-head, then game points, goal difference, goals")
    CUSTOM = "custom", _("Custom list of criteria")


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
            _("Give a date from %(low)s to %(high)s.") % {"low": FIRST_DATE_MIN.isoformat(),
                                                         "high": FIRST_DATE_MAX.isoformat()},
            code="first_date_range",
        )


def validate_time_zone(value: str) -> None:
    """An IANA time zone name that ``zoneinfo`` knows, e.g. "America/Sao_Paulo"."""
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        raise ValidationError(
            _("%(value)s is not a time zone; give an IANA name such as Europe/Lisbon."),
            code="time_zone", params={"value": value},
        ) from None


def federation_time_zone() -> str:
    """A new competition's time zone: the federation's (``settings.FEDERATION_TIME_ZONE``)."""
    return settings.FEDERATION_TIME_ZONE


def aware_in(zone: zoneinfo.ZoneInfo, local: datetime) -> datetime:
    """``local`` (a wall-clock time, naive) in ``zone``; raises ``ValidationError`` for a time
    that does not exist there (the hour skipped when the clocks go forward)."""
    aware = local.replace(tzinfo=zone)
    if aware.astimezone(zoneinfo.ZoneInfo("UTC")).astimezone(zone).replace(tzinfo=None) != local.replace(tzinfo=None):
        raise ValidationError(
            _("%(time)s does not exist in %(zone)s (the clocks go forward then); choose another time."),
            code="nonexistent_time", params={"time": local.strftime("%Y-%m-%d %H:%M"), "zone": str(zone)},
        )
    return aware


class Venue(models.TextChoices):
    ONLINE = "online", _("Online, on the simulated table")
    TABLE = "table", _("At a real table")


class SeedingMethod(models.TextChoices):
    """How a draw seeded the entrants."""

    HAND = "hand", _("By hand")
    RATING = "rating", _("By rating")
    RANKING = "ranking", _("By ranking")


class EntrantKind(models.TextChoices):
    PLAYER = "player", _("Players")
    TEAM = "team", _("Teams (club ties over several tables)")


class TieDecider(models.TextChoices):
    GOAL_DIFFERENCE_THEN_SHOOTOUT = "goal_difference_then_shootout", _("Goal difference of the games, then a shoot-out")
    SHOOTOUT = "shootout", _("A shoot-out")


def default_tie_points() -> list[int]:
    """A tie won, drawn, lost (COMPETITIONS.md §10)."""
    return [3, 1, 0]


def default_game_points() -> list[float]:
    """A game won, drawn (COMPETITIONS.md §10)."""
    return [1, 0.5]


class Competition(models.Model):
    class Format(models.TextChoices):
        LEAGUE = "league", _("League (round robin)")
        KNOCKOUT = "knockout", _("Knockout")
        GROUPS_KNOCKOUT = "groups_knockout", _("Groups then knockout")
        DOUBLE_ELIMINATION = "double_elimination", _("Double elimination")
        SWISS = "swiss", _("Swiss system")

    class ByePoints(models.TextChoices):
        """What a Swiss bye counts: a win's points or a draw's (``points_win``, ``points_draw``)."""

        WIN = "win", _("A win")
        DRAW = "draw", _("A draw")

    class WithdrawalPolicy(models.TextChoices):
        ANNUL = "annul", _("Annul all its results")
        FORFEIT_REMAINING = "forfeit_remaining", _("Its remaining fixtures become walkovers")

    #: A Swiss keeps what a withdrawn entrant played (FIDE C.04.1: its opponents' Buchholz and
    #: the later pairings rest on those results): its policy is always ``forfeit_remaining``.
    SWISS_KEEPS_RESULTS = _("A Swiss keeps the results a withdrawn entrant played (its opponents' "
                            "Buchholz counts them): its remaining fixtures become walkovers.")

    @classmethod
    def withdrawal_policy_for(cls, fmt: str) -> str:
        """The withdrawal policy a competition of format ``fmt`` takes when none is given."""
        return cls.WithdrawalPolicy.FORFEIT_REMAINING if fmt == cls.Format.SWISS else cls.WithdrawalPolicy.ANNUL

    class RuleSet(models.TextChoices):
        ONE_TOUCH = "one_touch", _("One touch (FISTF)")
        MBS = "mbs", _("MBS")

    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="competitions", verbose_name=_("season")
    )
    name = models.CharField(max_length=160, validators=[validate_printable], verbose_name=_("name"))
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.LEAGUE, verbose_name=_("format"))

    # Format details (§2)
    double_round_robin = models.BooleanField(default=False, verbose_name=_("double round robin"))
    third_place_match = models.BooleanField(default=False, verbose_name=_("third place match"))
    placement_matches = models.BooleanField(
        default=False, help_text=_("Knockout: the losers of each round play on, so every place is decided "
                                   "(the third-place match is one of them)."), verbose_name=_("placement matches")
    )
    grand_final_reset = models.BooleanField(
        default=True, help_text=_("Double elimination: when the losers' bracket winner wins the grand final, "
                                  "both have lost once and a second final decides."), verbose_name=_("grand final reset")
    )
    group_count = models.PositiveSmallIntegerField(default=2, help_text=_("Groups then knockout."), verbose_name=_("group count"))
    qualifiers_per_group = models.PositiveSmallIntegerField(
        default=2, help_text=_("Groups then knockout: the top N of each group go through (1 or more)."), verbose_name=_("qualifiers per group")
    )
    best_thirds = models.PositiveSmallIntegerField(
        default=0, help_text=_("Groups then knockout: this many of the groups' next-placed entrants go through too "
                               "(the best third-placed when two go through per group)."),
        verbose_name=_("best third-placed")
    )

    # Swiss system (§9): how many rounds, and what a bye counts (instead of ``points_bye``)
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)],
        help_text=_("Swiss: how many rounds are paired (1 to the entrants less one)."), verbose_name=_("rounds")
    )
    bye_points = models.CharField(
        max_length=4, choices=ByePoints.choices, default=ByePoints.WIN,
        help_text=_("Swiss: a bye counts as a win or as a draw."), verbose_name=_("bye points")
    )

    # Team competitions (COMPETITIONS.md §10): club against club, a tie of games over several tables
    entrant_kind = models.CharField(
        max_length=10, choices=EntrantKind.choices, default=EntrantKind.PLAYER,
        help_text=_("Players, or teams of a club whose ties are played over several tables."),
        verbose_name=_("entrant kind")
    )
    tables_per_tie = models.PositiveSmallIntegerField(
        default=4, validators=bounds(1, 8), help_text=_("Teams: the games of a tie, one per table."),
        verbose_name=_("tables per tie")
    )
    tie_points = models.JSONField(
        default=default_tie_points, blank=True,
        help_text=_("Teams: the points of a tie won, drawn and lost."), verbose_name=_("tie points")
    )
    game_points = models.JSONField(
        default=default_game_points, blank=True,
        help_text=_("Teams: the game points of a game won and drawn."), verbose_name=_("game points")
    )
    lineup_deadline_minutes = models.PositiveSmallIntegerField(
        default=30, validators=bounds(0, 7 * 24 * 60),
        help_text=_("Teams: line-ups are given until this many minutes before the tie's kick-off."),
        verbose_name=_("line-up deadline minutes")
    )
    tie_decider = models.CharField(
        max_length=32, choices=TieDecider.choices, default=TieDecider.GOAL_DIFFERENCE_THEN_SHOOTOUT,
        help_text=_("Teams: how a knockout tie level on game points is decided."), verbose_name=_("tie decider")
    )

    # Match format (§3)
    halves = models.PositiveSmallIntegerField(default=2, validators=bounds(1, 2), verbose_name=_("halves"))
    half_minutes = models.PositiveSmallIntegerField(default=25, validators=bounds(1, 90), verbose_name=_("half minutes"))
    extra_time = models.BooleanField(default=True, help_text=_("A drawn knockout match goes to extra time."), verbose_name=_("extra time"))
    extra_time_minutes = models.PositiveSmallIntegerField(default=5, validators=bounds(0, 30), help_text=_("Each of two periods."), verbose_name=_("extra time minutes"))
    shootout = models.BooleanField(default=True, help_text=_("Then a penalty shoot-out."), verbose_name=_("shootout"))
    shootout_kicks = models.PositiveSmallIntegerField(default=5, validators=bounds(0, 10), verbose_name=_("shootout kicks"))

    # Points and tie-breaks (§5)
    points_win = models.PositiveSmallIntegerField(default=3, validators=bounds(0, 10), verbose_name=_("points win"))
    points_draw = models.PositiveSmallIntegerField(default=1, validators=bounds(0, 10), verbose_name=_("points draw"))
    points_loss = models.PositiveSmallIntegerField(default=0, validators=bounds(0, 10), verbose_name=_("points loss"))
    points_bye = models.PositiveSmallIntegerField(default=0, validators=bounds(0, 10), help_text=_("A bye gives no points unless set here."), verbose_name=_("points bye"))
    tiebreak_preset = models.CharField(
        max_length=20, choices=TiebreakPreset.choices, default=TiebreakPreset.FISTF, verbose_name=_("tiebreak preset")
    )
    tiebreak_criteria = models.JSONField(
        default=list, blank=True,
        help_text=_('With the "custom" preset: the ordered criterion keys after points.'), verbose_name=_("tiebreak criteria")
    )

    # Results (§4)
    walkover_goals_for = models.PositiveSmallIntegerField(default=2, verbose_name=_("walkover goals for"))
    walkover_goals_against = models.PositiveSmallIntegerField(default=0, verbose_name=_("walkover goals against"))
    withdrawal_policy = models.CharField(
        max_length=20, choices=WithdrawalPolicy.choices, default=WithdrawalPolicy.ANNUL, verbose_name=_("withdrawal policy")
    )

    # How its matches are played
    rule_set = models.CharField(max_length=20, choices=RuleSet.choices, default=RuleSet.ONE_TOUCH, verbose_name=_("rule set"))
    rule_params = models.JSONField(default=dict, blank=True, verbose_name=_("rule params"))
    checkin_grace_minutes = models.PositiveSmallIntegerField(
        default=15, help_text=_("Online: a player not checked in this long after the kick-off loses by walkover."), verbose_name=_("check-in grace minutes")
    )
    checkin_opens_minutes = models.PositiveSmallIntegerField(
        default=30, validators=bounds(0, 7 * 24 * 60),
        help_text=_("Online: check-in opens this many minutes before the kick-off."), verbose_name=_("check-in opens minutes")
    )

    # When and where (COMPETITIONS.md §8)
    venue = models.CharField(
        max_length=10, choices=Venue.choices, default=Venue.TABLE,
        help_text=_("Where its fixtures are played, unless a fixture says otherwise."), verbose_name=_("venue")
    )
    time_zone = models.CharField(
        max_length=64, default=federation_time_zone, validators=[validate_time_zone],
        help_text=_("IANA name; kick-off times are shown in it."), verbose_name=_("time zone")
    )
    kickoff_time = models.TimeField(
        default=time(18, 0), help_text=_("Generated fixtures kick off at this time of day (in the time zone)."), verbose_name=_("kickoff time")
    )

    # What the players do themselves (§11): report results, move kick-offs by agreement
    player_reports = models.BooleanField(
        default=True, help_text=_("At a table, a player's result is a report for the opponent to confirm."),
        verbose_name=_("player reports"))
    report_confirm_hours = models.PositiveSmallIntegerField(
        default=48, validators=bounds(1, 24 * 30),
        help_text=_("A report nobody answers becomes official after this many hours."),
        verbose_name=_("report confirm hours"))
    report_dispute_days = models.PositiveSmallIntegerField(
        default=7, validators=bounds(0, 90),
        help_text=_("A report made official by the clock may still be disputed for this many days."),
        verbose_name=_("report dispute days"))
    reschedule_by_players = models.BooleanField(
        default=True, help_text=_("The two players may move a kick-off by agreement."),
        verbose_name=_("reschedule by players"))
    reschedule_latest_days = models.PositiveSmallIntegerField(
        default=7, validators=bounds(0, 365),
        help_text=_("How many days after its round's date the players may move a fixture."),
        verbose_name=_("reschedule latest days"))
    overdue_days = models.PositiveSmallIntegerField(
        default=3, validators=bounds(1, 90),
        help_text=_("A fixture neither reported nor recorded this many days after its kick-off is overdue."),
        verbose_name=_("overdue days"))

    # The tournament day in a hall (§12): its numbered tables, the rest between games, its referees
    tables = models.PositiveSmallIntegerField(
        default=0, validators=bounds(0, 200),
        help_text=_("How many numbered tables the hall has (0: no hall tables)."), verbose_name=_("tables"))
    table_names = models.JSONField(
        default=list, blank=True,
        help_text=_("Optional names of the hall's tables, in table order (e.g. \"Centre table\")."),
        verbose_name=_("table names"))
    min_rest_minutes = models.PositiveSmallIntegerField(
        default=0, validators=bounds(0, 24 * 60),
        help_text=_("A player is not called again until this many minutes after their last game."),
        verbose_name=_("minimum rest minutes"))
    auto_call = models.BooleanField(
        default=False, help_text=_("Send the next ready fixture to each table as it frees up."),
        verbose_name=_("auto-call"))
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="refereed_competitions",
        help_text=_("Users who may record results at the hall's tables."), verbose_name=_("referees"))
    referee_tables = models.JSONField(
        default=dict, blank=True,
        help_text=_("Which hall tables each referee may record: username -> table numbers (none: all)."),
        verbose_name=_("referee tables"))

    # Scheduling
    first_date = models.DateField(null=True, blank=True, validators=[validate_first_date], verbose_name=_("first date"))
    days_between_rounds = models.PositiveSmallIntegerField(default=7, validators=bounds(*DAYS_BETWEEN_ROUNDS), verbose_name=_("days between rounds"))

    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_competitions", verbose_name=_("organisers")
    )
    lots_seed = models.BigIntegerField(default=new_lots_seed, help_text=_("Seed of the drawing of lots."), verbose_name=_("lots seed"))
    lots_drawn = models.JSONField(
        default=dict, blank=True, help_text=_("Lots already drawn: entrant id -> ticket (kept once made)."), verbose_name=_("lots drawn")
    )
    # The one marker of what the stored standings and bracket were computed from: every write
    # that changes an official result, a withdrawal or the fixtures' entrants bumps
    # ``results_version`` in its transaction; the recomputation stores the version it read in
    # ``derived_version``. ``derived_version < results_version`` is work pending.
    results_version = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("results version"))
    derived_version = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("derived version"))
    # What the pending work is, when it is confined: the groups whose tables a change touched
    # since the last recomputation (a group fixture's result), which it may rank alone; null:
    # anything may have changed (a withdrawal, a setting, a knockout result), rank everything.
    pending_groups = models.JSONField(
        null=True, blank=True, default=None, editable=False,
        help_text=_("Groups whose tables changed since the last recomputation (null: any may have)."),
        verbose_name=_("pending groups"))
    derived_conflicts = models.JSONField(
        default=list, blank=True, editable=False,
        help_text=_("Played fixtures the bracket would now fill otherwise (shown to organisers)."), verbose_name=_("derived conflicts")
    )
    # The federation's year (ratings, the ranking, the draw's seeding)
    rated = models.BooleanField(
        default=True, help_text=_("Its results count for the players' ratings (leave off for friendlies)."), verbose_name=_("rated")
    )
    ranking_tier = models.ForeignKey(
        "RankingTier", null=True, blank=True, on_delete=models.PROTECT, related_name="competitions",
        help_text=_("Its factor multiplies the ranking points of its placings (none: x1)."), verbose_name=_("ranking tier")
    )
    seeding = models.CharField(
        max_length=10, choices=SeedingMethod.choices, default=SeedingMethod.HAND, help_text=_("How the draw seeded the entrants."), verbose_name=_("seeding")
    )
    seeded_at = models.DateTimeField(null=True, blank=True, editable=False, verbose_name=_("seeded at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("competition")
        verbose_name_plural = _("competitions")
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
            models.CheckConstraint(condition=Q(bye_points__in=["win", "draw"]), name="competition_bye_points_valid"),
            models.CheckConstraint(
                condition=Q(format__in=["league", "knockout", "groups_knockout", "double_elimination", "swiss"]),
                name="competition_format_valid",
            ),
            models.CheckConstraint(
                condition=Q(rule_set__in=["one_touch", "mbs"]), name="competition_rule_set_valid"
            ),
            models.CheckConstraint(condition=Q(entrant_kind__in=["player", "team"]),
                                   name="competition_entrant_kind_valid"),
            models.CheckConstraint(condition=Q(tables_per_tie__gte=1, tables_per_tie__lte=8),
                                   name="competition_tables_per_tie_range"),
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

    @property
    def bye_value(self) -> int:
        """The points a bye counts: a Swiss's ``bye_points`` (a win's or a draw's), else ``points_bye``."""
        if self.format == self.Format.SWISS:
            return self.points_win if self.bye_points == self.ByePoints.WIN else self.points_draw
        return self.points_bye

    @property
    def is_team(self) -> bool:
        return self.entrant_kind == EntrantKind.TEAM

    def round_date(self, number: int) -> date | None:
        if self.first_date is None:
            return None
        return self.first_date + timedelta(days=self.days_between_rounds * (number - 1))

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        try:
            return zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def kickoff_on(self, day: date | None) -> datetime | None:
        """The kick-off (aware, in UTC) of a fixture played on ``day`` at the default time."""
        if day is None:
            return None
        local = datetime.combine(day, self.kickoff_time, tzinfo=self.zone)
        return local.astimezone(zoneinfo.ZoneInfo("UTC"))


# Settings a drawn schedule depends on: fixed once the fixtures are made (a fixture's own venue
# can still change, through ``leagues.services.kickoffs.fixture_set_venue``).
FIXED_AFTER_DRAW = ("format", "double_round_robin", "third_place_match", "placement_matches", "group_count",
                    "qualifiers_per_group", "best_thirds", "venue", "grand_final_reset", "rounds", "bye_points")
# ... and, for teams, the kind of entrant and the tables of a tie (the games are made with the ties)
TEAM_FIXED_AFTER_DRAW = ("entrant_kind", "tables_per_tie")

MATCH_SETTINGS = ("halves", "half_minutes", "extra_time", "extra_time_minutes", "shootout", "shootout_kicks",
                  "rule_params")


def match_settings_errors(source, *, rule_set: str | None = None) -> dict[str, str]:
    """``{field: message}`` for the match settings of ``source`` (a competition, or a mapping
    of its fields) that its referee refuses; empty when they are playable. The one check of the
    model, the API serializer and the organiser form (``matches.services.referee``)."""
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

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entrants", verbose_name=_("competition"))
    name = models.CharField(max_length=160, validators=[validate_printable], verbose_name=_("name"))
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="entries", verbose_name=_("player")
    )
    club = models.ForeignKey(Club, null=True, blank=True, on_delete=models.PROTECT, related_name="entries", verbose_name=_("club"))
    seed = models.PositiveSmallIntegerField(null=True, blank=True, help_text=_("1 is the top seed."), verbose_name=_("seed"))
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="captained_entries",
        help_text=_("A team: the user who sets its squad and line-ups."), verbose_name=_("captain")
    )
    withdrawn_at = models.DateTimeField(null=True, blank=True, verbose_name=_("withdrawn at"))

    class Meta:
        verbose_name = _("entrant")
        verbose_name_plural = _("entrants")
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
        LEAGUE = "league", _("League")
        GROUPS = "groups", _("Groups")
        KNOCKOUT = "knockout", _("Knockout")

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="stages", verbose_name=_("competition"))
    order = models.PositiveSmallIntegerField(default=1, verbose_name=_("order"))
    name = models.CharField(max_length=80, validators=[validate_printable], verbose_name=_("name"))
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.LEAGUE, verbose_name=_("kind"))

    class Meta:
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
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
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="groups", verbose_name=_("stage"))
    name = models.CharField(max_length=40, validators=[validate_printable], verbose_name=_("name"))
    entrants = models.ManyToManyField(Entrant, blank=True, related_name="groups", verbose_name=_("entrants"))

    class Meta:
        verbose_name = _("group")
        verbose_name_plural = _("groups")
        ordering = ["stage", "name"]
        constraints = [models.UniqueConstraint(fields=["stage", "name"], name="group_name_unique_in_stage")]

    def __str__(self) -> str:
        return self.name


class Round(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("stage"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    name = models.CharField(max_length=80, blank=True, validators=[validate_printable], verbose_name=_("name"))
    date = models.DateField(null=True, blank=True, verbose_name=_("date"))

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_number_unique_in_stage"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
        ]

    def __str__(self) -> str:
        return self.name or f"Round {self.number}"
