"""
The editors' workspace: curate releases, features, links, areas and tracks, alone or in bulk.

Every model's history is kept (django-simple-history): an editor sees who changed what and
when, field by field, compares two versions, reverts to one, and recovers deleted features
with their links. Bulk actions, merges and splits are recorded under the editor's name.
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import flatten_fieldsets, unquote
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.db.models import Count, Q
from django.db.models.functions import Lower
from django.forms.models import model_to_dict
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from simple_history.admin import SimpleHistoryAdmin

from releases import concurrency, history, publishing, recovery, stages, tracks, writes
from releases.admin.linkdesk import LinkFixesAdminMixin, LinkHealthFilter
from releases.importing import sync
from releases.importing.areas import UNFILED_AREA
from releases.importing.parse import MAX_POST_BYTES, PostError, decode, parse_post
from releases.models import (
    FEATURES_NEWEST_FIRST,
    NEWEST_FIRST,
    Area,
    AreaAlias,
    ClaimStatus,
    Feature,
    Link,
    Release,
    Stability,
    StageClaim,
    StageSource,
    Track,
)
from releases.writes import acting_as

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


class MissingFilter(admin.SimpleListFilter):
    """The editors' queues of unfinished features: no stage, no area of their own, no summary."""

    title = "lacking"
    parameter_name = "missing"

    def lookups(self, request, model_admin):
        return [("stage", "A stage"), ("area", "An area"), ("summary", "A summary")]

    def queryset(self, request, queryset):
        if self.value() == "stage":
            return queryset.filter(stability="")
        if self.value() == "area":
            return queryset.filter(area__name=UNFILED_AREA)
        if self.value() == "summary":
            return queryset.filter(summary="")
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


class VersionedForm(forms.ModelForm):
    """
    A model form that carries the version of the row it was read at (a hidden field). A save
    from a stale form is refused with what the other editor changed, who and when; the form
    keeps the editor's input, takes the other editor's values for the fields this editor left
    alone, and moves to the current version, so that saving again applies the editor's change
    on top of the other's.
    """

    read_version = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        instance = self.instance
        if self.is_existing:
            # A revert's form holds an old version built from the history: the row's is now.
            loaded = instance._state.db is not None
            version = instance.row_version if loaded else self.current_version(lock=False)
            self.fields["read_version"].initial = version

    @property
    def is_existing(self):
        return self.instance.pk is not None and not self.instance._state.adding

    def current_version(self, lock):
        return concurrency.current_version(type(self.instance), self.instance.pk, lock=lock)

    def clean(self):
        data = super().clean()
        if not self.is_existing or not self.has_changed():
            return data  # a new row, or one the form leaves as it is: nothing to lose
        read = (data.get("read_version") or "").strip()
        if not (read.isascii() and read.isdigit()):
            raise ValidationError(
                "This form does not say which version it was read at: reload the page and "
                "make your changes again.",
                code="no_version",
            )
        # Locked until the admin's transaction ends: no write slips between check and save.
        current = self.current_version(lock=True)
        if int(read) != current:
            model = type(self.instance)
            conflict = concurrency.conflict_since(model, self.instance.pk, int(read), current)
            self.keep_input(conflict)
            raise ValidationError(
                f"{conflict.message()} Your changes are kept below, with the other editor's in "
                "the fields you left alone: check them and save again.",
                code="stale",
            )
        writes.expect_version(self.instance, int(read))
        return data

    def keep_input(self, conflict):
        """The form's data for a second try: the editor's input on the other's writes."""
        if conflict.deleted:
            return
        data = self.data.copy()
        data[self.add_prefix("read_version")] = str(conflict.current_version)
        current_row = type(self.instance)._base_manager.get(pk=self.instance.pk)
        current = model_to_dict(current_row)
        read = model_to_dict(conflict.read.instance) if conflict.read is not None else None
        for name in conflict.changed_fields:
            if name not in self.fields or read is None or name not in current:
                continue
            field, key = self.fields[name], self.add_prefix(name)
            if field.has_changed(read.get(name), self[name].data):
                continue  # this editor's own change: kept as typed
            value = field.prepare_value(current[name])
            if isinstance(value, bool):
                if value:
                    data[key] = "on"
                else:
                    data.pop(key, None)
            else:
                data[key] = "" if value is None else str(value)
        self.data = data


class VersionedAdminMixin:
    """Admins and inlines whose forms carry the version they were read at."""

    form = VersionedForm

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if "read_version" in flatten_fieldsets(fieldsets):
            return fieldsets
        (name, options), *rest = fieldsets
        return [(name, {**options, "fields": [*options["fields"], "read_version"]}), *rest]


