"""
Read rules of the rows that belong to a release: what it runs on and pairs with
(releases.models.compat).
"""

from django.db import models

from releases.managers.catalog import CatalogQuerySet


class ReleaseRowQuerySet(CatalogQuerySet):
    """Rows that belong to a release: public with it, once no editor still has to settle them."""

    def published(self):
        return self.filter(release__is_published=True, needs_review=False)


class SupportManager(models.Manager.from_queryset(ReleaseRowQuerySet)):
    def get_by_natural_key(self, version, kind, supported):
        return self.get(release__version=version, kind=kind, version=supported)


class PatchReleaseManager(models.Manager.from_queryset(ReleaseRowQuerySet)):
    def get_by_natural_key(self, version):
        return self.get(version=version)


class CompanionManager(models.Manager.from_queryset(ReleaseRowQuerySet)):
    def get_by_natural_key(self, torch_version, library):
        return self.get(torch_version=torch_version, library=library)


class ScheduleDateManager(models.Manager.from_queryset(ReleaseRowQuerySet)):
    def get_by_natural_key(self, version, kind, number):
        return self.get(release__version=version, kind=kind, number=number)


class WheelManager(models.Manager.from_queryset(ReleaseRowQuerySet)):
    def get_by_natural_key(self, torch_version, variant, platform, python):
        return self.get(
            torch_version=torch_version, variant=variant, platform=platform, python=python
        )
