"""A fixture's official result: one owner, checked before anything is saved (COMPETITIONS.md §4, §8).

Every function here works in one transaction, takes its locks in the order of
``leagues.services.locks`` (competition, fixture, match, result), and makes the result official
in that same transaction: the rules of ``leagues.rules.official`` are pure, so there is never a result
"recorded but not yet official". What the result changes is checked before the transaction
ends: in a knockout, a result whose winner (or loser, for the third-place match) has already
played on is refused with ``ResultConflict`` (the earlier result stays in force), unless
``cascade`` is asked for: then each later fixture it changes goes back to scheduled with its new
entrant, its result struck and kept in the history. The standings and the bracket are then
recomputed by the worker (``results_changed``).

Who owns a result:

- ``result_record``: an organiser's result from a real table (or a results file). An online
  fixture takes one only while its online match has not started (a check-in counts); after
  that it is refused (409): the organiser annuls the match first (``match_annul_decision``).
- ``result_from_match``: the adjudicated log of the fixture's online match (the worker).
- ``decision_record``: an organiser's walkover or disqualification on an online fixture, with
  its reason; it overrides the log.
- ``match_annul_decision``: the online match is annulled, to be replayed; its result is struck.

``ResultError`` (a value that cannot be official, naming the field) is a 400;
``ResultConflict`` (a state that refuses the change) is a 409 with ``{"error", "detail"}``.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues import names
from leagues.models import (
    Competition,
    Fixture,
    FixtureChange,
    Outcome,
    Result,
    ResultReport,
    Side,
    Stage,
)
from leagues.rules.official import Official, Recorded, ResultError, Rules, official_result
from leagues.services import bracket, notices, ties
from leagues.services.history import change_record, fixture_state
from leagues.services.locks import lock_competition, results_changed, retry_conflicts
from leagues.services.standings import competition_tables, group_places
from matches.models import Match
from matches.services import online

logger = logging.getLogger(__name__)

MAX_CASCADE = 64  # rounds of striking: more than any bracket has


class ResultConflict(Exception):
    """A change the current state refuses (HTTP 409): ``code`` for programs, ``detail`` for
    people, and ``extra`` (e.g. the fixtures in the way)."""

    status_code = 409

    def __init__(self, code: str, detail: str, **extra: Any):
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        return {"error": self.code, "detail": self.detail, **self.extra}


def rules_for(*, fixture: Fixture) -> Rules:
    competition: Competition = fixture.competition
    return Rules(
        knockout=fixture.is_knockout and not fixture.is_game,  # a tie's game may end drawn: the tie is decided
        extra_time=competition.extra_time,
        shootout=competition.shootout,
        shootout_kicks=competition.shootout_kicks,
        walkover_score=(competition.walkover_goals_for, competition.walkover_goals_against),
    )


def lock_fixture(fixture_id: int) -> tuple[Competition, Fixture]:
    """The fixture and its competition, locked in the order competition, fixture."""
    competition_id = Fixture.with_games.filter(pk=fixture_id).values_list("competition_id", flat=True).first()
    if competition_id is None:
        raise Fixture.DoesNotExist(fixture_id)
    competition = lock_competition(competition_id)
    fixture = (Fixture.with_games.select_for_update(of=("self",))
               .select_related("competition", "round__stage", "home", "away").get(pk=fixture_id))
    fixture.competition = competition
    return competition, fixture


def lock_match(fixture: Fixture) -> Match | None:
    if fixture.match_id is None:
        return None
    return Match.objects.select_for_update().filter(pk=fixture.match_id).first()


def current_result(fixture: Fixture) -> Result | None:
    return Result.objects.select_for_update().filter(fixture=fixture).first()


def _check_takes_result(fixture: Fixture) -> None:
    """Raises ``ResultError`` (400 on ``fixture``) for a fixture that takes no result, and
    ``ResultConflict`` ("tie_result_derived") for a team tie: its games take the results."""
    if ties.is_tie(fixture):
        raise ResultConflict("tie_result_derived", _(
            "this is a team tie: its result is derived from its games; record each game's result instead"),
            games=list(ties.games_of(fixture).values_list("pk", flat=True)))
    if fixture.home_id is None or fixture.away_id is None:
        raise ResultError("fixture", _("this fixture does not have both its entrants yet"))
    if fixture.status not in Fixture.OPEN | Fixture.RESULTED:
        raise ResultError("fixture", _("a %(status)s fixture takes no result")
                          % {"status": fixture.get_status_display().lower()})


def official_for(fixture: Fixture, recorded: Recorded) -> Official:
    """The official result of ``recorded`` under the fixture's competition rules (``ResultError``)."""
    return official_result(recorded, rules_for(fixture=fixture))


