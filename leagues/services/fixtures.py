"""Writes the schedule of a competition: stages, groups, rounds and fixtures (§2).

Pairings come from the pure ``leagues.rules.pairings``; this module only stores them. Each round is
dated from the competition's first date and days between rounds, and each fixture kicks off at
the competition's default time of day in its time zone (``kickoff_at``). A knockout fixture
that waits for an earlier one has empty slots and points forward with ``winner_to`` (and
``loser_to`` for the third-place match and the placement matches); the first knockout round
after groups names its group places (``home_source`` "A1", or "3#1" for a best third-placed slot:
``leagues.rules.best_thirds``). Who fills the slots is derived from the results
(``leagues.services.bracket``), never stored by hand.

Generating locks the competition and then its entrants: an entrant added meanwhile waits for the
lock and then finds the fixtures made (and is refused with a clear message).
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import (
    DAYS_BETWEEN_ROUNDS,
    FIRST_DATE_MAX,
    FIRST_DATE_MIN,
    Competition,
    Entrant,
    Fixture,
    Group,
    Round,
    Stage,
)
from leagues.rules import best_thirds, bracket_layout, pairings
from leagues.services import bracket, notices, swiss_rounds, ties
from leagues.services.double_elimination import double_elimination_generate
from leagues.services.locks import lock_competition, results_changed, retry_conflicts
from leagues.services.seeding import seeds_assign


class ScheduleError(ValueError):
    """A schedule that cannot be made as asked (a user can fix it: a 400, not a bug); ``field``
    names the competition's setting to change, when one is to blame."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _check_dates(competition: Competition) -> None:
    """The scheduling settings within their bounds (a value stored without the model's check)."""
    days = competition.days_between_rounds
    low, high = DAYS_BETWEEN_ROUNDS
    if not low <= days <= high:
        raise ScheduleError(_("days between rounds must be from %(low)s to %(high)s") % {"low": low, "high": high}, field="days_between_rounds")
    first = competition.first_date
    if first is not None and not FIRST_DATE_MIN <= first <= FIRST_DATE_MAX:
        raise ScheduleError(
            _("the first date must be from %(low)s to %(high)s") % {
                "low": FIRST_DATE_MIN.isoformat(), "high": FIRST_DATE_MAX.isoformat()},
            field="first_date",
        )


def entrants_in_seed_order(*, competition: Competition) -> list[Entrant]:
    """Seeded entrants first (1, 2, ...), then the unseeded by name; the withdrawn left out."""
    entrants = list(competition.entrants.filter(withdrawn_at__isnull=True))
    return sorted(entrants, key=lambda e: (e.seed is None, e.seed or 0, e.name))


@retry_conflicts
@transaction.atomic
def fixtures_generate(*, competition: Competition, now: datetime | None = None, seeding: str = "hand") -> list[Fixture]:
    """Creates every stage, round and fixture of ``competition`` from its entrants and format,
    the entrants seeded ``seeding`` ("hand", "rating" or "ranking"; ``leagues.services.seeding``).

    A Swiss pairs its next round only (``_swiss_round``).

    Raises ``ScheduleError`` when fixtures exist already or the entrants cannot make the format,
    ``SeedingError`` (400 on ``seeding``) for an unknown seeding, and for a Swiss
    ``swiss_rounds.PairingConflict`` (409) when its next round cannot be paired now.
    """
    now = now or timezone.now()
    competition = lock_competition(competition.pk)
    if competition.format == Competition.Format.SWISS:
        return _swiss_round(competition, now=now, seeding=seeding)
    if competition.fixtures.exists():
        raise ScheduleError(_("this competition has fixtures already"))
    list(Entrant.objects.select_for_update().filter(competition=competition).values_list("pk"))
    seeds_assign(competition=competition, method=seeding, now=now)
    entrants = entrants_in_seed_order(competition=competition)
    if len(entrants) < 2:
        raise ScheduleError(_("a competition needs at least 2 entrants"))
    _check_dates(competition)
    try:
        fixtures = _generate(competition, entrants, now)
    except OverflowError as exc:  # a round dated past the calendar's end
        raise ScheduleError(_("the rounds would be dated past the end of the calendar: "
                              "choose an earlier first date or fewer days between rounds"),
                            field="first_date") from exc
    ties.games_create(competition=competition, now=now)  # a team tie's games, one per table
    if competition.stages.filter(kind=Stage.Kind.KNOCKOUT).exists():
        bracket.bracket_apply(bracket.bracket_plan(competition=competition, qualifiers={}), now=now)
    results_changed(competition.pk)
    notices.fixtures_scheduled(competition=competition)
    return fixtures


