"""Entrants joining and leaving a competition (COMPETITIONS.md §4, withdrawal)."""
from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leagues.models import Club, Competition, Entrant, Fixture, Player


class EntrantError(ValueError):
    """An entry or withdrawal a user asked for that cannot be done."""


def entrant_add(
    *,
    competition: Competition,
    name: str = "",
    player: Player | None = None,
    club: Club | None = None,
    seed: int | None = None,
) -> Entrant:
    """Enters a player (representing ``club``, by default their club today) or just a name."""
    if player is not None:
        club = club or player.club_on(timezone.localdate())
        name = name or (f"{player.full_name} ({club.name})" if club else player.full_name)
    if not name:
        raise EntrantError("an entrant needs a player or a name")
    if competition.fixtures.exists():
        raise EntrantError("the fixtures are made already; entrants can no longer join")
    return Entrant.objects.create(competition=competition, name=name, player=player, club=club, seed=seed)


def entrant_withdraw(*, entrant: Entrant, by=None, now: datetime | None = None) -> Entrant:
    """Withdraws ``entrant`` and applies its competition's withdrawal policy (§4):

    - ``annul``: its results are struck out (fixtures annulled, the open ones cancelled), and
      it leaves the standings;
    - ``forfeit_remaining``: its open fixtures become walkovers against it; past results stand.

    In a knockout its open fixture is a walkover whichever the policy, so the opponent goes
    through. Standings are recomputed after commit. Raises ``EntrantError`` if already withdrawn.
    """
    from leagues.tasks import recompute_standings
    from matches.services.results import match_adjudicate, result_record

    now = now or timezone.now()
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update(of=("self",)).select_related("competition").get(pk=entrant.pk)
        if entrant.withdrawn:
            raise EntrantError(f"{entrant} has withdrawn already")
        entrant.withdrawn_at = now
        entrant.save(update_fields=["withdrawn_at"])
        competition = entrant.competition
        annul = competition.withdrawal_policy == Competition.WithdrawalPolicy.ANNUL
        fixtures = (
            Fixture.objects.select_for_update(of=("self",))
            .filter(Q(home=entrant) | Q(away=entrant), competition=competition)
            .select_related("round__stage")
            .order_by("round__stage__order", "round__number", "position")
        )
        for fixture in fixtures:
            knockout = fixture.is_knockout
            if fixture.status in Fixture.OPEN:
                if fixture.home_id and fixture.away_id and (knockout or not annul):
                    side = "home" if fixture.home_id == entrant.pk else "away"
                    result = result_record(
                        fixture=fixture, home_goals=0, away_goals=0, outcome="walkover",
                        outcome_side=side, recorded_by=by, now=now, adjudicate=False,
                    )
                    match_adjudicate(match_id=result.match_id, now=now, enqueue_standings=False)
                elif not knockout:
                    fixture.set_status(Fixture.Status.CANCELLED, by=by, now=now)
            elif annul and not knockout and fixture.status in (Fixture.Status.PLAYED, Fixture.Status.WALKOVER):
                fixture.set_status(Fixture.Status.ANNULLED, by=by, now=now)
        recompute_standings.delay_on_commit(competition.pk)
    return entrant
