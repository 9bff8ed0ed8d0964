"""
The catalog's data: releases, the features they announce, the links that document them, the
areas features are grouped in, and the tracks that follow one capability across releases.

This module holds the schema and its rules (fields, constraints, natural keys). Read rules live
on the QuerySets (``managers.py``); every write is stamped, recorded and published through one
path (``writes.py``); operations on tracks live in ``tracks.py``.
"""

from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

from releases import labels, text, versions, writes
from releases.classification import STABILITY_RANKS, FeatureKind, Stability
from releases.managers import (
    AreaAliasManager,
    AreaManager,
    FeatureManager,
    LinkManager,
    ReleaseManager,
    StageClaimManager,
    TrackManager,
)


class StageSource(models.TextChoices):
    """Where an appearance's stability comes from."""

    TAG = "tag", "The feature's own tag"
    SECTION = "section", "The section it is listed under"
    CLAIM = "claim", "An accepted claim in the post's prose"
    EDITOR = "editor", "An editor"


class ClaimStatus(models.TextChoices):
    PENDING = "pending", "Awaiting review"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


def stability_rank_expression(field="stability"):
    return Case(
        *(When(**{field: level}, then=Value(rank)) for level, rank in STABILITY_RANKS.items()),
        default=None,
        output_field=models.PositiveSmallIntegerField(),
    )


class LinkStatus(models.TextChoices):
    """What the last checks of a link found (``check_links``, releases/links/checking.py)."""

    UNCHECKED = "unchecked", "Not checked yet"
    OK = "ok", "OK"
    REDIRECTED = "redirected", "Permanently redirected"
    BROKEN = "broken", "Broken"
    UNREACHABLE = "unreachable", "Unreachable"


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
    # Roles rather than documents: a credit the post gives, a person's page.
    ACKNOWLEDGEMENT = "acknowledgement", "Acknowledgement"
    PROFILE = "profile", "Profile"
    OTHER = "other", "Other"


def validate_version(value):
    try:
        versions.Version.parse(value)
    except versions.InvalidVersion as error:
        raise ValidationError(str(error), code="invalid_version") from error


NEWEST_FIRST = ("-version_key",)
# Positions are small integers on every database: PostgreSQL's smallint, checked on SQLite too.
MAX_POSITION = 32767
FEATURES_NEWEST_FIRST = ("-release_version_key", "position")


def search_column(help_text):
    """A column search compares, derived by ``prepare_save`` (releases.text.searchable)."""
    return models.TextField(blank=True, default="", editable=False, help_text=help_text)


def history(*derived):
    """
    The model's history (django-simple-history's table), written by ``writes.record``.

    Fields derived from others (version parts, copied keys, generated columns) and the
    ``updated_at`` stamp are left out: the history keeps what editors and posts decide.
    """
    return writes.CatalogHistory(
        excluded_fields=["updated_at", "row_version", *derived], bases=[writes.HistoricalKeys]
    )


class Timestamped(models.Model):
    """
    When a row was created and last changed. ``save()`` and ``delete()`` go through the one
    write path (``changes``): a save that changes nothing writes nothing.
    """

    # Defaults rather than auto_now: writes.stamp() sets updated_at, on every write path.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    # Optimistic concurrency: every write through ``changes`` adds one, and a save from a form
    # read at an older version is refused (``writes.StaleEdit``).
    row_version = models.PositiveIntegerField(
        default=1, editable=False, help_text="How many times the row was written."
    )

    class Meta:
        abstract = True

    # Columns derived from others by prepare_save(): written along with any change.
    derived_fields = ()

    def save(self, *args, **kwargs):
        self.prepare_save()
        writes.save(self, super().save, *args, **kwargs)

    save.alters_data = True

    def delete(self, using=None, keep_parents=False):
        return writes.delete([self], using=using or self._state.db or "default")

    delete.alters_data = True

    @classmethod
    def carried_fields(cls):
        """
        What a copy of the catalog carries of this model — a fixture, a mirror: every field
        but the primary key, the timestamps and what is derived from other fields.
        """
        return [
            field.name
            for field in cls._meta.concrete_fields
            if not (field.primary_key or field.generated)
            and field.name not in {"created_at", "updated_at", "row_version", *cls.derived_fields}
        ]

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        writes.remember_loaded(instance)  # what a save compares with, to write only changes
        return instance

    def prepare_save(self):
        """Derive the fields that follow from others, before any write path stores the row."""


