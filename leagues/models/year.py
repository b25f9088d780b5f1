"""The federation's year: ratings, the ranking's placings, tiers and scale, registration and sign-ups."""
from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .competitions import Competition, Entrant, bounds
from .registry import Player


class PlayerRating(models.Model):
    """A player's Glicko-2 rating at the end of one rating period (``leagues.rules.ratings``).

    Rewritten whole by ``leagues.services.ratings.ratings_recompute`` from every rated official
    result: one row per player per period, from the player's first rated game to the last
    period with any. ``rating`` and ``deviation`` are Glicko points (1500 and 350 for a player
    never rated); ``volatility`` is Glicko-2's sigma."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player"))
    period_start = models.DateField(help_text=_("The first day of the rating period."), verbose_name=_("period start"))
    rating = models.FloatField(verbose_name=_("rating"))
    deviation = models.FloatField(verbose_name=_("deviation"))
    volatility = models.FloatField(verbose_name=_("volatility"))
    games = models.PositiveIntegerField(default=0, help_text=_("Rated games in the period."), verbose_name=_("games"))
    wins = models.PositiveIntegerField(default=0, verbose_name=_("wins"))
    draws = models.PositiveIntegerField(default=0, verbose_name=_("draws"))
    losses = models.PositiveIntegerField(default=0, verbose_name=_("losses"))

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")
        ordering = ["player", "period_start"]
        constraints = [
            models.UniqueConstraint(fields=["player", "period_start"], name="player_rating_one_per_period"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.rating:.0f} ± {self.deviation:.0f} ({self.period_start:%Y-%m})"

    @property
    def provisional(self) -> bool:
        """True when the deviation is above ``RATING_PROVISIONAL_RD`` (default 110): too few recent games."""
        return self.deviation > float(getattr(settings, "RATING_PROVISIONAL_RD", 110))


class RatingRun(models.Model):
    """The one row the ratings worker locks (``pk=1``): when the ratings and placings were last
    computed, and with which settings (``settings_key``)."""

    computed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("computed at"))
    settings_key = models.CharField(max_length=120, blank=True, verbose_name=_("settings key"))

    class Meta:
        verbose_name = _("rating run")
        verbose_name_plural = _("rating runs")

    def __str__(self) -> str:
        return f"ratings computed at {self.computed_at}"


class RatingBasis(models.Model):
    """One competition's ``results_version`` (and whether it was rated) that the stored ratings
    and placings were computed from. A competition whose version or flag differs, or a pair
    whose competition is gone, is work pending (``ratings_stale``). ``competition_id`` is a plain
    number, so a deleted competition's pair stays to be noticed."""

    competition_id = models.BigIntegerField(unique=True, verbose_name=_("competition id"))
    results_version = models.PositiveIntegerField(verbose_name=_("results version"))
    rated = models.BooleanField(verbose_name=_("rated"))

    class Meta:
        verbose_name = _("rating basis")
        verbose_name_plural = _("rating basises")

    def __str__(self) -> str:
        return f"competition {self.competition_id} at version {self.results_version}"


