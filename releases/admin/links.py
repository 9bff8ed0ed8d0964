"""
The link admin: every link with its feature and release, its URL editable in the list, and
the links a post left without a URL. The "Broken links" queue (?health=needs_fix) and its
suggested fixes are releases.admin.linkdesk's.
"""

from django import forms
from django.contrib import admin

from releases.admin.forms import URL_FIELDS
from releases.admin.history import CatalogAdmin
from releases.admin.linkdesk import LinkFixesAdminMixin, LinkHealthFilter
from releases.models import Link


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


@admin.register(Link)
class LinkAdmin(LinkFixesAdminMixin, CatalogAdmin):
    """Links; the desk's "Broken links" queue (?health=needs_fix) is releases.admin.linkdesk's."""

    formfield_overrides = URL_FIELDS
    list_display = ["label", "kind", "url", "health", "feature_in_release", "is_missing"]
    list_editable = ["url"]
    list_filter = [
        IsMissingFilter,
        LinkHealthFilter,
        "kind",
        ("feature__release", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["feature__release"]
    search_fields = ["label", "url", "feature__title", "feature__release__version"]
    ordering = ["-feature__release_version_key", "feature__position", "position"]
    autocomplete_fields = ["feature"]
    readonly_fields = ["created_at", "updated_at"]

    def get_changelist_form(self, request, **kwargs):
        # A plain URL box in the list: the admin's widget repeats the URL above the box.
        kwargs["widgets"] = {
            "url": forms.URLInput(attrs={"placeholder": "https://…", "aria-label": "URL"})
        }
        return super().get_changelist_form(request, **kwargs)

    @admin.display(description="feature (release)", ordering="feature__release_version_key")
    def feature_in_release(self, link):
        return str(link.feature)

    @admin.display(description="missing", boolean=True)
    def is_missing(self, link):
        return link.is_missing
