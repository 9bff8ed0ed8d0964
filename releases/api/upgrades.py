"""
Upgrade notes as the API shows them: what may need a change in user code, with the APIs each
names, its replacement, what became of a deprecation, its pull requests and its source.
"""

from rest_framework import serializers

from releases.api.fields import BlankAsNullCharField
from releases.models import UpgradeNote


class PullRequestSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The pytorch/pytorch pull request.")
    url = serializers.URLField(help_text="Its page on GitHub.")

    def to_representation(self, pair):
        number, url = pair
        return {"number": number, "url": url}


class NoteSourceSerializer(serializers.Serializer):
    url = serializers.URLField(source="source_url", help_text="The release notes, pinned.")
    section = serializers.CharField(help_text="Their section: Backwards Incompatible Changes…")
    line = serializers.IntegerField(
        source="source_line", allow_null=True, help_text="The line the entry starts on."
    )
    link = serializers.CharField(source="source_link", help_text="The URL at that line.")


class NoteRefSerializer(serializers.Serializer):
    release = serializers.CharField(source="release.version")
    slug = serializers.CharField()


class UpgradeNoteSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", help_text="The release it is of.")
    area = serializers.CharField(
        source="area_shown", help_text="The release notes' area (General where they give none)."
    )
    apis = serializers.SlugRelatedField(
        many=True, read_only=True, slug_field="name", help_text="The APIs it names."
    )
    replacement = BlankAsNullCharField(
        allow_null=True, help_text="What to use instead, where the notes name it; else null."
    )
    removed_in = serializers.SerializerMethodField(
        help_text="For a deprecation: the release that removed it; null while none has (not "
        "yet), and for a breaking change or a removal."
    )
    removal_announced = BlankAsNullCharField(
        source="removed_in",
        allow_null=True,
        help_text="For a deprecation: the version the notes announce for its removal (it may "
        "not have happened: see removed_in); else null.",
    )
    removes = NoteRefSerializer(
        allow_null=True, help_text="For a removal: the deprecation it completes; else null."
    )
    track = serializers.SlugRelatedField(
        read_only=True, slug_field="slug", allow_null=True, help_text="The capability's track."
    )
    pull_requests = PullRequestSerializer(
        source="pull_request_urls", many=True, help_text="The pull requests the notes cite."
    )
    disputed = BlankAsNullCharField(
        allow_null=True, help_text="What another source says instead, and where; else null."
    )
    area_reason = BlankAsNullCharField(
        allow_null=True,
        help_text="Why an editor chose the area where the notes give none; null for an area as "
        "the notes write it.",
    )
    group = BlankAsNullCharField(
        allow_null=True,
        help_text="The heading the notes list it under with other changes, each with its own "
        "pull request; null for a change listed alone.",
    )
    source = NoteSourceSerializer(source="*")

    class Meta:
        model = UpgradeNote
        fields = [
            "release",
            "slug",
            "kind",
            "area",
            "area_slug",
            "summary",
            "apis",
            "replacement",
            "removed_in",
            "removal_announced",
            "removes",
            "track",
            "pull_requests",
            "disputed",
            "source",
            "updated_at",
            "area_reason",
            "group",
            "asks_nothing",
        ]

    def get_removed_in(self, note) -> str | None:
        if note.kind != "deprecation":
            return None
        return getattr(note, "removal_version", None)
