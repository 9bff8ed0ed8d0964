"""
The release admin: the list and change form; publishing and unpublishing through the
checklist (releases.publishing), on one release or several; and the import page, which turns
an uploaded or pasted post into a draft after showing what it would create, change and keep
(releases.importing.sync).
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from releases import publishing
from releases.admin.desk import checklist
from releases.admin.forms import URL_FIELDS, ImportPostForm
from releases.admin.history import CatalogAdmin
from releases.importing import sync
from releases.models import NEWEST_FIRST, Release
from releases.writes import acting_as


@admin.register(Release)
class ReleaseAdmin(CatalogAdmin):
    """
    Releases. Publishing goes through a checklist (Publish… on a release, or the action on
    several): only a missing release date refuses it. Unpublishing asks first. An import
    page turns a post into a draft, showing first what it would create, change and keep.
    """

    formfield_overrides = URL_FIELDS
    change_form_template = "admin/releases/release/change_form.html"
    change_list_template = "admin/releases/release/change_list.html"
    list_display = ["version", "title", "release_date", "is_published", "feature_count"]
    list_filter = ["is_published", "planned", "announced"]
    search_fields = ["version", "title", "summary"]
    ordering = NEWEST_FIRST
    date_hierarchy = "release_date"
    readonly_fields = ["is_published", "feature_list", "created_at", "updated_at"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "version",
                    "title",
                    "release_date",
                    "planned",
                    "announced",
                    "is_published",
                    "feature_list",
                ]
            },
        ),
        ("Sources", {"fields": ["announcement_url", "release_notes_url"]}),
        ("In our words", {"fields": ["summary", "highlights"]}),
        ("Figures", {"fields": ["commit_count", "contributor_count"]}),
        ("Long-term support", {"fields": ["is_lts", "lts_ended_date", "lts_note"]}),
        ("History", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]
    # No inline of features: a release may have thousands, too slow to render and beyond
    # DATA_UPLOAD_MAX_NUMBER_FIELDS once posted; they are worked in the feature list.
    actions = ["publish", "unpublish"]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("import/", view(self.import_view), name="releases_release_import"),
            path(
                "<path:object_id>/publish/",
                view(self.publish_view),
                name="releases_release_publish",
            ),
            path(
                "<path:object_id>/unpublish/",
                view(self.unpublish_view),
                name="releases_release_unpublish",
            ),
            *super().get_urls(),
        ]

    def get_queryset(self, request):
        return super().get_queryset(request).with_feature_count()

    @admin.display(description="features", ordering="feature_count")
    def feature_count(self, release):
        return release.feature_count

    @admin.display(description="features")
    def feature_list(self, release):
        """The release's features: a count and a link to the feature list filtered to it."""
        if release.pk is None:
            return "Save the release, then add its features (or import its post)."
        features = reverse("admin:releases_feature_changelist")
        add = reverse("admin:releases_feature_add")
        count = release.feature_count
        return format_html(
            '<a href="{}?release__id__exact={}">{} feature{}</a> · '
            '<a href="{}?release={}">add a feature</a>',
            features,
            release.pk,
            count,
            "" if count == 1 else "s",
            add,
            release.pk,
        )

    # --- publishing ---------------------------------------------------------------------------

    @admin.action(description="Publish… (with the checklist)", permissions=["change"])
    def publish(self, request, queryset):
        releases = list(queryset.with_checklist().newest_first())
        if request.POST.get("confirmed") != "yes":
            return self.checklist_page(request, releases, unpublish=False)
        self.do_publish(request, releases)
        return None

    @admin.action(description="Unpublish… (back to draft)", permissions=["change"])
    def unpublish(self, request, queryset):
        releases = list(queryset.with_checklist().newest_first())
        if request.POST.get("confirmed") != "yes":
            return self.checklist_page(request, releases, unpublish=True)
        self.do_unpublish(request, releases)
        return None

    def publish_view(self, request, object_id):
        return self.one_release_view(request, object_id, unpublish=False)

    def unpublish_view(self, request, object_id):
        return self.one_release_view(request, object_id, unpublish=True)

    def one_release_view(self, request, object_id, *, unpublish):
        release = get_object_or_404(Release.objects.with_checklist(), pk=self.checked_id(object_id))
        if not self.has_change_permission(request, release):
            raise PermissionDenied
        if request.method == "POST":
            if unpublish:
                self.do_unpublish(request, [release])
            else:
                self.do_publish(request, [release])
            return HttpResponseRedirect(reverse("admin:releases_release_change", args=[release.pk]))
        return self.checklist_page(request, [release], unpublish=unpublish, single=True)

    def checklist_page(self, request, releases, *, unpublish, single=False):
        rows = [(release, checklist(release)) for release in releases]
        ready = [r for r, _ in rows if unpublish or publishing.can_publish(r)]
        verb = "Unpublish" if unpublish else "Publish"
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"{verb} {releases[0] if len(releases) == 1 else 'releases'}",
            "rows": rows,
            "ready": ready,
            "unpublish": unpublish,
            "single": single,
            "action": "unpublish" if unpublish else "publish",
            "verb": verb,
        }
        return TemplateResponse(request, "admin/releases/release/publish.html", context)

    def do_publish(self, request, releases):
        with acting_as("published in the admin", request.user):
            published, refused = publishing.publish(releases)
        if published:
            names = ", ".join(release.version for release in published)
            self.message_user(request, f"Published {names}.", messages.SUCCESS)
        if refused:
            names = ", ".join(release.version for release in refused)
            self.message_user(
                request, f"Not published, set a release date first: {names}.", messages.ERROR
            )

    def do_unpublish(self, request, releases):
        with acting_as("unpublished in the admin", request.user):
            count = publishing.unpublish(releases)
        self.message_user(request, f"Moved {count} release(s) back to draft.", messages.SUCCESS)

    # --- importing a post ------------------------------------------------------------------

    def import_view(self, request):
        """Upload or paste a post, see what importing it would do, then apply it as a draft."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ImportPostForm(request.POST or None, request.FILES or None)
        preview = None
        if request.method == "POST" and form.is_valid():
            if "apply" in request.POST:
                # The import names itself and the post; the editor is who did it.
                with acting_as("import_post in the admin", request.user):
                    try:
                        report = sync.import_post(
                            form.parsed, source=f"{form.source_name} (in the admin)"
                        )
                    except sync.ImportProblem as problem:
                        form.add_error(None, form.where(problem.line, problem.message))
                    else:
                        self.message_user(
                            request,
                            f"Imported {form.source_name}: " + "; ".join(report.lines()[:3]),
                            messages.SUCCESS,
                        )
                        release = sync.find_release(form.parsed.version)
                        return HttpResponseRedirect(
                            reverse("admin:releases_release_change", args=[release.pk])
                        )
            else:
                try:
                    preview = sync.preview(form.parsed)
                except sync.ImportProblem as problem:
                    form.add_error(None, form.where(problem.line, problem.message))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Import a release post",
            "form": form,
            "preview": preview,
            "post_text": form.post_text if preview else "",
        }
        return TemplateResponse(request, "admin/releases/release/import.html", context)
