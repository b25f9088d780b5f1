"""The reads of a competition's rounds for its pages: the rounds numbered across the stages, the
round under way, one round's fixtures; no writes.

A competition's rounds are numbered **1, 2, ... in the order of its page**: stage by stage
(``Stage.order``), each stage's rounds by their ``number``. A league's round 30 is its round 30;
in groups then a knockout, the group rounds come first (1 to 3 for groups of four) and the
knockout's continue the count (its quarter-finals 4, ...); a double elimination counts the
winners' bracket's rounds, then the losers', then the grand final (and its reset); a Swiss, its
rounds as they are paired. That number is the ``<n>`` of ``/competitions/<slug>/rounds/<n>/``."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Exists, OuterRef

from leagues.models import Competition, Fixture, Group, Round, Stage
from leagues.selectors.pages import LIST_DEFERRED

# the fixtures of one round a page lists at most (the round page pages on beyond)
ROUND_PAGE_SIZE = 200


@dataclass
class NumberedRound:
    """A round and its number in the competition (``number``, from 1, across the stages)."""

    round: Round
    number: int
    fixtures: list[Fixture] = field(default_factory=list)
    first: date | None = None  # its fixtures' first and last dates (else the round's planned one)
    last: date | None = None
    total: int = 0  # its fixtures, when only the first ``ROUND_PAGE_SIZE`` are in ``fixtures``

    @property
    def more(self) -> int:
        """Its fixtures not in ``fixtures``."""
        return max(0, self.total - len(self.fixtures))


def competition_rounds(competition: Competition) -> list[NumberedRound]:
    """Every round of ``competition`` in page order, numbered from 1, each with its stage (two
    queries: the stages, the rounds)."""
    stages = {stage.pk: stage for stage in Stage.objects.filter(competition=competition)}
    rounds = Round.objects.filter(stage__competition=competition).order_by("stage__order", "stage_id", "number")
    numbered = []
    for n, rnd in enumerate(rounds, start=1):
        rnd.stage = stages[rnd.stage_id]  # one object per stage, not one per round
        numbered.append(NumberedRound(round=rnd, number=n))
    return numbered


def current_round_id(competition: Competition) -> int | None:
    """The round under way: the first, in page order, with a fixture still to play (scheduled or
    postponed); ``None`` when every fixture has its outcome (or there is none). One query over
    the rounds, each asked whether it has such a fixture (an index probe on the round's fixtures,
    stopped at the first), not a sort of the season's open fixtures."""
    still_open = Fixture.objects.filter(round=OuterRef("pk"), status__in=Fixture.OPEN)
    return (Round.objects.filter(stage__competition=competition).filter(Exists(still_open))
            .order_by("stage__order", "stage_id", "number").values_list("pk", flat=True).first())


def shown_rounds(competition: Competition, rounds: list[NumberedRound]) -> list[NumberedRound]:
    """What a competition's page lists of ``rounds`` (``competition_rounds``): the round under
    way (``current_round_id``; the last one when all are played) and the one after it, each with
    its first ``ROUND_PAGE_SIZE`` fixtures (``with_fixtures``); ``[]`` before the draw."""
    if not rounds:
        return []
    current_id = current_round_id(competition)
    at = next((i for i, r in enumerate(rounds) if r.round.pk == current_id), len(rounds) - 1)
    return [with_fixtures(r, competition) for r in rounds[at:at + 2]]


def round_fixtures_qs(rnd: Round, group: Group | None = None):
    """The fixtures of ``rnd`` (of ``group`` only, when given) in the order of its page: group,
    position; joined with what a row shows, without what a list never prints."""
    qs = Fixture.objects.filter(round=rnd)
    if group is not None:
        qs = qs.filter(group=group)
    return (qs.select_related("group", "home__club", "away__club", "home__player", "away__player", "result", "match")
            .defer(*LIST_DEFERRED).order_by("group__name", "position"))


def with_fixtures(entry: NumberedRound, competition: Competition, *, limit: int | None = None) -> NumberedRound:
    """``entry`` with its round's first ``limit`` (default ``ROUND_PAGE_SIZE``) fixtures, their
    count and dates (two queries at most: the count only when the limit is reached)."""
    limit = limit or ROUND_PAGE_SIZE
    fixtures = list(round_fixtures_qs(entry.round)[:limit])
    entry.total = len(fixtures) if len(fixtures) < limit else Fixture.objects.filter(round=entry.round).count()
    for fixture in fixtures:
        fixture.competition = competition  # known: not joined into every row
        fixture.round = entry.round
    entry.fixtures = fixtures
    entry.first, entry.last = round_dates(entry.round, fixtures)
    return entry


def round_dates(rnd: Round, fixtures: list[Fixture]) -> tuple[date | None, date | None]:
    """A round's first and last dates: its fixtures' (they follow every reschedule), else the
    planned one."""
    dates = sorted({f.date for f in fixtures if f.date and f.status != Fixture.Status.BYE})
    return (dates[0], dates[-1]) if dates else (rnd.date, rnd.date)


def round_groups(rnd: Round) -> list[Group]:
    """The groups ``rnd`` has fixtures in, by name (none for a round without groups)."""
    return list(Group.objects.filter(fixtures__round=rnd).distinct().order_by("name"))


def knockout_fixtures(competition: Competition, rounds: list[NumberedRound]) -> list[Fixture]:
    """The fixtures of the knockout stages of ``competition`` (its bracket), in stage, round,
    position order, joined as ``competition_fixtures``; ``rounds`` are its rounds
    (``competition_rounds``): without a knockout round, no query."""
    knockout = [r.round.pk for r in rounds if r.round.stage.kind == Stage.Kind.KNOCKOUT]
    if not knockout:
        return []
    return list(
        Fixture.objects.filter(competition=competition, round_id__in=knockout)
        .select_related("round__stage", "group", "home__club", "away__club", "home__player", "away__player",
                        "result", "match")
        .defer(*LIST_DEFERRED)
        .order_by("round__stage__order", "round__number", "group__name", "position"))
