"""
What a release announced: its features, the links that document them, and the sentences
of its post that state a stage in prose (stage claims).
"""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from releases import labels, text
from releases.classification import FeatureKind, Stability
from releases.declarations import Public, Reaches
from releases.managers import (
    FeatureManager,
    LinkManager,
    StageClaimManager,
)
from releases.models.base import (
    MAX_POSITION,
    ClaimStatus,
    FromPost,
    LinkKind,
    LinkStatus,
    StageSource,
    Timestamped,
    history,
    search_column,
    stability_rank_expression,
)
from releases.models.catalog import (
    Area,
    Release,
    Track,
)


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
        help_text="A feature; the announcement that a capability is deprecated or removed; or "
        "a notice, shown with the release but never counted as a feature nor tracked.",
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
        null=True,
        blank=True,
        related_name="features",
        help_text="The capability this feature is one appearance of. Left empty, the feature "
        "gets a track of its own; a notice has none.",
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

    public = Public(
        type="feature",
        order=4,
        topics=("track",),
        references=("release", "area", "track"),
        key_path=("release",),
        shown_in=(
            Reaches("release", through="release_id"),
            Reaches("track", through="track_id"),
            Reaches("link", lookup="feature", when=("slug", "release_id")),
        ),
        reaches=(
            Reaches("link", lookup="feature"),
            Reaches("track", through="track_id"),
            Reaches("claim", lookup="feature"),
            Reaches("claim", lookup="track", through="track_id"),
            Reaches("area", through="area_id"),
        ),
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
                condition=Q(kind=FeatureKind.NOTICE, track__isnull=True)
                | (~Q(kind=FeatureKind.NOTICE) & Q(track__isnull=False)),
                name="feature_tracked_unless_notice",
                violation_error_message="A notice belongs to no track; a feature to one.",
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
        if self.kind == FeatureKind.NOTICE:
            self.track = None
        elif self.track_id is None:
            track = self._meta.get_field("track").get_cached_value(self, default=None)
            self.track = track if track is not None and track.pk else Track.objects.create_for(self)

    @property
    def is_notice(self):
        return self.kind == FeatureKind.NOTICE

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

    public = Public(
        type="link",
        order=5,
        topics=(),
        references=("feature",),
        key_path=("feature",),
        shown_in=(
            Reaches("feature", through="feature_id"),
            Reaches("release", lookup="features", through="feature_id"),
        ),
    )
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

    public = Public(
        type="claim",
        order=6,
        topics=("track",),
        references=("release", "feature", "track"),
        key_path=("release",),
        shown_in=(Reaches("release", through="release_id"),),
        public_with=("feature", "track"),
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
