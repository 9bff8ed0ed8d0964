"""JSON shapes of the public API. Field names are a contract with sites and scripts."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .models import Area, Feature, Link, Release


class BlankAsNullURLField(serializers.URLField):
    """A URL, or null where the catalog stores an empty string (a missing link)."""

    def to_representation(self, value):
        return value or None


@extend_schema_field(
    {"type": "string", "enum": ["stable", "beta", "prototype", None], "nullable": True}
)
class StabilityField(serializers.CharField):
    def to_representation(self, value):
        return value or None


class LinkSerializer(serializers.ModelSerializer):
    url = BlankAsNullURLField(allow_null=True, help_text="null for a link still missing.")
    is_missing = serializers.BooleanField()

    class Meta:
        model = Link
        fields = ["kind", "label", "url", "is_missing"]


class LinkListSerializer(LinkSerializer):
    release = serializers.CharField(source="feature.release.version")
    feature = serializers.CharField(source="feature.slug", help_text="The feature's slug.")

    class Meta:
        model = Link
        fields = ["release", "feature", "kind", "label", "url", "is_missing", "position"]


class FeatureSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", help_text="The release's version.")
    stability = StabilityField()
    area = serializers.CharField(source="area.slug", help_text="The area's slug.")
    area_name = serializers.CharField(source="area.name")
    links = LinkSerializer(many=True)

    class Meta:
        model = Feature
        fields = [
            "release",
            "title",
            "slug",
            "stability",
            "area",
            "area_name",
            "summary",
            "position",
            "links",
        ]


class ReleaseSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(
        view_name="releases:release-detail", lookup_field="version"
    )
    highlights = serializers.ListField(child=serializers.CharField(), source="highlight_list")
    feature_count = serializers.IntegerField()

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
            "feature_count",
        ]


class ReleaseDetailSerializer(ReleaseSerializer):
    features = FeatureSerializer(many=True)

    class Meta(ReleaseSerializer.Meta):
        fields = [*ReleaseSerializer.Meta.fields, "features"]


class AreaSerializer(serializers.ModelSerializer):
    aliases = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")
    feature_count = serializers.IntegerField(help_text="Features of published releases.")

    class Meta:
        model = Area
        fields = ["slug", "name", "description", "aliases", "feature_count"]
