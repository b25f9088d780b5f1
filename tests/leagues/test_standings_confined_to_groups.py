"""A result in one group ranks that group's table again, not the whole competition's: the
recomputation after a change confined to some groups (``Competition.pending_groups``) ranks
those tables alone, each from all its own results, and ranks everything when the change was not
confined (a withdrawal, a setting) or when the groups' places fill the knockout."""
from __future__ import annotations

import pytest
from django.db import transaction

from leagues.models import Competition, Standing
from leagues.rules import standings as rules
from leagues.services import standings
from leagues.services.entrants import entrant_withdraw
from leagues.services.locks import MOST_PENDING_GROUPS, lock_competition, results_changed
from tests.leagues.test_results_through_the_api import competition_of, record

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ranked(monkeypatch) -> list[frozenset]:
    """The tables each recomputation ranks, as the sets of their entrants' ids."""
    seen: list[frozenset] = []
    real = rules.rank

    def spy(lines, criteria, *, entrants, **kwargs):
        seen.append(frozenset(entrants))
        return real(lines, criteria, entrants=entrants, **kwargs)

    monkeypatch.setattr(rules, "rank", spy)
    return seen


def groups_cup(slug="confined"):
    competition, organiser = competition_of(12, format="groups_knockout", group_count=3, qualifiers_per_group=2,
                                            slug=slug)
    groups = {g.name: g for g in competition.stages.get(kind="groups").groups.all()}
    return competition, organiser, groups


def stored(competition) -> list[tuple]:
    return list(Standing.objects.filter(competition=competition).order_by("group__name", "position")
                .values_list("group__name", "entrant__name", "position", "points", "goal_difference", "tiebreak"))


def members(group) -> frozenset:
    return frozenset(group.entrants.values_list("pk", flat=True))


def test_a_result_in_one_group_ranks_that_group_alone_and_stores_what_a_full_recomputation_would(ranked):
    competition, organiser, groups = groups_cup()
    fixture = competition.fixtures.filter(group=groups["B"], status="scheduled").first()
    ranked.clear()
    assert record(organiser, fixture, 3, 1).status_code == 200
    assert ranked == [members(groups["B"])]  # the worker ranked B's table, not A's nor C's
    competition.refresh_from_db()
    assert competition.derived_version == competition.results_version and competition.pending_groups == []
    after_partial = stored(competition)
    assert standings.standings_recompute(competition_id=competition.pk, force=True)
    assert stored(competition) == after_partial  # the same rows as ranking everything
    row = next(r for r in after_partial if r[0] == "B" and r[2] == 1)
    assert row[3] == 3 and row[4] == 2


def test_changes_in_two_groups_before_the_worker_runs_rank_those_two(ranked):
    competition, _organiser, groups = groups_cup(slug="two-groups")
    ranked.clear()
    with transaction.atomic():
        lock_competition(competition.pk)
        results_changed(competition.pk, group_id=groups["A"].pk)
        results_changed(competition.pk, group_id=groups["C"].pk)
        assert Competition.objects.get(pk=competition.pk).pending_groups == sorted([groups["A"].pk, groups["C"].pk])
    assert sorted(ranked, key=sorted) == sorted([members(groups["A"]), members(groups["C"])], key=sorted)


def test_a_change_not_confined_to_a_group_after_one_that_was_ranks_every_table(ranked):
    competition, _organiser, groups = groups_cup(slug="unconfined")
    ranked.clear()
    with transaction.atomic():
        lock_competition(competition.pk)
        results_changed(competition.pk, group_id=groups["A"].pk)
        results_changed(competition.pk)  # e.g. a setting of the standings
        assert Competition.objects.get(pk=competition.pk).pending_groups is None
    assert len(ranked) == 3


def test_a_withdrawal_ranks_every_table(ranked):
    competition, _organiser, groups = groups_cup(slug="withdrawn")
    ranked.clear()
    entrant_withdraw(entrant=groups["A"].entrants.first())
    assert len(ranked) == 3


def test_the_last_group_result_ranks_every_table_and_fills_the_knockout(ranked):
    competition, organiser, groups = groups_cup(slug="last-group")
    open_fixtures = list(competition.fixtures.filter(group__isnull=False, status="scheduled").order_by("pk"))
    for fixture in open_fixtures[:-1]:
        assert record(organiser, fixture, 1, 0).status_code == 200
    knockout = competition.fixtures.filter(round__stage__kind="knockout", round__number=1)
    assert not knockout.filter(home__isnull=False).exists()  # no group place decided yet
    ranked.clear()
    assert record(organiser, open_fixtures[-1], 1, 0).status_code == 200
    # every table (by the result's own check of the bracket, then by the worker): their places fill the knockout
    assert set(ranked) == {members(group) for group in groups.values()}
    assert not knockout.filter(home__isnull=True).exists()


def test_too_many_groups_pending_rank_everything():
    competition, _organiser, groups = groups_cup(slug="many")
    with transaction.atomic():
        lock_competition(competition.pk)
        results_changed(competition.pk, group_id=groups["A"].pk)
        Competition.objects.filter(pk=competition.pk).update(pending_groups=list(range(10**6, 10**6 + MOST_PENDING_GROUPS)))
        results_changed(competition.pk, group_id=groups["B"].pk)
        assert Competition.objects.get(pk=competition.pk).pending_groups is None