def _swiss_round(competition: Competition, *, now: datetime, seeding: str) -> list[Fixture]:
    """The Swiss's next round (``leagues.services.swiss_rounds``), the competition locked. Before
    round 1 the entrants are seeded ``seeding`` and ``rounds`` is checked against them: 1 to the
    entrants less one (``ScheduleError`` on ``rounds``)."""
    list(Entrant.objects.select_for_update().filter(competition=competition).values_list("pk"))
    if not swiss_rounds.rounds_paired(competition):
        seeds_assign(competition=competition, method=seeding, now=now)
        entrants = entrants_in_seed_order(competition=competition)
        if len(entrants) < 2:
            raise ScheduleError(_("a competition needs at least 2 entrants"))
        most = len(entrants) - 1
        if competition.rounds is None or not 1 <= competition.rounds <= most:
            raise ScheduleError(_("a Swiss of %(count)s entrants plays from 1 to %(most)s rounds; set its rounds")
                                % {"count": len(entrants), "most": most}, field="rounds")
        _check_dates(competition)
    try:
        fixtures = swiss_rounds.swiss_round_pair(competition=competition, now=now)
        ties.games_create(competition=competition, now=now)
    except OverflowError as exc:  # a round dated past the calendar's end
        raise ScheduleError(_("the rounds would be dated past the end of the calendar: "
                              "choose an earlier first date or fewer days between rounds"),
                            field="first_date") from exc
    results_changed(competition.pk)
    number = fixtures[0].round.number if fixtures else 1
    # round 1 as any competition's draw; each later round told on its own (its own key)
    notices.fixtures_scheduled(competition=competition, round_number=number if number > 1 else None)
    return fixtures


def _generate(competition: Competition, entrants: list[Entrant], now: datetime) -> list[Fixture]:
    if competition.format == Competition.Format.LEAGUE:
        stage = Stage.objects.create(competition=competition, order=1, name="League", kind=Stage.Kind.LEAGUE)
        return _round_robin(stage, None, entrants, double=competition.double_round_robin, now=now)
    if competition.format == Competition.Format.KNOCKOUT:
        stage = Stage.objects.create(competition=competition, order=1, name="Knockout", kind=Stage.Kind.KNOCKOUT)
        first = [
            tuple(None if seed is None else entrants[seed - 1] for seed in pairing)
            for pairing in pairings.knockout_first_round(len(entrants))
        ]
        return _bracket(stage, first, third_place=competition.third_place_match,
                        placement=competition.placement_matches, now=now)
    if competition.format == Competition.Format.DOUBLE_ELIMINATION:
        return double_elimination_generate(competition, entrants, now=now)
    return _groups_then_knockout(competition, entrants, now=now)


def _round(stage: Stage, number: int, *, name: str = "") -> Round:
    """The stage's round ``number``; dated after all the rounds of the earlier stages."""
    offset = Round.objects.filter(stage__competition=stage.competition, stage__order__lt=stage.order).count()
    date = stage.competition.round_date(offset + number)
    rnd, _ = Round.objects.get_or_create(stage=stage, number=number, defaults={"name": name, "date": date})
    return rnd


def _round_robin(
    stage: Stage, group: Group | None, entrants: Sequence[Entrant], *, double: bool, now: datetime
) -> list[Fixture]:
    fixtures = []
    for number, boards in enumerate(pairings.round_robin_for(entrants, double=double), start=1):
        rnd = _round(stage, number, name=f"Round {number}")
        for position, (home, away) in enumerate(boards):
            fixtures.append(Fixture.objects.create(
                competition=stage.competition, round=rnd, group=group, position=position,
                home=home, away=away, date=rnd.date, kickoff_at=stage.competition.kickoff_on(rnd.date),
                status=Fixture.Status.BYE if away is None else Fixture.Status.SCHEDULED,
                status_changed_at=now, playable_since=now,
            ))
    return fixtures


