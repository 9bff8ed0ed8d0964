"""
Releases, the areas features are grouped in, and the tracks that follow one capability
across releases.
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.timezone import localdate as today

from releases import text, versions
from releases.declarations import Public, Reaches
from releases.managers import (
    AreaAliasManager,
    AreaManager,
    ReleaseManager,
    TrackManager,
)
from releases.models.base import (
    NEWEST_FIRST,
    Timestamped,
    history,
    search_column,
    validate_version,
)


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
        null=True,
        blank=True,
        help_text="The day the release shipped (its first upload to the package index). "
        "Required to publish, but for a release out with no announcement yet.",
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
    sources_note = models.TextField(
        blank=True,
        help_text="What the sources of this release leave unstated (no full post at hand, "
        "stages not given), in our own words: shown on the release page.",
    )
    planned = models.BooleanField(
        default=False,
        help_text="Known only from the release schedule: not out yet. Its release date is the "
        "planned one; lists leave it out unless asked (status=planned).",
    )
    announced = models.BooleanField(
        default=True,
        help_text="It has a feature announcement. Releases older than the first announced one "
        "are in the catalog for what they run on and pair with.",
    )
    is_lts = models.BooleanField(
        default=False,
        help_text="A long-term-support line: patched on its own index after newer releases.",
    )
    lts_ended_date = models.DateField(
        null=True,
        blank=True,
        help_text="The day its long-term support ended or was withdrawn, where known.",
    )
    lts_note = models.TextField(
        blank=True,
        help_text="What its long-term support covered and its limits, in our own words, with "
        "the sources (pinned) it was read from.",
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

    # Publishing or renumbering a release changes what its features, their links, claims,
    # tracks and areas show; its features and links show its version.
    public = Public(
        type="release",
        order=3,
        topics=("releases",),
        shown_in=(
            Reaches("feature", lookup="release", when=("version",)),
            Reaches("link", lookup="feature__release", when=("version",)),
        ),
        reaches=tuple(
            Reaches(kind, lookup=lookup, when=("is_published", "version"))
            for kind, lookup in (
                ("feature", "release"),
                ("link", "feature__release"),
                ("claim", "release"),
                ("track", "features__release"),
                ("area", "features__release"),
            )
        ),
    )
    # What a write copies into other rows, (type, their key to it, their field, its field): its
    # version_key into its features' and upgrade notes' (the lists sort by it).
    copied_to = (
        ("feature", "release", "release_version_key", "version_key"),
        ("upgrade", "release", "release_version_key", "version_key"),
    )
    objects = ReleaseManager()
    derived_fields = (*versions.PART_FIELDS, "version_key")
    history = history(*derived_fields)

    class Meta:
        ordering = NEWEST_FIRST
        constraints = [
            models.UniqueConstraint(fields=["version"], name="release_unique_version"),
            # One version, one release ("1.9" and "1.9.0" alike, as the key derives from the
            # parts); also the index that version ordering and version ranges use.
            models.UniqueConstraint(fields=["version_key"], name="release_unique_version_key"),
            # One that is out with no announcement yet (known from the package index, which
            # may give no day) may be public without a date: it says so.
            models.CheckConstraint(
                condition=Q(is_published=False)
                | Q(release_date__isnull=False)
                | Q(planned=False, announced=False),
                name="release_published_has_date",
                violation_error_message="A published release needs a release date.",
            ),
            models.CheckConstraint(
                condition=Q(version_pre_rank__lte=3), name="release_pre_rank_valid"
            ),
            models.CheckConstraint(
                condition=Q(is_lts=True) | Q(lts_ended_date__isnull=True),
                name="release_lts_end_only_for_lts",
            ),
        ]
        indexes = [models.Index(fields=["release_date"], name="release_date_idx")]

    def __str__(self):
        return f"PyTorch {self.version}"

    @property
    def counted_features(self):
        """Its features and deprecations (every kind but notices), from its prefetched features."""
        return [feature for feature in self.features.all() if not feature.is_notice]

    @property
    def notices(self):
        """What its announcement says beside its features, from its prefetched ``features``."""
        return [feature for feature in self.features.all() if feature.is_notice]

    @property
    def is_overdue(self):
        """Planned for a day that has passed, and still not seen on the package index."""
        return self.planned and self.release_date is not None and self.release_date < today()

    def get_absolute_url(self):
        """The release's public page (the admin's "View on site")."""
        return reverse("page-release", kwargs={"version": self.version})

    def prepare_save(self):
        """The version's parts and key, the one place they are derived from the version."""
        self.version = versions.normalize(self.version)
        parsed = versions.Version.parse(self.version)
        for name, value in parsed.as_dict().items():
            setattr(self, name, value)
        self.version_key = parsed.key

    def natural_key(self):
        return (self.version,)

    @property
    def parsed_version(self):
        return versions.Version.parse(self.version)

    @property
    def highlight_list(self):
        return [line.strip() for line in self.highlights.splitlines() if line.strip()]


