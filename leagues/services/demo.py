"""A demo federation: clubs, players with accounts, the current season, a league, a cup and a
Swiss open, part-played, with standings. Deterministic (a fixed random seed) so every demo looks the same.

The league is played online. In the first round with open fixtures (``demo_online``):

- a live computer-against-computer match that anyone can watch; it moves while watched, its
  moves made by the clock's driver (``manage.py run_clock`` beside ``make run``, or beat;
  ``matches.services.spectating``);
- the fixture of the league's first seed (Ana Ferreira) against the computer, and the other
  fixtures of the round between two players (the README's two-player walkthrough), kick off a
  few minutes after the demo is loaded, so their check-in windows are open at once.

``demo_reopen`` (``load_demo --if-empty``, so every ``make run``) moves those kick-offs again when
their match has not started, so a newcomer can always check in at once."""
from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from leagues import names
from leagues.models import Club, ClubMembership, Competition, Fixture, Player, Season, Venue
from leagues.notifications.services import muted
from leagues.services.demo_teams import demo_club_championship
from leagues.services.demo_year import demo_notices, demo_year
from leagues.services.entrants import entrant_add
from leagues.services.fixtures import fixtures_generate
from leagues.services.kickoffs import fixture_reschedule
from leagues.services.online import fixture_match_setup
from leagues.services.ratings import ratings_recompute
from leagues.services.results import result_record
from leagues.services.standings import standings_recompute
from matches.models import Match
from matches.services import online

DEMO_ADMIN = ("admin", "admin")  # demo only: documented in the README
DEMO_PLAYER_PASSWORD = "botonera-demo"
# demo only: an organiser (the "Organisers" group, so it may create competitions; it runs the league)
DEMO_ORGANISER = ("organiser", "organiser-demo")
ORGANISERS_GROUP = "Organisers"


def organisers_group() -> Group:
    """The "Organisers" group: its members may create competitions (``leagues.add_competition``)
    and then run those they created or are made organisers of (``leagues.permissions``)."""
    group, _ = Group.objects.get_or_create(name=ORGANISERS_GROUP)
    group.permissions.add(Permission.objects.get(codename="add_competition", content_type__app_label="leagues"))
    return group

CLUBS = [
    ("Botões de Lisboa", "BOT", "Lisbon", 1987),
    ("Subbuteo Club Roma", "SCR", "Rome", 1972),
    ("Mesa Verde FC", "MVF", "Porto Alegre", 1995),
    ("Club Botonero Porteño", "CBP", "Buenos Aires", 1968),
    ("Tischfußball Wien", "TFW", "Vienna", 2001),
    ("Flick United", "FLU", "Manchester", 1990),
]
PLAYERS = [
    ("Ana", "Ferreira", 0), ("Rui", "Costa", 0), ("Giulia", "Bianchi", 1), ("Marco", "Rossi", 1),
    ("Lucas", "Moura", 2), ("Bianca", "Souza", 2), ("Diego", "Álvarez", 3), ("Sofía", "Gómez", 3),
    ("Lena", "Huber", 4), ("Felix", "Gruber", 4), ("Tom", "Hughes", 5), ("Amy", "Clarke", 5),
    ("Pablo", "Ruiz", 3), ("Chiara", "Conti", 1),
]


@dataclass
class DemoSummary:
    clubs: int
    players: int
    competitions: list[str]
    # username -> the password just set, when the accounts got random passwords (shown once)
    passwords: dict[str, str] = field(default_factory=dict)


def demo_is_loaded() -> bool:
    return Club.objects.exists() or Competition.objects.exists()


def current_season_dates(today: date) -> tuple[date, date, str]:
    start_year = today.year if today.month >= 8 else today.year - 1
    return date(start_year, 8, 1), date(start_year + 1, 7, 31), f"{start_year}-{str(start_year + 1)[-2:]}"


def random_password() -> str:
    return secrets.token_urlsafe(12)


@transaction.atomic
def demo_load(*, today: date | None = None, random_passwords: bool = False) -> DemoSummary:
    """Builds the demo federation quietly (``demo_federation``), then tells this season league's
    players their fixtures and the check-in windows open now (the demo's notifications)."""
    with muted():
        summary = demo_federation(today=today, random_passwords=random_passwords)
    demo_notices(league=Competition.objects.get(slug=summary.competitions[0]))
    return summary


