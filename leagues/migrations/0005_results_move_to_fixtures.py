"""Each fixture's result moves from its match (``matches.Result``) to the fixture
(``leagues.Result``); a fixture points at its online match; kick-offs from the dates."""
from datetime import datetime, time, timezone

from django.db import migrations

from leagues.rules.official import Recorded, ResultError, Rules, official_result


def _official(result, fixture, competition, knockout):
    if result.home_goals is not None:
        return result.home_goals, result.away_goals, result.winner_side
    rules = Rules(knockout=knockout, extra_time=competition.extra_time, shootout=competition.shootout,
                  shootout_kicks=competition.shootout_kicks,
                  walkover_score=(competition.walkover_goals_for, competition.walkover_goals_against))
    try:
        official = official_result(Recorded(
            home_goals=result.table_home_goals, away_goals=result.table_away_goals, outcome=result.outcome,
            outcome_side=result.outcome_side, home_et_goals=result.home_et_goals,
            away_et_goals=result.away_et_goals, home_shootout=result.home_shootout,
            away_shootout=result.away_shootout), rules)
    except ResultError:
        return None
    return official.home_goals, official.away_goals, official.winner_side


def forwards(apps, schema_editor):
    OldResult = apps.get_model("matches", "Result")
    Match = apps.get_model("matches", "Match")
    Fixture = apps.get_model("leagues", "Fixture")
    Result = apps.get_model("leagues", "Result")
    Competition = apps.get_model("leagues", "Competition")

    for match in Match.objects.filter(fixture__isnull=False).exclude(kind="table"):
        Fixture.objects.filter(pk=match.fixture_id).update(match=match)
        Competition.objects.filter(fixtures__pk=match.fixture_id).update(venue="online")
    for old in OldResult.objects.filter(match__fixture__isnull=False).select_related(
            "match__fixture__competition", "match__fixture__round__stage"):
        match = old.match
        fixture = match.fixture
        official = _official(old, fixture, fixture.competition, fixture.round.stage.kind == "knockout")
        if official is None:
            continue  # a recorded result that could never be official: the organiser records it again
        home, away, winner_side = official
        winner_id = {"home": fixture.home_id, "away": fixture.away_id}.get(winner_side)
        Result.objects.create(
            fixture=fixture, source="table" if match.kind == "table" else "online",
            match=None if match.kind == "table" else match,
            outcome=old.outcome, outcome_side=old.outcome_side,
            table_home_goals=old.table_home_goals, table_away_goals=old.table_away_goals,
            home_et_goals=old.home_et_goals, away_et_goals=old.away_et_goals,
            home_shootout=old.home_shootout, away_shootout=old.away_shootout,
            home_discipline=old.home_discipline, away_discipline=old.away_discipline,
            home_goals=home, away_goals=away, winner_side=winner_side, winner_id=winner_id,
            recorded_by_id=old.recorded_by_id, recorded_at=old.recorded_at,
            adjudicated_at=old.adjudicated_at or old.recorded_at,
        )
    for fixture in Fixture.objects.filter(kickoff_at__isnull=True, date__isnull=False):
        fixture.kickoff_at = datetime.combine(fixture.date, time(18, 0), tzinfo=timezone.utc)
        fixture.save(update_fields=["kickoff_at"])


class Migration(migrations.Migration):

    dependencies = [
        ('leagues', '0004_kickoff_venue_official_results'),
        ('matches', '0003_match_setup_fields'),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
