"""Search compares folded text (releases.text): a column of it on features and tracks, filled."""

from django.db import migrations, models

from releases.text import fold_all

BATCH = 1000


def fill_search_text(apps, schema_editor):
    for name, fields in (("Feature", ("title", "summary")), ("Track", ("name", "description"))):
        model = apps.get_model("releases", name)
        rows = model.objects.using(schema_editor.connection.alias).only("pk", *fields)
        batch = []
        for row in rows.iterator(chunk_size=BATCH):
            row.search_text = fold_all(*(getattr(row, field) for field in fields))
            batch.append(row)
            if len(batch) == BATCH:
                model.objects.bulk_update(batch, ["search_text"])
                batch.clear()
        if batch:
            model.objects.bulk_update(batch, ["search_text"])


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0010_public_change_log"),
    ]

    operations = [
        migrations.AddField(
            model_name="feature",
            name="search_text",
            field=models.TextField(
                blank=True,
                default="",
                editable=False,
                help_text="Title and summary as search compares them (releases.text.fold).",
            ),
        ),
        migrations.AddField(
            model_name="track",
            name="search_text",
            field=models.TextField(
                blank=True,
                default="",
                editable=False,
                help_text="Name and description as search compares them (releases.text.fold).",
            ),
        ),
        migrations.RunPython(fill_search_text, migrations.RunPython.noop, elidable=True),
    ]
