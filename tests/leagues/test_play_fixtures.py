"""``play_fixtures --bots`` plays a small league through the services; standings follow (issue 7)."""
from __future__ import annotations

from collections import defaultdict

import pytest
from django.core.management import call_command

from leagues.models import Fixture, Result, Standing
from matches.models import Match, MatchAction
from matches.services.adjudication import ReplayMismatch, replay
from tests.matches.conftest import make_league

pytestmark = pytest.mark.django_db(transaction=True)


def test_play_fixtures_plays_a_small_league_and_the_standings_are_right(stub_referee):
    competition = make_league(4, slug="bots-league")
    call_command("play_fixtures", competition.slug, "--bots", verbosity=0)
    assert not competition.fixtures.filter(status__in=Fixture.OPEN).exists()
    results = list(Result.objects.filter(fixture__competition=competition).select_related("fixture"))
    assert len(results) == 6 and all(r.is_official and r.source == "online" for r in results)
    points, goals_for = defaultdict(int), defaultdict(int)
    for r in results:
        fixture = r.fixture
        goals_for[fixture.home_id] += r.home_goals
        goals_for[fixture.away_id] += r.away_goals
        if r.winner_side == "":
            points[fixture.home_id] += 1
            points[fixture.away_id] += 1
        else:
            points[(fixture.home_id if r.winner_side == "home" else fixture.away_id)] += 3
    rows = list(Standing.objects.filter(competition=competition))
    assert len(rows) == 4
    for row in rows:
        assert (row.played, row.points, row.goals_for) == (3, points[row.entrant_id], goals_for[row.entrant_id])
    assert sorted(row.points for row in rows) == sorted(row.points for row in rows)
    assert [row.points for row in sorted(rows, key=lambda r: r.position)] == sorted(
        (row.points for row in rows), reverse=True)
    for match in Match.objects.filter(pk__in=competition.fixtures.values("match_id")):
        assert match.status == Match.Status.ADJUDICATED and match.seq > 0


def test_replay_of_the_log_equals_the_stored_hashes(stub_referee):
    competition = make_league(2, slug="replay")
    call_command("play_fixtures", competition.slug, "--bots", verbosity=0)
    match = Match.objects.get(pk__in=competition.fixtures.values("match_id"))
    found = replay(match)
    assert found.state.state_hash() == match.state_hash and found.actions == match.seq
    row = MatchAction.objects.filter(match=match).order_by("seq")[3]
    row.state_hash = "0" * 64
    row.save()
    with pytest.raises(ReplayMismatch) as mismatch:
        replay(match)
    assert mismatch.value.seq == row.seq


def test_play_fixtures_plays_a_knockout_round_after_round(stub_referee):
    competition = make_league(4, fmt="knockout", slug="bots-cup")
    call_command("play_fixtures", competition.slug, "--bots", verbosity=0)
    final = competition.fixtures.order_by("-round__number").first()
    assert final.status == Fixture.Status.PLAYED and final.result.winner_id is not None