class FromPost(models.Model):
    """Where the importer read a row: refreshed by every import, empty for an editor's own."""

    source_post = models.CharField(
        max_length=255,
        blank=True,
        default="",
        editable=False,
        help_text="The file name of the post it was read from.",
    )
    source_url = models.URLField(
        max_length=500, blank=True, default="", editable=False, help_text="That post's URL."
    )
    source_section = models.CharField(
        max_length=200,
        blank=True,
        default="",
        editable=False,
        help_text="The heading of the post's section it is in; empty outside any section.",
    )

    class Meta:
        abstract = True

    @property
    def section_name(self):
        """The section's heading as readers see it: in sentence case where a post shouted it."""
        return text.sentence_case(self.source_section)


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
    sources_note = models.TextField(
        blank=True,
        help_text="What the sources of this release leave unstated (no full post at hand, "
        "stages not given), in our own words: shown on the release page.",
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
    derived_fields = (*versions.PART_FIELDS, "version_key")
    history = history(*derived_fields)

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


class Feature(Timestamped, FromPost):
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
    stage_source = models.CharField(
        max_length=10,
        choices=StageSource.choices,
        blank=True,
        help_text="Where the stability comes from: the feature's tag, its section, a claim in "
        "the post's prose an editor accepted, or an editor. Empty without stability.",
    )
    stage_label = models.CharField(
        max_length=40,
        blank=True,
        help_text='The stage exactly as the post wrote it ("Beta", "API-Unstable"); empty when '
        "the post states none.",
    )
    kind = models.CharField(
        max_length=12,
        choices=FeatureKind.choices,
        default=FeatureKind.FEATURE,
        help_text="A feature, or the announcement that a capability is deprecated or removed.",
    )
    demotion_reason = models.TextField(
        blank=True,
        help_text="Why the capability is less stable here than at its previous appearance: "
        "an editor's reason, required for every demotion.",
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
    needs_approval = models.BooleanField(
        default=False,
        help_text="Added by a post to a release that was already published: not public until "
        "an editor approves it.",
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
        help_text="1 prototype, 2 beta or unstable, 3 stable; empty without stability.",
    )
    imported_values = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="What the importer last wrote (title, stability, area, position), so that a "
        "re-import can tell an editor's change from the post's.",
    )

    search_text = search_column(
        "Title and summary as search compares them (releases.text.searchable)."
    )
    title_search = search_column(
        "The title as search compares it: a search ranks title matches first."
    )
    # With FromPost's post and section: where the importer read the feature.
    source_line = models.PositiveIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The line of the post (from 1) that names the feature: its heading or bold "
        "line, or for a feature an accepted claim added, the claim's sentence.",
    )

    objects = FeatureManager()
    derived_fields = ("release_version_key", "search_text", "title_search")
    history = history(*derived_fields, "stability_rank")

    class Meta:
        ordering = ["release", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "slug"], name="feature_unique_slug_per_release"
            ),
            models.CheckConstraint(
                condition=Q(stability__in=[*Stability.values, ""]), name="feature_stability_valid"
            ),
            models.CheckConstraint(
                condition=Q(stage_source__in=[*StageSource.values, ""]),
                name="feature_stage_source_valid",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=FeatureKind.values), name="feature_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(position__lte=MAX_POSITION), name="feature_position_in_range"
            ),
            # A track appears once in a release: two features of one release are two
            # capabilities, or one to merge into the other.
            models.UniqueConstraint(
                fields=["track", "release"],
                name="feature_one_appearance_per_release",
                violation_error_message="This track already appears in this release.",
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
            models.Index(
                fields=["kind", "-release_version_key", "position"], name="feature_kind_idx"
            ),
            # Titles sort as people read them ("Ability" before "AMD", "torch.fft" among the T's).
            models.Index(Lower("title"), name="feature_title_ci_idx"),
            models.Index(
                fields=["release"], condition=Q(needs_approval=True), name="feature_pending_idx"
            ),
        ]

    def __str__(self):
        return f"{self.title} ({self.release.version})"

    def prepare_save(self):
        self.release_version_key = self.release.version_key
        self.search_text = text.searchable(self.title, self.summary)
        self.title_search = text.searchable(self.title)
        if self.track_id is None:
            track = self._meta.get_field("track").get_cached_value(self, default=None)
            self.track = track if track is not None and track.pk else Track.objects.create_for(self)

    def natural_key(self):
        return (*self.release.natural_key(), self.slug)

    natural_key.dependencies = ["releases.release", "releases.area", "releases.track"]


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
    source_line = models.PositiveIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The line of the feature's post (from 1) that gives the link; empty for a "
        "link an editor added.",
    )

    # What check_links observed (releases/links/health.py writes them): not editors' data, so
    # neither the history, the fixtures nor the public change log carry them.
    status = models.CharField(
        max_length=12,
        choices=LinkStatus.choices,
        default=LinkStatus.UNCHECKED,
        editable=False,
        help_text="Broken or unreachable only after two failed checks at least a day apart.",
    )
    http_status = models.PositiveSmallIntegerField(
        null=True, blank=True, editable=False, help_text="The last check's HTTP status code."
    )
    final_url = models.URLField(
        max_length=2000,
        blank=True,
        editable=False,
        help_text="Where the last check's redirects ended; empty without redirects.",
    )
    checked_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When the link was last checked."
    )
    consecutive_failures = models.PositiveSmallIntegerField(
        default=0, editable=False, help_text="Failed checks in a row, since the last success."
    )
    first_failure_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When the current run of failures began."
    )

    shown_label = models.CharField(
        max_length=200,
        blank=True,
        default="",
        editable=False,
        help_text="The label as pages show it: the post's, or where the link leads when the "
        "post's says nothing of it (releases.labels).",
    )
    search_text = search_column("The label, and the label shown, as search compares them.")

    objects = LinkManager()
    derived_fields = ("shown_label", "search_text")
    check_fields = (
        "status",
        "http_status",
        "final_url",
        "checked_at",
        "consecutive_failures",
        "first_failure_at",
    )
    history = history(*check_fields, *derived_fields)

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
            models.CheckConstraint(
                condition=Q(position__lte=MAX_POSITION), name="link_position_in_range"
            ),
            models.CheckConstraint(
                condition=Q(status__in=LinkStatus.values), name="link_status_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["feature", "position"], name="link_feature_position_idx"),
            models.Index(fields=["kind"], name="link_kind_idx"),
            models.Index(fields=["feature"], condition=Q(url=""), name="link_missing_idx"),
            models.Index(fields=["status"], name="link_status_idx"),
            # check_links takes the least recently checked first (--stale-after, --limit).
            models.Index(fields=["checked_at"], name="link_checked_at_idx"),
        ]

    def __str__(self):
        return f"{self.label}: {self.url or 'missing'}"

    @classmethod
    def carried_fields(cls):
        """A copy of the catalog carries what editors and posts decide, not observations."""
        return [name for name in super().carried_fields() if name not in cls.check_fields]

    def prepare_save(self):
        # A new URL is a link nobody has checked: what was observed of the old one goes.
        loaded = getattr(self, "_loaded_values", None)
        if loaded is not None and loaded.get("url", self.url) != self.url:
            for name in self.check_fields:
                field = self._meta.get_field(name)
                setattr(self, name, field.get_default())
        self.shown_label = labels.shown_label(
            self.label, self.url, self.get_kind_display(), self.kind == LinkKind.OTHER
        )
        self.search_text = text.searchable(self.label, self.shown_label)

    def natural_key(self):
        return (*self.feature.natural_key(), self.label, self.url)

    natural_key.dependencies = ["releases.feature"]

    @property
    def is_missing(self):
        return not self.url

    @property
    def is_broken(self):
        """Whether the checks found it gone: broken or unreachable, twice a day apart."""
        return self.status in (LinkStatus.BROKEN, LinkStatus.UNREACHABLE)


