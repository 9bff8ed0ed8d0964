"""
What a release runs on and pairs with, as the API shows it: the parts of a release's item
(platforms, companions, patches, schedule), each row with its source.
"""

from rest_framework import serializers

from releases.api.fields import BlankAsNullCharField
from releases.classification import ReleaseStatus
from releases.models import (
    Companion,
    Evidence,
    PatchRelease,
    ScheduleDate,
    Support,
    SupportKind,
)


class SourceSerializer(serializers.Serializer):
    url = serializers.URLField(source="source_url", help_text="The table it was read from.")
    line = serializers.IntegerField(
        source="source_line", allow_null=True, help_text="Its row's line in that table."
    )


class Sourced(serializers.ModelSerializer):
    disputed = BlankAsNullCharField(
        allow_null=True, help_text="What another source says instead, and where; else null."
    )
    source = SourceSerializer(source="*")


class SupportSerializer(Sourced):
    cudnn = BlankAsNullCharField(allow_null=True, help_text="cuDNN, for a CUDA version.")
    nccl = BlankAsNullCharField(allow_null=True, help_text="NCCL, for a CUDA version.")
    detail = BlankAsNullCharField(
        allow_null=True, help_text="An architecture's name and the builds that have it."
    )

    class Meta:
        model = Support
        fields = ["version", "level", "cudnn", "nccl", "detail", "disputed", "source"]


class PlatformsSerializer(serializers.Serializer):
    """A release's supports by kind, each list in version order."""

    python = SupportSerializer(many=True, help_text="Python versions (3.14t: free-threaded).")
    cxx = SupportSerializer(many=True, help_text="The C++ standard of its C++ API.")
    cuda = SupportSerializer(many=True, help_text="CUDA versions, with cuDNN and NCCL.")
    rocm = SupportSerializer(many=True, help_text="ROCm versions.")
    cuda_arch = SupportSerializer(many=True, help_text="CUDA architectures (compute capability).")
    os = SupportSerializer(many=True, help_text="Operating systems.")
    triton = SupportSerializer(many=True, help_text="The Triton version it pins, where stated.")
    onednn = SupportSerializer(many=True, help_text="The oneDNN version it builds with.")

    def to_representation(self, release):
        grouped = {kind: [] for kind in SupportKind.values}
        for support in release.public_supports:
            grouped[support.kind].append(support)
        return {
            kind: SupportSerializer(grouped[kind], many=True).data for kind in SupportKind.values
        }


class PythonRangeSerializer(serializers.Serializer):
    min = serializers.CharField(allow_null=True, help_text="The oldest Python with a build.")
    max = serializers.CharField(allow_null=True, help_text="The newest, free-threading aside.")

    def to_representation(self, release):
        stable = [s.version for s in release.public_supports if s.kind == "python"]
        stable = [version for version in stable if not version.endswith("t")]
        return {"min": stable[0] if stable else None, "max": stable[-1] if stable else None}


class CompanionSerializer(Sourced):
    requires_python = BlankAsNullCharField(
        allow_null=True, help_text="The Pythons its own files declare, as the index states."
    )
    torch_requirement = BlankAsNullCharField(
        allow_null=True, help_text="The torch its own metadata requires (==2.5.1); else null."
    )

    class Meta:
        model = Companion
        fields = [
            "torch_version",
            "library",
            "version",
            "requires_python",
            "torch_requirement",
            "disputed",
            "source",
        ]


class PatchSerializer(Sourced):
    class Meta:
        model = PatchRelease
        fields = ["version", "release_date", "yanked", "yanked_reason", "disputed", "source"]


class WheelSourceSerializer(serializers.Serializer):
    url = serializers.URLField(help_text="The index page, or the install page, it was read from.")
    evidence = serializers.ChoiceField(choices=Evidence.choices)
    read_at = serializers.DateTimeField(allow_null=True, help_text="When the index was read.")


class WheelsSerializer(serializers.Serializer):
    """A torch version's published wheels: what they run on, measured from the indexes."""

    version = serializers.CharField(help_text="The torch version: 2.5.1.")
    python = serializers.ListField(
        child=serializers.CharField(), help_text="Pythons with a wheel (3.13t: free-threaded)."
    )
    platforms = serializers.ListField(
        child=serializers.CharField(), help_text="linux-x86_64, linux-aarch64, macos-arm64, …"
    )
    variants = serializers.ListField(
        child=serializers.CharField(),
        help_text="cpu, cu124, rocm6.2, xpu; default: the main index's.",
    )
    sources = WheelSourceSerializer(many=True)


class ScheduleSerializer(Sourced):
    event = serializers.CharField(
        source="kind", help_text="branch_cut, release or patch (number: which patch)."
    )
    date = serializers.CharField(
        source="shown_date", help_text="YYYY-MM-DD, or YYYY-MM where only the month is known."
    )
    outcome = serializers.ChoiceField(
        choices=["done", "not_shipped", "planned"],
        help_text="done: the release or patch shipped, or the branch was cut; not_shipped: a "
        "patch planned for a release superseded before it came; planned: still to come "
        "(tentative says how firm the plan is).",
    )

    class Meta:
        model = ScheduleDate
        fields = [
            "event",
            "number",
            "date",
            "precision",
            "tentative",
            "outcome",
            "disputed",
            "source",
        ]


RELEASE_FIELDS = ["status", "python_range", "platforms", "companions", "patches", "schedule"]


def status_field():
    return serializers.ChoiceField(
        choices=ReleaseStatus.choices,
        help_text="planned: known from the schedule, not out yet; latest: the newest minor out, "
        "the one PyTorch patches; superseded: an older one.",
    )
