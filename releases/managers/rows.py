"""
Read rules of the rows that belong to a release: what it runs on and pairs with
(releases.models.compat).
"""

from django.db import models
from django.db.models import Case, Exists, OuterRef, Q, Value, When

from releases.declarations import model
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


# What became of a date of the schedule (ScheduleDateQuerySet.with_outcome).
DONE, NOT_SHIPPED, PLANNED = "done", "not_shipped", "planned"
# A patch's version key, from its release's: 2.7.1 is 2.7's key and one micro (10 * 1000).
MICRO_STEP = 10 * 1000


class ScheduleDateQuerySet(ReleaseRowQuerySet):
    def with_outcome(self):
        """
        Annotate ``outcome``: ``done`` (the release shipped, its branch was cut, or the n-th
        patch is out), ``not_shipped`` (a patch planned for a release a newer minor superseded
        before it came), or ``planned``. A table's "tentative" means something only while
        a date is planned. In the same query.
        """
        patch_out = model("PatchRelease").objects.filter(
            release=OuterRef("release"),
            version_key=OuterRef("release__version_key") + OuterRef("number") * MICRO_STEP,
        )
        newer_out = (
            model("Release")
            .objects.released()
            .filter(version_key__gt=OuterRef("release__version_key"))
        )
        return self.annotate(
            outcome=Case(
                When(Q(kind="patch") & Exists(patch_out), then=Value(DONE)),
                When(Q(kind="patch") & Exists(newer_out), then=Value(NOT_SHIPPED)),
                When(~Q(kind="patch") & Q(release__planned=False), then=Value(DONE)),
                default=Value(PLANNED),
            )
        )


class ScheduleDateManager(models.Manager.from_queryset(ScheduleDateQuerySet)):
    def get_by_natural_key(self, version, kind, number):
        return self.get(release__version=version, kind=kind, number=number)


class WheelManager(models.Manager.from_queryset(ReleaseRowQuerySet)):
    def get_by_natural_key(self, torch_version, variant, platform, python):
        return self.get(
            torch_version=torch_version, variant=variant, platform=platform, python=python
        )
