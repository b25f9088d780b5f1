# An Idempotency-Key is the user's across matches, stored with the hash of its request. Keys
# stored twice by one user (for two matches) keep their newest answer.

from django.conf import settings
from django.db import migrations, models


def one_answer_per_user_key(apps, schema_editor):
    ActionRequest = apps.get_model("matches", "ActionRequest")
    seen = set()
    for row in ActionRequest.objects.order_by("-created_at", "-pk").only("pk", "user_id", "key"):
        if (row.user_id, row.key) in seen:
            row.delete()
        else:
            seen.add((row.user_id, row.key))


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0004_match_without_fixture'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='actionrequest',
            name='action_request_key_unique',
        ),
        migrations.AddField(
            model_name='actionrequest',
            name='request_hash',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(one_answer_per_user_key, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='actionrequest',
            constraint=models.UniqueConstraint(fields=('user', 'key'), name='action_request_key_unique_per_user'),
        ),
    ]
