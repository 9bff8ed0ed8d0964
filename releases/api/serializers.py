"""
JSON shapes of the public API. Field names are a contract with sites and scripts.

Each shape is declared once, here, as a serializer. The features list, which is read from
plain ``.values()`` rows for speed (``feature_values``, ``feature_items``), takes its fields
from ``FeatureSerializer`` through ``releases.api.rows``.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from releases import public_log
from releases.api import compat
from releases.api.fields import BlankAsNullCharField, BlankAsNullURLField
from releases.api.rows import RowShape
from releases.models import Area, Feature, Link, LinkStatus, Release, Stability, StageSource, Track
from releases.queries import wheels


class IsBlankField(serializers.BooleanField):
    """Whether the catalog stores an empty string: a link with no URL is missing."""

    def to_representation(self, value):
        return not value


class StabilityField(serializers.ChoiceField):
    """stable, beta, prototype or unstable (API-Unstable); null where the post gives none."""

    def __init__(self, **kwargs):
        super().__init__(choices=Stability.choices, allow_null=True, **kwargs)

    def to_representation(self, value):
        return value or None


class StageSourceField(serializers.ChoiceField):
    """Where a stability comes from; null where there is no stability."""

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text",
            "Where the stability comes from: the feature's own tag, the section it is listed "
            "under, a claim in the post's prose an editor accepted, or an editor. null without "
            "stability.",
        )
        super().__init__(choices=StageSource.choices, allow_null=True, **kwargs)

    def to_representation(self, value):
        return value or None


LINK_STATUS_HELP = (
    "What check_links found: unchecked, ok, redirected (permanently: final_url is where the "
    "link now leads), broken or unreachable (each only after two failed checks at least a "
    "day apart)."
)


class LinkSerializer(serializers.ModelSerializer):
    url = BlankAsNullURLField(allow_null=True, help_text="null for a link still missing.")
    is_missing = IsBlankField(source="url")
    status = serializers.ChoiceField(choices=LinkStatus.choices, help_text=LINK_STATUS_HELP)
    checked_at = serializers.DateTimeField(
        allow_null=True, help_text="When the link was last checked; null if never."
    )
    final_url = BlankAsNullURLField(
        allow_null=True, help_text="Where the last check's redirects ended; null without any."
    )
    shown_label = serializers.CharField(
        read_only=True,
        help_text="The label as the pages show it: `label`, or where the link leads when the "
        "post's label says nothing of it (Link, RFC, #96296, a bare URL): RFC #39675, "
        "Pull request #174813, Documentation.",
    )

    class Meta:
        model = Link
        fields = [
            "kind",
            "label",
            "shown_label",
            "url",
            "is_missing",
            "status",
            "checked_at",
            "final_url",
        ]


class LinkListSerializer(LinkSerializer):
    release = serializers.CharField(source="feature.release.version")
    feature = serializers.CharField(source="feature.slug", help_text="The feature's slug.")

    class Meta:
        model = Link
        fields = [
            "release",
            "feature",
            "kind",
            "label",
            "shown_label",
            "url",
            "is_missing",
            "position",
            "status",
            "checked_at",
            "final_url",
        ]


class FeatureSourceSerializer(serializers.Serializer):
    """Where the feature was read: the post, its section and line (provenance)."""

    post = serializers.CharField(
        source="source_post", help_text="The post's file name in the blog's _posts folder."
    )
    url = BlankAsNullURLField(
        source="source_url", allow_null=True, help_text="The post as published; null if unknown."
    )
    section = BlankAsNullCharField(
        source="source_section",
        allow_null=True,
        help_text="The heading of the section the feature is listed under; null outside any.",
    )
    line = serializers.IntegerField(
        source="source_line",
        allow_null=True,
        help_text="The post's line (from 1) that names the feature: its heading or bold line, "
        "or the sentence of the claim that added it.",
    )

    def get_attribute(self, feature):
        # null for a feature an editor added, not read from a post. Read through the field, so
        # that a values row of the feature (releases.api.rows) reads the same.
        return feature if self.fields["post"].get_attribute(feature) else None


SOURCE_HELP = (
    "Where the feature was read: the post's file name, its URL, the section's heading and the "
    "line. null for a feature an editor added rather than read from a post. An editor's later "
    "correction of the title or stage shows in the history, not here."
)


class FeatureSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", help_text="The release's version.")
    stability = StabilityField()
    stage_source = StageSourceField()
    area = serializers.CharField(source="area.slug", help_text="The area's slug.")
    area_name = serializers.CharField(source="area.name")
    track = serializers.CharField(
        source="track.slug", allow_null=True, help_text="The track's slug; null for a notice."
    )
    stage_label = BlankAsNullCharField(
        allow_null=True,
        help_text='The stage exactly as the post wrote it ("Beta", "API-Unstable"); null '
        "where it states none.",
    )
    links = LinkSerializer(many=True)
    source = FeatureSourceSerializer(source="*", allow_null=True, help_text=SOURCE_HELP)

    class Meta:
        model = Feature
        fields = [
            "release",
            "title",
            "slug",
            "kind",
            "stability",
            "stage_label",
            "stage_source",
            "area",
            "area_name",
            "summary",
            "position",
            "track",
            "links",
            "source",
        ]


class ReleaseSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(
        view_name="releases:release-detail", lookup_field="version"
    )
    highlights = serializers.ListField(child=serializers.CharField(), source="highlight_list")
    sources_note = BlankAsNullCharField(
        allow_null=True,
        help_text="What the sources of this release leave unstated (no full post at hand, "
        "stages not given); null where nothing is missing.",
    )
    feature_count = serializers.IntegerField()
    # What it runs on and pairs with (releases.api.compat).
    status = compat.status_field()
    python_range = compat.PythonRangeSerializer(source="*")
    platforms = compat.PlatformsSerializer(source="*")
    companions = compat.CompanionSerializer(many=True, source="public_companions")
    patches = compat.PatchSerializer(many=True, source="public_patches")
    schedule = compat.ScheduleSerializer(many=True, source="public_schedule")

    class Meta:
        model = Release
        fields = [
            "version",
            "url",
            "title",
            "release_date",
            "announcement_url",
            "release_notes_url",
            "summary",
            "highlights",
            "commit_count",
            "contributor_count",
            "sources_note",
            "feature_count",
            "announced",
            *compat.RELEASE_FIELDS,
        ]


class ReleaseDetailSerializer(ReleaseSerializer):
    features = FeatureSerializer(
        many=True, source="counted_features", help_text="Its features and deprecations."
    )
    notices = FeatureSerializer(
        many=True,
        help_text="What its announcement says beside its features (kind notice): never "
        "counted as features, nor tracked.",
    )
    overdue = serializers.BooleanField(
        source="is_overdue",
        help_text="Planned for a day that has passed, and not on the package index yet.",
    )
    wheels = serializers.SerializerMethodField(help_text="Its published wheels, a version each.")

    lts = serializers.BooleanField(source="is_lts", help_text="A long-term-support line.")
    lts_note = BlankAsNullCharField(
        allow_null=True, help_text="What its long-term support covered, with its sources."
    )

    class Meta(ReleaseSerializer.Meta):
        fields = [
            *ReleaseSerializer.Meta.fields,
            "overdue",
            "lts",
            "lts_ended_date",
            "lts_note",
            "wheels",
            "features",
            "notices",
        ]

    @extend_schema_field(compat.WheelsSerializer(many=True))
    def get_wheels(self, release):
        return compat.WheelsSerializer(wheels.summary(release.public_wheels), many=True).data


class AreaSerializer(serializers.ModelSerializer):
    aliases = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")
    feature_count = serializers.IntegerField(help_text="Features of published releases.")

    class Meta:
        model = Area
        fields = ["slug", "name", "description", "aliases", "feature_count"]


class AppearanceSerializer(serializers.ModelSerializer):
    """One appearance of a track: the feature a release announced."""

    release = serializers.CharField(source="release.version")
    stability = StabilityField()
    stage_source = StageSourceField()
    stage_label = BlankAsNullCharField(allow_null=True, help_text="The stage as the post wrote it.")
    feature = serializers.CharField(source="slug", help_text="The feature's slug.")

    class Meta:
        model = Feature
        fields = ["release", "kind", "stability", "stage_label", "stage_source", "feature", "title"]


class TrackSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(
        view_name="releases:track-detail", lookup_field="slug"
    )
    area = serializers.CharField(source="area.slug")
    stability = StabilityField(
        source="stage", help_text="The current stage, or the stage as of `as_of`."
    )
    first_release = serializers.CharField()
    latest_release = serializers.CharField()
    succeeds = serializers.CharField(
        source="succeeds_slug",
        allow_null=True,
        help_text="The track of the capability's previous API generation (FSDP2 succeeds FSDP); "
        "null for none.",
    )
    succeeded_by = serializers.CharField(
        source="successor_slug",
        allow_null=True,
        help_text="The track of its next API generation; null for none.",
    )
    appearances = AppearanceSerializer(many=True, help_text="In version order.")

    class Meta:
        model = Track
        fields = [
            "slug",
            "url",
            "name",
            "area",
            "description",
            "stability",
            "first_release",
            "latest_release",
            "succeeds",
            "succeeded_by",
            "appearances",
        ]


class TrackSummarySerializer(serializers.Serializer):
    track = serializers.CharField(source="track.slug")
    name = serializers.CharField(source="track.name")
    area = serializers.CharField(source="track.area.slug")


class AddedTrackSerializer(TrackSummarySerializer):
    release = serializers.CharField(source="appearance.release.version", help_text="First seen in.")
    first_release = serializers.CharField(
        source="appearance.release.version", help_text="The release it first appeared in."
    )
    stability = StabilityField(
        source="track.stage", help_text="Its stage at `to`: the version upgraded to."
    )
    succeeds = serializers.CharField(
        source="track.succeeds_slug",
        allow_null=True,
        help_text="The track it is the next API generation of; null for none.",
    )


class StageChangeSerializer(TrackSummarySerializer):
    before = StabilityField(source="before.stability")
    after = StabilityField(source="after.stability")
    changed_in = serializers.CharField(source="changed_in.release.version")


class ChangeSerializer(serializers.Serializer):
    """One entry of the change log a mirror replays, oldest first."""

    type = serializers.ChoiceField(choices=public_log.types())
    action = serializers.ChoiceField(choices=["created", "updated", "deleted"])
    key = serializers.ListField(
        child=serializers.JSONField(), help_text="The object's natural key after the change."
    )
    previous_key = serializers.ListField(
        child=serializers.JSONField(),
        allow_null=True,
        help_text="Its natural key before, where this change altered it (a link's URL filled "
        "in, a release's version corrected); null otherwise.",
    )
    time = serializers.DateTimeField()
    object = serializers.JSONField(
        allow_null=True,
        help_text="The object as it was after the change, references as natural keys; null "
        "for a deletion.",
    )
    tombstone = serializers.JSONField(
        allow_null=True, help_text="For a deletion: its type, key and time; null otherwise."
    )


class ChangeLogSerializer(serializers.Serializer):
    next = serializers.URLField(
        allow_null=True, help_text="The next page, while more changes are waiting."
    )
    cursor = serializers.CharField(
        allow_null=True, help_text="Where this page ends: pass it later to read what follows."
    )
    results = ChangeSerializer(many=True)


class CompareSerializer(serializers.Serializer):
    added = AddedTrackSerializer(many=True)
    promoted = StageChangeSerializer(many=True)
    demoted = StageChangeSerializer(many=True)
    relabelled = StageChangeSerializer(
        many=True,
        help_text="Tracks whose beta or prototype stage PyTorch's new scheme calls API-Unstable "
        "(or back): neither promoted nor demoted.",
    )
    unchanged = serializers.IntegerField(help_text="Tracks whose stage did not change.")


# /api/features/ items from plain values rows, which is what keeps a page of the list fast:
# FeatureSerializer's fields, applied to rows. A feature's links come in post order, as
# FeatureQuerySet.for_release_page prefetches them.
FEATURE_ROWS = RowShape(
    FeatureSerializer(), children={"links": Link.objects.order_by("position", "pk")}
)


def feature_values(features, extra=()):
    """Each feature as the API shows it, in plain values: one query, its joins included."""
    return FEATURE_ROWS.values(features, extra)


def feature_items(rows):
    """API items for a page of ``feature_values()`` rows, with their links: one more query."""
    return FEATURE_ROWS.items(rows)