class StageClaim(Timestamped, FromPost):
    """
    A sentence of a release's post that states a capability's stage in prose ("X is now
    stable", "X graduates to beta"), found by the importer. Accepted, it is an appearance of
    the track at that stage in that release; until then it changes nothing.
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="stage_claims")
    subject = models.CharField(max_length=200, help_text="The capability, as the post names it.")
    stability = models.CharField(
        max_length=10, choices=Stability.choices, help_text="The stage the sentence states."
    )
    phrase = models.CharField(
        max_length=100, help_text='The words that state it, e.g. "graduates to beta".'
    )
    line = models.PositiveIntegerField(help_text="Where the sentence is in the post, from 1.")
    feature = models.ForeignKey(
        Feature,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="stage_claims",
        help_text="The release's feature it is about, if the release has one.",
    )
    track = models.ForeignKey(
        Track,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="stage_claims",
        help_text="The capability it is about. Accepting a claim about a track with no feature "
        "in this release adds one, at the claimed stage.",
    )
    status = models.CharField(
        max_length=10,
        choices=ClaimStatus.choices,
        default=ClaimStatus.PENDING,
        help_text="Pending claims change nothing until an editor accepts them.",
    )

    objects = StageClaimManager()
    history = history()

    class Meta:
        ordering = ["release", "line", "subject"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "line", "subject"], name="stageclaim_unique_per_line"
            ),
            models.CheckConstraint(
                condition=Q(stability__in=Stability.values), name="stageclaim_stability_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=ClaimStatus.values), name="stageclaim_status_valid"
            ),
        ]
        indexes = [
            models.Index(
                fields=["release"],
                condition=Q(status="pending"),
                name="stageclaim_pending_idx",
            ),
        ]

    def __str__(self):
        return f"{self.subject}: {self.stability} ({self.release.version}, line {self.line})"

    def natural_key(self):
        return (*self.release.natural_key(), self.line, self.subject)

    natural_key.dependencies = ["releases.release", "releases.feature", "releases.track"]


class PublicObject(models.Model):
    """
    The last public state of a catalog object that the public change log announced: its natural
    key and payload. ``public_log`` compares the catalog with it after every write.
    """

    type = models.CharField(max_length=10, help_text="The change log's name of its model.")
    object_id = models.BigIntegerField(help_text="The object's primary key.")
    key = models.JSONField(encoder=DjangoJSONEncoder)
    payload = models.JSONField(encoder=DjangoJSONEncoder)

    class Meta:
        ordering = ["type", "object_id"]
        constraints = [
            models.UniqueConstraint(fields=["type", "object_id"], name="publicobject_unique")
        ]

    def __str__(self):
        return f"{self.type} {self.key}"


class PublicChange(models.Model):
    """One entry of the public change log, ``/api/changes/``: numbered in commit order."""

    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        DELETED = "deleted"

    id = models.BigAutoField(primary_key=True)
    time = models.DateTimeField(db_index=True)
    type = models.CharField(max_length=10)
    object_id = models.BigIntegerField()
    action = models.CharField(max_length=10, choices=Action.choices)
    key = models.JSONField(encoder=DjangoJSONEncoder)
    previous_key = models.JSONField(encoder=DjangoJSONEncoder, null=True)
    payload = models.JSONField(encoder=DjangoJSONEncoder, null=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.action} {self.type} {self.key}"


class CatalogRevision(models.Model):
    """
    The catalog's revision (``releases.revision``): one row, rewritten in the transaction of
    every write to the catalog, so that what decides whether a cached answer is fresh commits
    with the change it announces, whatever happens to a cache.
    """

    token = models.CharField(max_length=32, help_text="Drawn anew at every write.")
    changed_at = models.DateTimeField(help_text="When the revision started.")
    number = models.PositiveBigIntegerField(default=1, help_text="Revisions so far.")
    second_first = models.PositiveBigIntegerField(
        default=1,
        help_text="The number of the first revision that started in the same whole second.",
    )

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return f"revision {self.number} ({self.token})"


class PublicLogHead(models.Model):
    """One row that writers of the public change log hold while they write: one at a time."""

    def __str__(self):
        return "public change log"


class BlogFeed(models.Model):
    """
    The blog's feed as ``watch_blog`` last read it (releases/importing/watch.py): the
    validators of its last answer, sent back on the next run so that an unchanged feed costs a
    304; when a run last ended and what it said; and the lease that keeps two runs from
    overlapping, on every host that shares the database.
    """

    url = models.URLField(max_length=500, help_text="The feed's address (BLOG_FEED_URL).")
    etag = models.CharField(
        max_length=500, blank=True, help_text="The ETag of the feed's last full answer."
    )
    last_modified = models.CharField(
        max_length=100, blank=True, help_text="The Last-Modified of that answer, as it was sent."
    )
    checked_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run last ended, whatever it found."
    )
    read_at = models.DateTimeField(
        null=True, blank=True, help_text="When the feed last answered (200 or 304)."
    )
    is_failing = models.BooleanField(
        default=False, help_text="The last run failed: the feed or a post was out of reach."
    )
    outcome = models.CharField(max_length=500, blank=True, help_text="The last run's summary.")
    lease_holder = models.CharField(
        max_length=200, blank=True, help_text="The run under way: its host and process."
    )
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="When the run under way loses the lease, if it stalls."
    )

    class Meta:
        ordering = ["url"]
        constraints = [models.UniqueConstraint(fields=["url"], name="blogfeed_unique_url")]

    def __str__(self):
        return self.url


class BlogAnnouncement(models.Model):
    """
    A post of the blog's feed that announces a release, as ``watch_blog`` found it, and what
    became of it: the release imported from it (or the release the catalog already held), or
    why it is not imported yet. Observations, not editors' data: no history, no fixtures.
    """

    url = models.URLField(max_length=500, help_text="The post's address, as the feed links it.")
    title = models.CharField(max_length=300, help_text="The post's title in the feed.")
    version = models.CharField(
        max_length=20, validators=[validate_version], help_text="The release its title announces."
    )
    version_key = models.BigIntegerField(
        editable=False, help_text="The version's parts as one integer: the order of versions."
    )
    published_date = models.DateField(
        null=True, blank=True, help_text="The day the feed says the post was published."
    )
    release = models.ForeignKey(
        Release,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="blog_announcements",
        help_text="The catalog's release of that version: imported from the post, or already "
        "held. Empty while the post is not imported.",
    )
    problem = models.TextField(
        blank=True, help_text="Why the post is not imported: its download, or the importer."
    )
    first_seen_at = models.DateTimeField(
        default=timezone.now, help_text="When a run first found it in the feed."
    )
    last_seen_at = models.DateTimeField(
        default=timezone.now, help_text="When a run last found it in the feed."
    )
    attempted_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run last downloaded it to import it."
    )

    class Meta:
        ordering = ["-version_key", "url"]
        constraints = [
            models.UniqueConstraint(fields=["url"], name="blogannouncement_unique_url"),
        ]
        indexes = [
            models.Index(fields=["-version_key", "url"], name="blogannouncement_newest_idx"),
            # The desk's "announced, not imported": the few rows without a release.
            models.Index(
                fields=["version_key"],
                condition=Q(release__isnull=True),
                name="blogannouncement_pending_idx",
            ),
        ]

    def __str__(self):
        return f"{self.title} ({self.version})"

    def save(self, *args, **kwargs):
        self.version = versions.normalize(self.version)
        self.version_key = versions.Version.parse(self.version).key
        super().save(*args, **kwargs)

    save.alters_data = True

    @property
    def is_imported(self):
        return self.release_id is not None
