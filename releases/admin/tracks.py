"""
The track admin: a track with its appearances, oldest release first, read-only here; features
join and leave tracks from the feature list's merge and split actions.
"""

from django.contrib import admin
from django.db.models import Count
from django.db.models.functions import Lower

from releases.admin.history import CatalogAdmin
from releases.models import Feature, Track


class AppearanceInline(admin.TabularInline):
    """A track's features, oldest release first."""

    model = Feature
    verbose_name = "appearance"
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["release", "title", "stability", "area"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("release", "area").oldest_first()


@admin.register(Track)
class TrackAdmin(CatalogAdmin):
    list_display = ["name", "slug", "area", "appearance_count"]
    list_filter = [("area", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["area"]
    search_fields = ["name", "slug", "description", "features__title"]
    ordering = [Lower("name")]
    autocomplete_fields = ["area"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["created_at", "updated_at"]
    inlines = [AppearanceInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(appearance_count=Count("features"))

    @admin.display(description="appearances", ordering="appearance_count")
    def appearance_count(self, track):
        return track.appearance_count
