"""
Upgrade notes: what an import of release notes brought waits for review (``needs_review``).
An editor writes each note's one-line summary in our own words, checks its kind, area, APIs and
replacement, links a removal to the deprecation it completes, then keeps it (the "Keep" action,
or clearing "needs review"): only then is it public with its release.
"""

from django.contrib import admin, messages

from releases.admin.compat import SOURCE_FIELDS, DisputedFilter
from releases.admin.features import CompactInline
from releases.admin.history import CatalogAdmin
from releases.models import UpgradeAPI, UpgradeNote
from releases.writes import acting_as


class UpgradeAPIInline(CompactInline):
    model = UpgradeAPI
    fields = ["position", "name"]
    ordering = ["position", "name"]


@admin.register(UpgradeNote)
class UpgradeNoteAdmin(CatalogAdmin):
    list_display = ["release", "kind", "area", "summary_or_slug", "needs_review"]
    list_filter = [
        "needs_review",
        "kind",
        DisputedFilter,
        ("release", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["release"]
    search_fields = ["summary", "area", "slug", "apis__name", "replacement"]
    ordering = ["-release__version_key", "kind_rank", "area", "source_line"]
    autocomplete_fields = ["release", "track", "removes"]
    inlines = [UpgradeAPIInline]
    actions = ["keep"]
    fields = [
        "release",
        "slug",
        "kind",
        "area",
        "area_reason",
        "group",
        "section",
        "summary",
        "replacement",
        "removed_in",
        "removes",
        "track",
        "pull_requests",
        *SOURCE_FIELDS,
    ]

    def get_queryset(self, request):
        # Each note's name (its __str__) shows its release, in the list and in autocompletes.
        return super().get_queryset(request).select_related("release")

    @admin.display(description="summary", ordering="summary")
    def summary_or_slug(self, note):
        return note.summary or f"({note.slug}: no summary yet)"

    @admin.action(description="Keep (public with its release)", permissions=["change"])
    def keep(self, request, queryset):
        waiting = queryset.filter(needs_review=True)
        unsummarized = waiting.filter(summary="").count()
        with acting_as("kept in the admin", request.user):
            count = waiting.exclude(summary="").update(needs_review=False)
        self.message_user(request, f"Kept {count} note(s).", messages.SUCCESS)
        if unsummarized:
            self.message_user(
                request,
                f"{unsummarized} note(s) left waiting: write each one's summary first.",
                messages.WARNING,
            )


@admin.register(UpgradeAPI)
class UpgradeAPIAdmin(CatalogAdmin):
    """Every API a note names: where an editor finds the notes of one API, and its history."""

    list_display = ["name", "note"]
    list_select_related = ["note__release"]
    search_fields = ["name", "note__summary"]
    ordering = ["name_key"]
    autocomplete_fields = ["note"]
    fields = ["note", "name", "position"]
