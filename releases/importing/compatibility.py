"""
Map what compatibility tables say (releases.importing.tables) onto the catalog, as changes for
an editor to review.

Editors own what they curate, so an import only adds: a platform, companion, patch or schedule
date the catalog lacks comes in waiting for review (``needs_review``: not public until an editor
keeps it); a release the catalog lacks comes in as a draft (planned, for one known only from
the schedule; without an announcement, for one older than the first announced). Where a table
says otherwise than the catalog — another cuDNN, another pairing, a Python version the catalog
does not list or lists and the table does not — the import changes nothing and reports the
difference, with the table's line, for an editor to decide.

``plan()`` reads the catalog and validates every row it would write; ``Plan.apply()`` writes
them in one transaction through the catalog's write path, recorded as made by
``import_compatibility`` and the source. A second import of the same tables changes nothing.
"""

from dataclasses import dataclass, field

from django.db import transaction

from releases import versions, writes
from releases.importing.problems import DocumentProblem
from releases.importing.tables import Platforms, Supported
from releases.importing.validation import validate as checked
from releases.models import Companion, PatchRelease, Release, ScheduleDate, Support


class CompatibilityProblem(DocumentProblem):
    """A table that cannot be imported, or a row of it."""


@dataclass
class Plan:
    source: str  # the file or URL, as given
    source_url: str  # what rows record as their source ("" for a local file)
    releases: dict = field(default_factory=dict)  # version -> Release to create
    creations: list = field(default_factory=list)  # (line, object)
    differences: list = field(default_factory=list)  # (line, what differs)
    supports: dict = field(default_factory=dict)  # the supports it adds, per release

    @property
    def changes(self):
        return len(self.releases) + len(self.creations)

    def lines(self):
        """What the import would do, a line each, in the tables' order."""
        shown = [(0, f"new draft release {version}") for version in self.releases]
        shown += [(line, f"add {describe(obj)} (for review)") for line, obj in self.creations]
        shown += [(line, f"differs, kept as is: {text}") for line, text in self.differences]
        return [f"line {line}: {text}" if line else text for line, text in shown]

    def apply(self):
        if not self.changes:
            return
        with writes.acting_as(f"import_compatibility {self.source}"), transaction.atomic():
            for release in self.releases.values():
                release.save()
            for _, obj in self.creations:
                obj.save()  # a new release, saved above, gives its id to its rows here


def describe(obj):
    if isinstance(obj, Release):
        return f"release {obj.version}"
    if isinstance(obj, Support):
        extra = f" ({obj.level})" if obj.level != "stable" else ""
        return f"{obj.release.version}: {obj.get_kind_display()} {obj.version}{extra}"
    if isinstance(obj, Companion):
        return f"torch {obj.torch_version}: {obj.library} {obj.version}"
    if isinstance(obj, PatchRelease):
        return f"patch release {obj.version} ({obj.release_date or 'no date'})"
    return f"{obj.release.version}: {obj.label()} on {obj.shown_date()}"


def plan(tables, source, source_url=""):
    """The Plan of importing ``tables`` (releases.importing.tables.Tables) read from ``source``."""
    if tables.problems:
        line, message = tables.problems[0]
        raise CompatibilityProblem(message, line)
    if tables.is_empty():
        raise CompatibilityProblem(
            "no compatibility table found (a matrix, CUDA architectures, cadence or pairings)"
        )
    planning = Plan(source=source, source_url=source_url)
    known = {release.version_key: release for release in Release.objects.all()}

    def release_of(version, line, **defaults):
        key = versions.Version.parse(version).key
        if key not in known:
            release = Release(version=version, title=f"PyTorch {version}", **defaults)
            validate(release, line)
            known[key] = planning.releases[version] = release
        return known[key]

    def sourced(obj, line):
        obj.source_url, obj.source_line, obj.needs_review = source_url, line, True
        validate(obj, line)
        planning.creations.append((line, obj))

    # A release only these tables know is planned until a table shows it shipped (a pairing
    # with its date), and then one older than the announcements.
    for row in tables.platforms + merged(tables.architectures):
        release = release_of(row.release, row.line, planned=True)
        plan_supports(release, row, sourced, planning)
    for row in tables.schedule:
        release = release_of(row.release, row.line, planned=True)
        planned = next((date for date in row.dates if date.kind == "release"), None)
        if release.pk is None and release.release_date is None and planned:
            release.release_date = planned.date
        plan_schedule(release, row, sourced, planning)
    shipped = set()
    for row in sorted(tables.pairings, key=lambda r: versions.Version.parse(r.torch_version).key):
        version = versions.Version.parse(row.torch_version)
        minor = f"{version.major}.{version.minor}"
        # A new release is dated by its earliest row: X.Y.0, or its first patch where the
        # table has no X.Y.0 (0.1.1 is the first 0.1 it lists).
        release = release_of(minor, row.line)
        if release.pk is None and minor not in shipped:  # its earliest row: X.Y.0, or 0.1.1
            shipped.add(minor)
            release.planned, release.announced = False, False
            release.release_date = row.release_date
        plan_pairing(release, row, sourced, planning)
    return planning