@transaction.atomic
def demo_federation(*, today: date | None = None, random_passwords: bool = False) -> DemoSummary:
    """Builds the demo federation: results official at once, then standings stored; and its
    year (``leagues.services.demo_year``): ratings, the ranking, a competition open for sign-up.

    The demo accounts get the README's passwords (``admin`` / ``admin``...), or, with
    ``random_passwords`` (a site with ``DEBUG`` off), each its own random password, set again on
    accounts that exist already and returned in ``DemoSummary.passwords``: no default password
    is left."""
    today = today or timezone.localdate()
    rng = random.Random(2024)
    User = get_user_model()
    admin = User.objects.filter(username=DEMO_ADMIN[0]).first()
    if admin is None:
        admin = User.objects.create_superuser(DEMO_ADMIN[0], "admin@botonera.example", DEMO_ADMIN[1])

    organiser = User.objects.filter(username=DEMO_ORGANISER[0]).first()
    if organiser is None:
        organiser = User.objects.create_user(DEMO_ORGANISER[0], "organiser@botonera.example", DEMO_ORGANISER[1])
    organiser.groups.add(organisers_group())

    start, end, label = current_season_dates(today)
    Season.objects.filter(is_current=True).update(is_current=False)
    season, _ = Season.objects.get_or_create(
        slug=slugify(label), defaults={"name": f"Season {label}", "start_date": start, "end_date": end}
    )
    season.is_current = True
    season.save(update_fields=["is_current"])

    clubs = [
        Club.objects.get_or_create(name=n, defaults={"short_name": s, "slug": slugify(n), "city": c, "founded": f})[0]
        for n, s, c, f in CLUBS
    ]
    player_password = make_password(DEMO_PLAYER_PASSWORD)  # hashed once for all the demo players
    players = []
    for i, (first, last, club_index) in enumerate(PLAYERS, start=1):
        username = slugify(f"{first}.{last}").replace("-", ".")
        user = User.objects.filter(username=username).first() or User.objects.create(
            username=username, email=f"{username}@botonera.example", password=player_password,
            first_name=first, last_name=last,
        )
        player, created = Player.objects.get_or_create(
            licence_number=f"DEMO-{i:04d}", defaults={"first_name": first, "last_name": last, "user": user}
        )
        if created:
            if i == 13:  # a transfer: Pablo played for Mesa Verde before joining Porteño
                ClubMembership.objects.create(player=player, club=clubs[2], start_date=start - timedelta(days=700),
                                              end_date=start - timedelta(days=30))
            ClubMembership.objects.create(player=player, club=clubs[club_index], start_date=start - timedelta(days=29))
        players.append(player)

    def play(competition: Competition, rounds: int, *, knockout: bool = False) -> None:
        for fixture in competition.fixtures.filter(round__number__lte=rounds, status=Fixture.Status.SCHEDULED).order_by(
            "round__number", "position"
        ):
            if fixture.home_id is None or fixture.away_id is None:
                continue
            home, away = rng.choice([0, 0, 1, 1, 1, 2, 2, 3, 4]), rng.choice([0, 0, 1, 1, 2, 2, 3])
            kwargs = {}
            if knockout and home == away:
                kwargs = {"home_shootout": 4, "away_shootout": 3} if rng.random() < 0.5 else {"home_shootout": 2, "away_shootout": 4}
            result_record(
                fixture=fixture, home_goals=home, away_goals=away, recorded_by=admin,
                home_discipline=rng.choice([0, 0, 0, 1]), away_discipline=rng.choice([0, 0, 0, 1]), **kwargs,
            )

    # the club championship first: the latest league stays a players' league
    championship = demo_club_championship(clubs=clubs, players=players, admin=admin, organiser=organiser,
                                          label=label, today=today, rng=random.Random(2026))

    # Dated around today: the played rounds lie in the past, the next round a few days ahead.
    league, created = Competition.objects.get_or_create(
        slug=f"liga-{slugify(label)}",
        defaults={"name": f"Liga Botonera {label}", "season": season, "format": Competition.Format.LEAGUE,
                  "tiebreak_preset": "fistf", "first_date": max(start, today - timedelta(days=4 * 7 - 3)),
                  "days_between_rounds": 7, "venue": Venue.ONLINE, "time_zone": "Europe/Lisbon",
                  "rule_set": Competition.RuleSet.ONE_TOUCH, "lots_seed": 20240901},
    )
    if created:
        league.organisers.add(admin, organiser)
        for seed, player in enumerate(players[:8], start=1):
            entrant_add(competition=league, player=player, seed=seed)
        fixtures_generate(competition=league)
        play(league, 4)

    cup, created = Competition.objects.get_or_create(
        slug=f"taca-{slugify(label)}",
        defaults={"name": f"Taça da Federação {label}", "season": season, "format": Competition.Format.KNOCKOUT,
                  "third_place_match": True, "first_date": max(start, today - timedelta(days=14 - 5)),
                  "days_between_rounds": 14, "time_zone": "America/Sao_Paulo",
                  "rule_set": Competition.RuleSet.MBS, "lots_seed": 20240902},
    )
    if created:
        cup.organisers.add(admin)
        for seed, player in enumerate(players[:12], start=1):
            entrant_add(competition=cup, player=player, seed=seed)
        fixtures_generate(competition=cup)
        play(cup, 2, knockout=True)

    # A Swiss open of 11 (a bye a round), 5 rounds: 3 played, the 4th paired and still to play.
    swiss_open, created = Competition.objects.get_or_create(
        slug=f"open-suico-{slugify(label)}",
        defaults={"name": f"Open Suíço {label}", "season": season, "format": Competition.Format.SWISS, "rounds": 5,
                  "withdrawal_policy": Competition.WithdrawalPolicy.FORFEIT_REMAINING,
                  "tiebreak_preset": "fide_swiss", "first_date": max(start, today - timedelta(days=3 * 7 - 2)),
                  "days_between_rounds": 7, "time_zone": "Europe/Lisbon", "lots_seed": 20240903},
    )
    if created:
        swiss_open.organisers.add(admin, organiser)
        for seed, player in enumerate(players[:11], start=1):
            entrant_add(competition=swiss_open, player=player, seed=seed)
        for number in range(1, 5):
            fixtures_generate(competition=swiss_open)  # a Swiss pairs its next round only
            if number < 4:
                play(swiss_open, number)

    year = demo_year(players=players, season=season, admin=admin, organiser=organiser, today=today)
    demo_online(competition=league)  # a live bot match to watch, a fixture to play against the computer
    for competition in (league, cup, swiss_open):
        standings_recompute(competition_id=competition.pk, force=True)
    ratings_recompute(force=True)
    passwords = {}
    if random_passwords:
        for user in [admin, organiser, *(player.user for player in players if player.user_id)]:
            passwords[user.username] = random_password()
            user.set_password(passwords[user.username])
            user.save(update_fields=["password"])
    return DemoSummary(clubs=len(clubs), players=len(players), competitions=[league.slug, cup.slug, swiss_open.slug, championship.slug, *year],
                       passwords=passwords)