def result_values(
    *, fixture: Fixture, recorded: Recorded, official: Official, source: str, match: Match | None,
    discipline: tuple[int, int], by, now: datetime, reason: str = "",
) -> dict[str, Any]:
    """The fields of the ``Result`` that makes ``official`` the fixture's result."""
    return {
        "source": source, "match": match, "reason": reason or "",
        "outcome": recorded.outcome, "outcome_side": recorded.outcome_side or "",
        "table_home_goals": recorded.home_goals, "table_away_goals": recorded.away_goals,
        "home_et_goals": recorded.home_et_goals, "away_et_goals": recorded.away_et_goals,
        "home_shootout": recorded.home_shootout, "away_shootout": recorded.away_shootout,
        "home_discipline": discipline[0], "away_discipline": discipline[1],
        "home_goals": official.home_goals, "away_goals": official.away_goals,
        "winner_side": official.winner_side,
        "winner": fixture.entrant(official.winner_side) if official.winner_side else None,
        "recorded_by": by if getattr(by, "pk", None) else None, "recorded_at": now, "adjudicated_at": now,
    }


def status_of(recorded: Recorded) -> str:
    """The status of a fixture with the result ``recorded``: walkover or played."""
    return Fixture.Status.WALKOVER if recorded.outcome == Outcome.WALKOVER else Fixture.Status.PLAYED


def result_write(
    *, fixture: Fixture, recorded: Recorded, official: Official, source: str, match: Match | None,
    discipline: tuple[int, int], by, now: datetime, reason: str = "",
) -> Result:
    """Stores ``official`` as the fixture's result and moves the fixture to played or walkover
    (the caller holds the locks and checked the fixture takes a result). An online match set up
    for the fixture but not started is annulled: this result takes its place."""
    if fixture.match_id is not None and match is None:
        unstarted = Match.objects.select_for_update().filter(pk=fixture.match_id).first()
        if unstarted is not None and not unstarted.is_started:
            online.match_annul(match_id=unstarted.pk, by=by if getattr(by, "pk", None) else None, now=now)
            fixture.match = None
            fixture.save(update_fields=["match"])
    result, _created = Result.objects.update_or_create(fixture=fixture, defaults=result_values(
        fixture=fixture, recorded=recorded, official=official, source=source, match=match, discipline=discipline,
        by=by, now=now, reason=reason))
    ResultReport.objects.filter(fixture=fixture, status__in=ResultReport.ACTIVE).update(
        status=ResultReport.Status.CLOSED)  # the players' open reports: kept, no longer open
    status = status_of(recorded)
    if fixture.status != status:
        fixture.set_status(status, by=by if getattr(by, "pk", None) else None, now=now)
    if fixture.match_id is not None and (match is None or match.pk == fixture.match_id):
        online.match_set_official(match_id=fixture.match_id, official={
            "home": official.home_goals, "away": official.away_goals, "text": str(result),
            "source": source, "reason": reason or "",
        })
    notices.result_official(fixture=fixture, result=result)
    return result


def _strike(*, fixture: Fixture, by, now: datetime, reason: str) -> FixtureChange:
    """Strikes the fixture's result (kept in its history) and annuls its online match: the
    fixture is to be played again, by the entrants the bracket now gives it. Returns the history
    entry (the new entrants are added to it)."""
    before = fixture_state(fixture)
    for game in ties.games_of(fixture).filter(status__in=Fixture.RESULTED):
        _strike(fixture=game, by=by, now=now, reason=reason)  # a tie's games are struck with it
    Result.objects.filter(fixture=fixture).delete()
    if fixture.match_id is not None:
        online.match_annul(match_id=fixture.match_id, by=by, now=now)
        fixture.match = None
        fixture.save(update_fields=["match"])
    if fixture.status in Fixture.RESULTED:
        fixture.set_status(Fixture.Status.SCHEDULED, by=by, now=now)
    return change_record(fixture=fixture, kind=FixtureChange.Kind.STRUCK, before=before,
                         after=fixture_state(fixture, result=None), by=by, reason=reason, now=now)


