"""
The catalog's data: releases, the features they announce, the links that document them,
and the vocabulary of areas features are grouped in.

Data rules live here and in the database (constraints); read rules live on the QuerySets.
"""

from collections import defaultdict

from django.core.exceptions import ValidationError
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
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

from . import revision, versions


class Stability(models.TextChoices):
    """PyTorch's feature classification, introduced with 1.6."""

    STABLE = "stable", "Stable"
    BETA = "beta", "Beta"
    PROTOTYPE = "prototype", "Prototype"


# Higher is more mature; a feature with no stability has no rank and is never "promoted".
STABILITY_RANKS = {Stability.PROTOTYPE: 1, Stability.BETA: 2, Stability.STABLE: 3}


def stability_rank_expression(field="stability"):
    return Case(
        *(When(**{field: level}, then=Value(rank)) for level, rank in STABILITY_RANKS.items()),
        default=None,
        output_field=models.PositiveSmallIntegerField(),
    )


class LinkKind(models.TextChoices):
    DOCUMENTATION = "documentation", "Documentation"
    TUTORIAL = "tutorial", "Tutorial"
    RECIPE = "recipe", "Recipe"
    RFC = "rfc", "RFC"
    DESIGN_DOC = "design_doc", "Design doc"
    USAGE_EXAMPLES = "usage_examples", "Usage examples"
    PULL_REQUEST = "pull_request", "Pull request"
    ISSUE = "issue", "Issue"
    RELEASE_NOTES = "release_notes", "Release notes"
    BLOG_POST = "blog_post", "Blog post"
    PAPER = "paper", "Paper"
    SOURCE_CODE = "source_code", "Source code"
    OTHER = "other", "Other"


def validate_version(value):
    try:
        versions.Version.parse(value)
    except versions.InvalidVersion as error:
        raise ValidationError(str(error), code="invalid_version") from error


VERSION_PART_FIELDS = (
    "version_major",
    "version_minor",
    "version_micro",
    "version_pre_rank",
    "version_pre_number",
)
NEWEST_FIRST = ("-version_key",)
FEATURES_NEWEST_FIRST = ("-release_version_key", "position")


def version_bound(version, lookup, field="version_key"):
    """A Q object: ``field`` (a version key) is at least ("gte") or at most ("lte") ``version``."""
    return Q(**{f"{field}__{lookup}": versions.Version.parse(version).key})


class CatalogQuerySet(models.QuerySet):
    """Writes that bypass Model.save() and delete() still start a new catalog revision."""

    def update(self, **kwargs):
        rows = super().update(**kwargs)
        if rows:
            revision.catalog_changed()
        return rows

    def delete(self):
        deleted = super().delete()
        if deleted[0]:
            revision.catalog_changed()
        return deleted

    def bulk_create(self, *args, **kwargs):
        objects = super().bulk_create(*args, **kwargs)
        revision.catalog_changed()
        return objects

    def bulk_update(self, *args, **kwargs):
        rows = super().bulk_update(*args, **kwargs)
        revision.catalog_changed()
        return rows


class Timestamped(models.Model):
    """When a row was created and last changed; every change starts a new catalog revision."""

    # Defaults rather than auto_now: fixtures are saved raw, which skips auto_now.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.updated_at = timezone.now()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "updated_at"}
        super().save(*args, **kwargs)
        self.changed()

    def delete(self, *args, **kwargs):
        deleted = super().delete(*args, **kwargs)
        self.changed()
        return deleted

    def changed(self):
        """After a save or a delete: a new catalog revision; subclasses touch their parents."""
        revision.catalog_changed()


class ReleaseQuerySet(CatalogQuerySet):
    def published(self):
        """Releases the public may see."""
        return self.filter(is_published=True)

    def newest_first(self):
        return self.order_by(*NEWEST_FIRST)

    def version_at_least(self, version):
        return self.filter(version_bound(version, "gte"))

    def version_at_most(self, version):
        return self.filter(version_bound(version, "lte"))

    def with_feature_count(self):
        return self.annotate(feature_count=Count("features"))

    def for_api(self):
        """Published releases, newest first, with their feature counts: one query."""
        return self.published().with_feature_count().newest_first()

    def for_api_detail(self):
        """As ``for_api``, with every feature and its links prefetched (three queries)."""
        return self.for_api().prefetch_related(
            Prefetch("features", queryset=Feature.objects.for_release_page())
        )


class ReleaseManager(models.Manager.from_queryset(ReleaseQuerySet)):
    def get_by_natural_key(self, version):
        return self.get(version=version)


