"""
The feature admin: the list with the editors' queues (missing links, no stage, no area of its
own, no summary); the change form with the feature's links inline and its track's timeline;
bulk stability and approval; merging features into a track and splitting them out of one
(releases.tracks); deleting drafts' features and retiring published ones; and the page where
deleted features, links and aliases are recovered.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.db.models.functions import Lower
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from releases import actions, concurrency, history, recovery, tracks, writes
from releases.admin.forms import URL_FIELDS, MergeIntoTrackForm, VersionedAdminMixin
from releases.admin.history import CatalogAdmin
from releases.importing.areas import UNFILED_AREA
from releases.models import FEATURES_NEWEST_FIRST, AreaAlias, Feature, Link, Stability, StageSource
from releases.writes import acting_as


@dataclass
class Deleted:
    """A table of the deleted page: its records, how each is shown, who may recover one."""

    field: str  # the POST field that names a record to recover
    noun: str
    plural: str
    heading: str
    columns: tuple
    button: str
    records: object  # those shown
    deleted: object  # where a POSTed record is looked up
    may_recover: bool
    name: Callable
    context: Callable
    recover: Callable  # record -> (object, log note, message, where to go; None: back)

    def rows(self):
        """(record, its name, its context, the URL of its history) for each record."""
        return [
            (record, self.name(record), self.context(record), history_url(record))
            for record in self.records
        ]


def history_url(record):
    opts = record.instance_type._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_history", args=[record.id])


def recover_with_links(record):
    """A deleted feature back, with the links deleted with it; then to its change page."""
    feature, links = history.recover_feature(record)
    where = reverse("admin:releases_feature_change", args=[feature.pk])
    return feature, "Recovered with its links.", f"Recovered {feature} with {links} link(s).", where


def recover_alone(record):
    """A link or an alias deleted on its own, back alone."""
    obj = recovery.recover(record)
    return obj, "Recovered.", f"Recovered {obj._meta.verbose_name} {obj}.", None


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

    def deleted_tables(self, request):
        """
        The deleted page's tables: features (each recovered with its links), and links and
        aliases deleted on their own (each recovered alone). Each names its POST field.
        """
        user = request.user
        return [
            Deleted(
                field="record",
                noun="feature",
                plural="features",
                heading="Features",
                columns=("Feature", "Release"),
                button="Recover with its links",
                records=history.deleted_features(),
                deleted=Feature.history.filter(history_type=actions.DELETED),
                may_recover=user.has_perms(["releases.add_feature", "releases.add_link"]),
                name=lambda record: record.title,
                context=lambda record: record.history_key[0],
                recover=recover_with_links,
            ),
            Deleted(
                field="link",
                noun="link",
                plural="links",
                heading="Links",
                columns=("Link", "Feature"),
                button="Recover link",
                records=recovery.deleted(Link).select_related("history_user")[:200],
                deleted=recovery.deleted(Link),
                may_recover=user.has_perms(["releases.add_feature", "releases.add_link"]),
                name=lambda record: f"{record.label}: {record.url or 'missing'}",
                context=lambda record: f"{record.history_key[1]} ({record.history_key[0]})",
                recover=recover_alone,
            ),
            Deleted(
                field="alias",
                noun="alias",
                plural="aliases",
                heading="Area aliases",
                columns=("Alias", "Area"),
                button="Recover alias",
                records=recovery.deleted(AreaAlias).select_related("history_user")[:200],
                deleted=recovery.deleted(AreaAlias),
                may_recover=user.has_perm("releases.add_areaalias"),
                name=lambda record: record.name,
                context=lambda record: record.history_refs["area"][0],
                recover=recover_alone,
            ),
        ]

    def deleted_view(self, request):
        """The deleted page: what was deleted, newest deletion first, and recovering it."""
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        tables = self.deleted_tables(request)
        if request.method == "POST":
            table = next((table for table in tables if table.field in request.POST), tables[0])
            if not table.may_recover:
                raise PermissionDenied
            return self.recover_deleted(request, table)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Deleted features, links and aliases",
            "tables": tables,
        }
        return TemplateResponse(request, "admin/releases/feature/deleted.html", context)

    def recover_deleted(self, request, table):
        """Recover the record ``table``'s field names; back to the page, or to the feature."""
        history_id = self.record_id(request, table.field)
        record = get_object_or_404(table.deleted, history_id=history_id)
        try:
            with acting_as("recovered in the admin", request.user):
                obj, note, message, where = table.recover(record)
        except history.CannotRecover as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(request.path)
        self.log_addition(request, obj, note)
        self.message_user(request, message, messages.SUCCESS)
        return HttpResponseRedirect(where or request.path)

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