def _plan(competition: Competition) -> bracket.Plan:
    qualifiers, before_withdrawals = {}, {}
    groups_stage = competition.stages.filter(kind=Stage.Kind.GROUPS).first()
    # while a group fixture is open no group place is decided (``group_places``): nothing to rank
    if groups_stage is not None and not competition.fixtures.filter(
            round__stage=groups_stage, status__in=Fixture.OPEN).exists():
        tables, _lots = competition_tables(competition=competition)
        places = group_places(competition=competition, tables=tables)
        qualifiers, before_withdrawals = places.qualifiers, places.before_withdrawals
    return bracket.bracket_plan(competition=competition, qualifiers=qualifiers, before_withdrawals=before_withdrawals)


def _cascade(competition: Competition, *, by, now: datetime, reason: str) -> tuple[bracket.Plan, dict]:
    """Strikes the results of the fixtures in conflict, again and again down the bracket, until
    none is left; returns the last plan and the history entry of each fixture struck."""
    struck: dict[int, FixtureChange] = {}
    for _round in range(MAX_CASCADE):
        plan = _plan(competition)
        if not plan.conflicts:
            return plan, struck
        for fixture_id in sorted(plan.conflicts):
            struck[fixture_id] = _strike(fixture=plan.fixtures[fixture_id], by=by, now=now,
                                         reason=reason or names.CASCADE_CHANGED)
    raise AssertionError("the cascade did not end")


def settle(*, competition: Competition, by=None, now: datetime, cascade: bool = False, keep_conflicts: bool = False,
           reason: str = "", group_id: int | None = None) -> None:
    """After a change of results (in its transaction): checks the knockout slots it changes, then
    fills those of fixtures neither decided nor started; marks the derived state stale.

    When a fixture already decided or started would change: raises ``ResultConflict``
    ("played_on", with every fixture the change would reach), unless ``cascade`` (those
    fixtures' results are struck, down the bracket, and each goes back to scheduled with its new
    entrants) or ``keep_conflicts`` (a withdrawal: they are left as they are, and shown to the
    organisers as conflicts by the recomputation). A team tie's result is derived from its games
    first (``leagues.services.ties``). ``group_id``: the change was a result of that group's
    fixture, which the recomputation may rank alone (``leagues.services.locks.results_changed``)."""
    ties.ties_settle(competition=competition, by=by, now=now)
    if competition.stages.filter(kind=Stage.Kind.KNOCKOUT).exists():
        plan = _plan(competition)
        struck: dict[int, FixtureChange] = {}
        if plan.conflicts and cascade:
            plan, struck = _cascade(competition, by=by, now=now, reason=reason)
        elif plan.conflicts and not keep_conflicts:
            savepoint = transaction.savepoint()
            try:
                _plan_after, reached = _cascade(competition, by=by, now=now, reason=reason)
            finally:
                transaction.savepoint_rollback(savepoint)
            fixtures = [plan.fixtures[f] for f in sorted(reached)]
            raise ResultConflict(
                "played_on",
                _("this changes who plays in %(fixtures)s, which already has a result or a match under way; "
                  "correct that first, or ask for the change to cascade (those fixtures go back to "
                  "scheduled with their new entrants, their results kept in the history)")
                % {"fixtures": ", ".join(_fixture_label(f) for f in fixtures)},
                fixtures=[f.pk for f in fixtures],
            )
        bracket.bracket_apply(plan, now=now, struck=struck)
    results_changed(competition.pk, group_id=group_id)


def _fixture_label(fixture: Fixture) -> str:
    home = fixture.home.name if fixture.home_id else "?"
    away = fixture.away.name if fixture.away_id else "?"
    label = fixture.label or str(fixture.round)
    return f"{label} ({home} v {away})"


