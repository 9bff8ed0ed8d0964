from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.db.models.signals import post_migrate


class ReleasesConfig(AppConfig):
    default = True  # this module also holds the admin's config, below
    name = "releases"
    verbose_name = "Release catalog"

    def ready(self):
        from releases import surfaces  # noqa: F401 (registers its system check)
        from releases.editors import ensure_editors_group
        from releases.public_log import start

        # As contrib.sites makes its default site: after every migrate, so that the group's
        # permissions follow the models (a new model, a new permission) without a migration.
        post_migrate.connect(ensure_editors_group, sender=self)
        # A catalog whose history predates the public change log: announce what is public.
        post_migrate.connect(start, sender=self)


class CatalogAdminConfig(admin_apps.AdminConfig):
    """Django's admin, with the catalog's site (the editors' desk) as the default one."""

    default = False  # named in INSTALLED_APPS; "releases" itself is ReleasesConfig

    default_site = "releases.admin.sites.catalog_admin_site"
