"""The federation's registry: clubs, players, their memberships, and the seasons (COMPETITIONS.md §1)."""
from __future__ import annotations

import unicodedata
from datetime import date

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from leagues.slugs import slug_q
from matches.names import shown

# Unicode categories a name may not hold: controls (NUL, tab, line breaks), invisible format
# characters (a bidi override, a zero-width space), line and paragraph separators.
UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def is_printable_text(value: str) -> bool:
    """Whether ``value`` holds only characters a reader sees (spaces of any width allowed)."""
    return not any(unicodedata.category(char) in UNPRINTABLE_CATEGORIES for char in value)


def validate_printable(value: str) -> None:
    """A name's rule, as the results import's (COMPETITIONS.md §6): printable text, so that
    every page, download and re-import shows the same name. Raises ``ValidationError``."""
    if not is_printable_text(value):
        raise ValidationError(_("Use visible characters only: no tab, line break or invisible character."),
                              code="not_printable")


class Club(models.Model):
    name = models.CharField(max_length=120, unique=True, validators=[validate_printable], verbose_name=_("name"))
    short_name = models.CharField(max_length=20, blank=True, validators=[validate_printable],
                                  verbose_name=_("short name"))
    slug = models.SlugField(max_length=140, unique=True, verbose_name=_("slug"))
    city = models.CharField(max_length=120, blank=True, verbose_name=_("city"))
    founded = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("founded"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=slug_q(), name="club_slug_is_ascii")]

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A licensed player. The club is read from the membership history (``memberships``)."""

    first_name = models.CharField(max_length=80, validators=[validate_printable], verbose_name=_("first name"))
    last_name = models.CharField(max_length=80, validators=[validate_printable], verbose_name=_("last name"))
    licence_number = models.CharField(max_length=32, unique=True, verbose_name=_("licence number"))
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="player", verbose_name=_("user")
    )
    clubs = models.ManyToManyField(Club, through="ClubMembership", related_name="players", verbose_name=_("clubs"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
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

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player"))
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("club"))
    start_date = models.DateField(verbose_name=_("start date"))
    end_date = models.DateField(null=True, blank=True, help_text=_("Empty while current."), verbose_name=_("end date"))

    class Meta:
        verbose_name = _("club membership")
        verbose_name_plural = _("club memberships")
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
    name = models.CharField(max_length=60, verbose_name=_("name"))
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    start_date = models.DateField(verbose_name=_("start date"))
    end_date = models.DateField(verbose_name=_("end date"))
    is_current = models.BooleanField(default=False, verbose_name=_("is current"))

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
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
        return shown(self.name)  # "Season 2026-27" in the reader's language (matches.names)


