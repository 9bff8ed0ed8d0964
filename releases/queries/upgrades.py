"""
The upgrade notes' lists (issue 33): ``/api/upgrade/`` and ``/upgrade/``, bounded by ``from``
and ``to``, and ``/deprecations/``. Their parameters, declared once, as for every other list
(releases.queries.filtersets).
"""

from releases.models import UpgradeKind, UpgradeNote
from releases.queries.filters import (
    APIPrefixFilter,
    CatalogFilterSet,
    ChoiceListFilter,
    PublishedVersionFilter,
    StrictForm,
    VersionListFilter,
    updated_since_filter,
)
from releases.queries.forms import to_after_from


def upgrade_areas():
    """The areas of the published upgrade notes, as ?area= names them."""
    notes = UpgradeNote.objects.published().order_by("area_slug")
    return notes.values_list("area_slug", flat=True).distinct()


class UpgradeQueryForm(StrictForm):
    def clean(self):
        return to_after_from(self, super().clean())


class UpgradeFilterSet(CatalogFilterSet):
    """
    Upgrade notes: ``from`` and ``to`` (declared below, as ``from`` is a Python keyword) bound
    the releases, the rest narrow the notes.
    """

    form_base = UpgradeQueryForm

    kind = ChoiceListFilter(
        allowed=UpgradeKind.values,
        help_text="bc-breaking, removal or deprecation, or several comma-separated.",
    )
    area = ChoiceListFilter(
        field_name="area_slug",
        allowed=upgrade_areas,
        help_text="The release notes' area, as a slug (onnx, torch-nn; general for notes under "
        "no area), or several comma-separated.",
    )
    api = APIPrefixFilter(
        help_text="Notes naming an API that begins with this, in any case: torch.onnx finds "
        "everything about the ONNX exporter, torch.load the notes on torch.load."
    )
    release = VersionListFilter(
        field_name="release_version_key",
        help_text="Notes of this release; several comma-separated or repeated.",
    )
    updated_since = updated_since_filter()

    class Meta:
        model = UpgradeNote
        fields = []


UpgradeFilterSet.base_filters = {
    "from": PublishedVersionFilter(
        field_name="release_version_key",
        lookup="gt",
        help_text="The version you run, e.g. 2.5: notes of the releases after it.",
    ),
    "to": PublishedVersionFilter(
        field_name="release_version_key",
        lookup="lte",
        help_text="The version you upgrade to, e.g. 2.14: notes of the releases up to it.",
    ),
    **UpgradeFilterSet.base_filters,
}


class StillPresentFilter(PublishedVersionFilter):
    """Deprecations made at or before the version and not removed by it."""

    def filter(self, qs, value):
        return qs.still_present_in(value) if value else qs


class DeprecationFilterSet(CatalogFilterSet):
    area = ChoiceListFilter(
        field_name="area_slug",
        allowed=upgrade_areas,
        help_text="The release notes' area, as a slug (onnx, torch-nn), or several.",
    )
    api = APIPrefixFilter(help_text="Deprecations naming an API that begins with this.")
    present_in = StillPresentFilter(
        help_text="Only what is deprecated but still there in this version (e.g. 2.12)."
    )

    class Meta:
        model = UpgradeNote
        fields = []
