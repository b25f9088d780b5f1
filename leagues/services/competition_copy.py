"""A competition copied for its next edition: the same settings (format, match, points and
tie-breaks, time zone, venue, ratings...), its organisers, optionally its entrants (those not
withdrawn, with their players, clubs and seeds), and new dates; none of its stages, fixtures,
results, standings, registration or drawn lots.
"""
from __future__ import annotations

from datetime import date

from django.db import transaction

from leagues.models import Competition, Entrant, Season
from leagues.services.competitions import competition_create, next_slug

# what a copy does not take: its identity and dates, and what its play made
NOT_COPIED = {"id", "season", "name", "slug", "first_date", "lots_seed", "lots_drawn", "results_version",
              "derived_version", "derived_conflicts", "pending_groups", "seeded_at", "created_at", "updated_at"}


def season_of(day: date | None) -> Season | None:
    """The season that holds ``day`` (the latest to start, when seasons overlap)."""
    if day is None:
        return None
    return Season.objects.filter(start_date__lte=day, end_date__gte=day).order_by("-start_date").first()


def competition_copy(*, competition: Competition, name: str, first_date: date | None, slug: str = "",
                     entrants: bool = False, by=None) -> Competition:
    """A new competition with ``competition``'s settings and organisers (and ``by``), named
    ``name``, first played on ``first_date`` (its season: the one holding that day), with its
    entrants when ``entrants``. ``slug`` empty: one made from the name. Raises ``SlugTaken`` for
    a ``slug`` given that is taken; nothing is saved then."""
    fields = {f.attname: getattr(competition, f.attname) for f in Competition._meta.concrete_fields
              if f.name not in NOT_COPIED}
    for name_ in ("lots_seed", "lots_drawn"):
        fields[name_] = Competition._meta.get_field(name_).get_default()
    fields.update(name=name, slug=slug or next_slug(name), first_date=first_date, season=season_of(first_date))
    fields.pop("season_id", None)
    with transaction.atomic():
        copy = competition_create(fields=fields, auto_slug=not slug, organiser=by,
                                  organisers=competition.organisers.all())
        if entrants:
            Entrant.objects.bulk_create([
                Entrant(competition=copy, name=e.name, player_id=e.player_id, club_id=e.club_id, seed=e.seed)
                for e in competition.entrants.filter(withdrawn_at__isnull=True).order_by("pk")])
    return copy
