"""The games of team ties (COMPETITIONS.md §10): made with the ties, following them, and the
tie's result derived from them.

A tie is a fixture between two team entrants; its games are fixtures too (``Fixture.tie``), one
per table, with the tie's round, group, entrants and kick-off, between the players the line-ups
put at each table. Games take results exactly as single fixtures (``leagues.services.results``);
a tie never takes one: ``ties_derive`` makes its result from its games (``leagues.rules.ties``),
in the transaction of the game's result, so a tie is never left "games played but not derived".

Nothing here imports ``leagues.services.results``: it calls in, never the reverse.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from decimal import Decimal

from django.db.models import Q
from django.utils import timezone

from leagues.models import Competition, Fixture, FixtureChange, Outcome, Result, Side
from leagues.rules import ties
from leagues.services.history import change_record, fixture_state
from matches.models import Match


def games_of(tie: Fixture):
    """The games of ``tie``, table by table (a queryset)."""
    return Fixture.with_games.filter(tie=tie).order_by("table")


def is_tie(fixture: Fixture) -> bool:
    """Whether ``fixture`` is a team tie (it takes no result of its own)."""
    return fixture.tie_id is None and fixture.competition.is_team


def games_create(*, competition: Competition, now: datetime | None = None) -> list[Fixture]:
    """Makes the ``tables_per_tie`` games of every tie of a team competition that has none yet
    (a bye has none). Returns the games made."""
    if not competition.is_team:
        return []
    now = now or timezone.now()
    made = []
    with_games = set(Fixture.with_games.filter(competition=competition, tie__isnull=False)
                     .values_list("tie_id", flat=True))
    for tie in (Fixture.objects.filter(competition=competition).exclude(status=Fixture.Status.BYE)
                .exclude(pk__in=with_games).order_by("pk")):
        for table in range(1, competition.tables_per_tie + 1):
            made.append(Fixture(
                competition=competition, round_id=tie.round_id, group_id=tie.group_id, position=tie.position,
                tie=tie, table=table, home_id=tie.home_id, away_id=tie.away_id, date=tie.date,
                kickoff_at=tie.kickoff_at, venue=tie.venue,
                status=Fixture.Status.CANCELLED if tie.status == Fixture.Status.CANCELLED else Fixture.Status.SCHEDULED,
                status_changed_at=now, playable_since=now,
            ))
    Fixture.with_games.bulk_create(made)
    return made


def games_follow(*, competition_id: int, now: datetime | None = None) -> int:
    """Brings the games without a result in line with their ties: the tie's entrants, kick-off
    and venue (new entrants: the line-ups start again), cancelled with a cancelled tie (or a tie
    a withdrawal decided), annulled with an annulled tie. Returns how many games changed."""
    now = now or timezone.now()
    games = (Fixture.with_games.filter(competition_id=competition_id, tie__isnull=False)
             .select_related("tie").order_by("pk"))
    changed = 0
    for game in games:
        tie = game.tie
        fields: set[str] = set()
        if tie.status == Fixture.Status.ANNULLED:
            if game.status != Fixture.Status.ANNULLED:
                game.set_status(Fixture.Status.ANNULLED, now=now, save=False)
                fields |= {"status", "status_changed_at", "status_changed_by"}
        elif game.status in Fixture.OPEN | {Fixture.Status.CANCELLED}:
            if (game.home_id, game.away_id) != (tie.home_id, tie.away_id):
                game.home_id, game.away_id = tie.home_id, tie.away_id
                game.home_player = game.away_player = None
                game.playable_since = now
                fields |= {"home", "away", "home_player", "away_player", "playable_since"}
            for name in ("kickoff_at", "date", "venue"):
                if getattr(game, name) != getattr(tie, name):
                    setattr(game, name, getattr(tie, name))
                    fields.add(name)
            decided_apart = tie.status in Fixture.RESULTED and _tie_result_source(tie) not in (None, Result.Source.TIE)
            wanted = (Fixture.Status.CANCELLED if tie.status in (Fixture.Status.CANCELLED, Fixture.Status.BYE)
                      or decided_apart else Fixture.Status.SCHEDULED)
            if game.status == Fixture.Status.POSTPONED and wanted == Fixture.Status.SCHEDULED:
                wanted = game.status
            if game.status != wanted and game.can_transition(wanted):
                game.set_status(wanted, now=now, save=False)
                fields |= {"status", "status_changed_at", "status_changed_by"}
        if fields:
            game.save(update_fields=sorted(fields))
            changed += 1
    return changed


def _tie_result_source(tie: Fixture) -> str | None:
    return Result.objects.filter(fixture=tie).values_list("source", flat=True).first()


def lineups_reset(*, tie: Fixture) -> None:
    """Forgets the line-ups of ``tie`` (its entrants changed)."""
    Fixture.with_games.filter(tie=tie).update(home_player=None, away_player=None)
    Fixture.with_games.filter(pk=tie.pk).update(home_lineup_at=None, away_lineup_at=None)


def game_scores(games) -> list[ties.GameScore]:
    return [ties.GameScore(home_goals=g.result.home_goals, away_goals=g.result.away_goals,
                           winner_side=g.result.winner_side, double_loss=g.result.is_double_no_show) for g in games]


def tie_outcome_of(tie: Fixture, games: list[Fixture]) -> ties.TieOutcome | None:
    """The derived outcome of ``tie`` from ``games`` (their results read), or ``None`` while a
    game counted has no result. Annulled and cancelled games do not count."""
    counted = [g for g in games if g.status not in (Fixture.Status.ANNULLED, Fixture.Status.CANCELLED)]
    if not counted or any(g.status not in Fixture.RESULTED or not _has_result(g) for g in counted):
        return None
    competition = tie.competition
    shootout = None
    if tie.home_tie_shootout is not None and tie.away_tie_shootout is not None:
        shootout = (tie.home_tie_shootout, tie.away_tie_shootout)
    return ties.tie_outcome(game_scores(counted), game_points=competition.game_points, knockout=tie.is_knockout,
                            decider=competition.tie_decider, shootout=shootout)


def _has_result(fixture: Fixture) -> bool:
    try:
        fixture.result  # noqa: B018 - a reverse one-to-one raises when absent
    except Fixture.result.RelatedObjectDoesNotExist:
        return False
    return True


def ties_settle(*, competition: Competition, by=None, now: datetime | None = None) -> list[Fixture]:
    """After a change of results in a team competition: the games follow their ties
    (``games_follow``), then each tie is derived from its games (``ties_derive``)."""
    if not competition.is_team:
        return []
    games_follow(competition_id=competition.pk, now=now)
    return ties_derive(competition=competition, by=by, now=now)


def ties_derive(*, competition: Competition, by=None, now: datetime | None = None) -> list[Fixture]:
    """Derives the result of every tie of ``competition`` from its games (the caller holds the
    competition's lock, in the transaction of the games' change): a tie whose counted games all
    have a result is played, with the summed goals, the side that won (``leagues.rules.ties``)
    and, when a shoot-out decided it, that shoot-out; otherwise (a game open, a knockout tie
    awaiting its shoot-out) it has no result and is scheduled. A tie whose result a withdrawal
    gave keeps it. Each tie whose result changes gets one history entry. Returns those ties."""
    if not competition.is_team:
        return []
    now = now or timezone.now()
    games_by_tie: dict[int, list[Fixture]] = defaultdict(list)
    for game in (Fixture.with_games.filter(competition=competition, tie__isnull=False)
                 .select_related("result").order_by("table")):
        games_by_tie[game.tie_id].append(game)
    changed = []
    ties_qs = (Fixture.objects.select_for_update(of=("self",)).filter(competition=competition, pk__in=list(games_by_tie))
               .exclude(status__in=[Fixture.Status.ANNULLED, Fixture.Status.BYE])
               .select_related("round__stage", "home", "away").order_by("pk"))
    for tie in ties_qs:
        tie.competition = competition
        previous = Result.objects.filter(fixture=tie).first()
        if previous is not None and previous.source != Result.Source.TIE:
            continue  # a walkover a withdrawal gave the whole tie
        outcome = tie_outcome_of(tie, games_by_tie[tie.pk])
        before = fixture_state(tie, result=previous)
        if outcome is None or outcome.awaiting_shootout:
            if previous is None:
                continue
            previous.delete()
            if tie.status in Fixture.RESULTED:
                tie.set_status(Fixture.Status.SCHEDULED, by=_user(by), now=now)
            change_record(fixture=tie, kind=FixtureChange.Kind.CORRECTION, before=before,
                          after=fixture_state(tie, result=None), by=by, now=now)
            changed.append(tie)
            continue
        values = _tie_result_values(tie, outcome, by=by, now=now)
        if previous is not None and all(getattr(previous, k) == v for k, v in values.items()
                                        if k not in ("recorded_at", "adjudicated_at", "recorded_by")):
            continue
        result, _created = Result.objects.update_or_create(fixture=tie, defaults=values)
        status = Fixture.Status.WALKOVER if outcome.double_loss else Fixture.Status.PLAYED
        if tie.status != status:
            tie.set_status(status, by=_user(by), now=now)
        change_record(fixture=tie, kind=FixtureChange.Kind.CORRECTION if previous else FixtureChange.Kind.RESULT,
                      before=before, after=fixture_state(tie, result=result), by=by, now=now)
        changed.append(tie)
    return changed


def _user(by):
    return by if getattr(by, "pk", None) else None


def _tie_result_values(tie: Fixture, outcome: ties.TieOutcome, *, by, now: datetime) -> dict:
    by_shootout = outcome.decided_by == "shootout"
    return {
        "source": Result.Source.TIE, "match": None, "reason": "",
        "outcome": Outcome.WALKOVER if outcome.double_loss else Outcome.PLAYED,
        "outcome_side": Side.BOTH if outcome.double_loss else "",
        "table_home_goals": outcome.home_goals, "table_away_goals": outcome.away_goals,
        "home_et_goals": 0, "away_et_goals": 0,
        "home_shootout": tie.home_tie_shootout if by_shootout else None,
        "away_shootout": tie.away_tie_shootout if by_shootout else None,
        "home_discipline": 0, "away_discipline": 0,
        "home_goals": outcome.home_goals, "away_goals": outcome.away_goals,
        "home_game_points": Decimal(str(outcome.home_game_points)),
        "away_game_points": Decimal(str(outcome.away_game_points)),
        "winner_side": outcome.winner_side,
        "winner": tie.entrant(outcome.winner_side) if outcome.winner_side else None,
        "recorded_by": _user(by), "recorded_at": now, "adjudicated_at": now,
    }


def tie_game_points(*, competition: Competition) -> dict[int, tuple[float, float]]:
    """Tie id -> (home, away) game points of its games with a result (what the standings read).
    A tie a withdrawal decided as a whole counts every table for the side that showed."""
    win, draw = competition.game_points
    points: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for tie_id, winner_side, outcome, outcome_side in (
        Fixture.with_games.filter(competition=competition, tie__isnull=False, status__in=Fixture.RESULTED,
                                  result__isnull=False)
        .values_list("tie_id", "result__winner_side", "result__outcome", "result__outcome_side")
    ):
        if outcome == Outcome.WALKOVER and outcome_side == Side.BOTH:
            points[tie_id]  # noqa: B018 - the tie is there, with no points
            continue
        if winner_side == "home":
            points[tie_id][0] += win
        elif winner_side == "away":
            points[tie_id][1] += win
        else:
            points[tie_id][0] += draw
            points[tie_id][1] += draw
    for tie_id, winner_side in (Result.objects.filter(fixture__competition=competition, fixture__tie__isnull=True)
                                .exclude(source=Result.Source.TIE).values_list("fixture_id", "winner_side")):
        whole = competition.tables_per_tie * win
        points[tie_id] = [whole if winner_side == "home" else 0.0, whole if winner_side == "away" else 0.0]
    return {k: (v[0], v[1]) for k, v in points.items()}


def ties_begun(*, competition: Competition) -> set[int]:
    """Ids of the ties of ``competition`` with a game that has a result or an online match under
    way: the bracket treats them as started (their entrants are not changed under them)."""
    if not competition.is_team:
        return set()
    return set(Fixture.with_games.filter(competition=competition, tie__isnull=False)
               .filter(Q(status__in=Fixture.RESULTED) | Q(match__status__in=Match.STARTED))
               .values_list("tie_id", flat=True))
