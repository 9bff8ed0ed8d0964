"""
What shipped, from the package indexes: ``manage.py sync_index`` reads the project pages of
torch (on the main index and on each of PyTorch's per-variant indexes) and of its companion
libraries (on the main index), and records what they show:

- every final version of torch: a patch of a known release becomes a patch release, dated by
  its first upload (day precision, UTC); a yanked one is marked, with the index's reason;
- a minor whose first final version is on the index is released, on that day, whatever the
  schedule said; a minor the catalog never heard of becomes a release with no announcement
  yet (as 1.0 and 1.1 are), which the editors' desk lists;
- each torch wheel: its version, variant, platform and Python (``Wheel``);
- the Requires-Python of each companion version the catalog pairs.

Nothing is deleted because an index no longer lists it: the run says so instead. Editors'
dates stand: a date is written only where the catalog had none, or had only a planned one.

A run, safe to start from cron: it takes the sync's lease (one run at a time on every host
that shares the database), asks for each page conditionally (an unchanged page is a 304),
reads every page before it writes anything (an unreachable or garbled page leaves the catalog
unchanged, validators included), then writes what changed in one transaction through the
write path (history, the public log, a new revision), recorded as made by ``sync_index``. A
second run over the same pages changes nothing.
"""

import datetime as dt
import urllib.parse
from dataclasses import dataclass, field

import httpx
from django.db import transaction
from django.utils import timezone

from releases import writes
from releases.importing import lease, simple_index
from releases.importing.download import ACCEPT_ENCODING
from releases.importing.shipped import TORCH, apply, plural
from releases.importing.watch import MAX_REDIRECTS, FetchError, fetch
from releases.models import (
    DEFAULT_VARIANT,
    Companion,
    IndexPage,
    IndexSync,
)

# torch's page on the main index is about 1 MiB of JSON; each variant's, less.
MAX_PAGE_BYTES = 32 * 1024 * 1024
LEASE = dt.timedelta(minutes=15)
SYNC_NAME = "index"
# Companion versions whose metadata a run reads, a package each; a core metadata file's limit.
PINS_PER_RUN = 20
MAX_METADATA_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Page:
    """A project page to read: which package, on which variant's index, at which address."""

    package: str
    variant: str
    url: str


def project_url(root, package):
    return f"{root.rstrip('/')}/{package}/"


def pages(index_url, variant_indexes, packages):
    """torch on the main index and on every variant's; each other package on the main index."""
    found = [
        Page(package, DEFAULT_VARIANT, project_url(index_url, package)) for package in packages
    ]
    if TORCH in packages:
        found += [
            Page(TORCH, variant, project_url(root, TORCH))
            for variant, root in variant_indexes.items()
        ]
    return found


@dataclass
class Run:
    """What one run did: its summary line, the changes it made, and whether it failed."""

    busy: str = ""  # another run holds the sync: who
    failure: str = ""  # a page could not be read: which, and why
    pages: int = 0
    unchanged: int = 0  # pages that answered 304
    changes: list = field(default_factory=list)  # one line a change
    wheels: int = 0  # wheels recorded for the first time
    notes: list = field(default_factory=list)  # what the run noticed and did not change

    @property
    def failed(self):
        return bool(self.failure)

    def changed(self):
        """What the run changed, a line each."""
        wheels = [plural(self.wheels, "new wheel")] if self.wheels else []
        return self.changes + wheels

    def summary(self):
        if self.busy:
            return f"sync_index: another run is active ({self.busy}); this one did nothing."
        if self.failure:
            return f"sync_index: {self.failure}; the catalog is unchanged."
        read = f"{plural(self.pages, 'page')} read"
        if self.unchanged:
            read += f" ({self.unchanged} unchanged since the last run)"
        said = "; ".join(self.changed()) or "nothing changed"
        noticed = f"; noticed: {'; '.join(self.notes)}" if self.notes else ""
        return f"sync_index: {read}; {said}{noticed}."


# --- a run ---------------------------------------------------------------------------------


