"""
Read rules of the catalog: QuerySets and the managers built from them.

Every QuerySet here is a ``CatalogQuerySet``, whose bulk writes (``update``, ``delete``,
``bulk_create``, ``bulk_update``) go through the same write path as ``Model.save()``
(``releases.writes``), so that no write escapes the history, ``updated_at`` or the revision.
"""

from django.db import models
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone

from releases import versions, writes
from releases.classification import FeatureKind, ReleaseStatus, Stability
from releases.declarations import model
from releases.slugs import unique_slug


def version_bound(version, lookup, field="version_key"):
    """A Q object: ``field`` (a version key) is at least ("gte") or at most ("lte") ``version``."""
    return Q(**{f"{field}__{lookup}": versions.Version.parse(version).key})


class CatalogQuerySet(models.QuerySet):
    """Bulk writes that are stamped, recorded and published like ``save()`` and ``delete()``."""

    def update(self, **kwargs):
        return writes.update(self, kwargs, super().update)

    update.alters_data = True

    def delete(self):
        return writes.delete(self, using=self.db)

    delete.alters_data = True
    delete.queryset_only = True

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for obj in objs:
            writes.prepare(obj)
        writes.stamp(objs)
        created = super().bulk_create(objs, *args, **kwargs)
        writes.record(self.model, created, writes.CREATED, using=self.db)
        return created

    bulk_create.alters_data = True

    def bulk_update(self, objs, fields, *args, **kwargs):
        return writes.bulk_update(self, list(objs), fields, super().bulk_update, *args, **kwargs)

    bulk_update.alters_data = True


def count_of(queryset):
    """How many rows a correlated ``queryset`` holds, as a subquery for ``annotate``."""
    counted = (
        queryset.order_by()
        .annotate(one_group=Value(1))
        .values("one_group")
        .annotate(total=Count("pk", distinct=True))
        .values("total")
    )
    return Coalesce(Subquery(counted[:1]), 0)


