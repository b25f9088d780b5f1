"""The season the backup tests back up and restore, and the digest a restore must give back.

``fill()`` plays a season through the services, as a federation would: a league at a real table
with a correction of an earlier result (its history kept), a withdrawal (its remaining fixture a
walkover), one fixture played online computer against computer on the real referee (its action
log adjudicated), and a knockout cup with extra time, a shoot-out and a third-place match; the
standings, the bracket, the ratings and the placings are computed by whoever runs the tasks (in
process, or a celery worker: ``wait`` is called until nothing is pending).

``digest()`` reads the configured database into one JSON-ready dict: every table's row count,
the sequences, the competitions' derived markers, every standing row, the bracket's fixtures,
every result, every history entry, the ratings and placings, and every match with a SHA-256 of
its action log and the state hash its replay gives (``matches.services.adjudication.replay``),
and the work pending. Two databases hold the same season when their digests are equal.

From a shell, against ``DATABASE_URL`` (one JSON line on stdout; ``main(fill_first=True)`` fills
it first, the tasks in process, so without ``REDIS_URL``)::

    python manage.py shell --no-imports -c "from tests.bench.backup_season import main; main()"
"""
from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.utils import timezone

from leagues.models import (
    Club,
    Competition,
    Fixture,
    FixtureChange,
    Placing,
    Player,
    PlayerRating,
    RatingBasis,
    RatingRun,
    Result,
    Season,
    Stage,
    Standing,
)
from leagues.services.entrants import entrant_add, entrant_withdraw
from leagues.services.fixtures import fixtures_generate
from leagues.services.kickoffs import fixture_reschedule, fixture_set_venue
from leagues.services.online import fixture_match_setup
from leagues.services.ratings import ratings_stale
from leagues.services.results import fixtures_awaiting_official, result_record
from leagues.services.standings import stale_competitions
from matches.models import Match, MatchAction
from matches.services import online
from matches.services.adjudication import ReplayMismatch, replay

LEAGUE, CUP = "backup-league", "backup-cup"
STEP = timedelta(seconds=5)  # match time per computer move
BATCH = 25  # computer moves per transaction


class NotSettled(AssertionError):
    """Work is still pending (tasks in process should have done it at commit)."""


def pending() -> dict[str, Any]:
    """The derived work not done yet: stale standings or brackets, adjudicated matches not yet
    official, matches awaiting adjudication, ratings older than the results."""
    return {
        "stale_competitions": stale_competitions(),
        "awaiting_official": fixtures_awaiting_official(),
        "awaiting_adjudication": list(Match.objects.filter(status__in=Match.AWAITING_ADJUDICATION)
                                      .order_by("pk").values_list("pk", flat=True)),
        "ratings_stale": ratings_stale(),
    }


def settled() -> bool:
    """Whether nothing is pending (see ``pending``)."""
    return not any(pending().values())


def require_settled() -> None:
    """Raises ``NotSettled`` unless nothing is pending: the wait of tasks run in process."""
    if not settled():
        raise NotSettled(f"work pending: {pending()}")


# --- The season ---------------------------------------------------------------------------------


def _players(season_start) -> list[Player]:
    users = get_user_model()
    clubs = [Club.objects.create(name=name, slug=slug) for name, slug in
             (("Clube Atlético", "clube-atletico"), ("Sporting Botão", "sporting-botao"))]
    players = []
    for i, (first, last) in enumerate((("Ana", "Ferreira"), ("Marco", "Rossi"), ("Sofía", "Gómez"),
                                       ("Rui", "Costa")), start=1):
        user = users.objects.create_user(username=f"{first}{last}".lower(), password=None)
        player = Player.objects.create(first_name=first, last_name=last, licence_number=f"BK-{i:04d}", user=user)
        player.memberships.create(club=clubs[i % 2], start_date=season_start)
        players.append(player)
    return players


