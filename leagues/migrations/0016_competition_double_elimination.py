from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('leagues', '0015_competition_best_thirds'),
    ]

    operations = [
        migrations.AddField(
            model_name='competition',
            name='grand_final_reset',
            field=models.BooleanField(default=True, help_text="Double elimination: when the losers' bracket winner wins the grand final, both have lost once and a second final decides.", verbose_name='grand final reset'),
        ),
        migrations.AlterField(
            model_name='competition',
            name='format',
            field=models.CharField(choices=[('league', 'League (round robin)'), ('knockout', 'Knockout'), ('groups_knockout', 'Groups then knockout'), ('double_elimination', 'Double elimination')], default='league', max_length=20, verbose_name='format'),
        ),
        migrations.RemoveConstraint(
            model_name='competition',
            name='competition_format_valid',
        ),
        migrations.AddConstraint(
            model_name='competition',
            constraint=models.CheckConstraint(condition=models.Q(('format__in', ['league', 'knockout', 'groups_knockout', 'double_elimination'])), name='competition_format_valid'),
        ),
    ]