class Release(Timestamped):
    version = models.CharField(
        max_length=20,
        validators=[validate_version],
        help_text="The version as PyTorch published it: 1.9, 1.10, 2.0, 2.1.2, 2.0.0rc1.",
    )
    version_major = models.PositiveSmallIntegerField(editable=False)
    version_minor = models.PositiveSmallIntegerField(editable=False)
    version_micro = models.PositiveSmallIntegerField(editable=False)
    version_pre_rank = models.PositiveSmallIntegerField(
        editable=False, help_text="0 alpha, 1 beta, 2 release candidate, 3 final."
    )
    version_pre_number = models.PositiveSmallIntegerField(editable=False)
    version_key = models.BigIntegerField(
        editable=False, help_text="The parts as one integer: the order of versions."
    )
    title = models.CharField(max_length=200, help_text="The announcement's headline.")
    release_date = models.DateField(
        null=True, blank=True, help_text="The day the release shipped. Required to publish."
    )
    announcement_url = models.URLField(
        max_length=500, blank=True, help_text="The blog post that announced the release."
    )
    release_notes_url = models.URLField(
        max_length=500, blank=True, help_text="The full release notes."
    )
    summary = models.TextField(blank=True, help_text="A short summary, in our own words.")
    highlights = models.TextField(
        blank=True,
        help_text="The release's highlights in our own words, one per line.",
    )
    commit_count = models.PositiveIntegerField(
        null=True, blank=True, help_text="Commits since the previous release, if the post says."
    )
    contributor_count = models.PositiveIntegerField(
        null=True, blank=True, help_text="Contributors to the release, if the post says."
    )
    is_published = models.BooleanField(
        default=False,
        help_text="Drafts are invisible to the public API. Publishing needs a release date.",
    )

    objects = ReleaseManager()

    class Meta:
        ordering = NEWEST_FIRST
        constraints = [
            models.UniqueConstraint(fields=["version"], name="release_unique_version"),
            # One version, one release ("1.9" and "1.9.0" alike, as the key derives from the
            # parts); also the index that version ordering and version ranges use.
            models.UniqueConstraint(fields=["version_key"], name="release_unique_version_key"),
            models.CheckConstraint(
                condition=Q(is_published=False) | Q(release_date__isnull=False),
                name="release_published_has_date",
                violation_error_message="A published release needs a release date.",
            ),
            models.CheckConstraint(
                condition=Q(version_pre_rank__lte=3), name="release_pre_rank_valid"
            ),
        ]
        indexes = [models.Index(fields=["release_date"], name="release_date_idx")]

    def __str__(self):
        return f"PyTorch {self.version}"

    def save(self, *args, **kwargs):
        self.version = versions.normalize(self.version)
        parsed = self.parsed_version
        for field, value in parsed.as_dict().items():
            setattr(self, field, value)
        self.version_key = parsed.key
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "version" in update_fields:
            kwargs["update_fields"] = {*update_fields, *VERSION_PART_FIELDS, "version_key"}
        super().save(*args, **kwargs)
        # Features carry their release's key, so that their lists sort on an index.
        self.features.exclude(release_version_key=self.version_key).update(
            release_version_key=self.version_key
        )

    def get_absolute_url(self):
        return reverse("releases:release-detail", kwargs={"version": self.version})

    def natural_key(self):
        return (self.version,)

    @property
    def parsed_version(self):
        return versions.Version.parse(self.version)

    @property
    def highlight_list(self):
        return [line.strip() for line in self.highlights.splitlines() if line.strip()]


class AreaQuerySet(CatalogQuerySet):
    def with_feature_count(self, published_only=True):
        """Annotate ``feature_count``: features of published releases unless told otherwise."""
        condition = Q(features__release__is_published=True) if published_only else Q()
        return self.annotate(feature_count=Count("features", filter=condition))

    def for_api(self):
        return self.with_feature_count().order_by("name")


class AreaManager(models.Manager.from_queryset(AreaQuerySet)):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


def normalize_heading(text):
    """Fold the spellings of one heading together: case, "&" versus "and", punctuation."""
    text = text.lower().replace("&", " and ")
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text).split())


class Area(Timestamped):
    name = models.CharField(max_length=100, help_text="As shown to readers, e.g. Frontend APIs.")
    slug = models.SlugField(max_length=100, help_text="Used in URLs and the API's area filter.")
    description = models.TextField(blank=True, help_text="What belongs in this area.")
    needs_review = models.BooleanField(
        default=False,
        help_text="Created by the importer from a heading no alias matched: merge or keep.",
    )

    objects = AreaManager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["slug"], name="area_unique_slug"),
            models.UniqueConstraint(Lower("name"), name="area_unique_name_ci"),
        ]
        indexes = [models.Index(fields=["name"], name="area_name_idx")]

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.slug,)