class Area(Timestamped):
    name = models.CharField(max_length=100, help_text="As shown to readers, e.g. Frontend APIs.")
    slug = models.SlugField(max_length=100, help_text="Used in URLs and the API's area filter.")
    description = models.TextField(blank=True, help_text="What belongs in this area.")
    needs_review = models.BooleanField(
        default=False,
        help_text="Created by the importer from a heading no alias matched: merge or keep.",
    )

    public = Public(
        type="area",
        order=0,
        topics=(),
        shown_in=(
            Reaches("feature", lookup="area", when=("name", "slug")),
            Reaches("release", lookup="features__area", when=("name", "slug")),
        ),
        reaches=(
            Reaches("alias", lookup="area"),
            Reaches("feature", lookup="area", when=("slug", "needs_review")),
            Reaches("track", lookup="area", when=("slug", "needs_review")),
        ),
    )
    objects = AreaManager()
    history = history()

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


class AreaAlias(Timestamped):
    """Another heading that release posts use for an area ("Front End APIs")."""

    area = models.ForeignKey(Area, on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=100, help_text="A heading as a post spells it.")

    public = Public(
        type="alias",
        order=1,
        topics=(),
        references=("area",),
        shown_in=(Reaches("area", through="area_id"),),
        public_with=("area",),
    )
    objects = AreaAliasManager()
    history = history()

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


class Track(Timestamped):
    """One capability across releases: torch.fft as a Beta in 1.7, then Stable in 1.8."""

    name = models.CharField(max_length=200, help_text="The capability's name, e.g. torch.fft.")
    slug = models.SlugField(max_length=120, help_text="Used in URLs and feeds.")
    area = models.ForeignKey(
        Area, on_delete=models.PROTECT, related_name="tracks", help_text="Where it belongs."
    )
    description = models.TextField(blank=True, help_text="What it is, in our own words.")
    succeeds = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="successors",
        help_text="The capability this one is the next API generation of (FSDP2 succeeds FSDP): "
        "a successor is a track of its own, not a demotion of its predecessor.",
    )
    search_text = search_column(
        "Name and description as search compares them (releases.text.searchable)."
    )

    public = Public(
        type="track",
        order=2,
        topics=("track",),
        references=("area", "succeeds"),
        shown_in=(
            Reaches("feature", lookup="track", when=("slug",)),
            Reaches("release", lookup="features__track", when=("slug",)),
        ),
        reaches=(
            Reaches("feature", lookup="track", when=("slug",)),
            Reaches("claim", lookup="track"),
            Reaches("area", through="area_id"),
        ),
    )
    objects = TrackManager()
    derived_fields = ("search_text",)
    history = history(*derived_fields)

    class Meta:
        ordering = [Lower("name")]
        constraints = [
            models.UniqueConstraint(fields=["slug"], name="track_unique_slug"),
            models.CheckConstraint(
                condition=~Q(succeeds=F("pk")), name="track_succeeds_not_itself"
            ),
        ]
        indexes = [models.Index(Lower("name"), name="track_name_ci_idx")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("page-track", kwargs={"slug": self.slug})

    def prepare_save(self):
        self.search_text = text.searchable(self.name, self.description)

    def natural_key(self):
        return (self.slug,)

    natural_key.dependencies = ["releases.area"]

    def clean(self):
        # A chain of successors ends: no track succeeds itself, directly or through others.
        seen, track = {self.pk}, self.succeeds
        while track is not None:
            if track.pk in seen:
                raise ValidationError({"succeeds": "A track cannot succeed itself."})
            seen.add(track.pk)
            track = track.succeeds
