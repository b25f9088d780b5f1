"""A match no longer knows its fixture, and keeps no official result of its own: both live in
``leagues`` now (``Fixture.match``, ``leagues.Result``). Table matches carried nothing else."""
from django.db import migrations, models


def forwards(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(kind="table").delete()
    Match.objects.filter(status="in_progress").update(status="abandoned")
    for match in Match.objects.filter(status="adjudicated", log_result__isnull=True).select_related("result"):
        result = getattr(match, "result", None)
        if result is None:
            continue
        match.log_result = {
            "outcome": result.outcome, "outcome_side": result.outcome_side,
            "home_goals": result.table_home_goals, "away_goals": result.table_away_goals,
            "home_et_goals": result.home_et_goals, "away_et_goals": result.away_et_goals,
            "home_shootout": result.home_shootout, "away_shootout": result.away_shootout,
            "home_discipline": result.home_discipline, "away_discipline": result.away_discipline,
        }
        match.adjudicated_at = result.adjudicated_at
        if result.home_goals is not None:
            match.official = {"home": result.home_goals, "away": result.away_goals,
                              "text": f"{result.home_goals}-{result.away_goals}"}
        match.save(update_fields=["log_result", "adjudicated_at", "official"])


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0003_match_setup_fields'),
        ('leagues', '0005_results_move_to_fixtures'),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.RemoveField(model_name='match', name='fixture'),
        migrations.DeleteModel(name='Result'),
        migrations.RemoveConstraint(model_name='match', name='match_status_valid'),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('status__in', ['scheduled', 'abandoned', 'finished', 'adjudicated', 'cancelled', 'checked_in', 'live', 'walkover'])), name='match_status_valid'),
        ),
        migrations.AddIndex(
            model_name='match', index=models.Index(fields=['status'], name='match_status_idx'),
        ),
        migrations.AlterField(
            model_name='match',
            name='checkin_deadline_at',
            field=models.DateTimeField(blank=True, help_text='The kick-off plus the check-in grace: a side not in by then loses by walkover.', null=True),
        ),
        migrations.AlterField(
            model_name='match',
            name='kind',
            field=models.CharField(choices=[('online', 'Online, on the simulated table'), ('practice', 'Practice against the computer')], default='online', max_length=10),
        ),
        migrations.AlterField(
            model_name='match',
            name='scheduled_at',
            field=models.DateTimeField(blank=True, help_text='The kick-off.', null=True),
        ),
        migrations.AlterField(
            model_name='match',
            name='status',
            field=models.CharField(choices=[('scheduled', 'Scheduled'), ('checked_in', 'Checked in'), ('live', 'Live'), ('walkover', 'Walkover, awaiting adjudication'), ('abandoned', 'Abandoned'), ('finished', 'Finished, awaiting adjudication'), ('adjudicated', 'Adjudicated'), ('cancelled', 'Annulled')], default='scheduled', max_length=20),
        ),
        migrations.AlterField(
            model_name='match',
            name='walkover_side',
            field=models.CharField(blank=True, help_text='The side that did not show: "home", "away" or "both".', max_length=4),
        ),
    ]