class Placing(models.Model):
    """An entrant's final placing in a finished competition (``leagues.rules.placings``): ``place``
    to ``place_to`` (equal unless shared, e.g. 3 to 4 for a losing semi-finalist without a
    third-place match). Rewritten by the ratings worker from the results."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="placings", verbose_name=_("competition"))
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="+", verbose_name=_("entrant"))
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="placings", verbose_name=_("player"))
    place = models.PositiveSmallIntegerField(verbose_name=_("place"))
    place_to = models.PositiveSmallIntegerField(verbose_name=_("place to"))
    finished_on = models.DateField(help_text=_("The competition's last day: the ranking's window counts from it."), verbose_name=_("finished on"))

    class Meta:
        verbose_name = _("placing")
        verbose_name_plural = _("placings")
        ordering = ["competition", "place", "entrant__name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "entrant"], name="placing_one_per_entrant"),
            models.CheckConstraint(condition=Q(place_to__gte=F("place")), name="placing_band_ordered"),
        ]

    def __str__(self) -> str:
        return f"{self.entrant}: {self.place} in {self.competition}"


class RankingTier(models.Model):
    """A class of competition whose ``factor`` multiplies the ranking points of its placings
    (e.g. "Major" x2, "Open" x1, "Local" x0.5). A competition without a tier counts x1."""

    name = models.CharField(max_length=60, unique=True, verbose_name=_("name"))
    factor = models.DecimalField(max_digits=4, decimal_places=2, default=1, validators=[MinValueValidator(0)], verbose_name=_("factor"))

    class Meta:
        verbose_name = _("ranking tier")
        verbose_name_plural = _("ranking tiers")
        ordering = ["-factor", "name"]

    def __str__(self) -> str:
        return f"{self.name} (x{self.factor.normalize()})"


class RankingScale(models.Model):
    """The federation ranking's points by final placing and its rolling window: one row (``pk=1``),
    changed by federation administrators (admin, ``PUT /api/ranking/scale/``)."""

    first = models.PositiveSmallIntegerField(default=100, verbose_name=_("first"))
    second = models.PositiveSmallIntegerField(default=70, verbose_name=_("second"))
    third_fourth = models.PositiveSmallIntegerField(default=50, help_text=_("3rd and 4th."), verbose_name=_("third fourth"))
    fifth_eighth = models.PositiveSmallIntegerField(default=30, help_text=_("5th to 8th."), verbose_name=_("fifth eighth"))
    ninth_sixteenth = models.PositiveSmallIntegerField(default=15, help_text=_("9th to 16th."), verbose_name=_("ninth sixteenth"))
    other = models.PositiveSmallIntegerField(default=5, help_text=_("Any other finisher."), verbose_name=_("other"))
    window_months = models.PositiveSmallIntegerField(default=12, validators=bounds(1, 120), verbose_name=_("window months"))

    class Meta:
        verbose_name = _("ranking scale")
        verbose_name_plural = _("ranking scales")

    def __str__(self) -> str:
        return f"ranking scale {self.first}/{self.second}/{self.third_fourth}/... over {self.window_months} months"

    @classmethod
    def current(cls) -> RankingScale:
        """The stored scale, or the defaults when none is stored (not saved)."""
        return cls.objects.filter(pk=1).first() or cls(pk=1)


class Registration(models.Model):
    """Sign-up for a competition (``leagues.services.registration``): open from ``opens_at`` to
    ``closes_at`` (players withdraw before it too), at most ``capacity`` places (held by the
    sign-ups waiting for the organiser and the confirmed ones), then a waiting list if
    ``waiting_list``. With ``licence_required``, a player needs a licence number and a club
    membership open on the competition's first date."""

    competition = models.OneToOneField(Competition, on_delete=models.CASCADE, related_name="registration", verbose_name=_("competition"))
    opens_at = models.DateTimeField(verbose_name=_("opens at"))
    closes_at = models.DateTimeField(verbose_name=_("closes at"))
    capacity = models.PositiveSmallIntegerField(validators=bounds(2, 1024), verbose_name=_("capacity"))
    licence_required = models.BooleanField(default=True, verbose_name=_("licence required"))
    waiting_list = models.BooleanField(default=True, verbose_name=_("waiting list"))

    class Meta:
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        constraints = [
            models.CheckConstraint(condition=Q(closes_at__gt=F("opens_at")), name="registration_closes_after_it_opens"),
            models.CheckConstraint(condition=Q(capacity__gte=2), name="registration_capacity_at_least_two"),
        ]

    def __str__(self) -> str:
        return f"registration for {self.competition} ({self.capacity} places)"

    def is_open(self, now: datetime) -> bool:
        return self.opens_at <= now < self.closes_at


class SignUp(models.Model):
    """A player's sign-up for a competition. ``pending`` and ``confirmed`` hold a place;
    ``waiting`` is on the waiting list (in the order signed up); ``refused`` (with its reason)
    and ``withdrawn`` are over. A confirmed sign-up is the competition's ``entrant``."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for the organisers")
        CONFIRMED = "confirmed", _("Confirmed")
        WAITING = "waiting", _("On the waiting list")
        REFUSED = "refused", _("Refused")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    HOLDS_PLACE = frozenset({Status.PENDING, Status.CONFIRMED})
    ACTIVE = frozenset({Status.PENDING, Status.CONFIRMED, Status.WAITING})

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="sign_ups", verbose_name=_("competition"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="sign_ups", verbose_name=_("player"))
    status = models.CharField(max_length=10, choices=Status.choices, verbose_name=_("status"))
    reason = models.TextField(blank=True, max_length=1000, help_text=_("Why it was refused."), verbose_name=_("reason"))
    entrant = models.OneToOneField(Entrant, null=True, blank=True, on_delete=models.SET_NULL, related_name="sign_up", verbose_name=_("entrant"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("decided by")
    )

    class Meta:
        verbose_name = _("sign up")
        verbose_name_plural = _("sign ups")
        ordering = ["competition", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "player"], condition=Q(status__in=["pending", "confirmed", "waiting"]),
                name="sign_up_one_active_per_player",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "confirmed", "waiting", "refused", "withdrawn"]),
                name="sign_up_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} for {self.competition}: {self.status}"
