"""Team competitions (COMPETITIONS.md §10): a team entrant's squad, the players it may line up."""
from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .competitions import Competition, Entrant
from .registry import Player


class SquadMember(models.Model):
    """A player of a team entrant's squad. A player is in one squad per competition (kept when he
    moves to another club midway: he stays in the squad he was entered in)."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="squad_members",
                                    verbose_name=_("competition"))
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="squad", verbose_name=_("entrant"))
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="squads", verbose_name=_("player"))
    added_at = models.DateTimeField(default=timezone.now, verbose_name=_("added at"))

    class Meta:
        verbose_name = _("squad member")
        verbose_name_plural = _("squad members")
        ordering = ["entrant", "player__last_name", "player__first_name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "player"], name="squad_player_once_per_competition"),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.entrant})"
