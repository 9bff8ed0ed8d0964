"""The "Editors" group: staff who curate the catalog without being superusers."""

from django.db import migrations

from releases.editors import EDITORS_GROUP, ensure_editors_group


def create_editors_group(apps, schema_editor):
    ensure_editors_group(apps)


def remove_editors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=EDITORS_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0001_catalog"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_editors_group, remove_editors_group)]