class ReleaseQuerySet(CatalogQuerySet):
    def published(self):
        """Releases the public may see."""
        return self.filter(is_published=True)

    def newest_first(self):
        return self.order_by("-version_key")

    def oldest_first(self):
        return self.order_by("version_key")

    def version_at_least(self, version):
        return self.filter(version_bound(version, "gte"))

    def version_at_most(self, version):
        return self.filter(version_bound(version, "lte"))

    def of_version(self, version):
        """The release of ``version`` under any spelling ("1.9" finds "1.9.0")."""
        return self.filter(version_key=versions.Version.parse(version).key)

    def with_feature_count(self):
        """Annotate ``feature_count``: the features the public sees (notices are none)."""
        return self.annotate(
            feature_count=Count(
                "features", filter=Q(features__needs_approval=False) & counted("features__")
            )
        )

    def drafts(self):
        return self.filter(is_published=False)

    def with_checklist(self):
        """
        Annotate what publishing each release would still leave undone, in one query:
        ``missing_link_count``, ``pending_claim_count``, ``review_area_count`` (areas
        awaiting review among its features') and ``unsummarized_count``.
        """
        features = model("Feature").objects.filter(release=OuterRef("pk"))
        return self.annotate(
            missing_link_count=count_of(
                model("Link").objects.missing().filter(feature__release=OuterRef("pk"))
            ),
            pending_claim_count=count_of(
                model("StageClaim").objects.pending().filter(release=OuterRef("pk"))
            ),
            review_area_count=count_of(
                model("Area").objects.filter(needs_review=True, features__release=OuterRef("pk"))
            ),
            unsummarized_count=count_of(features.filter(summary="")),
        )

    def released(self):
        """Published releases that are out: not merely planned."""
        return self.published().filter(planned=False)

    def announcing(self):
        """Releases out with a feature announcement: the columns of every page of features."""
        return self.released().filter(announced=True)

    def overdue(self):
        """Planned releases whose day has passed without an imported announcement."""
        return self.filter(planned=True, release_date__lt=timezone.localdate())

    def with_status(self):
        """
        Annotate ``status``: planned (not out yet), latest (the newest minor out: the one
        PyTorch patches) or superseded, in the same query.
        """
        newest = self.model.objects.released().order_by("-version_key").values("version_key")
        return self.annotate(
            status=Case(
                When(planned=True, then=Value(ReleaseStatus.PLANNED)),
                When(version_key=Subquery(newest[:1]), then=Value(ReleaseStatus.LATEST)),
                default=Value(ReleaseStatus.SUPERSEDED),
            )
        )

    def with_compatibility(self):
        """
        Prefetch what each release runs on and pairs with, as the public sees it (four
        queries, whatever the number of releases): ``public_supports``, ``public_companions``,
        ``public_patches`` and ``public_schedule``.
        """
        rows = {
            "supports": ("Support", ["kind", "version_key", "version"]),
            "companions": ("Companion", ["torch_version_key", "library"]),
            "patches": ("PatchRelease", ["version_key"]),
            "schedule": ("ScheduleDate", ["date", "kind", "number"]),
        }
        querysets = {
            related: model(name).objects.published().order_by(*order)
            for related, (name, order) in rows.items()
        }
        querysets["schedule"] = querysets["schedule"].with_outcome()
        return self.prefetch_related(
            *(
                Prefetch(related, queryset=queryset, to_attr=f"public_{related}")
                for related, queryset in querysets.items()
            )
        )

    def with_wheels(self):
        """Prefetch each release's public wheels, in order, as ``public_wheels`` (one query)."""
        order = ["torch_version_key", "variant", "platform", "python_key"]
        return self.prefetch_related(
            Prefetch(
                "wheels",
                queryset=model("Wheel").objects.published().order_by(*order),
                to_attr="public_wheels",
            )
        )

    def for_api(self):
        """Published releases, newest first, with their feature counts and status: one query."""
        return self.published().with_feature_count().with_status().newest_first()

    def for_api_detail(self):
        """As ``for_api``, with every public feature and its links prefetched (three queries)."""
        return self.for_api().prefetch_related(
            Prefetch("features", queryset=model("Feature").objects.public().for_release_page())
        )


class ReleaseManager(models.Manager.from_queryset(ReleaseQuerySet)):
    def get_by_natural_key(self, version):
        return self.get(version=version)


class AreaQuerySet(CatalogQuerySet):
    def with_feature_count(self, published_only=True):
        """Annotate ``feature_count``: public features unless told otherwise."""
        condition = (
            Q(features__release__is_published=True, features__needs_approval=False)
            if published_only
            else Q()
        )
        return self.annotate(
            feature_count=Count("features", filter=condition & counted("features__"))
        )

    def published(self):
        """
        Areas the public may see: those editors have reviewed, and any a published feature
        is filed in. An area an import made for a draft stays private until one of the two.
        """
        shown = model("Feature").objects.published().filter(area=OuterRef("pk"))
        return self.filter(Q(needs_review=False) | Exists(shown))

    def for_api(self):
        return self.published().with_feature_count().order_by(Lower("name"))


class AreaAliasQuerySet(CatalogQuerySet):
    def published(self):
        """The aliases of the areas the public may see."""
        return self.filter(area__in=model("Area").objects.published())


class AreaManager(models.Manager.from_queryset(AreaQuerySet)):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


class AreaAliasManager(models.Manager.from_queryset(AreaAliasQuerySet)):
    def get_by_natural_key(self, name):
        return self.get(name=name)


