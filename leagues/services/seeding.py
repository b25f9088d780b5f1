"""The draw's seeding: by hand (the seeds the organisers typed), by rating, or by
the federation ranking. Called by ``fixtures_generate`` under the competition's lock, before the
pairings are made; the competition keeps which (``seeding``) and when (``seeded_at``), so the
draw says which.

By rating: the current Glicko-2 rating (its deviation aged to the current period) less twice
its deviation, highest first, so a provisional newcomer is not seeded above established players
(an unrated entrant after the rated ones; level: the surer first). By ranking: the federation ranking's points on the day of the
draw, most first (unranked after). Ties then keep the typed seed, then the name."""
from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import Competition, Entrant, SeedingMethod
from leagues.selectors.year import current_ratings_now, federation_ranking


class SeedingError(ValueError):
    """An unknown seeding method (400 on ``seeding``)."""

    field = "seeding"


def seeding_order(*, competition: Competition, method: str, now: datetime) -> list[Entrant]:
    """The competition's entrants (the withdrawn left out) in the order ``method`` seeds them.
    Raises ``SeedingError`` for an unknown method."""
    if method not in SeedingMethod.values:
        raise SeedingError(_("seed by hand, by rating or by ranking"))
    entrants = list(competition.entrants.filter(withdrawn_at__isnull=True).select_related("player"))
    typed = {e.pk: (e.seed is None, e.seed or 0, e.name) for e in entrants}
    if method == SeedingMethod.HAND:
        return sorted(entrants, key=lambda e: typed[e.pk])
    if method == SeedingMethod.RATING:
        players = [e.player_id for e in entrants if e.player_id]
        ratings = {r.player_id: r for r in current_ratings_now(today=timezone.localdate(now), players=players)}

        def key(e):
            r = ratings.get(e.player_id)
            return (r is None, -(r.rating - 2 * r.deviation) if r else 0, r.deviation if r else 0, *typed[e.pk])
        return sorted(entrants, key=key)
    points = {row.player.pk: row.row.points for row in federation_ranking(at=timezone.localdate(now))}
    return sorted(entrants, key=lambda e: (e.player_id not in points, -points.get(e.player_id, 0), *typed[e.pk]))


def seeds_assign(*, competition: Competition, method: str, now: datetime) -> list[Entrant]:
    """Seeds the entrants 1..n in the order of ``method`` (the caller holds the competition's
    lock and its entrants'); by hand, the typed seeds stay as they are. Records the method on
    the competition. Returns the entrants in seed order."""
    ordered = seeding_order(competition=competition, method=method, now=now)
    if method != SeedingMethod.HAND:
        Entrant.objects.filter(competition=competition).update(seed=None)
        for seed, entrant in enumerate(ordered, start=1):
            entrant.seed = seed
            entrant.save(update_fields=["seed"])
    competition.seeding = method
    competition.seeded_at = now
    Competition.objects.filter(pk=competition.pk).update(seeding=method, seeded_at=now)
    return ordered
