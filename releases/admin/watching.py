"""
What ``watch_blog`` found, read-only: the release announcements of the blog's feed, each with
the release it became or why it did not, and the feed with its validators and last run.
Observations of a command, not editors' data: nobody adds, changes or deletes them here.
"""

from django.contrib import admin
from django.utils.html import format_html

from releases.admin.forms import URL_FIELDS
from releases.models import BlogAnnouncement, BlogFeed
from releases.writes import is_web_url


class ReadOnlyAdmin(admin.ModelAdmin):
    formfield_overrides = URL_FIELDS

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ImportedFilter(admin.SimpleListFilter):
    title = "imported"
    parameter_name = "is_imported"

    def lookups(self, request, model_admin):
        return [("yes", "Imported or held"), ("no", "Not imported")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(release__isnull=self.value() == "no")
        return queryset


@admin.register(BlogAnnouncement)
class BlogAnnouncementAdmin(ReadOnlyAdmin):
    list_display = [
        "version",
        "post",
        "published_date",
        "release",
        "problem",
        "feed",
        "last_seen_at",
    ]
    list_filter = [ImportedFilter, "feed"]
    list_select_related = ["release", "feed"]
    search_fields = ["version", "title", "url"]
    ordering = ["-version_key", "url"]

    @admin.display(description="post", ordering="title")
    def post(self, announcement):
        if not is_web_url(announcement.url):
            return announcement.title
        return format_html(
            '<a href="{}" rel="noopener noreferrer">{}</a>', announcement.url, announcement.title
        )


@admin.register(BlogFeed)
class BlogFeedAdmin(ReadOnlyAdmin):
    list_display = ["url", "checked_at", "is_failing", "outcome", "read_at", "lease_holder"]
    ordering = ["url"]