class TrackQuerySet(CatalogQuerySet):
    def published(self):
        """Tracks the public may see: those with a published appearance."""
        appearances = model("Feature").objects.published().filter(track=OuterRef("pk"))
        return self.filter(Exists(appearances))

    def with_stage(self, as_of=None):
        """
        Annotate each track's ``stage``, ``first_release`` and ``latest_release`` from its
        published appearances at or before ``as_of`` (all of them when None); tracks with no
        such appearance are left out. The stage as of a version is the stability of the
        track's latest appearance at or before it.
        """
        appearances = model("Feature").objects.published().filter(track=OuterRef("pk"))
        if as_of is not None:
            appearances = appearances.version_at_most(as_of)
        latest = appearances.newest_first()
        first = appearances.oldest_first()
        return self.annotate(
            stage=Subquery(latest.values("stability")[:1]),
            latest_release=Subquery(latest.values("release__version")[:1]),
            first_release=Subquery(first.values("release__version")[:1]),
        ).filter(latest_release__isnull=False)

    def promoted_in(self, version):
        """Tracks whose stage rose in the release ``version``."""
        promoted = (
            model("Feature").objects.promoted().of_release(version).filter(track=OuterRef("pk"))
        )
        return self.filter(Exists(promoted))

    def with_generations(self):
        """
        Annotate ``succeeds_slug`` and ``successor_slug`` (and their ``_name``): the published
        tracks of the capability's previous and next API generation (the first by name), or
        None.
        """
        public = model("Track").objects.published()
        predecessor = public.filter(pk=OuterRef("succeeds"))
        successors = public.filter(succeeds=OuterRef("pk")).order_by(Lower("name"), "pk")
        return self.annotate(
            succeeds_slug=Subquery(predecessor.values("slug")[:1]),
            succeeds_name=Subquery(predecessor.values("name")[:1]),
            successor_slug=Subquery(successors.values("slug")[:1]),
            successor_name=Subquery(successors.values("name")[:1]),
        )

    def for_api(self, as_of=None):
        """Published tracks with their stage and appearances (oldest first): two queries."""
        as_of = None if as_of is None else versions.Version.parse(as_of)  # parsed once
        appearances = model("Feature").objects.published().select_related("release")
        appearances = appearances.oldest_first()
        if as_of is not None:
            appearances = appearances.version_at_most(as_of)
        return (
            self.with_stage(as_of)
            .with_generations()
            .select_related("area")
            .prefetch_related(Prefetch("features", queryset=appearances, to_attr="appearances"))
            .order_by(Lower("name"), "pk")
        )

    def orphaned(self):
        """Tracks no feature belongs to any more (after a merge or a deletion)."""
        return self.filter(~Exists(model("Feature").objects.filter(track=OuterRef("pk"))))


class TrackManager(models.Manager.from_queryset(TrackQuerySet)):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)

    def create_for(self, feature):
        """A track of its own for ``feature``, named after it, with a slug no track has yet."""
        base = feature.slug[:100]
        slug = unique_slug(
            base,
            lambda slug: self.filter(slug=slug).exists(),
            f"{base}-{feature.release.version.replace('.', '-')}",
        )
        return self.create(name=feature.title, slug=slug, area=feature.area)


def counted(prefix=""):
    """
    The condition for a feature that counts as one (every kind but a notice), its field named
    from the model the query starts at: ``counted("features__")`` from a release's.
    """
    return ~Q(**{f"{prefix}kind": FeatureKind.NOTICE})


