"""
CatalogAdmin, the base of every model admin here. It shows an object's history (who changed
what, and when, from django-simple-history) with a "compare…" link on each version, a page
comparing two versions field by field, and simple-history's revert, which checks the version
its form was read at as a change does. Its forms, and its list's editable rows, are
VersionedForms (releases.admin.forms).
"""

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from releases import outage
from releases.admin.forms import VersionedAdminMixin, VersionedForm
from releases.history import field_rows


class CatalogAdmin(VersionedAdminMixin, SimpleHistoryAdmin):
    """
    An admin with the object's history: each change with who made it and what it changed, a
    link to compare any version with another, and simple-history's revert.
    """

    history_list_display = ["compare"]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """
        A save the database refuses (a read-only disk, a database gone mid-request) is told as
        refused, never as "changed successfully": nothing was written (the admin saves in one
        transaction), and the form is shown again with the editor's input and the reason.
        """
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except outage.DATABASE_AWAY as error:
            if request.method != "POST":
                raise
            request.database_refused = outage.refused(error)
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        refused = getattr(request, "database_refused", None)
        if refused is None:
            return form

        def clean(self):
            super(refusing, self).clean()
            raise ValidationError(refused, code="database_refused")

        refusing = type(form.__name__, (form,), {"clean": clean})
        return refusing

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
            "rows": field_rows(older, newer),
        }
        return TemplateResponse(request, "admin/releases/history_compare.html", context)