class AreaAliasManager(models.Manager.from_queryset(CatalogQuerySet)):
    def get_by_natural_key(self, name):
        return self.get(name=name)


class AreaAlias(Timestamped):
    """Another heading that release posts use for an area ("Front End APIs")."""

    area = models.ForeignKey(Area, on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=100, help_text="A heading as a post spells it.")

    objects = AreaAliasManager()

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "area aliases"
        constraints = [
            models.UniqueConstraint(fields=["name"], name="areaalias_unique_name"),
            models.UniqueConstraint(Lower("name"), name="areaalias_unique_name_ci"),
        ]

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.name,)

    natural_key.dependencies = ["releases.area"]


class TrackQuerySet(CatalogQuerySet):
    def with_stage(self, as_of=None):
        """
        Annotate each track's ``stage``, ``first_release`` and ``latest_release`` from its
        published appearances at or before ``as_of`` (all of them when None); tracks with no
        such appearance are left out. The stage as of a version is the stability of the
        track's latest appearance at or before it.
        """
        appearances = Feature.objects.published().filter(track=OuterRef("pk"))
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
        promoted = Feature.objects.promoted().of_release(version).filter(track=OuterRef("pk"))
        return self.filter(Exists(promoted))

    def for_api(self, as_of=None):
        """Published tracks with their stage and appearances (oldest first): two queries."""
        appearances = Feature.objects.published().select_related("release").oldest_first()
        if as_of is not None:
            appearances = appearances.version_at_most(as_of)
        return (
            self.with_stage(as_of)
            .select_related("area")
            .prefetch_related(Prefetch("features", queryset=appearances, to_attr="appearances"))
            .order_by("name", "pk")
        )

    def compare(self, start, end):
        """
        What upgrading from version ``start`` to ``end`` brings, track by track: tracks first
        seen after ``start`` (added), tracks whose stage rose or fell (with the stage before and
        after, and the release of the last change), and how many stayed as they were.
        Two queries, whatever the size of the catalog.
        """
        start_version = versions.Version.parse(start)
        added, promoted, demoted, unchanged = [], [], [], 0
        for track in self.for_api(as_of=end):
            appearances = track.appearances
            earlier = [a for a in appearances if a.release.parsed_version <= start_version]
            if not earlier:
                added.append({"track": track, "appearance": appearances[0]})
                continue
            before, after = earlier[-1], appearances[-1]
            before_rank = STABILITY_RANKS.get(before.stability)
            after_rank = STABILITY_RANKS.get(after.stability)
            if before.stability == after.stability or None in (before_rank, after_rank):
                unchanged += 1
                continue
            changed_in = before
            for previous, current in zip(appearances, appearances[1:], strict=False):
                if current.stability != previous.stability:
                    changed_in = current
            change = {"track": track, "before": before, "after": after, "changed_in": changed_in}
            (promoted if after_rank > before_rank else demoted).append(change)
        return {"added": added, "promoted": promoted, "demoted": demoted, "unchanged": unchanged}

    def orphaned(self):
        """Tracks no feature belongs to any more (after a merge or a deletion)."""
        return self.filter(~Exists(Feature.objects.filter(track=OuterRef("pk"))))


class TrackManager(models.Manager.from_queryset(TrackQuerySet)):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)

    def create_for(self, feature):
        """A track of its own for ``feature``, named after it, with a slug no track has yet."""
        base = feature.slug[:100]
        slug = base
        if self.filter(slug=slug).exists():
            slug = f"{base}-{feature.release.version.replace('.', '-')}"
        counter = 1
        while self.filter(slug=slug).exists():
            counter += 1
            slug = f"{base}-{counter}"
        return self.create(name=feature.title, slug=slug, area=feature.area)