def _bracket(
    stage: Stage,
    first: Sequence[tuple[Entrant | None, Entrant | None]],
    *,
    third_place: bool,
    placement: bool = False,
    now: datetime,
    labels: Sequence[str] = (),
    sources: Sequence[tuple[str, str]] = (),
) -> list[Fixture]:
    """Stores a bracket whose first round is ``first`` (a ``None`` slot is a bye, or, with
    ``sources``, a group place still to be decided, e.g. ("A1", "B2")) and the empty rounds
    after it: the third-place match if there is one, or, with ``placement``, every placement
    match (``leagues.rules.bracket_layout``); returns them all, round by round."""
    laid_out = bracket_layout.layout(len(first) * 2, third_place=third_place, placement=placement)
    names = pairings.knockout_round_names(max(f.round for f in laid_out))
    made: dict[tuple[int, int], Fixture] = {}
    for spot in laid_out:
        rnd = _round(stage, spot.round, name=names[spot.round - 1])
        made[(spot.round, spot.position)] = Fixture.objects.create(
            competition=stage.competition, round=rnd, position=spot.position, date=rnd.date,
            kickoff_at=stage.competition.kickoff_on(rnd.date), label=spot.label,
            status_changed_at=now, playable_since=now,
        )
    for spot in laid_out:
        fixture = made[(spot.round, spot.position)]
        for goes, to in (("winner", spot.winner_to), ("loser", spot.loser_to)):
            if to is not None:
                setattr(fixture, f"{goes}_to", made[(to.round, to.position)])
                setattr(fixture, f"{goes}_to_slot", to.slot)
        if spot.winner_to is not None or spot.loser_to is not None:
            fixture.save(update_fields=["winner_to", "winner_to_slot", "loser_to", "loser_to_slot"])
    for position, (home, away) in enumerate(first):
        fixture = made[(1, position)]
        fixture.home, fixture.away = home, away
        if sources:
            fixture.label = labels[position]
            fixture.home_source, fixture.away_source = sources[position]
        elif (home is None) != (away is None):
            # A bye: the seeded entrant goes straight through (the bracket moves it on).
            fixture.home, fixture.away = home or away, None
            fixture.status = Fixture.Status.BYE
        fixture.save(update_fields=["home", "away", "label", "status", "home_source", "away_source"])
    return [made[(spot.round, spot.position)] for spot in laid_out]


def _groups_then_knockout(competition: Competition, entrants: list[Entrant], *, now: datetime) -> list[Fixture]:
    """The groups, then the knockout's first round as ``leagues.rules.best_thirds.layout``
    draws it: group places ("A1") and, with ``best_thirds``, slots for the best next-placed
    ("3#1"), filled once the groups are complete."""
    count, qualifiers, best = competition.group_count, competition.qualifiers_per_group, competition.best_thirds
    try:
        dealt = pairings.snake_groups(len(entrants), count)
    except ValueError as exc:
        raise ScheduleError(str(exc)) from exc
    try:
        plan = best_thirds.layout(count, qualifiers, best)
    except ValueError as exc:
        raise ScheduleError(str(exc), field="best_thirds" if best else "qualifiers_per_group") from exc
    if best and sum(max(0, len(seeds) - qualifiers) for seeds in dealt) < best:
        raise ScheduleError(best_thirds.places_short(best), field="best_thirds")
    stage = Stage.objects.create(competition=competition, order=1, name="Groups", kind=Stage.Kind.GROUPS)
    fixtures = []
    for index, seeds in enumerate(dealt):
        group = Group.objects.create(stage=stage, name=pairings.group_letter(index))
        members = [entrants[seed - 1] for seed in seeds]
        group.entrants.set(members)
        fixtures += _round_robin(stage, group, members, double=competition.double_round_robin, now=now)
    knockout = Stage.objects.create(competition=competition, order=2, name="Knockout", kind=Stage.Kind.KNOCKOUT)
    sources = [tuple(best_thirds.side_code(side, plan) for side in pair) for pair in plan.pairs]
    labels = [best_thirds.pairing_label(pair, plan) for pair in plan.pairs]
    first = [(None, None)] * len(plan.pairs)
    return fixtures + _bracket(knockout, first, third_place=competition.third_place_match,
                               placement=competition.placement_matches, now=now, labels=labels, sources=sources)