def _entered(competition: Competition, players: list[Player]) -> list:
    entrants = [entrant_add(competition=competition, player=player, seed=seed)
                for seed, player in enumerate(players, start=1)]
    fixtures_generate(competition=competition)
    return entrants


def _round(competition: Competition, number: int, stage_kind: str | None = None) -> list[Fixture]:
    fixtures = competition.fixtures.filter(round__number=number)
    if stage_kind:
        fixtures = fixtures.filter(round__stage__kind=stage_kind)
    return list(fixtures.select_related("home", "away").order_by("position"))


def _play_online(fixture: Fixture, *, by, now) -> Match:
    """Moves ``fixture`` online and plays it now, computer against computer, through the same
    services as two players (set-up, check-in, moves under the match lock, deadlines); full
    time sends the adjudication."""
    fixture = fixture_set_venue(fixture=fixture, venue="online", by=by, now=now, reason="Played online")
    fixture = fixture_reschedule(fixture=fixture, kickoff_at=now, by=by, now=now, reason="Played tonight")
    match = fixture_match_setup(fixture=fixture, computer_sides=("home", "away"), now=now)
    at = now
    for _ in range(2000 // BATCH):
        match = online.computer_step(match_id=match.pk, now=at + STEP, steps=BATCH, step=STEP)
        at += STEP * BATCH
        if match.status != Match.Status.LIVE:
            return match
    raise AssertionError(f"match {match.pk} did not end")


def fill(*, wait: Callable[[], None] = require_settled, now=None) -> dict[str, Any]:
    """Plays the season (see the module) into the configured database; ``wait`` is called after
    each step whose derived work the next step needs. Returns ``{"league", "cup", "match"}``
    (the two competitions' slugs and the online match's id)."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    organiser = get_user_model().objects.create_user(username="organiser", password=None)
    season = Season.objects.create(name="Season backed up", slug="backed-up", start_date=today - timedelta(days=120),
                                   end_date=today + timedelta(days=120), is_current=True)
    players = _players(season.start_date)

    # A league at a real table, a round a month: its ratings span rating periods.
    league = Competition.objects.create(
        name="Liga backed up", slug=LEAGUE, season=season, halves=2, half_minutes=2, lots_seed=7,
        withdrawal_policy=Competition.WithdrawalPolicy.FORFEIT_REMAINING,
        first_date=today - timedelta(days=70), days_between_rounds=30)
    league.organisers.add(organiser)
    entrants = _entered(league, players)
    first, second = _round(league, 1)
    result_record(fixture=first, home_goals=2, away_goals=1, recorded_by=organiser, now=now)
    result_record(fixture=second, home_goals=0, away_goals=0, home_discipline=1, recorded_by=organiser, now=now)
    online_fixture, table_fixture = _round(league, 2)
    result_record(fixture=table_fixture, home_goals=3, away_goals=2, recorded_by=organiser, now=now)
    match = _play_online(online_fixture, by=organiser, now=now)
    wait()
    result_record(fixture=first, home_goals=1, away_goals=1, recorded_by=organiser, now=now,
                  reason="The referee's sheet says 1-1")
    last = entrants[-1]
    for fixture in _round(league, 3):
        if last.pk not in (fixture.home_id, fixture.away_id):
            result_record(fixture=fixture, home_goals=1, away_goals=4, recorded_by=organiser, now=now)
    entrant_withdraw(entrant=last, by=organiser, now=now, reason="Moved abroad")
    wait()

    # A knockout cup: semi-finals (one after extra time), then the final on penalties and the
    # third-place match, once the bracket has filled them.
    cup = Competition.objects.create(name="Taça backed up", slug=CUP, season=season, format=Competition.Format.KNOCKOUT,
                                     third_place_match=True, lots_seed=11, first_date=today - timedelta(days=14))
    cup.organisers.add(organiser)
    _entered(cup, players)
    semi_one, semi_two = _round(cup, 1, Stage.Kind.KNOCKOUT)
    result_record(fixture=semi_one, home_goals=2, away_goals=0, recorded_by=organiser, now=now)
    result_record(fixture=semi_two, home_goals=1, away_goals=1, away_et_goals=1, recorded_by=organiser, now=now)
    wait()
    for fixture in _round(cup, 2, Stage.Kind.KNOCKOUT):
        if fixture.label == "Final":
            result_record(fixture=fixture, home_goals=0, away_goals=0, home_shootout=4, away_shootout=2,
                          recorded_by=organiser, now=now)
        else:
            result_record(fixture=fixture, home_goals=3, away_goals=1, recorded_by=organiser, now=now)
    wait()
    return {"league": league.slug, "cup": cup.slug, "match": match.pk}


# --- The digest -----------------------------------------------------------------------------------


def _rows(queryset) -> list[dict[str, Any]]:
    """Every concrete column of every row, in primary-key order."""
    fields = [f.attname for f in queryset.model._meta.concrete_fields]
    return list(queryset.order_by("pk").values(*fields))


def _sha256(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, cls=DjangoJSONEncoder, sort_keys=True).encode()).hexdigest()


def table_counts() -> dict[str, int]:
    """Every table of the database and its number of rows."""
    counts = {}
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names(cursor)):
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def sequences() -> dict[str, int | None]:
    """Where each id sequence stands (PostgreSQL's sequences, SQLite's ``sqlite_sequence``): a
    restore without them would hand out ids that are taken."""
    query = ("SELECT schemaname || '.' || sequencename, last_value FROM pg_sequences"
             if connection.vendor == "postgresql" else "SELECT name, seq FROM sqlite_sequence")
    with connection.cursor() as cursor:
        cursor.execute(query)
        return dict(sorted(cursor.fetchall()))


def _replayed(match: Match) -> dict[str, Any]:
    """The state hash the replay of ``match``'s log gives (``None`` before kick-off), or where
    the replay departs from the stored hashes or the referee refuses a stored action."""
    if match.initial_state is None:
        return {"replayed_hash": None}
    try:
        return {"replayed_hash": replay(match).state.state_hash()}
    except (ReplayMismatch, ValueError) as exc:  # ValueError: RuleViolation, a malformed action
        return {"replayed_hash": None, "replay_error": str(exc)}


def matches() -> list[dict[str, Any]]:
    """Every match: its row, its log's length and SHA-256, and its replayed state hash."""
    out = []
    for row, match in zip(_rows(Match.objects.all()), Match.objects.order_by("pk"), strict=True):
        log = _rows(MatchAction.objects.filter(match=match))
        out.append({**row, "log_rows": len(log), "log_sha256": _sha256(log), **_replayed(match)})
    return out


def digest() -> dict[str, Any]:
    """The season as stored in the configured database (see the module), JSON-ready (times as
    ISO 8601 text, as ``DjangoJSONEncoder`` writes them)."""
    knockout = Fixture.objects.filter(round__stage__kind=Stage.Kind.KNOCKOUT)
    value = {
        "tables": table_counts(),
        "sequences": sequences(),
        "competitions": _rows(Competition.objects.all()),
        "standings": _rows(Standing.objects.all()),
        "bracket": _rows(knockout),
        "results": _rows(Result.objects.all()),
        "history": _rows(FixtureChange.objects.all()),
        "ratings": {"players": _rows(PlayerRating.objects.all()), "run": _rows(RatingRun.objects.all()),
                    "basis": _rows(RatingBasis.objects.all()), "placings": _rows(Placing.objects.all())},
        "matches": matches(),
        "pending": pending(),
    }
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def differences(one: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """The parts (top-level keys) in which two digests differ, in the digest's order."""
    keys = [*one, *(key for key in other if key not in one)]
    return [key for key in keys if one.get(key) != other.get(key)]


def main(*, fill_first: bool = False) -> None:
    """Writes the digest of the configured database to stdout as one JSON line (``fill_first``:
    fills it with the season first)."""
    if fill_first:
        fill()
    sys.stdout.write(json.dumps(digest()) + "\n")