DEMO_KICKOFF_IN = timedelta(minutes=20)  # check-in opens 30 minutes before: open at once


@dataclass
class DemoOnline:
    bot_match: Match | None
    visitor_fixture: Fixture | None
    reopened: int = 0  # fixtures whose kick-off moved, so their check-in is open


def _demo_round(competition: Competition) -> list[Fixture]:
    """The open fixtures of the league's first round that still has some."""
    fixtures = list(competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False,
                                                away__isnull=False)
                    .select_related("round", "home__player__user", "away__player__user")
                    .order_by("round__number", "position"))
    return [f for f in fixtures if f.round_id == fixtures[0].round_id] if fixtures else []


def demo_online(*, competition: Competition, now: datetime | None = None, bot_match: bool = True) -> DemoOnline:
    """Opens the check-in of the demo round's fixtures that nobody has started (their kick-off a
    few minutes from ``now``), sets up the visitor's fixture against the computer, and (with
    ``bot_match``) the live bot match (see the module's docstring)."""
    now = now or timezone.now()
    in_round = _demo_round(competition)
    if not in_round:
        return DemoOnline(None, None)
    seed_one = min((e for f in in_round for e in (f.home, f.away) if e.player_id and e.player.user_id),
                   key=lambda e: (e.seed or 999, e.pk), default=None)
    visitor_fixture = next((f for f in in_round if seed_one in (f.home, f.away)), None)
    bot_fixture = next((f for f in in_round if f is not visitor_fixture), None) if bot_match else None
    live_bot, reopened = None, 0
    with transaction.atomic():
        for fixture in in_round:
            if _started_by_people(fixture):
                continue
            if fixture.match_id is not None:  # set up for the computer only: set up afresh
                annul_unstarted(fixture, now)
            reopened += 1
            fixture_reschedule(fixture=fixture, kickoff_at=now if fixture is bot_fixture else now + DEMO_KICKOFF_IN,
                               reason=names.DEMO_PLAYABLE, now=now)
        if visitor_fixture is not None and not _started_by_people(visitor_fixture):
            computer = "away" if visitor_fixture.home_id == seed_one.pk else "home"
            fixture_match_setup(fixture=visitor_fixture, computer_sides=(computer,), now=now)
        if bot_fixture is not None:
            live_bot = fixture_match_setup(fixture=bot_fixture, computer_sides=("home", "away"), now=now)
            # nobody plays in the computer's place: the players' accounts only watch it
            Match.objects.filter(pk=live_bot.pk).update(home_user=None, away_user=None)
            live_bot.refresh_from_db()
    return DemoOnline(live_bot, visitor_fixture, reopened)


def _started_by_people(fixture: Fixture) -> bool:
    match = fixture.match if fixture.match_id else None
    if match is None or match.status in (Match.Status.SCHEDULED, Match.Status.CANCELLED):
        return False
    if match.status != Match.Status.CHECKED_IN:
        return True
    return any(getattr(match, f"{side}_checked_in_at") and side not in match.computer_sides
               for side in ("home", "away"))


def annul_unstarted(fixture: Fixture, now: datetime) -> None:
    """Drops a demo fixture's match that only the computer has checked in to."""
    online.match_annul(match_id=fixture.match_id, now=now)
    Fixture.objects.filter(pk=fixture.pk).update(match=None)
    fixture.match = None


def demo_reopen(*, now: datetime | None = None) -> int:
    """Opens again the check-in of the demo league's playable fixtures (every ``make run``):
    those nobody has started kick off a few minutes from ``now``. Returns how many moved."""
    now = now or timezone.now()
    league = Competition.objects.filter(slug__startswith="liga-", venue=Venue.ONLINE).order_by("-created_at").first()
    if league is None:
        return 0
    with muted():  # the demo's own moves are news to nobody
        return demo_online(competition=league, now=now, bot_match=False).reopened
