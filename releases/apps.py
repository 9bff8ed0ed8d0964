from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ReleasesConfig(AppConfig):
    name = "releases"
    verbose_name = "Release catalog"

    def ready(self):
        from .editors import ensure_editors_group

        # As contrib.sites makes its default site: after every migrate, so that the group's
        # permissions follow the models (a new model, a new permission) without a migration.
        post_migrate.connect(ensure_editors_group, sender=self)