class CompactInline(VersionedAdminMixin, admin.TabularInline):
    """A tabular inline whose rows fit a line: related fields without add/change/view icons."""

    extra = 0

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        widget = getattr(formfield, "widget", None)
        if hasattr(widget, "can_add_related"):
            widget.can_add_related = widget.can_change_related = False
            widget.can_view_related = widget.can_delete_related = False
        return formfield


class LinkInline(CompactInline):
    formfield_overrides = URL_FIELDS
    model = Link
    fields = ["position", "kind", "label", "url"]
    ordering = ["position", "pk"]


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


class MergeIntoTrackForm(forms.Form):
    track = forms.ModelChoiceField(
        queryset=Track.objects.order_by(Lower("name")),
        help_text="The track the selected features join: type to search by name or slug.",
    )

    class Media:
        js = ["releases/merge.js"]

    def __init__(self, *args, admin_site, **kwargs):
        super().__init__(*args, **kwargs)
        # The admin's own searchable picker (select2), fed by the track list's search.
        field = self.fields["track"]
        field.widget = AutocompleteSelect(Feature._meta.get_field("track"), admin_site)
        field.widget.choices = field.choices


class ImportPostForm(forms.Form):
    """A release post, uploaded or pasted, read by the same parser as `import_post`."""

    post_file = forms.FileField(
        required=False,
        label="Post file",
        help_text="A markdown post with Jekyll front matter, as in the blog's _posts folder.",
    )
    post_text = forms.CharField(
        required=False,
        label="Or paste the post",
        widget=forms.Textarea(attrs={"rows": 12, "cols": 90}),
        strip=False,
    )
    file_name = forms.CharField(
        required=False,
        max_length=255,
        label="File name",
        help_text="For pasted text: the post's file name, whose date Jekyll reads "
        "(2031-5-6-pytorch-7-1.md). Optional.",
    )

    def clean(self):
        data = super().clean()
        upload, text = data.get("post_file"), data.get("post_text") or ""
        if upload and text.strip():
            raise ValidationError("Give a file or pasted text, not both.")
        if upload:
            if upload.size > MAX_POST_BYTES:
                raise ValidationError(
                    f"{upload.name}: larger than {MAX_POST_BYTES // (1024 * 1024)} MiB, the "
                    "most a post may be."
                )
            self.source_name = upload.name
            try:
                text = decode(upload.read())
            except PostError as error:
                raise ValidationError(self.where(error.line, error.message)) from None
        elif text.strip():
            self.source_name = data.get("file_name") or "pasted post"
            if len(text.encode("utf-8")) > MAX_POST_BYTES:
                raise ValidationError("The text is larger than a post may be (2 MiB).")
        else:
            raise ValidationError("Choose a post file or paste a post.")
        self.post_text = text
        try:
            self.parsed = parse_post(text, filename=data.get("file_name") or self.source_name)
        except PostError as error:
            raise ValidationError(self.where(error.line, error.message)) from None
        if not self.parsed.version:
            raise ValidationError(
                self.where(2, "cannot tell the version from the title: put it in the title")
            )
        return data

    def where(self, line, message):
        name = getattr(self, "source_name", "the post")
        return f"{name}, line {line}: {message}" if line else f"{name}: {message}"


class AreaAliasInline(VersionedAdminMixin, admin.TabularInline):
    model = AreaAlias
    extra = 0


