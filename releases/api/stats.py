"""
The API's figures of the history of stages: a track's standing as of a release (/api/state/),
the tracks kept before stable (/api/stats/graduation/), each release's features by stage
(/api/stats/releases/). Read from releases.stats.
"""

from rest_framework import serializers

from releases.api.serializers import StabilityField
from releases.classification import NO_STAGE
from releases.models import Release
from releases.stats import Standing


class StandingSerializer(serializers.Serializer):
    """A track's standing (releases.stats.Standing), read from its prefetched appearances."""

    track = serializers.CharField(source="track.slug", help_text="The track's slug.")
    url = serializers.HyperlinkedRelatedField(
        source="track", view_name="releases:track-detail", lookup_field="slug", read_only=True
    )
    name = serializers.CharField(source="track.name")
    area = serializers.CharField(source="track.area.slug", help_text="The area's slug.")
    first_release = serializers.CharField(
        source="first.release.version", help_text="The track's first appearance."
    )

    def to_representation(self, instance):
        return super().to_representation(Standing(instance, self.context.get("positions", {})))


class StateSerializer(StandingSerializer):
    stability = StabilityField(
        source="stage", help_text="The stage as of `version`: that of the latest appearance."
    )
    release = serializers.CharField(
        source="latest.release.version",
        help_text="The release that set it: the track's latest appearance at or before `version`.",
    )
    since = serializers.CharField(
        help_text="The first release of the stage's uninterrupted run up to `version` "
        "(torch.fft, beta in 1.7 and stable in 1.8: stable since 1.8)."
    )

    class Meta:
        fields = ["track", "url", "name", "area", "stability", "release", "since", "first_release"]


class GraduationSerializer(StandingSerializer):
    stability = StabilityField(source="stage", help_text="The current stage.")
    since = serializers.CharField(
        help_text="The first release of the current stage's uninterrupted run."
    )
    releases_at_stage = serializers.IntegerField(
        help_text="Releases the current stage has held, from `since` to the newest, both counted."
    )
    stable_in = serializers.CharField(
        allow_null=True, help_text="The first release the track was stable in; null if never."
    )
    releases_to_stable = serializers.IntegerField(
        allow_null=True,
        help_text="Releases from the first appearance to the first stable one (0: stable "
        "from the start); null if never stable.",
    )

    class Meta:
        fields = [
            "track",
            "url",
            "name",
            "area",
            "stability",
            "since",
            "releases_at_stage",
            "first_release",
            "stable_in",
            "releases_to_stable",
        ]


class ReleaseStatsSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(
        view_name="releases:release-detail", lookup_field="version"
    )
    stable = serializers.IntegerField(source="stable_count", help_text="Features at stable.")
    beta = serializers.IntegerField(source="beta_count", help_text="Features at beta.")
    prototype = serializers.IntegerField(
        source="prototype_count", help_text="Features at prototype."
    )
    unstable = serializers.IntegerField(
        source="unstable_count", help_text="Features at API-Unstable."
    )
    none = serializers.IntegerField(source="none_count", help_text="Features given no stage.")
    feature_count = serializers.IntegerField(help_text="Every public feature of the release.")

    class Meta:
        model = Release
        fields = [
            "version",
            "url",
            "release_date",
            "stable",
            "beta",
            "prototype",
            "unstable",
            NO_STAGE,
            "feature_count",
        ]
