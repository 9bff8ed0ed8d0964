"""The editors' workspace: curate releases, features, links and areas, alone or in bulk."""

from django.contrib import admin, messages
from django.db import models
from django.db.models import Count, Q

from .models import NEWEST_FIRST, Area, AreaAlias, Feature, Link, Release, Stability

FEATURE_NEWEST_FIRST = (*(f"-release__{field.lstrip('-')}" for field in NEWEST_FIRST), "position")


# Links are typed without a scheme more often than not; assume https (Django 6's default).
URL_FIELDS = {models.URLField: {"assume_scheme": "https"}}


class HasMissingLinksFilter(admin.SimpleListFilter):
    title = "missing links"
    parameter_name = "has_missing_links"

    def lookups(self, request, model_admin):
        return [("yes", "Has missing links"), ("no", "No missing links")]

    def queryset(self, request, queryset):
        if self.value() in {"yes", "no"}:
            return queryset.with_missing_links(self.value() == "yes")
        return queryset


class IsMissingFilter(admin.SimpleListFilter):
    title = "URL"
    parameter_name = "is_missing"

    def lookups(self, request, model_admin):
        return [("yes", "Missing"), ("no", "Present")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.missing()
        if self.value() == "no":
            return queryset.present()
        return queryset


class FeatureInline(admin.TabularInline):
    model = Feature
    extra = 0
    fields = ["position", "title", "slug", "stability", "area"]
    autocomplete_fields = ["area"]
    show_change_link = True
    ordering = ["position", "pk"]


class LinkInline(admin.TabularInline):
    formfield_overrides = URL_FIELDS
    model = Link
    extra = 0
    fields = ["position", "kind", "label", "url"]
    ordering = ["position", "pk"]


class AreaAliasInline(admin.TabularInline):
    model = AreaAlias
    extra = 0


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    formfield_overrides = URL_FIELDS
    list_display = ["version", "title", "release_date", "is_published", "feature_count"]
    list_filter = ["is_published"]
    search_fields = ["version", "title", "summary"]
    ordering = NEWEST_FIRST
    date_hierarchy = "release_date"
    readonly_fields = ["created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["version", "title", "release_date", "is_published"]}),
        ("Sources", {"fields": ["announcement_url", "release_notes_url"]}),
        ("In our words", {"fields": ["summary", "highlights"]}),
        ("Figures", {"fields": ["commit_count", "contributor_count"]}),
        ("History", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]
    inlines = [FeatureInline]
    actions = ["publish", "unpublish"]

    def get_queryset(self, request):
        return super().get_queryset(request).with_feature_count()

    @admin.display(description="features", ordering="feature_count")
    def feature_count(self, release):
        return release.feature_count

    @admin.action(description="Publish the selected releases", permissions=["change"])
    def publish(self, request, queryset):
        undated = queryset.filter(release_date__isnull=True)
        if undated.exists():
            versions = ", ".join(undated.values_list("version", flat=True))
            self.message_user(
                request, f"Set a release date before publishing: {versions}.", messages.ERROR
            )
            return
        count = queryset.update(is_published=True)
        self.message_user(request, f"Published {count} release(s).", messages.SUCCESS)

    @admin.action(description="Unpublish (back to draft)", permissions=["change"])
    def unpublish(self, request, queryset):
        count = queryset.update(is_published=False)
        self.message_user(request, f"Moved {count} release(s) back to draft.", messages.SUCCESS)


@admin.register(Feature)
class FeatureAdmin(admin.ModelAdmin):
    list_display = [
        "title",
        "release",
        "stability",
        "area",
        "position",
        "link_count",
        "missing_link_count",
    ]
    # Only choice fields: a foreign key here would query its options once per row.
    list_editable = ["stability"]
    list_filter = [
        ("release", admin.RelatedOnlyFieldListFilter),
        "stability",
        ("area", admin.RelatedOnlyFieldListFilter),
        HasMissingLinksFilter,
    ]
    list_select_related = ["release", "area"]
    search_fields = ["title", "slug", "summary", "release__version"]
    ordering = FEATURE_NEWEST_FIRST
    autocomplete_fields = ["release", "area"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["created_at", "updated_at"]
    fields = [
        "release",
        "title",
        "slug",
        "stability",
        "area",
        "position",
        "summary",
        "created_at",
        "updated_at",
    ]
    inlines = [LinkInline]
    actions = ["mark_stable", "mark_beta", "mark_prototype", "clear_stability"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                link_count=Count("links"),
                missing_link_count=Count("links", filter=Q(links__url="")),
            )
        )

    @admin.display(description="links", ordering="link_count")
    def link_count(self, feature):
        return feature.link_count

    @admin.display(description="missing", ordering="missing_link_count")
    def missing_link_count(self, feature):
        return feature.missing_link_count

    def _set_stability(self, request, queryset, stability):
        count = queryset.update(stability=stability)
        label = Stability(stability).label if stability else "no stability"
        self.message_user(request, f"Marked {count} feature(s) {label}.", messages.SUCCESS)

    @admin.action(description="Mark selected features Stable", permissions=["change"])
    def mark_stable(self, request, queryset):
        self._set_stability(request, queryset, Stability.STABLE)

    @admin.action(description="Mark selected features Beta", permissions=["change"])
    def mark_beta(self, request, queryset):
        self._set_stability(request, queryset, Stability.BETA)

    @admin.action(description="Mark selected features Prototype", permissions=["change"])
    def mark_prototype(self, request, queryset):
        self._set_stability(request, queryset, Stability.PROTOTYPE)

    @admin.action(description="Clear the stability of selected features", permissions=["change"])
    def clear_stability(self, request, queryset):
        self._set_stability(request, queryset, "")


@admin.register(Link)
class LinkAdmin(admin.ModelAdmin):
    formfield_overrides = URL_FIELDS
    list_display = ["label", "kind", "url", "feature", "release_version", "is_missing"]
    list_editable = ["url"]
    list_filter = [IsMissingFilter, "kind", ("feature__release", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["feature__release"]
    search_fields = ["label", "url", "feature__title", "feature__release__version"]
    ordering = [
        *(f"-feature__release__{field.lstrip('-')}" for field in NEWEST_FIRST),
        "feature__position",
        "position",
    ]
    autocomplete_fields = ["feature"]
    readonly_fields = ["created_at", "updated_at"]

    @admin.display(description="release", ordering="feature__release__version_major")
    def release_version(self, link):
        return link.feature.release.version

    @admin.display(description="missing", boolean=True)
    def is_missing(self, link):
        return link.is_missing


@admin.register(Area)
class AreaAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "feature_count", "needs_review"]
    list_filter = ["needs_review"]
    search_fields = ["name", "slug", "aliases__name"]
    ordering = ["name"]
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
        count = queryset.update(needs_review=False)
        self.message_user(request, f"Marked {count} area(s) reviewed.", messages.SUCCESS)