def sync(index_url, variant_indexes, packages, policy):
    """One run of the sync: a Run saying what it did."""
    run = Run()
    holder = lease.holder()
    state = lease.take(IndexSync, holder, LEASE, name=SYNC_NAME)
    if state is None:
        run.busy = lease.description(IndexSync, name=SYNC_NAME)
        return run
    try:
        read = read_pages(pages(index_url, variant_indexes, packages), policy, run)
        if not run.failure:
            with transaction.atomic(), writes.acting_as("sync_index"):
                now = timezone.now()
                apply(read, now, run)
                for done in read:
                    remember(done, now)
                if run.changes or run.wheels:
                    state.changes, state.changed_at = "\n".join(run.changed()), now
                state.read_at = now
    finally:
        lease.let_go(state, holder)
        state.checked_at, state.is_failing = timezone.now(), run.failed
        state.outcome = run.summary()[:500]
        state.save(
            update_fields=[
                "checked_at",
                "read_at",
                "is_failing",
                "outcome",
                "changes",
                "changed_at",
            ]
        )
    return run


@dataclass
class Read:
    """A page as read: its answer, its project (None for a 304), its companions' torch pins."""

    page: Page
    answer: object
    project: simple_index.Project | None
    pins: dict = field(default_factory=dict)  # version -> the specifier it requires of torch
    complete: bool = True  # every pin wanted was read: the page's validators may be kept


def read_pages(wanted, policy, run):
    """Every page (a Read each), with its companions' pins; run.failure at the first fault."""
    known = {page.url: page for page in IndexPage.objects.filter(url__in=[p.url for p in wanted])}
    pinned = dict(
        ((library, version), bool(requirement))
        for library, version, requirement in Companion.objects.values_list(
            "library", "version", "torch_requirement"
        )
    )
    read = []
    with httpx.Client(
        headers={
            "User-Agent": policy.user_agent,
            "Accept": simple_index.ACCEPT,
            "Accept-Encoding": ACCEPT_ENCODING,
        },
        timeout=policy.timeout,
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
    ) as client:
        for page in wanted:
            validators = {}
            if page.url in known and known[page.url].etag:
                validators["If-None-Match"] = known[page.url].etag
            if page.url in known and known[page.url].last_modified:
                validators["If-Modified-Since"] = known[page.url].last_modified
            try:
                answer = fetch(
                    client, page.url, policy, headers=validators, max_bytes=MAX_PAGE_BYTES
                )
                project = (
                    None
                    if answer.status == 304
                    else simple_index.parse_project(answer.body, answer.content_type, answer.url)
                )
            except FetchError as error:
                run.failure = f"unreachable: {error}"
                return []
            except simple_index.PageError as error:
                run.failure = f"{page.url}: not a project page: {error}"
                return []
            run.pages += 1
            run.unchanged += project is None
            done = Read(page, answer, project)
            if project is not None and page.package != TORCH:
                read_pins(client, policy, done, pinned, run)
            read.append(done)
    return read


def read_pins(client, policy, done, pinned, run):
    """
    The torch each companion version requires, from its core metadata (PEP 658), for the
    newest ``PINS_PER_RUN`` versions not pinned yet; the rest wait for the next run (the
    page's validators are not kept, so that it is read again).
    """
    finals, _garbled = simple_index.final_versions(done.project)
    wanting = [
        (version, facts)
        for version, facts in sorted(finals.items(), reverse=True)
        if not pinned.get((done.page.package, str(version)))
        and any(f.has_metadata for f in facts.files)
    ]
    done.complete = len(wanting) <= PINS_PER_RUN
    for version, facts in wanting[:PINS_PER_RUN]:
        file = next(f for f in facts.files if f.has_metadata)
        url = urllib.parse.urljoin(done.answer.url, file.url).split("#")[0] + ".metadata"
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            continue
        try:
            answer = fetch(client, url, policy, max_bytes=MAX_METADATA_BYTES)
        except FetchError as error:
            run.notes.append(f"{done.page.package} {version}'s metadata: {error}")
            done.complete = False
            continue
        done.pins[str(version)] = simple_index.requirement_on(answer.body, TORCH)[:100]


def remember(done, now):
    """Keep a page's validators for the next run's conditional request."""
    row, _ = IndexPage.objects.get_or_create(url=done.page.url)
    if done.answer.status != 304:
        validators = done.answer.headers if done.complete else {}
        row.etag = validators.get("etag", "")[:500]
        row.last_modified = validators.get("last-modified", "")[:100]
    row.read_at = now
    row.save()
