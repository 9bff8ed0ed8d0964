"""
The area admin, with each area's aliases (the headings the importer files under it) inline,
and the action that marks areas the importer created as reviewed. Aliases have a page of
their own only for their history.
"""

from django.contrib import admin, messages
from django.db.models.functions import Lower

from releases.admin.forms import VersionedAdminMixin
from releases.admin.history import CatalogAdmin
from releases.models import Area, AreaAlias
from releases.writes import acting_as


class AreaAliasInline(VersionedAdminMixin, admin.TabularInline):
    model = AreaAlias
    extra = 0


@admin.register(Area)
class AreaAdmin(CatalogAdmin):
    list_display = ["name", "slug", "feature_count", "needs_review"]
    list_filter = ["needs_review"]
    search_fields = ["name", "slug", "aliases__name"]
    ordering = [Lower("name")]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["created_at", "updated_at"]
    inlines = [AreaAliasInline]
    actions = ["mark_reviewed"]

    def get_queryset(self, request):
        return super().get_queryset(request).with_feature_count(published_only=False)

    @admin.display(description="features", ordering="feature_count")
    def feature_count(self, area):
        return area.feature_count

    @admin.action(description="Mark selected areas reviewed", permissions=["change"])
    def mark_reviewed(self, request, queryset):
        with acting_as("reviewed in the admin", request.user):
            count = queryset.update(needs_review=False)
        self.message_user(request, f"Marked {count} area(s) reviewed.", messages.SUCCESS)


@admin.register(AreaAlias)
class AreaAliasAdmin(CatalogAdmin):
    """Aliases are edited inline on their area; this page holds their history."""

    list_display = ["name", "area"]
    list_select_related = ["area"]
    search_fields = ["name", "area__name"]
    ordering = [Lower("name")]
    autocomplete_fields = ["area"]
