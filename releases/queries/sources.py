"""
Every source the catalog reads, as /sources/ lists it: each document or index a public row was
read from (a post, a release-notes file, a table, a package index), the commit it is pinned to
or the day it was read, what it gave (how many rows of each kind, for which releases), and the
disagreements between sources still open, so that a reader can judge each answer.

One grouped query per kind of row, whatever the catalog's size; drafts never count (each kind
is read through its own ``published()``).
"""

import re
from dataclasses import dataclass, field

from django.db.models import Count, Max

from releases import versions
from releases.models import (
    Companion,
    Feature,
    PatchRelease,
    ScheduleDate,
    Support,
    UpgradeNote,
    Wheel,
)
from releases.models.compat import Sourced

# (the rows, what a source gives of them) in the order a reader meets them.
SOURCED = (
    (Feature, "announced features and notices"),
    (UpgradeNote, "upgrade notes"),
    (Support, "supported versions"),
    (Companion, "companion pairings"),
    (PatchRelease, "patch releases"),
    (ScheduleDate, "schedule dates"),
    (Wheel, "published wheels"),
)
PINNED = re.compile(
    r"^https://github\.com/(?P<repo>[^/]+/[^/]+)/blob/(?P<ref>[^/]+)/(?P<path>[^#?]+)"
)
COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass
class Source:
    url: str
    repository: str = ""
    path: str = ""
    commit: str = ""  # the commit it is pinned to; "" where the URL names a branch or none
    branch: str = ""  # the branch a blob URL names instead of a commit
    read_at: object = None  # when a changing source (a package index) was last read
    gave: dict = field(default_factory=dict)  # what it gave -> how many rows
    releases: set = field(default_factory=set)

    @property
    def pinned(self):
        return bool(self.commit)

    @property
    def release_list(self):
        return sorted(self.releases, key=lambda version: versions.Version.parse(version).key)


def describe(url):
    """A Source for ``url``: its repository, path and commit where it is a GitHub blob URL."""
    source = Source(url)
    match = PINNED.match(url)
    if match:
        source.repository, source.path = match.group("repo"), match.group("path")
        ref = match.group("ref")
        if COMMIT.fullmatch(ref):
            source.commit = ref
        else:
            source.branch = ref
    return source


def catalog_sources():
    """Every source of a public row, pinned ones first, then by repository and URL."""
    found = {}
    for model, gives in SOURCED:
        sums = {"total": Count("pk")}
        if issubclass(model, Sourced):  # a table's row: when a changing source was last read
            sums["read"] = Max("read_at")
        rows = (
            model.objects.published()
            .exclude(source_url="")
            .order_by()
            .values("source_url", "release__version")
            .annotate(**sums)
        )
        for row in rows:
            url = row["source_url"]
            source = found[url] if url in found else found.setdefault(url, describe(url))
            source.gave[gives] = source.gave.get(gives, 0) + row["total"]
            source.releases.add(row["release__version"])
            read = row.get("read")
            if read and (source.read_at is None or read > source.read_at):
                source.read_at = read
    return sorted(
        found.values(),
        key=lambda source: (not source.pinned, source.repository or "~", source.url),
    )


@dataclass
class Dispute:
    release: str
    what: str
    says: str
    source_url: str


def open_disputes():
    """The public rows where another source says otherwise, newest release first."""
    disputes = []
    for model, _ in SOURCED:
        if not issubclass(model, Sourced):  # a feature has no dispute of its own
            continue
        for row in (
            model.objects.published().exclude(disputed="").select_related("release").order_by()
        ):
            disputes.append(Dispute(row.release.version, str(row), row.disputed, row.source_url))
    return sorted(
        disputes, key=lambda dispute: (-versions.Version.parse(dispute.release).key, dispute.what)
    )