def merged(architectures):
    """One row of architectures per release, whatever the number of tables (one per build)."""
    rows = {}
    for row in architectures:
        into = rows.setdefault(row.release, Platforms(release=row.release, line=row.line))
        held = {support.version: support for support in into.supports}
        for support in row.supports:
            if support.version in held:  # "Hopper; Linux x86: CUDA 12.6" + "; Linux aarch64: ..."
                name, _, builds = support.detail.partition("; ")
                kept = held[support.version]
                kept.detail += (
                    f"; {builds}" if kept.detail.startswith(f"{name}; ") else f"; {support.detail}"
                )
            else:
                into.supports.append(Supported(**vars(support)))
    return list(rows.values())


def validate(obj, line):
    checked(obj, line, CompatibilityProblem, describe, exclude=["release"])


def existing(release, related):
    return list(getattr(release, related).all()) if release.pk else []


def plan_supports(release, row, sourced, planning):
    held = {(s.kind, s.version): s for s in existing(release, "supports")}
    kinds = {supported.kind for supported in row.supports}
    read = {(s.kind, s.version): s for s in row.supports}
    added = planning.supports.setdefault(id(release), {})  # this import's, by key
    for key, supported in read.items():
        current = held.get(key)
        if current is None and key in added:  # two tables of one import: one row
            if supported.detail and supported.detail not in added[key].detail:
                added[key].detail = f"{added[key].detail}; {supported.detail}"
            continue
        if current is None:
            values = {**vars(supported), "level": supported.level or "stable"}
            added[key] = Support(release=release, **values)
            sourced(added[key], row.line)
            continue
        for name in ("level", "cudnn", "nccl"):
            if getattr(supported, name) and getattr(current, name) != getattr(supported, name):
                planning.differences.append(
                    (
                        row.line,
                        f"{release.version} {current.get_kind_display()} {current.version}: "
                        f"{name} {getattr(supported, name)} here, "
                        f"{getattr(current, name) or 'none'} in the catalog",
                    )
                )
    for (kind, version), current in held.items():
        if kind in kinds and (kind, version) not in read:
            planning.differences.append(
                (
                    row.line,
                    f"{release.version} {current.get_kind_display()} {version} is in the "
                    "catalog but not in this table",
                )
            )


def plan_schedule(release, row, sourced, planning):
    held = {(d.kind, d.number): d for d in existing(release, "schedule")}
    for date in row.dates:
        current = held.get((date.kind, date.number))
        if current is None:
            sourced(
                ScheduleDate(
                    release=release,
                    kind=date.kind,
                    number=date.number,
                    date=date.date,
                    precision=date.precision,
                    tentative=date.tentative,
                ),
                row.line,
            )
        elif (current.date, current.precision) != (date.date, date.precision):
            planning.differences.append(
                (
                    row.line,
                    f"{release.version} {current.label()}: {date.date} ({date.precision}) "
                    f"here, {current.shown_date()} in the catalog",
                )
            )


def plan_pairing(release, row, sourced, planning):
    version = versions.Version.parse(row.torch_version)
    if version.micro:
        patches = {p.version: p for p in existing(release, "patches")}
        current = patches.get(row.torch_version)
        if current is None:
            sourced(
                PatchRelease(
                    release=release, version=row.torch_version, release_date=row.release_date
                ),
                row.line,
            )
        elif row.release_date and current.release_date != row.release_date:
            planning.differences.append(
                (
                    row.line,
                    f"{row.torch_version}: released {row.release_date} here, "
                    f"{current.release_date} in the catalog",
                )
            )
    elif row.release_date and release.pk and release.release_date != row.release_date:
        planning.differences.append(
            (
                row.line,
                f"{release.version}: released {row.release_date} here, "
                f"{release.release_date} in the catalog",
            )
        )
    paired = {
        (c.torch_version, c.library): c
        for c in Companion.objects.filter(torch_version=row.torch_version)
    }
    for library, companion_version in row.companions.items():
        current = paired.get((row.torch_version, library))
        if current is None:
            sourced(
                Companion(
                    release=release,
                    torch_version=row.torch_version,
                    library=library,
                    version=companion_version,
                ),
                row.line,
            )
        elif current.version != companion_version:
            planning.differences.append(
                (
                    row.line,
                    f"torch {row.torch_version}: {library} {companion_version} here, "
                    f"{current.version} in the catalog",
                )
            )
