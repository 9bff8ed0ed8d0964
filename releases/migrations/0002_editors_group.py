"""The "Editors" group: staff who curate the catalog without being superusers."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

EDITORS_GROUP = "Editors"
EDITED_MODELS = ["release", "feature", "link", "area", "areaalias", "track"]
ACTIONS = ["view", "add", "change"]


def create_editors_group(apps, schema_editor):
    # Permissions are normally created after all migrations; make sure ours exist now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=EDITORS_GROUP)
    codenames = [f"{action}_{model}" for model in EDITED_MODELS for action in ACTIONS]
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="releases", codename__in=codenames)
    )


def remove_editors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=EDITORS_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0001_catalog"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_editors_group, remove_editors_group)]
