"""The "Editors" group: staff who curate the catalog without being superusers."""

from django.apps import apps as django_apps
from django.contrib.auth.management import create_permissions

EDITORS_GROUP = "Editors"
EDITED_MODELS = ["release", "feature", "link", "area", "areaalias", "track"]
ACTIONS = ["view", "add", "change"]


def ensure_editors_group(apps=django_apps):
    """
    Create the group if needed and give it view, add and change on the catalog's models.

    ``apps`` is a migration's historical registry or, at run time, the real one: the function
    only touches models through it, so the 0002 migration can call it.
    """
    for app_config in apps.get_app_configs():
        # Permissions are normally created after all migrations; make sure ours exist now.
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = models_module or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=EDITORS_GROUP)
    codenames = [f"{action}_{model}" for model in EDITED_MODELS for action in ACTIONS]
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="releases", codename__in=codenames)
    )
    return group