class Track(Timestamped):
    """One capability across releases: torch.fft as a Beta in 1.7, then Stable in 1.8."""

    name = models.CharField(max_length=200, help_text="The capability's name, e.g. torch.fft.")
    slug = models.SlugField(max_length=120, help_text="Used in URLs and feeds.")
    area = models.ForeignKey(
        Area, on_delete=models.PROTECT, related_name="tracks", help_text="Where it belongs."
    )
    description = models.TextField(blank=True, help_text="What it is, in our own words.")

    objects = TrackManager()

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["slug"], name="track_unique_slug")]
        indexes = [models.Index(fields=["name"], name="track_name_idx")]

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.slug,)

    natural_key.dependencies = ["releases.area"]

    def absorb(self, features):
        """Move ``features`` into this track and delete the tracks they leave empty."""
        features = list(features)
        left = {feature.track_id for feature in features} - {self.pk}
        Feature.objects.filter(pk__in=[feature.pk for feature in features]).update(
            track=self, updated_at=timezone.now()
        )
        Track.objects.filter(pk__in=left).orphaned().delete()


class FeatureQuerySet(CatalogQuerySet):
    def published(self):
        return self.filter(release__is_published=True)

    def newest_first(self):
        return self.order_by(*FEATURES_NEWEST_FIRST)

    def oldest_first(self):
        return self.order_by("release_version_key", "position")

    def of_release(self, version):
        return self.filter(release_version_key=versions.Version.parse(version).key)

    def sync_release_keys(self):
        """Copy each release's version key onto its features (after raw loads, e.g. fixtures)."""
        key = Release.objects.filter(pk=OuterRef("release_id")).values("version_key")[:1]
        return self.update(release_version_key=Subquery(key))

    def with_previous_stability(self):
        """
        Annotate ``previous_stability`` and ``previous_stability_rank``: the stability of the
        same track's latest published appearance in an earlier release.
        """
        previous = (
            Feature.objects.published()
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
        """Features more stable than their track's previous appearance (or, False, the rest)."""
        queryset = self.with_previous_stability()
        rose = Q(stability_rank__gt=F("previous_stability_rank"))
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
        has_missing = Exists(Link.objects.missing().filter(feature=OuterRef("pk")))
        return self.filter(has_missing if missing else ~has_missing)

    def for_release_page(self):
        """A release's features in post order, with area and links: used inside a prefetch."""
        return (
            self.select_related("release", "area", "track")
            .prefetch_related(Prefetch("links", queryset=Link.objects.order_by("position", "pk")))
            .order_by("position", "pk")
        )

    def for_api(self):
        """Published features, newest release first: what /api/features/ lists."""
        return self.published().newest_first()

    def api_values(self):
        """
        Each feature as the API shows it, in plain values: one query, its joins included, and
        no model instances, which is what keeps a page of the list fast.
        """
        return self.values("pk", *FEATURE_API_VALUES.values())


# How /api/features/ items read from api_values() rows: the same JSON as FeatureSerializer.
FEATURE_API_VALUES = {
    "release": "release__version",
    "title": "title",
    "slug": "slug",
    "stability": "stability",
    "area": "area__slug",
    "area_name": "area__name",
    "summary": "summary",
    "position": "position",
    "track": "track__slug",
}


class FeatureManager(models.Manager.from_queryset(FeatureQuerySet)):
    def get_by_natural_key(self, version, slug):
        return self.get(release__version=version, slug=slug)

    def api_items(self, rows):
        """API items for a page of ``api_values()`` rows, with their links: one more query."""
        links = defaultdict(list)
        page_links = (
            Link.objects.filter(feature_id__in=[row["pk"] for row in rows])
            .order_by("feature_id", "position", "pk")
            .values_list("feature_id", "kind", "label", "url")
        )
        for feature_id, kind, label, url in page_links:
            links[feature_id].append(
                {"kind": kind, "label": label, "url": url or None, "is_missing": not url}
            )
        return [
            {
                **{key: row[path] for key, path in FEATURE_API_VALUES.items()},
                "stability": row["stability"] or None,
                "links": links[row["pk"]],
            }
            for row in rows
        ]

    def split_off(self, features):
        """Give each of ``features`` a track of its own; delete the tracks left empty."""
        left = set()
        for feature in features:
            left.add(feature.track_id)
            feature.track = Track.objects.create_for(feature)
            feature.save(update_fields=["track"])
        Track.objects.filter(pk__in=left).orphaned().delete()


class Feature(Timestamped):
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="features")
    title = models.CharField(max_length=200, help_text="The feature's name, as announced.")
    slug = models.SlugField(
        max_length=120, help_text="Unique within its release; stays the same when retitled."
    )
    stability = models.CharField(
        max_length=10,
        choices=Stability.choices,
        blank=True,
        help_text="Empty when the post gives no stability (e.g. a domain library's release).",
    )
    area = models.ForeignKey(
        Area,
        on_delete=models.PROTECT,
        related_name="features",
        help_text="The section of the post the feature belongs to.",
    )
    summary = models.TextField(blank=True, help_text="What it is, in our own words.")
    position = models.PositiveSmallIntegerField(
        default=0, help_text="Order in the announcement, from 1."
    )
    track = models.ForeignKey(
        Track,
        on_delete=models.PROTECT,
        blank=True,
        related_name="features",
        help_text="The capability this feature is one appearance of. Left empty, the feature "
        "gets a track of its own.",
    )
    release_version_key = models.BigIntegerField(
        default=0,
        editable=False,
        help_text="The release's version key, copied here so that lists sort on an index.",
    )
    stability_rank = models.GeneratedField(
        expression=stability_rank_expression(),
        output_field=models.PositiveSmallIntegerField(null=True),
        db_persist=True,
        help_text="1 prototype, 2 beta, 3 stable; empty without stability.",
    )
    imported_values = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="What the importer last wrote (title, stability, area, position), so that a "
        "re-import can tell an editor's change from the post's.",
    )

    objects = FeatureManager()

    class Meta:
        ordering = ["release", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "slug"], name="feature_unique_slug_per_release"
            ),
            models.CheckConstraint(
                condition=Q(stability__in=[*Stability.values, ""]), name="feature_stability_valid"
            ),
        ]
        # Lists run newest release first, then in post order: each filter has an index that
        # also yields that order, so a page reads only its own rows.
        indexes = [
            models.Index(
                fields=["-release_version_key", "position"], name="feature_newest_first_idx"
            ),
            models.Index(fields=["release", "position"], name="feature_release_position_idx"),
            models.Index(
                fields=["stability", "-release_version_key", "position"],
                name="feature_stability_idx",
            ),
            models.Index(
                fields=["area", "-release_version_key", "position"], name="feature_area_idx"
            ),
            models.Index(fields=["track", "release_version_key"], name="feature_track_idx"),
        ]

    def __str__(self):
        return f"{self.title} ({self.release.version})"

    def save(self, *args, **kwargs):
        self.release_version_key = self.release.version_key
        if self.track_id is None:
            self.track = Track.objects.create_for(self)
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "release_version_key"}
        super().save(*args, **kwargs)

    def changed(self):
        """A release changes when its features do (mirrors sync with updated_since)."""
        super().changed()
        Release.objects.filter(pk=self.release_id).update(updated_at=timezone.now())

    def natural_key(self):
        return (*self.release.natural_key(), self.slug)

    natural_key.dependencies = ["releases.release", "releases.area", "releases.track"]


