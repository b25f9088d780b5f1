"""A match knows who set it up (title, page, the sides' names), its check-in window, and the
result its log gives once adjudicated; the fixture it is played for moves to ``leagues``."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0002_online_play'),
    ]

    operations = [
        migrations.AddField(
            model_name='match', name='title',
            field=models.CharField(blank=True, help_text='e.g. "Liga Botonera, Round 5".', max_length=200),
        ),
        migrations.AddField(
            model_name='match', name='url',
            field=models.CharField(blank=True, help_text='The page the match was set up from.', max_length=200),
        ),
        migrations.AddField(
            model_name='match', name='sides',
            field=models.JSONField(blank=True, default=dict, help_text='Per side: {"name", "short", "club", "club_slug"}, as the board shows them.'),
        ),
        migrations.AddField(
            model_name='match', name='checkin_opens_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='match', name='log_result',
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='match', name='adjudicated_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='match', name='official',
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
    ]
