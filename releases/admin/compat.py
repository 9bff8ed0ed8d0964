"""
What a release runs on and pairs with: platforms, companions, patch releases and schedule
dates, each with its source. Rows an import brought wait for review (``needs_review``): an
editor keeps them (the "Keep" action) or deletes them; ``disputed`` says where another source
disagrees, for the editor to decide.
"""

from django.contrib import admin, messages

from releases.admin.history import CatalogAdmin
from releases.models import Companion, PatchRelease, ScheduleDate, Support, Wheel
from releases.writes import acting_as

SOURCE_FIELDS = ["source_url", "source_line", "read_at", "disputed", "needs_review"]


class DisputedFilter(admin.SimpleListFilter):
    title = "disputed"
    parameter_name = "disputed"

    def lookups(self, request, model_admin):
        return [("yes", "Another source disagrees"), ("no", "No disagreement")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(disputed="")
        if self.value() == "no":
            return queryset.filter(disputed="")
        return queryset


class SourcedAdmin(CatalogAdmin):
    list_select_related = ["release"]
    actions = ["keep"]
    autocomplete_fields = ["release"]

    def get_list_filter(self, request):
        return ["needs_review", DisputedFilter, *self.list_filter]

    @admin.action(description="Keep (public with its release)", permissions=["change"])
    def keep(self, request, queryset):
        with acting_as("kept in the admin", request.user):
            count = queryset.filter(needs_review=True).update(needs_review=False)
        self.message_user(request, f"Kept {count} row(s).", messages.SUCCESS)


@admin.register(Support)
class SupportAdmin(SourcedAdmin):
    list_display = ["release", "kind", "version", "level", "cudnn", "nccl", "needs_review"]
    list_filter = ["kind", "level", ("release", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["version", "release__version", "detail"]
    ordering = ["-release__version_key", "kind", "version_key"]
    fields = ["release", "kind", "version", "level", "cudnn", "nccl", "detail", *SOURCE_FIELDS]


@admin.register(Companion)
class CompanionAdmin(SourcedAdmin):
    list_display = ["torch_version", "library", "version", "release", "needs_review"]
    list_filter = ["library", ("release", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["torch_version", "version", "library"]
    ordering = ["-torch_version_key", "library"]
    fields = ["release", "torch_version", "library", "version", "requires_python", *SOURCE_FIELDS]


@admin.register(PatchRelease)
class PatchReleaseAdmin(SourcedAdmin):
    list_display = ["version", "release", "release_date", "yanked", "needs_review"]
    list_filter = ["yanked", ("release", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["version"]
    ordering = ["-version_key"]
    fields = ["release", "version", "release_date", "yanked", "yanked_reason", *SOURCE_FIELDS]


@admin.register(Wheel)
class WheelAdmin(SourcedAdmin):
    list_display = ["torch_version", "variant", "platform", "python", "evidence", "needs_review"]
    list_filter = ["evidence", "platform", "variant", ("release", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["torch_version", "variant", "python"]
    ordering = ["-torch_version_key", "variant", "platform", "python_key"]
    fields = [
        "release",
        "torch_version",
        "variant",
        "platform",
        "python",
        "evidence",
        *SOURCE_FIELDS,
    ]


@admin.register(ScheduleDate)
class ScheduleDateAdmin(SourcedAdmin):
    list_display = ["release", "kind", "number", "date", "precision", "tentative", "needs_review"]
    list_filter = ["kind", "tentative", ("release", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["release__version"]
    ordering = ["-date", "kind", "number"]
    fields = ["release", "kind", "number", "date", "precision", "tentative", *SOURCE_FIELDS]
