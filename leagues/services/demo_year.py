"""The demo's year: a past season played out, so the demo has ratings with a history,
a federation ranking with its explanations and tiers, a competition open for sign-up, and
some notifications. Deterministic (a fixed random seed); called by ``demo_load`` in its
transaction, with the demo's players (all with accounts).

- Last season's league (double round robin of eight, weekly from about ten months ago) and
  cup (eight, a third-place match, a "Major" tier: its points count double), and an open
  played over three days two months ago, seeded by rating: all finished, so they place.
- The winter open, played online, open for sign-up now (eight places, a licence required, a
  waiting list):
  three players have signed up, one confirmed; Ana Ferreira has not, for a visitor to try.
- Past results announce nothing (``notifications.services.muted``); the players are told their
  fixtures of this season's league and the check-in windows open now.
"""
from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.utils import timezone

from leagues.models import Competition, Fixture, Player, RankingTier, Season, Venue
from leagues.notifications.services import muted
from leagues.services import notices
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.ratings import ratings_recompute
from leagues.services.registration import registration_open, sign_up, sign_up_confirm
from leagues.services.results import result_record


def _play_out(competition: Competition, rng: random.Random, strength: dict[int, float], admin) -> None:
    """Records every fixture to the end (a knockout's later rounds as they fill), the stronger
    player more often ahead; a level knockout match goes to a shoot-out."""
    knockout = competition.format != Competition.Format.LEAGUE
    while True:
        fixture = (competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False, away__isnull=False)
                   .select_related("home", "away").order_by("round__number", "position").first())
        if fixture is None:
            return
        edge = strength.get(fixture.home.player_id, 1) - strength.get(fixture.away.player_id, 1)
        home = max(0, round(rng.gauss(1.4 + edge, 1.1)))
        away = max(0, round(rng.gauss(1.4 - edge, 1.1)))
        kwargs = {}
        if knockout and home == away:
            kwargs = {"home_shootout": 4, "away_shootout": 2} if rng.random() < 0.5 + edge / 3 else \
                {"home_shootout": 3, "away_shootout": 5}
        when = timezone.make_aware(datetime.combine(fixture.date, datetime.min.time())) + timedelta(hours=21)
        result_record(fixture=fixture, home_goals=home, away_goals=away, recorded_by=admin, now=when, **kwargs)


def _competition(slug: str, **fields) -> tuple[Competition, bool]:
    return Competition.objects.get_or_create(slug=slug, defaults=fields)


def demo_year(*, players: list[Player], season: Season, admin, organiser, today: date) -> list[str]:
    """Builds the demo's year (see the module). Returns the slugs it made."""
    rng = random.Random(1987)
    strength = {p.pk: rng.uniform(-0.6, 0.6) for p in players}
    major, _ = RankingTier.objects.get_or_create(name="Major", defaults={"factor": Decimal(2)})
    RankingTier.objects.get_or_create(name="Open", defaults={"factor": Decimal(1)})
    RankingTier.objects.get_or_create(name="Local", defaults={"factor": Decimal("0.5")})
    last = today.year - 1 if today.month >= 8 else today.year - 2
    label = f"{last}-{str(last + 1)[-2:]}"
    past_season, _ = Season.objects.get_or_create(
        slug=label, defaults={"name": f"Season {label}", "start_date": date(last, 8, 1),
                              "end_date": date(last + 1, 7, 31)})
    made = []
    with muted():
        league, created = _competition(
            f"liga-{label}", name=f"Liga Botonera {label}", season=past_season, format=Competition.Format.LEAGUE,
            double_round_robin=True, first_date=today - timedelta(days=300), days_between_rounds=7,
            time_zone="Europe/Lisbon", lots_seed=20250901)
        if created:
            league.organisers.add(admin, organiser)
            for seed, player in enumerate(players[:8], start=1):
                entrant_add(competition=league, player=player, seed=seed)
            fixtures_generate(competition=league, now=timezone.now())
            _play_out(league, rng, strength, admin)
            made.append(league.slug)
        cup, created = _competition(
            f"taca-{label}", name=f"Taça da Federação {label}", season=past_season,
            format=Competition.Format.KNOCKOUT, third_place_match=True, first_date=today - timedelta(days=250),
            days_between_rounds=14, time_zone="America/Sao_Paulo", ranking_tier=major, lots_seed=20250902)
        if created:
            cup.organisers.add(admin)
            for seed, player in enumerate(players[2:10], start=1):
                entrant_add(competition=cup, player=player, seed=seed)
            fixtures_generate(competition=cup, now=timezone.now())
            _play_out(cup, rng, strength, admin)
            made.append(cup.slug)
        ratings_recompute(force=True)  # the open is seeded from them
        open_, created = _competition(
            f"open-outono-{today.year}", name=f"Open de Outono {today.year}", season=season,
            format=Competition.Format.KNOCKOUT, first_date=today - timedelta(days=60), days_between_rounds=1,
            time_zone="Europe/Lisbon", lots_seed=20260903)
        if created:
            open_.organisers.add(admin, organiser)
            for player in players[:12]:
                entrant_add(competition=open_, player=player)
            fixtures_generate(competition=open_, now=timezone.now(), seeding="rating")
            _play_out(open_, rng, strength, admin)
            made.append(open_.slug)

    winter, created = _competition(
        f"open-inverno-{today.year}", name=f"Open de Inverno {today.year}", season=season,
        format=Competition.Format.KNOCKOUT, third_place_match=True, first_date=today + timedelta(days=21),
        days_between_rounds=1, time_zone="Europe/Lisbon", venue=Venue.ONLINE, lots_seed=20261201)
    if created:
        winter.organisers.add(admin, organiser)
        now = timezone.now()
        registration_open(competition=winter, opens_at=now - timedelta(days=3), closes_at=now + timedelta(days=14),
                          capacity=8, licence_required=True, waiting_list=True, now=now)
        entries = [sign_up(competition=winter, player=p, now=now - timedelta(hours=30 - i))
                   for i, p in enumerate(players[1:4])]
        sign_up_confirm(sign_up=entries[0], by=organiser, now=now)
        made.append(winter.slug)
    return made


def demo_notices(*, league: Competition) -> int:
    """Some notifications for the demo's players: their fixtures in this season's league and the
    check-in windows open now. Returns how many check-in notices were written."""
    notices.fixtures_scheduled(competition=league)
    return notices.checkin_open_due()
