"""Online play in the demo federation (``load_demo``, issue 8).

``demo_online(competition=...)`` sets up, in the first round of the league that still has
open fixtures:

- a live computer-against-computer match (a league fixture, both sides played by the
  computer) that anyone can watch; with ``make run`` (no worker, no beat) it is driven by the
  board's polls (``matches.services.spectating``), one move every few seconds while someone
  watches;
- the next fixture of the league's first seed (Ana Ferreira in the demo) set up against the
  computer: signed in as that player, a visitor checks in on the fixture's page and plays.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leagues.models import Competition, Fixture
from matches.models import Match
from matches.services import online


@dataclass
class DemoOnline:
    bot_match: Match | None
    open_fixture: Fixture | None


def _open_fixtures(competition: Competition):
    return (competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False, away__isnull=False)
            .filter(Q(match__isnull=True) | Q(match__status=Match.Status.SCHEDULED, match__seq=0))
            .select_related("round", "home__player__user", "away__player__user")
            .order_by("round__number", "position"))


def demo_online(*, competition: Competition, now: datetime | None = None) -> DemoOnline:
    """The live bot match and the fixture a visitor plays against the computer (see above)."""
    now = now or timezone.now()
    fixtures = list(_open_fixtures(competition))
    if not fixtures:
        return DemoOnline(None, None)
    first_round = fixtures[0].round_id
    in_round = [f for f in fixtures if f.round_id == first_round]
    seed_one = min((e for f in in_round for e in (f.home, f.away) if e.player_id and e.player.user_id),
                   key=lambda e: (e.seed or 999, e.pk), default=None)
    visitor_fixture = next((f for f in in_round if seed_one in (f.home, f.away)), None)
    with transaction.atomic():
        if visitor_fixture is not None:
            human = "home" if visitor_fixture.home_id == seed_one.pk else "away"
            computer = "away" if human == "home" else "home"
            # check in any time this week: no walkover while the demo waits for its visitor
            online.match_create_online(fixture=visitor_fixture, computer_sides=[computer],
                                       scheduled_at=now + timedelta(days=7), now=now)
        bot_fixture = next((f for f in in_round if f is not visitor_fixture), None)
        bot_match = None
        if bot_fixture is not None:
            bot_match = online.match_create_online(fixture=bot_fixture, computer_sides=["home", "away"], now=now)
            # nobody plays in the computer's place: the players' accounts only watch it
            Match.objects.filter(pk=bot_match.pk).update(home_user=None, away_user=None)
            bot_match.refresh_from_db()
    return DemoOnline(bot_match, visitor_fixture)