@retry_conflicts
def result_record(
    *,
    fixture: Fixture,
    home_goals: int = 0,
    away_goals: int = 0,
    outcome: str = "played",
    outcome_side: str = "",
    home_et_goals: int = 0,
    away_et_goals: int = 0,
    home_shootout: int | None = None,
    away_shootout: int | None = None,
    home_discipline: int = 0,
    away_discipline: int = 0,
    recorded_by=None,
    cascade: bool = False,
    reason: str = "",
    source: str = Result.Source.TABLE,
    expected_entrants: tuple[int | None, int | None] | None = None,
    expected_previous: str | None = None,
    now: datetime | None = None,
) -> Result:
    """Records (or corrects) the result of ``fixture`` as played at a real table: a score, a
    walkover (``outcome_side``: who did not show; ``both``: a double no-show) or a
    disqualification (goals: the score at that moment). Official at once.

    Raises ``ResultError`` (400, the field named) for a result that cannot be official or a
    fixture that takes none (``fixture``: without both entrants, a bye, cancelled), and
    ``ResultConflict`` (409) for a fixture whose online match has started, whose winner has
    played on (without ``cascade``), whose entrants are no longer ``expected_entrants``
    (home, away ids: what the organiser saw), or whose result is no longer the one of
    ``expected_previous`` (``result_token``; ``""``: none). Nothing is saved then.
    """
    now = now or timezone.now()
    if min(home_discipline, away_discipline) < 0:
        raise ResultError("home_discipline" if home_discipline < 0 else "away_discipline", _("cannot be negative"))
    recorded = Recorded(
        home_goals=home_goals, away_goals=away_goals, outcome=outcome, outcome_side=outcome_side or "",
        home_et_goals=home_et_goals, away_et_goals=away_et_goals,
        home_shootout=home_shootout, away_shootout=away_shootout,
    )
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        _check_expected(fixture, expected_entrants)
        _check_previous(fixture, expected_previous)
        _check_takes_result(fixture)
        match = lock_match(fixture)
        if match is not None and match.is_started:
            raise ResultConflict(
                "online_match_started",
                _("this fixture is played online and its match has started (%(status)s): its result comes "
                  "from the match; annul the match first to record a table result, or take a decision")
                % {"status": match.get_status_display().lower()},
                match=match.pk,
            )
        official = official_for(fixture, recorded)
        previous = current_result(fixture)
        before = fixture_state(fixture, result=previous)
        result = result_write(fixture=fixture, recorded=recorded, official=official, source=source, match=None,
                        discipline=(home_discipline, away_discipline), by=recorded_by, now=now, reason=reason)
        change_record(fixture=fixture, kind=FixtureChange.Kind.CORRECTION if previous else FixtureChange.Kind.RESULT,
                      before=before, after=fixture_state(fixture, result=result), by=recorded_by, reason=reason,
                      now=now)
        settle(competition=competition, by=recorded_by, now=now, cascade=cascade, reason=reason,
               group_id=fixture.group_id)
    return result


def _check_expected(fixture: Fixture, expected: tuple[int | None, int | None] | None) -> None:
    """Raises ``ResultConflict`` ("entrants_changed") when the request was written for other
    entrants than the fixture now has (a form left open while the bracket moved on)."""
    if expected is None or tuple(expected) == (fixture.home_id, fixture.away_id):
        return
    raise ResultConflict(
        "entrants_changed",
        _("this fixture is now %(fixture)s: its entrants changed since you opened it; check the result again")
        % {"fixture": _fixture_label(fixture)},
        home=fixture.home_id, away=fixture.away_id,
    )


def result_token(result: Result | None) -> str:
    """What identifies the result a form was opened on (``""``: none): when it was recorded."""
    return result.recorded_at.isoformat() if result is not None and result.recorded_at else ""