class LinkQuerySet(CatalogQuerySet):
    def missing(self):
        """Links the post promised but left empty: the editors' to-do list."""
        return self.filter(url="")

    def present(self):
        return self.exclude(url="")

    def published(self):
        return self.filter(feature__release__is_published=True)

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


class Link(Timestamped):
    feature = models.ForeignKey(Feature, on_delete=models.CASCADE, related_name="links")
    kind = models.CharField(
        max_length=20,
        choices=LinkKind.choices,
        default=LinkKind.OTHER,
        help_text="What the link points to.",
    )
    label = models.CharField(
        max_length=200, help_text="The label the post gives it, e.g. Documentation."
    )
    url = models.URLField(
        max_length=500,
        blank=True,
        help_text="Leave empty for a link the post promised but never filled in.",
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order within the feature.")

    objects = LinkManager()

    class Meta:
        ordering = ["feature", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["feature", "label", "url"], name="link_unique_label_url_per_feature"
            ),
            models.UniqueConstraint(
                fields=["feature", "url"],
                condition=~Q(url=""),
                name="link_unique_url_per_feature",
                violation_error_message="This feature already links to that URL.",
            ),
            models.CheckConstraint(condition=Q(kind__in=LinkKind.values), name="link_kind_valid"),
        ]
        indexes = [
            models.Index(fields=["feature", "position"], name="link_feature_position_idx"),
            models.Index(fields=["kind"], name="link_kind_idx"),
            models.Index(fields=["feature"], condition=Q(url=""), name="link_missing_idx"),
        ]

    def __str__(self):
        return f"{self.label}: {self.url or 'missing'}"

    def changed(self):
        """A feature, and so its release, changes when its links do: the API nests them."""
        super().changed()
        now = timezone.now()
        Feature.objects.filter(pk=self.feature_id).update(updated_at=now)
        Release.objects.filter(features=self.feature_id).update(updated_at=now)

    def natural_key(self):
        return (*self.feature.natural_key(), self.label, self.url)

    natural_key.dependencies = ["releases.feature"]

    @property
    def is_missing(self):
        return not self.url