class CatalogAdmin(VersionedAdminMixin, SimpleHistoryAdmin):
    """
    An admin with the object's history: each change with who made it and what it changed, a
    link to compare any version with another, and simple-history's revert.
    """

    history_list_display = ["compare"]

    def get_changelist_form(self, request, **kwargs):
        # The list's editable rows carry their versions too (change_list_results.html).
        kwargs.setdefault("form", VersionedForm)
        return super().get_changelist_form(request, **kwargs)

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        compare = path(
            "<path:object_id>/history/compare/",
            self.admin_site.admin_view(self.compare_view),
            name="{}_{}_compare".format(*info),
        )
        return [compare, *super().get_urls()]

    def checked_id(self, object_id):
        """The primary key an admin URL names, or a 404 (never a 500) for one it cannot be."""
        try:
            return self.opts.pk.to_python(unquote(object_id))
        except (ValidationError, ValueError):
            raise Http404(f"No {self.opts.verbose_name} with the id {object_id!r}.") from None

    def history_view(self, request, object_id, extra_context=None):
        self.checked_id(object_id)
        return super().history_view(request, object_id, extra_context)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        self.checked_id(object_id)
        if not version_id.isascii() or not version_id.isdigit():
            raise Http404(f"No version {version_id!r}.")
        # A revert checks the version it was read at, as a change does: in one transaction.
        with transaction.atomic(using=self.model._base_manager.db):
            return super().history_form_view(request, object_id, version_id, extra_context)

    @admin.display(description="compare")
    def compare(self, record):
        url = reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_compare", args=[record.id]
        )
        return format_html('<a href="{}?a={}">compare…</a>', url, record.history_id)

    def compare_view(self, request, object_id):
        """Two versions of one object side by side, the fields that differ marked."""
        object_id = self.checked_id(object_id)
        records = list(self.model.history.filter(id=object_id).order_by("-history_date", "-pk"))
        if not records:
            raise Http404
        obj = records[0].instance
        if not self.has_view_history_or_change_history_permission(request, obj):
            raise PermissionDenied
        by_id = {str(record.history_id): record for record in records}
        older = by_id.get(request.GET.get("a", ""), records[min(1, len(records) - 1)])
        newer = by_id.get(request.GET.get("b", ""), records[0])
        if older == newer and "b" not in request.GET and len(records) > 1:
            # "compare…" on the newest version: with the one before it.
            older = records[min(records.index(newer) + 1, len(records) - 1)]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Compare versions of {obj}",
            "object": obj,
            "records": records,
            "older": older,
            "newer": newer,
            "rows": history.field_rows(older, newer),
        }
        return TemplateResponse(request, "admin/releases/history_compare.html", context)


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
    list_filter = ["is_published"]
    search_fields = ["version", "title", "summary"]
    ordering = NEWEST_FIRST
    date_hierarchy = "release_date"
    readonly_fields = ["is_published", "feature_list", "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["version", "title", "release_date", "is_published", "feature_list"]}),
        ("Sources", {"fields": ["announcement_url", "release_notes_url"]}),
        ("In our words", {"fields": ["summary", "highlights"]}),
        ("Figures", {"fields": ["commit_count", "contributor_count"]}),
        ("History", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]
    # No inline of features: a release may have thousands (a 5,000-row inline took 45 s and
    # overflowed DATA_UPLOAD_MAX_NUMBER_FIELDS); they are worked in the feature list.
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
        rows = [(release, publishing.checklist(release)) for release in releases]
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


@admin.register(Feature)
class FeatureAdmin(CatalogAdmin):
    change_list_template = "admin/releases/feature/change_list.html"
    list_display = [
        "feature_title",
        "release_version",
        "stability",
        "area",
        "link_count",
        "missing_link_count",
        "needs_approval",
    ]
    # Only choice fields: a foreign key here would query its options once per row.
    list_editable = ["stability"]
    list_filter = [
        ("release", admin.RelatedOnlyFieldListFilter),
        "stability",
        "stage_source",
        ("area", admin.RelatedOnlyFieldListFilter),
        HasMissingLinksFilter,
        MissingFilter,
        "needs_approval",
    ]
    list_select_related = ["release", "area"]
    search_fields = ["title", "slug", "summary", "release__version", "track__name"]
    ordering = FEATURES_NEWEST_FIRST
    autocomplete_fields = ["release", "area", "track"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["track_timeline", "created_at", "updated_at"]
    fields = [
        "release",
        "title",
        "slug",
        "stability",
        "stage_source",
        "area",
        "position",
        "track",
        "track_timeline",
        "summary",
        "needs_approval",
        "created_at",
        "updated_at",
    ]
    inlines = [LinkInline]
    actions = [
        "mark_stable",
        "mark_beta",
        "mark_prototype",
        "clear_stability",
        "approve",
        "merge_into_track",
        "split_into_own_track",
        "delete_draft_features",
    ]

    @admin.display(description="title", ordering=Lower("title"))
    def feature_title(self, feature):
        return feature.title

    @admin.display(description="release", ordering="release_version_key")
    def release_version(self, feature):
        return feature.release.version

    @admin.display(description="timeline")
    def track_timeline(self, feature):
        if feature.pk is None:
            return "Saved features show their track's timeline here."
        appearances = feature.track.features.select_related("release").oldest_first()
        rows = (
            (
                appearance.release.version,
                appearance.get_stability_display() or "no stability",
                appearance.title,
                " (this feature)" if appearance.pk == feature.pk else "",
            )
            for appearance in appearances
        )
        return format_html("<ol>{}</ol>", format_html_join("", "<li>{}: {} — {}{}</li>", rows))

    def save_model(self, request, obj, form, change):
        # A stability an editor sets is the editor's, unless they also said where it is from.
        if "stability" in form.changed_data and "stage_source" not in form.changed_data:
            obj.stage_source = StageSource.EDITOR if obj.stability else ""
        super().save_model(request, obj, form, change)

    def has_merge_permission(self, request):
        """Merging moves features between tracks and deletes the tracks it leaves empty."""
        needed = ["change_feature", "change_track", "delete_track"]
        return request.user.has_perms([f"releases.{codename}" for codename in needed])

    def has_split_permission(self, request):
        """Splitting creates a track per feature and deletes the tracks it leaves empty."""
        needed = ["change_feature", "add_track", "delete_track"]
        return request.user.has_perms([f"releases.{codename}" for codename in needed])

    @admin.action(description="Merge into track…", permissions=["merge"])
    def merge_into_track(self, request, queryset):
        queryset = queryset.select_related("release", "track")
        form = MergeIntoTrackForm(
            request.POST if "apply" in request.POST else None, admin_site=self.admin_site
        )
        if form.is_valid():
            into = form.cleaned_data["track"]
            try:
                with acting_as(f"merged into track {into.slug}", request.user):
                    emptied = tracks.merge(queryset, into)
            except tracks.CannotMerge as error:
                self.message_user(request, str(error), messages.ERROR)
                return None
            except writes.StaleEdit as stale:
                self.message_user(request, self.stale_message(stale, "merged"), messages.ERROR)
                return None
            for feature in queryset:
                self.log_change(request, feature, f"Merged into track {into}.")
            gone = (
                f"; deleted the emptied track(s) {', '.join(map(str, emptied))}" if emptied else ""
            )
            self.message_user(
                request, f"Moved {len(queryset)} feature(s) into {into}{gone}.", messages.SUCCESS
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Merge into track",
            "features": queryset,
            "form": form,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/releases/feature/merge_into_track.html", context)

    @admin.action(description="Split into its own track", permissions=["split"])
    def split_into_own_track(self, request, queryset):
        features = list(queryset.select_related("release", "area"))
        try:
            with acting_as("split into its own track", request.user):
                tracks.split(features)
        except writes.StaleEdit as stale:
            self.message_user(request, self.stale_message(stale, "split"), messages.ERROR)
            return
        for feature in features:
            self.log_change(request, feature, f"Split into its own track {feature.track}.")
        self.message_user(
            request, f"Gave {len(features)} feature(s) a track of their own.", messages.SUCCESS
        )

    def stale_message(self, stale, verb):
        conflict = concurrency.conflict_since(
            stale.model, stale.pk, stale.read_version, stale.current_version
        )
        return f"Nothing was {verb}: another editor changed a feature meanwhile. " + (
            conflict.message().removeprefix("Not saved: ")
        )

    # --- deleting and retiring ------------------------------------------------------------------

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # replaced by delete_draft_features
        return actions

    @admin.action(description="Delete selected features of draft releases…", permissions=["delete"])
    def delete_draft_features(self, request, queryset):
        """The admin's own bulk deletion, with its confirmation, for drafts' features only."""
        published = queryset.filter(release__is_published=True).count()
        if published:
            self.message_user(
                request,
                f"{published} of the selected features belong to published releases: retire "
                "those one at a time, from each feature's page (Retire…).",
                messages.ERROR,
            )
            return None
        return delete_selected(self, request, queryset)

    def delete_view(self, request, object_id, extra_context=None):
        """A published feature is retired: the same confirmation, saying what it means."""
        feature = Feature.objects.filter(pk=self.checked_id(object_id)).select_related("release")
        feature = feature.first()
        if feature is not None and feature.release.is_published:
            extra_context = {**(extra_context or {}), "title": f"Retire {feature}?", "retire": True}
        return super().delete_view(request, object_id, extra_context)

    @admin.action(description="Approve (make public with their release)", permissions=["change"])
    def approve(self, request, queryset):
        with acting_as("approved in the admin", request.user):
            count = queryset.update(needs_approval=False)
        self.message_user(request, f"Approved {count} feature(s).", messages.SUCCESS)

    @staticmethod
    def record_id(request, name):
        value = request.POST.get(name, "")
        if not (value.isascii() and value.isdigit()):
            raise Http404(f"No deleted {name} {value!r}.")
        return int(value)

    def get_urls(self):
        recover = [
            path(
                "deleted/",
                self.admin_site.admin_view(self.deleted_view),
                name="releases_feature_deleted",
            ),
        ]
        return [*recover, *super().get_urls()]

    def deleted_view(self, request):
        """
        Deleted features, newest deletion first, each recovered with its links; and links and
        aliases deleted on their own, each recovered alone.
        """
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        may_recover = request.user.has_perms(["releases.add_feature", "releases.add_link"])
        may_recover_alias = request.user.has_perm("releases.add_areaalias")
        if request.method == "POST" and ("link" in request.POST or "alias" in request.POST):
            model = Link if "link" in request.POST else AreaAlias
            if not (may_recover if model is Link else may_recover_alias):
                raise PermissionDenied
            name = "link" if model is Link else "alias"
            record = get_object_or_404(
                recovery.deleted(model), history_id=self.record_id(request, name)
            )
            try:
                with acting_as("recovered in the admin", request.user):
                    obj = recovery.recover(record)
            except history.CannotRecover as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                self.log_addition(request, obj, "Recovered.")
                self.message_user(
                    request, f"Recovered {model._meta.verbose_name} {obj}.", messages.SUCCESS
                )
                return HttpResponseRedirect(request.path)
        elif request.method == "POST":
            if not may_recover:
                raise PermissionDenied
            record = get_object_or_404(
                Feature.history.filter(history_type="-"), history_id=request.POST.get("record", "")
            )
            try:
                with acting_as("recovered in the admin", request.user):
                    feature, links = history.recover_feature(record)
            except history.CannotRecover as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                self.log_addition(request, feature, "Recovered with its links.")
                self.message_user(
                    request, f"Recovered {feature} with {links} link(s).", messages.SUCCESS
                )
                return HttpResponseRedirect(
                    reverse("admin:releases_feature_change", args=[feature.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Deleted features, links and aliases",
            "records": history.deleted_features(),
            "links": recovery.deleted(Link).select_related("history_user")[:200],
            "aliases": recovery.deleted(AreaAlias).select_related("history_user")[:200],
            "may_recover": may_recover,
            "may_recover_alias": may_recover_alias,
        }
        return TemplateResponse(request, "admin/releases/feature/deleted.html", context)

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
        label = Stability(stability).label if stability else "no stability"
        with acting_as(f"marked {label} in the admin", request.user):
            count = queryset.update(
                stability=stability, stage_source=StageSource.EDITOR if stability else ""
            )
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


@admin.register(AreaAlias)
class AreaAliasAdmin(CatalogAdmin):
    """Aliases are edited inline on their area; this page holds their history."""

    list_display = ["name", "area"]
    list_select_related = ["area"]
    search_fields = ["name", "area__name"]
    ordering = [Lower("name")]
    autocomplete_fields = ["area"]


@admin.register(StageClaim)
class StageClaimAdmin(CatalogAdmin):
    """
    Stages a post states in prose. Pending claims change nothing: accepting one makes it an
    appearance of its track at that stage in its release; rejecting an accepted one takes
    that appearance back.
    """

    list_display = ["subject", "stability", "status", "release", "line", "track"]
    list_filter = ["status", ("release", admin.RelatedOnlyFieldListFilter), "stability"]
    list_select_related = ["release", "track"]
    search_fields = ["subject", "phrase", "track__name", "feature__title"]
    ordering = ["-release__version_key", "line", "subject"]
    autocomplete_fields = ["track", "feature"]
    readonly_fields = ["release", "subject", "stability", "phrase", "line", "status"]
    fields = [
        "release",
        "subject",
        "stability",
        "phrase",
        "line",
        "track",
        "feature",
        "status",
    ]
    actions = ["accept_claims", "reject_claims"]

    def has_add_permission(self, request):
        return False  # claims come from posts; an editor states a stage on the feature itself

    def _decide(self, request, queryset, decide, verb):
        done, refused = 0, []
        with acting_as(f"{verb} in the admin", request.user):
            for claim in queryset.select_related("release"):
                try:
                    decide(claim)
                    done += 1
                except stages.CannotDecide as error:
                    refused.append(str(error))
        if done:
            self.message_user(request, f"{verb.capitalize()} {done} claim(s).", messages.SUCCESS)
        for message in refused:
            self.message_user(request, message, messages.ERROR)

    @admin.action(description="Accept (an appearance at the claimed stage)", permissions=["change"])
    def accept_claims(self, request, queryset):
        self._decide(
            request, queryset.exclude(status=ClaimStatus.ACCEPTED), stages.accept, "accepted"
        )

    @admin.action(description="Reject", permissions=["change"])
    def reject_claims(self, request, queryset):
        self._decide(
            request, queryset.exclude(status=ClaimStatus.REJECTED), stages.reject, "rejected"
        )