class FeatureQuerySet(CatalogQuerySet):
    def counted(self):
        """What lists, counts, charts and compare take for features: every kind but notices."""
        return self.filter(counted())

    def notices(self):
        return self.filter(kind=FeatureKind.NOTICE)

    def public(self):
        """Features an editor has not been asked to approve (whatever their release)."""
        return self.filter(needs_approval=False)

    def published(self):
        """Features the public may see: approved, of a published release."""
        return self.public().filter(release__is_published=True)

    def awaiting_approval(self):
        """Features a post added to a published release: the editors' to approve."""
        return self.filter(needs_approval=True)

    def newest_first(self):
        return self.order_by("-release_version_key", "position")

    def oldest_first(self):
        return self.order_by("release_version_key", "position")

    def of_release(self, version):
        return self.filter(release_version_key=versions.Version.parse(version).key)

    def with_previous_stability(self):
        """
        Annotate ``previous_stability`` and ``previous_stability_rank``: the stability of the
        same track's latest published appearance in an earlier release.
        """
        previous = (
            model("Feature")
            .objects.published()
            .filter(
                release_version_key__lt=OuterRef("release_version_key"), track=OuterRef("track")
            )
            .newest_first()
        )
        return self.annotate(
            previous_stability=Subquery(previous.values("stability")[:1]),
            previous_stability_rank=Subquery(previous.values("stability_rank")[:1]),
        )

    def promoted(self, promoted=True):
        """
        Features more stable than their track's previous appearance (or, False, the rest).
        API-Unstable is never a promotion: from beta or prototype it is a relabel
        (``models.stage_change``), and stable is the only stage above it.
        """
        queryset = self.with_previous_stability()
        rose = Q(stability_rank__gt=F("previous_stability_rank")) & ~Q(stability=Stability.UNSTABLE)
        if promoted:
            return queryset.filter(rose)
        return queryset.filter(
            Q(stability_rank__isnull=True) | Q(previous_stability_rank__isnull=True) | ~rose
        )

    def version_at_least(self, version):
        return self.filter(version_bound(version, "gte", field="release_version_key"))

    def version_at_most(self, version):
        return self.filter(version_bound(version, "lte", field="release_version_key"))

    def with_missing_links(self, missing=True):
        """Features that have (or, with ``missing=False``, lack) a link still to be filled in."""
        has_missing = Exists(model("Link").objects.missing().filter(feature=OuterRef("pk")))
        return self.filter(has_missing if missing else ~has_missing)

    def for_release_page(self):
        """A release's features in post order, with area and links: used inside a prefetch."""
        links = model("Link").objects.order_by("position", "pk")
        return (
            self.select_related("release", "area", "track")
            .prefetch_related(Prefetch("links", queryset=links))
            .order_by("position", "pk")
        )

    def for_api(self):
        """Published features, newest release first: what /api/features/ lists."""
        return self.published().newest_first()


class FeatureManager(models.Manager.from_queryset(FeatureQuerySet)):
    def get_by_natural_key(self, version, slug):
        return self.get(release__version=version, slug=slug)


class LinkQuerySet(CatalogQuerySet):
    def missing(self):
        """Links the post promised but left empty: the editors' to-do list."""
        return self.filter(url="")

    def present(self):
        return self.exclude(url="")

    def published(self):
        return self.filter(feature__release__is_published=True, feature__needs_approval=False)

    def for_api(self):
        """Published links, newest release first, in post order: one query."""
        return (
            self.published()
            .select_related("feature__release")
            .order_by("-feature__release_version_key", "feature__position", "position", "pk")
        )


class LinkManager(models.Manager.from_queryset(LinkQuerySet)):
    def get_by_natural_key(self, version, feature_slug, label, url):
        return self.get(
            feature__release__version=version, feature__slug=feature_slug, label=label, url=url
        )


class StageClaimQuerySet(CatalogQuerySet):
    def pending(self):
        """Claims no editor has accepted or rejected yet: the editors' to-do list."""
        return self.filter(status="pending")

    def accepted(self):
        return self.filter(status="accepted")

    def published(self):
        """
        Claims the public may see: accepted, in a published release, and about a feature
        and a track the public may see (or none).
        """
        features = model("Feature").objects.published()
        tracks = model("Track").objects.published()
        return self.accepted().filter(
            Q(feature__isnull=True) | Q(feature__in=features),
            Q(track__isnull=True) | Q(track__in=tracks),
            release__is_published=True,
        )


class StageClaimManager(models.Manager.from_queryset(StageClaimQuerySet)):
    def get_by_natural_key(self, version, line, subject):
        return self.get(release__version=version, line=line, subject=subject)
