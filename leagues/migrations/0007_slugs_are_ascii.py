# Every slug is ASCII (leagues/slugs.py): slugs stored in another form (an import could store
# "taça-2012", which broke every page listing it) are made ASCII, then the database refuses others.
import re

from django.conf import settings
from django.db import migrations, models
from django.utils.text import slugify

SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def ascii_slugs(apps, schema_editor):
    for name, fallback in (("Club", "club"), ("Season", "season"), ("Competition", "competition")):
        model = apps.get_model("leagues", name)
        for row in model.objects.all():
            if SLUG.fullmatch(row.slug or ""):
                continue
            max_length = model._meta.get_field("slug").max_length
            base = slugify(row.slug)[: max_length - 4].strip("-_") or fallback
            slug, n = base, 2
            while model.objects.filter(slug=slug).exclude(pk=row.pk).exists():
                slug, n = f"{base}-{n}", n + 1
            row.slug = slug
            row.save(update_fields=["slug"])


class Migration(migrations.Migration):

    dependencies = [
        ('leagues', '0006_api_tokens'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(ascii_slugs, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='club',
            constraint=models.CheckConstraint(condition=models.Q(('slug__regex', '^[-a-zA-Z0-9_]+$')), name='club_slug_is_ascii'),
        ),
        migrations.AddConstraint(
            model_name='competition',
            constraint=models.CheckConstraint(condition=models.Q(('slug__regex', '^[-a-zA-Z0-9_]+$')), name='competition_slug_is_ascii'),
        ),
        migrations.AddConstraint(
            model_name='season',
            constraint=models.CheckConstraint(condition=models.Q(('slug__regex', '^[-a-zA-Z0-9_]+$')), name='season_slug_is_ascii'),
        ),
    ]