def _check_previous(fixture: Fixture, expected: str | None) -> None:
    """Raises ``ResultConflict`` ("result_changed") when another result was recorded since the
    request's form was opened (two tabs, two organisers): it is never overwritten unseen."""
    if expected is None:
        return
    current = current_result(fixture)
    if result_token(current) == expected:
        return
    raise ResultConflict(
        "result_changed",
        _("the result of %(fixture)s changed since you opened the form (now: %(result)s); check it and save again")
        % {"fixture": _fixture_label(fixture), "result": str(current) if current else _("none")},
    )


def _require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ResultError("reason", _("give the reason for this decision; it is kept with the result"))
    return reason


@retry_conflicts
def decision_record(
    *, fixture: Fixture, outcome: str, outcome_side: str, reason: str, decided_by=None, cascade: bool = False,
    expected_entrants: tuple[int | None, int | None] | None = None, now: datetime | None = None,
) -> Result:
    """An organiser's decision on an online fixture: a walkover (``outcome_side``: who did not
    show, or ``both``) or a disqualification of a side. It overrides the match's log (a match
    under way is stopped and annulled; a finished one keeps its log for the record), and the
    fixture page says so with the reason. A disqualification keeps the score on the table at
    that moment when the opponent was more than two goals ahead (§4).

    Raises ``ResultError`` (the field named) and ``ResultConflict`` as ``result_record``, and
    ``ResultConflict`` ("no_match") for a disqualification with no online match to take the
    score from (the result form records one, with its score)."""
    now = now or timezone.now()
    reason = _require_reason(reason)
    if outcome not in (Outcome.WALKOVER, Outcome.DISQUALIFICATION):
        raise ResultError("outcome", _("a decision is a walkover or a disqualification"))
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        _check_expected(fixture, expected_entrants)
        _check_takes_result(fixture)
        if not fixture.is_online:
            raise ResultConflict("not_online", _("this fixture is played at a table: record its result instead"))
        match = lock_match(fixture)
        if outcome == Outcome.DISQUALIFICATION and (match is None or match.status == Match.Status.CANCELLED):
            raise ResultConflict(
                "no_match",
                _("this fixture has no online match to take the score from: record the disqualification with "
                  "the result form, with the score on the table at that moment"))
        score = (0, 0)
        if match is not None and outcome == Outcome.DISQUALIFICATION and match.state:
            score = (int(match.state.get("score", {}).get("home", 0)), int(match.state.get("score", {}).get("away", 0)))
        recorded = Recorded(home_goals=score[0], away_goals=score[1], outcome=outcome, outcome_side=outcome_side or "")
        official = official_for(fixture, recorded)
        previous = current_result(fixture)
        before = fixture_state(fixture, result=previous)
        if match is not None and match.status in (Match.Status.LIVE, Match.Status.CHECKED_IN, Match.Status.SCHEDULED):
            online.match_annul(match_id=match.pk, by=decided_by, now=now)
        result = result_write(fixture=fixture, recorded=recorded, official=official, source=Result.Source.DECISION,
                        match=match, discipline=(0, 0), by=decided_by, now=now, reason=reason)
        change_record(fixture=fixture, kind=FixtureChange.Kind.DECISION, before=before,
                      after=fixture_state(fixture, result=result), by=decided_by, reason=reason, now=now)
        settle(competition=competition, by=decided_by, now=now, cascade=cascade, reason=reason,
               group_id=fixture.group_id)
    return result


@retry_conflicts
def match_annul_decision(
    *, fixture: Fixture, reason: str, decided_by=None, cascade: bool = False, now: datetime | None = None,
) -> Fixture:
    """Annuls the online match of ``fixture``, to be replayed: the match stops (if under way)
    and is never adjudicated; a result that came from it (or a decision on it) is struck, and
    the fixture is scheduled again, for a new check-in or a table result.

    Raises ``ResultError`` (no reason) and ``ResultConflict``: no online match, or (without
    ``cascade``) a winner that has played on."""
    now = now or timezone.now()
    reason = _require_reason(reason)
    with transaction.atomic():
        competition, fixture = lock_fixture(fixture.pk)
        match = lock_match(fixture)
        if match is None:
            raise ResultConflict("no_match", _("this fixture has no online match to annul"))
        previous = current_result(fixture)
        before = fixture_state(fixture, result=previous)
        online.match_annul(match_id=match.pk, by=decided_by, now=now)
        fixture.match = None
        fixture.save(update_fields=["match"])
        if previous is not None and previous.match_id == match.pk:
            previous.delete()
            if fixture.status in Fixture.RESULTED:
                fixture.set_status(Fixture.Status.SCHEDULED, by=decided_by, now=now)
        change_record(fixture=fixture, kind=FixtureChange.Kind.MATCH_ANNULLED, before=before,
                      after=fixture_state(fixture), by=decided_by, reason=reason, now=now)
        settle(competition=competition, by=decided_by, now=now, cascade=cascade, reason=reason,
               group_id=fixture.group_id)
    return fixture


