"""Competitions (COMPETITIONS.md §2-3): Competition -> Stage (league, groups, knockout) -> Group
-> Round -> Fixture, with each fixture's official result, its history and the standings.
A fixture's match lives in ``matches``. No business logic beyond the fixture's status table:
services write, selectors read."""
from __future__ import annotations

import secrets
import zoneinfo
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from leagues.rules.standings import PRESETS
from leagues.slugs import slug_q
from matches.services.referee import RuleParamsError, check_competition_params
from matches.status import StatusMachine

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


