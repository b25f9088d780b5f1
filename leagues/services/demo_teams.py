"""The demo's club championship (COMPETITIONS.md §10): four clubs, ties over two tables, round 1
played, and in round 2 one tie under way online (a game between the computer's two sides, live to
watch). Made before the demo's player leagues, so that the latest league stays a players' one;
outside the season's competitions (``season`` empty), so the season's league is still one."""
from __future__ import annotations

import random
from datetime import date, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from leagues.models import Club, Competition, Fixture, Player, Venue
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.online import fixture_match_setup
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute
from leagues.services.teams import lineup_set, squad_set
from leagues.services.ties import games_of
from matches.models import Match

CHAMPIONSHIP_CLUBS = 4  # the first four demo clubs, two players or more each


def demo_club_championship(*, clubs: list[Club], players: list[Player], admin, organiser, label: str,
                           today: date, rng: random.Random) -> Competition:
    """The championship (made once; an existing one is returned as it is)."""
    championship, created = Competition.objects.get_or_create(
        slug=f"interclubes-{slugify(label)}",
        defaults={"name": f"Interclubes {label}", "entrant_kind": "team", "tables_per_tie": 2,
                  "format": Competition.Format.LEAGUE, "tiebreak_preset": "teams", "venue": Venue.ONLINE,
                  "first_date": today - timedelta(days=7), "days_between_rounds": 7, "time_zone": "Europe/Lisbon",
                  "lots_seed": 20240904},
    )
    if not created:
        return championship
    championship.organisers.add(admin, organiser)
    before = timezone.now() - timedelta(days=10)  # the squads were given before the first tie
    for seed, club in enumerate(clubs[:CHAMPIONSHIP_CLUBS], start=1):
        team = entrant_add(competition=championship, name=club.name, club=club, seed=seed)
        squad = [p for p in players if p.club_on(championship.first_date) == club]
        squad_set(entrant=team, players=[p.pk for p in squad], captain=squad[0].user_id, by=admin, now=before)
    fixtures_generate(competition=championship)
    first, second = (list(championship.fixtures.filter(round__number=n).order_by("position")) for n in (1, 2))
    for tie in first:
        _line_up(tie, now=tie.kickoff_at - timedelta(hours=2))
        for game in games_of(tie):
            result_record(fixture=game, home_goals=rng.choice([0, 1, 1, 2, 3]), away_goals=rng.choice([0, 1, 2]),
                          recorded_by=admin, now=tie.kickoff_at + timedelta(hours=1))
    _live_tie(second[0])
    standings_recompute(competition_id=championship.pk, force=True)
    return championship


def _line_up(tie: Fixture, *, now) -> None:
    for side in ("home", "away"):
        entrant = tie.entrant(side)
        squad = list(entrant.squad.order_by("pk").values_list("player_id", flat=True))
        lineup_set(tie=tie, side=side, players=squad[: tie.competition.tables_per_tie],
                   by=entrant.competition.organisers.order_by("pk").first(), now=now)


def _live_tie(tie: Fixture) -> None:
    """Round 2's first tie kicks off now: its line-ups in, its first game live online between the
    computer's two sides (the players' accounts only watch it)."""
    now = timezone.now()
    Fixture.with_games.filter(pk=tie.pk).update(kickoff_at=now, date=timezone.localdate(now))
    Fixture.with_games.filter(tie=tie).update(kickoff_at=now, date=timezone.localdate(now))
    tie.refresh_from_db()
    _line_up(tie, now=now - timedelta(hours=1))  # before the deadline of the kick-off now, whatever the hour
    with transaction.atomic():
        game = games_of(tie).select_related("competition", "round__stage", "home__club", "away__club",
                                            "home_player__user", "away_player__user").first()
        match = fixture_match_setup(fixture=game, computer_sides=("home", "away"), now=now)
        Match.objects.filter(pk=match.pk).update(home_user=None, away_user=None)
