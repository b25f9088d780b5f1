"""The bracket derived from the results: loads a competition's knockout stage, asks the pure
``leagues.rules.bracket.derive`` who fills each slot, and writes what changed.

``bracket_plan`` reads (with the stage's fixtures locked, after the competition); ``bracket_apply``
writes the entrants and statuses of the fixtures that are not decided nor started, with one
history entry per fixture changed; ``bracket_sync`` does both and returns the conflicts (the
fixtures decided or started that the results would now fill otherwise), which the worker
keeps on the competition for its organisers. A correction that would change a decided fixture
is refused, or cascades, in ``leagues.services.results``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from leagues import names
from leagues.models import Competition, Fixture, FixtureChange, Stage
from leagues.rules import best_thirds, bracket
from leagues.services import notices, ties
from leagues.services.double_elimination import follow_reset, is_double_elimination, play_orders
from leagues.services.history import change_record, fixture_state
from matches.models import Match
from matches.services import online

NOBODY = bracket.NOBODY


@dataclass
class Plan:
    fixtures: dict[int, Fixture]
    stage_fixtures: list[bracket.KnockoutFixture]
    derivation: bracket.Derivation

    @property
    def conflicts(self) -> dict[int, tuple[tuple, tuple]]:
        return self.derivation.conflicts

    def changes(self) -> dict[int, bracket.Slotting]:
        return self.derivation.changes(self.stage_fixtures)


def knockout_fixtures(competition: Competition, *, lock: bool):
    qs = (Fixture.objects.filter(competition=competition, round__stage__kind=Stage.Kind.KNOCKOUT)
          .select_related("round__stage", "home", "away", "match", "result")
          .order_by("round__stage__order", "round__number", "position", "pk"))
    if lock:
        qs = qs.select_for_update(of=("self",))
    return list(qs)


def _sources(fixtures: list[Fixture]) -> dict[int, dict[str, bracket.Source]]:
    fed: dict[int, dict[str, bracket.Source]] = {f.pk: {} for f in fixtures}
    for f in fixtures:
        if f.winner_to_id in fed and f.winner_to_slot:
            fed[f.winner_to_id][f.winner_to_slot] = bracket.Winner(f.pk)
        if f.loser_to_id in fed and f.loser_to_slot:
            fed[f.loser_to_id][f.loser_to_slot] = bracket.Loser(f.pk)
    for f in fixtures:
        for slot in ("home", "away"):
            if slot in fed[f.pk]:
                continue
            code = getattr(f, f"{slot}_source")
            if code:  # "A1", or a best next-placed slot "3#1" (leagues.rules.best_thirds)
                fed[f.pk][slot] = bracket.Qualifier(*best_thirds.parse_code(code))
            else:
                fed[f.pk][slot] = bracket.Fixed(getattr(f, f"{slot}_id"))
    return fed


def _for_places_below(fixtures: list[Fixture], fed: dict[int, dict[str, bracket.Source]]) -> set[int]:
    """The fixtures that play for the places below the final's: fed by a loser, or by the
    winner of such a fixture (the match for 5th place, fed by the semi-finals for 5th-8th)."""
    below: set[int] = set()
    for f in fixtures:  # in round order: a fixture's feeders come before it
        if any(isinstance(s, bracket.Loser) or (isinstance(s, bracket.Winner) and s.fixture in below)
               for s in fed[f.pk].values()):
            below.add(f.pk)
    return below


def _decided(fixture: Fixture) -> bracket.Decided | None:
    result = getattr(fixture, "result", None) if _has_result(fixture) else None
    if result is None or fixture.status not in Fixture.RESULTED:
        return None
    if result.is_double_no_show or not result.winner_side:
        return bracket.Decided(None, None)
    loser_side = "away" if result.winner_side == "home" else "home"
    return bracket.Decided(getattr(fixture, f"{result.winner_side}_id"), getattr(fixture, f"{loser_side}_id"))


def _has_result(fixture: Fixture) -> bool:
    try:
        fixture.result  # noqa: B018 - a reverse one-to-one raises when absent
    except Fixture.result.RelatedObjectDoesNotExist:
        return False
    return True


def bracket_plan(*, competition: Competition, qualifiers: dict, before_withdrawals: dict | None = None,
                 lock: bool = True) -> Plan:
    """Who fills each slot of the knockout stage now (nothing written). ``qualifiers`` and
    ``before_withdrawals``: the group places (``leagues.services.standings.group_places``)."""
    fixtures = knockout_fixtures(competition, lock=lock)
    fed = _sources(fixtures)
    withdrawn = frozenset(competition.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))
    double = is_double_elimination(competition)  # no places below: a lone entrant goes on by a bye
    below = set() if double else _for_places_below(fixtures, fed)
    orders = play_orders(competition, fixtures) if double else {}
    games_begun = ties.ties_begun(competition=competition)  # a tie with a game played or under way
    stage = [
        bracket.KnockoutFixture(
            id=f.pk, order=orders.get(f.pk) or (f.round.number, f.position), home_source=fed[f.pk]["home"],
            away_source=fed[f.pk]["away"], home=f.home_id, away=f.away_id, status=f.status,
            result=_decided(f),
            started=(f.match_id is not None and f.match.status in Match.STARTED) or f.pk in games_begun,
            feeds_losers=f.pk in below, winner_goes_on=f.winner_to_id is not None,
        )
        for f in fixtures
        if f.status not in (Fixture.Status.ANNULLED,)
    ]
    derivation = bracket.derive(stage, withdrawn=withdrawn, qualifiers=qualifiers,
                                places_before_withdrawals=before_withdrawals)
    if double:
        follow_reset(derivation, stage=stage, fixtures={f.pk: f for f in fixtures})
    return Plan(fixtures={f.pk: f for f in fixtures}, stage_fixtures=stage, derivation=derivation)


STATUS_OF = {bracket.SCHEDULED: Fixture.Status.SCHEDULED, bracket.BYE: Fixture.Status.BYE,
             bracket.CANCELLED: Fixture.Status.CANCELLED}


def bracket_apply(plan: Plan, *, now: datetime | None = None, struck: dict | None = None) -> list[Fixture]:
    """Writes the entrants and statuses ``plan`` derived for the fixtures neither decided nor
    started; an online match set up for the old entrants is annulled. Each fixture changed gets
    one history entry (by nobody: the bracket follows the results), or, when its result was just
    struck (``struck``: fixture id -> that entry), that entry says where it now stands. Returns
    the fixtures changed."""
    struck = struck or {}
    now = now or timezone.now()
    changed = []
    for fixture_id, slot in plan.changes().items():
        fixture = plan.fixtures[fixture_id]
        before = fixture_state(fixture, result=None)
        entrants_changed = (fixture.home_id, fixture.away_id) != (slot.home, slot.away)
        fixture.home_id, fixture.away_id = slot.home, slot.away
        fields = ["home", "away"]
        if entrants_changed:
            fixture.playable_since = now
            fields.append("playable_since")
            if fixture.hall_table is not None and fixture.status in Fixture.OPEN:
                fixture.hall_table = fixture.called_at = None  # the call was for the entrants it had
                fields += ["hall_table", "called_at"]
        status = STATUS_OF[slot.status]
        if fixture.status != status and not (status == Fixture.Status.SCHEDULED
                                             and fixture.status == Fixture.Status.POSTPONED):
            fixture.set_status(status, now=now, save=False)
            fields += ["status", "status_changed_at", "status_changed_by"]
        if entrants_changed and fixture.match_id is not None:
            online.match_annul(match_id=fixture.match_id, now=now)
            fixture.match = None
            fields.append("match")
        fixture.save(update_fields=fields)
        fixture.refresh_from_db(fields=["home", "away"])
        if fixture_id in struck:
            struck[fixture_id].after = fixture_state(fixture, result=None)
            struck[fixture_id].save(update_fields=["after"])
        else:
            change_record(fixture=fixture, kind=FixtureChange.Kind.ENTRANTS if entrants_changed
                          else FixtureChange.Kind.STATUS, before=before, after=fixture_state(fixture, result=None),
                          now=now, reason=names.BRACKET_FOLLOWS)
        if entrants_changed and status == Fixture.Status.SCHEDULED and fixture.home_id and fixture.away_id:
            notices.fixture_ready(fixture=fixture)
        changed.append(fixture)
    if changed:
        ties.games_follow(competition_id=changed[0].competition_id, now=now)
    return changed


def conflicts_json(plan: Plan) -> list[dict[str, Any]]:
    """The plan's conflicts as the competition keeps them: the fixture, what it holds and what
    the results would now put there (entrant ids, ``None`` for a slot still to be decided)."""
    return [
        {"fixture": fixture_id, "holds": list(holds), "would_hold": list(would)}
        for fixture_id, (holds, would) in sorted(plan.conflicts.items())
    ]


def bracket_sync(*, competition: Competition, qualifiers: dict, before_withdrawals: dict | None = None,
                 now: datetime | None = None) -> list[dict]:
    """Fills the knockout slots from the results (the worker's part of a recomputation); returns
    the conflicts, which are left for the organisers to decide."""
    if not competition.stages.filter(kind=Stage.Kind.KNOCKOUT).exists():
        return []
    plan = bracket_plan(competition=competition, qualifiers=qualifiers, before_withdrawals=before_withdrawals)
    bracket_apply(plan, now=now)
    return conflicts_json(plan)
