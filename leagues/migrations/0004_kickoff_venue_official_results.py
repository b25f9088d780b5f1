"""Kick-off times, venues and time zones; a fixture's official result and its history live in
``leagues``; the one marker of what the standings and bracket were computed from."""
import datetime

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import leagues.models


class Migration(migrations.Migration):

    dependencies = [
        ('leagues', '0003_competition_setting_bounds'),
        ('matches', '0003_match_setup_fields'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='competition', name='checkin_opens_minutes',
            field=models.PositiveSmallIntegerField(default=30, help_text='Online: check-in opens this many minutes before the kick-off.', validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(10080)]),
        ),
        migrations.AlterField(
            model_name='competition', name='checkin_grace_minutes',
            field=models.PositiveSmallIntegerField(default=15, help_text='Online: a player not checked in this long after the kick-off loses by walkover.'),
        ),
        migrations.AddField(
            model_name='competition', name='venue',
            field=models.CharField(choices=[('online', 'Online, on the simulated table'), ('table', 'At a real table')], default='table', help_text='Where its fixtures are played, unless a fixture says otherwise.', max_length=10),
        ),
        migrations.AddField(
            model_name='competition', name='time_zone',
            field=models.CharField(default='UTC', help_text='IANA name; kick-off times are shown in it.', max_length=64, validators=[leagues.models.validate_time_zone]),
        ),
        migrations.AddField(
            model_name='competition', name='kickoff_time',
            field=models.TimeField(default=datetime.time(18, 0), help_text='Generated fixtures kick off at this time of day (in the time zone).'),
        ),
        migrations.AddField(
            model_name='competition', name='results_version',
            field=models.PositiveIntegerField(default=1, editable=False),
        ),
        migrations.AddField(
            model_name='competition', name='derived_version',
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name='competition', name='derived_conflicts',
            field=models.JSONField(blank=True, default=list, editable=False, help_text='Played fixtures the bracket would now fill otherwise (shown to organisers).'),
        ),
        migrations.RemoveField(model_name='competition', name='standings_fingerprint'),
        migrations.AddField(
            model_name='fixture', name='home_source',
            field=models.CharField(blank=True, help_text='Knockout after groups: the group place that fills home, e.g. "A1".', max_length=20),
        ),
        migrations.AddField(
            model_name='fixture', name='away_source',
            field=models.CharField(blank=True, max_length=20),
        ),
        migrations.AddField(
            model_name='fixture', name='kickoff_at',
            field=models.DateTimeField(blank=True, db_index=True, null=True),
        ),
        migrations.AddField(
            model_name='fixture', name='venue',
            field=models.CharField(blank=True, choices=[('online', 'Online, on the simulated table'), ('table', 'At a real table')], help_text="Empty: the competition's venue.", max_length=10),
        ),
        migrations.AddField(
            model_name='fixture', name='match',
            field=models.OneToOneField(blank=True, help_text='Its online match, once set up (at the first check-in).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='matches.match'),
        ),
        migrations.AlterField(
            model_name='fixture', name='date',
            field=models.DateField(blank=True, help_text="The kick-off's date in the competition's time zone.", null=True),
        ),
        migrations.CreateModel(
            name='Result',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source', models.CharField(choices=[('table', 'Recorded at the table'), ('online', "From the online match's log"), ('decision', "An organiser's decision"), ('import', 'Imported'), ('withdrawal', 'A withdrawal')], default='table', max_length=12)),
                ('reason', models.TextField(blank=True, max_length=1000)),
                ('outcome', models.CharField(choices=[('played', 'Played'), ('walkover', 'Walkover'), ('disqualification', 'Disqualification'), ('bye', 'Bye')], default='played', max_length=20)),
                ('outcome_side', models.CharField(blank=True, choices=[('home', 'Home'), ('away', 'Away'), ('both', 'Both (a double no-show)')], help_text='Walkover: the side that did not show (both: a double no-show). Disqualification: the side disqualified.', max_length=4)),
                ('table_home_goals', models.PositiveSmallIntegerField(default=0)),
                ('table_away_goals', models.PositiveSmallIntegerField(default=0)),
                ('home_et_goals', models.PositiveSmallIntegerField(default=0)),
                ('away_et_goals', models.PositiveSmallIntegerField(default=0)),
                ('home_shootout', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('away_shootout', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('home_discipline', models.PositiveSmallIntegerField(default=0)),
                ('away_discipline', models.PositiveSmallIntegerField(default=0)),
                ('home_goals', models.PositiveSmallIntegerField(help_text='Official.')),
                ('away_goals', models.PositiveSmallIntegerField(help_text='Official.')),
                ('winner_side', models.CharField(blank=True, help_text='Empty: a draw, or nobody (a double no-show).', max_length=4)),
                ('recorded_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('adjudicated_at', models.DateTimeField(default=django.utils.timezone.now, help_text='When it became official.')),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('fixture', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='result', to='leagues.fixture')),
                ('match', models.ForeignKey(blank=True, help_text='The online match it comes from, or that the decision was taken on.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='matches.match')),
                ('recorded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('winner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='leagues.entrant')),
            ],
            options={
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('outcome__in', ['played', 'walkover', 'disqualification', 'bye'])), name='result_outcome_valid'),
                    models.CheckConstraint(condition=models.Q(models.Q(('outcome__in', ['played', 'bye']), ('outcome_side', '')), models.Q(('outcome', 'walkover'), ('outcome_side__in', ['home', 'away', 'both'])), models.Q(('outcome', 'disqualification'), ('outcome_side__in', ['home', 'away'])), _connector='OR'), name='result_outcome_side_matches_outcome'),
                    models.CheckConstraint(condition=models.Q(models.Q(('away_shootout__isnull', True), ('home_shootout__isnull', True)), models.Q(('away_shootout__isnull', False), ('home_shootout__isnull', False), models.Q(('home_shootout', models.F('away_shootout')), _negated=True)), _connector='OR'), name='result_shootout_both_sides_and_decisive'),
                    models.CheckConstraint(condition=models.Q(('source__in', ['table', 'online', 'decision', 'import', 'withdrawal'])), name='result_source_valid'),
                ],
            },
        ),
        migrations.CreateModel(
            name='FixtureChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('result', 'Result recorded'), ('correction', 'Result corrected'), ('struck', 'Result struck by a correction of an earlier round'), ('decision', "Organiser's decision"), ('match_annulled', 'Online match annulled'), ('online_result', 'Result from the online match'), ('entrants', 'Entrants changed'), ('rescheduled', 'Rescheduled'), ('withdrawal', 'Withdrawal'), ('status', 'Status changed')], max_length=20)),
                ('at', models.DateTimeField(default=django.utils.timezone.now)),
                ('reason', models.TextField(blank=True, max_length=1000)),
                ('before', models.JSONField(blank=True, default=dict)),
                ('after', models.JSONField(blank=True, default=dict)),
                ('by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('fixture', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='leagues.fixture')),
            ],
            options={
                'ordering': ['fixture', '-at', '-pk'],
                'indexes': [models.Index(fields=['fixture', 'at'], name='fixture_change_fixture_at')],
            },
        ),
        migrations.RemoveConstraint(model_name='standing', name='standing_position_unique'),
        migrations.AddField(
            model_name='standing', name='shared',
            field=models.BooleanField(default=False, help_text='Level with another row that the criteria cannot separate ("2=").'),
        ),
        migrations.AlterModelOptions(
            name='standing', options={'ordering': ['competition', 'group__name', 'position', 'entrant__name']},
        ),
        migrations.AddIndex(
            model_name='standing',
            index=models.Index(fields=['competition', 'group', 'position'], name='standing_table_order'),
        ),
    ]
