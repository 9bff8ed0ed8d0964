"""
Upgrading, for people: /upgrade/ (what may need a change in user code between two versions, as
a checklist: breaking changes, then removals, then deprecations, each by area), /deprecations/
(every deprecated API with its removal, or "not yet"), and a release's upgrade notes as a feed.
"""

import re

from django.db.models import Exists, OuterRef
from django.shortcuts import render

from releases.managers import KIND_COUNTS, version_bound
from releases.models import Release, UpgradeKind, UpgradeNote
from releases.pages.common import api_url, checks_query
from releases.queries import reading
from releases.queries.fields import APIPrefixField


def by_release(notes):
    """[(version, [notes])]: an API's history, oldest release first."""
    grouped = {}
    for note in notes:
        grouped.setdefault(note.release.version, []).append(note)
    return list(grouped.items())


def by_kind_and_area(notes):
    """
    [(kind, [(area, [notes])])]: the kinds in checklist order, areas by name, one area per
    slug (the notes of 2.5 write "mps" where later ones write "MPS"), named as first written.
    """
    grouped = {kind: {} for kind in UpgradeKind}
    for note in notes:
        areas = grouped[UpgradeKind(note.kind)]
        areas.setdefault(note.area_slug, (note.area_shown, []))[1].append(note)
    return [
        (kind, sorted(areas.values(), key=lambda item: item[0].lower()))
        for kind, areas in grouped.items()
        if areas
    ]


def by_release_kind_and_area(notes):
    """
    [(version, [(kind, [(area, [notes])])], count)]: a range's checklist release by release,
    oldest first (the order an upgrade crosses them), each with its breaking changes first,
    then removals, then deprecations, by area (by_kind_and_area).
    """
    return [(version, by_kind_and_area(items), len(items)) for version, items in by_release(notes)]


def area_choices(notes):
    """[(slug, name)] of the areas of ``notes``, one per slug, named as first written."""
    rows = notes.order_by("area_slug", "release_version_key").values_list("area_slug", "area")
    names = {}
    for slug, area in rows.distinct():
        names.setdefault(slug, area or "General")
    return list(names.items())


def uncovered(start, end):
    """The releases out between ``start`` (excluded) and ``end`` whose notes the catalog lacks."""
    releases = Release.objects.released().exclude(
        Exists(UpgradeNote.objects.published().filter(release=OuterRef("pk")))
    )
    if start:
        releases = releases.filter(version_bound(start, "gt"))
    if end:
        releases = releases.filter(version_bound(end, "lte"))
    return list(releases.oldest_first().values_list("version", flat=True))


@checks_query
def upgrade(request):
    """The checklist of upgrading ``from`` one version ``to`` another (or of an API: ``api``)."""
    releases = list(Release.objects.released().oldest_first())
    notes, asked = None, {}
    if request.GET:
        notes = list(reading.UPGRADES.filtered(request.GET, asked=asked))
    # The bounds as the query's form read them: versions.Version, parsed once.
    start, end = asked.get("from"), asked.get("to")
    # A range the notes do not cover says so: no notes is not "nothing breaks".
    missing = uncovered(start, end) if notes is not None and (start or end) else []
    return render(
        request,
        "pages/upgrade.html",
        {
            "releases": releases,
            "notes": notes,
            "releases_checklist": by_release_kind_and_area(notes or []),
            # An API's history, without a range: its notes release by release.
            "history": by_release(notes or []) if not (start or end) else None,
            "start": str(start or ""),
            "end": str(end or ""),
            "api": asked.get("api") or "",
            "uncovered": missing,
            "api_url": api_url("upgrade-list", request.GET or None),
        },
    )


@checks_query
def deprecations(request):
    """Every deprecated API: deprecated in, removed in (or not yet), what to use instead."""
    page = reading.DEPRECATIONS.for_request(request, size=100)
    return render(
        request,
        "pages/deprecations.html",
        {
            "page": page,
            "releases": list(Release.objects.released().oldest_first()),
            "areas": area_choices(UpgradeNote.objects.published().deprecations()),
            "chosen_area": request.GET.get("area", ""),
            "present_in": request.GET.get("present_in", ""),
            "api": request.GET.get("api", ""),
            "api_url": api_url("upgrade-list", {"kind": "deprecation"}),
        },
    )


def upgrading_to(release):
    """
    What a release page says of upgrading to it, from its ``upgrading_annotations()``: the
    previous release (the ``from`` of its checklist) and how many notes of each kind it has.
    """
    counts = [(kind, getattr(release, KIND_COUNTS[kind])) for kind in UpgradeKind]
    return {
        "previous": release.previous_version,
        "counts": [(kind, total) for kind, total in counts if total],
    }


def notes_of_track(track):
    """The published upgrade notes about a track, oldest release first: one query."""
    notes = UpgradeNote.objects.published().filter(track=track).select_related("release")
    return list(notes.checklist_order())


def naming_count(search):
    """How many published notes name an API beginning with ``search`` (None for a phrase)."""
    if not re.fullmatch(APIPrefixField.PATTERN, search) or " " in search:
        return None
    return UpgradeNote.objects.published().naming(search).count()
