"""
Every catalog row carries a version that each write adds one to: a form read at an older
version cannot overwrite a colleague's change (optimistic concurrency, ``changes.claim``).
"""

from django.db import migrations, models

MODELS = ["release", "area", "areaalias", "track", "feature", "link", "stageclaim"]


class Migration(migrations.Migration):
    dependencies = [("releases", "0011_folded_search_text")]

    operations = [
        migrations.AddField(
            model_name=name,
            name="row_version",
            field=models.PositiveIntegerField(
                default=1, editable=False, help_text="How many times the row was written."
            ),
        )
        for name in MODELS
    ]