@retry_conflicts
def result_from_match(*, match_id: int, now: datetime | None = None) -> Result | None:
    """Makes the adjudicated log of a fixture's online match its official result (what
    ``leagues.tasks.result_from_match`` does, after ``matches`` adjudicates the log).

    Returns ``None`` when there is nothing to do: no fixture plays that match any more (it was
    annulled), the result is already official, or an organiser's decision on it stands. When the
    log's result cannot be official (``ResultError``) it is logged and kept in the fixture's
    history for the organiser; when it would change a fixture that has played on, likewise
    (``ResultConflict``): the organiser decides."""
    now = now or timezone.now()
    fixture_id = Fixture.with_games.filter(match_id=match_id).values_list("pk", flat=True).first()
    if fixture_id is None:
        return None
    try:
        with transaction.atomic():
            competition, fixture = lock_fixture(fixture_id)
            match = lock_match(fixture)
            if match is None or match.pk != match_id or match.status != Match.Status.ADJUDICATED:
                return None
            previous = current_result(fixture)
            if previous is not None and previous.match_id == match.pk:
                return None  # done already, or decided by an organiser: the decision stands
            log = match.log_result or {}
            recorded = Recorded(
                home_goals=log.get("home_goals", 0), away_goals=log.get("away_goals", 0),
                outcome=log.get("outcome", "played"), outcome_side=log.get("outcome_side", ""),
                home_et_goals=log.get("home_et_goals", 0), away_et_goals=log.get("away_et_goals", 0),
                home_shootout=log.get("home_shootout"), away_shootout=log.get("away_shootout"),
            )
            _check_takes_result(fixture)
            official = official_for(fixture, recorded)
            before = fixture_state(fixture, result=previous)
            result = result_write(fixture=fixture, recorded=recorded, official=official, source=Result.Source.ONLINE,
                            match=match, discipline=(log.get("home_discipline", 0), log.get("away_discipline", 0)),
                            by=None, now=now)
            change_record(fixture=fixture, kind=FixtureChange.Kind.ONLINE_RESULT, before=before,
                          after=fixture_state(fixture, result=result), now=now)
            settle(competition=competition, now=now, keep_conflicts=True, group_id=fixture.group_id)
            return result
    except (ResultError, ResultConflict) as exc:
        message = exc.message if isinstance(exc, ResultError) else exc.detail
        logger.error("match %s: its result cannot be official: %s", match_id, message)
        with transaction.atomic():
            fixture = Fixture.with_games.select_for_update().get(pk=fixture_id)
            change_record(fixture=fixture, kind=FixtureChange.Kind.ONLINE_RESULT, before={},
                          after={"match": match_id, "refused": message}, now=now)
        return None


def fixtures_awaiting_official(*, limit: int = 500) -> list[int]:
    """Ids of the online matches whose adjudicated log waits to become a fixture's official
    result (what the sweeper re-sends): adjudicated, still the fixture's match, no result from
    it yet, and not refused before."""
    refused = FixtureChange.objects.filter(kind=FixtureChange.Kind.ONLINE_RESULT, after__has_key="refused")
    return list(
        Fixture.with_games.filter(match__status=Match.Status.ADJUDICATED, status__in=Fixture.OPEN)
        .exclude(pk__in=refused.values("fixture_id"))
        .values_list("match_id", flat=True)[:limit]
    )


DOUBLE_NO_SHOW = {"outcome": Outcome.WALKOVER, "outcome_side": Side.BOTH}
