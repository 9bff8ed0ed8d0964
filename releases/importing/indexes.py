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
import re
import urllib.parse
from dataclasses import dataclass, field

import httpx
from django.db import transaction
from django.utils import timezone

from releases import versions, writes
from releases.importing import lease, simple_index
from releases.importing.download import ACCEPT_ENCODING
from releases.importing.watch import MAX_REDIRECTS, FetchError, fetch
from releases.models import (
    DEFAULT_VARIANT,
    Companion,
    Evidence,
    IndexPage,
    IndexSync,
    PatchRelease,
    Release,
    Wheel,
)
from releases.models.compat import Platform

# torch's page on the main index is about 1 MiB of JSON; each variant's, less.
MAX_PAGE_BYTES = 32 * 1024 * 1024
LEASE = dt.timedelta(minutes=15)
SYNC_NAME = "index"
TORCH = "torch"
# Rows written a transaction at a time are few; created rows go in batches of this many.
BATCH = 500
# Companion versions whose metadata a run reads, a package each; a core metadata file's limit.
PINS_PER_RUN = 20
EXACT_PIN = re.compile(r"==(?P<version>[0-9]+\.[0-9]+\.[0-9]+)")
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


def plural(count, noun):
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


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


# --- what the pages say --------------------------------------------------------------------


@dataclass
class TorchVersion:
    """One final torch version, from every page that lists it."""

    version: versions.Version
    first_upload: dt.datetime | None = None
    yanked: bool = False
    yanked_reason: str = ""
    builds: dict = field(default_factory=dict)  # (variant, platform, python) -> page URL


def torch_versions(read, run):
    """{Version: TorchVersion} of the torch pages read (pages that answered 304 aside)."""
    found, garbled, foreign = {}, set(), set()
    for done in read:
        page, project = done.page, done.project
        if page.package != TORCH or project is None:
            continue
        finals, bad = simple_index.final_versions(project)
        garbled.update(bad)
        for public, facts in finals.items():
            try:
                version = versions.Version.parse(str(public))
            except versions.InvalidVersion:
                foreign.add(str(public))  # 0.1.2.post1: not a version the catalog spells
                continue
            entry = found.setdefault(version, TorchVersion(version))
            upload = facts.first_upload
            if upload and (entry.first_upload is None or upload < entry.first_upload):
                entry.first_upload = upload
            if page.variant == DEFAULT_VARIANT:
                entry.yanked, entry.yanked_reason = facts.yanked, facts.yanked_reason
            for file in facts.files:
                add_builds(entry, page, file, garbled)
    if garbled:
        run.notes.append(f"{plural(len(garbled), 'file name')} not understood, left out")
    if foreign:
        run.notes.append(
            f"versions the catalog does not spell, left out: {', '.join(sorted(foreign))}"
        )
    return found


def add_builds(entry, page, file, garbled):
    try:
        wheel = simple_index.built(file.filename)
    except ValueError:
        garbled.add(file.filename)
        return
    if wheel is None:
        return  # an sdist
    variant = wheel.variant or page.variant
    for platform in wheel.platforms:
        if platform not in Platform.values:
            continue  # a pure-Python wheel (any), or a platform the catalog does not name
        for python in wheel.pythons:
            entry.builds.setdefault((variant[:20], platform, python), page.url)


def apply(read, now, run):
    """Write what the pages say, where the catalog does not say it yet."""
    found = torch_versions(read, run)
    releases = {release.version_key: release for release in Release.objects.all()}
    patches = {row.version: row for row in PatchRelease.objects.all()}
    for version in sorted(found):  # oldest first: a minor's first version dates it
        minor = versions.Version(version.major, version.minor)
        release = releases.get(minor.key)
        facts = found[version]
        if release is None:
            release = new_release(minor, facts, now, run)
            releases[minor.key] = release
        elif release.planned or (release.release_date is None and facts.first_upload):
            ship(release, facts, run)
        if version.micro:
            patch(release, patches, facts, read_url(read), now, run)
    record_wheels(found, releases, now, run)
    record_companions(read, releases, now, run)


def read_url(read):
    """The main index's torch page: the source of the patches and releases it dates."""
    return next(
        (d.page.url for d in read if d.page.package == TORCH and d.page.variant == DEFAULT_VARIANT),
        "",
    )


def day_of(moment):
    return moment.astimezone(dt.UTC).date() if moment else None


def new_release(minor, facts, now, run):
    """A minor the catalog never heard of: released, with no announcement yet."""
    day = day_of(facts.first_upload)
    release = Release(
        version=str(minor.major) + "." + str(minor.minor),
        title=f"PyTorch {minor.major}.{minor.minor}",
        release_date=day,
        planned=False,
        announced=False,
        is_published=day is not None,
        sources_note="Known from the package index only: no announcement has been read yet.",
    )
    release.save()
    when = f"on {day.isoformat()}" if day else "(its day not given by the index: a draft)"
    run.changes.append(f"{release.version} found on the index, released {when}")
    return release


def ship(release, facts, run):
    """
    A planned release the index lists, or one out with no day yet: released, on the day of
    its first upload.
    """
    day = day_of(facts.first_upload)
    was_planned = release.planned
    release.planned = False
    release.title = release.title.removesuffix(" (planned)")
    if day:
        release.release_date = day
    release.save()
    when = f"on {day.isoformat()}" if day else "(its day not given by the index)"
    run.changes.append(
        f"{release.version} released {when}"
        if was_planned
        else f"{release.version} dated {day.isoformat()} (its first upload)"
    )


def patch(release, patches, facts, source_url, now, run):
    """
    Record a patch release (``patches``: those held, by version), or what changed of it: its
    day where unknown, its yank.
    """
    spelled = f"{facts.version.major}.{facts.version.minor}.{facts.version.micro}"
    day = day_of(facts.first_upload)
    row = patches.get(spelled)
    if row is None:
        row = PatchRelease(
            release=release,
            version=spelled,
            release_date=day,
            yanked=facts.yanked,
            yanked_reason=facts.yanked_reason[:300],
            source_url=source_url,
            read_at=now,
        )
        row.save()
        yanked = " (yanked)" if facts.yanked else ""
        when = day.isoformat() if day else "its day not given by the index"
        run.changes.append(f"patch {spelled} of {release.version}, {when}{yanked}")
        return
    changed = []
    if row.release_date is None and day:
        row.release_date = day
        changed.append(f"dated {day.isoformat()}")
    if (row.yanked, row.yanked_reason) != (facts.yanked, facts.yanked_reason[:300]):
        row.yanked, row.yanked_reason = facts.yanked, facts.yanked_reason[:300]
        changed.append("yanked" if facts.yanked else "no longer yanked")
    if changed:
        row.read_at = now
        row.save()
        run.changes.append(f"patch {spelled} {' and '.join(changed)}")


def record_wheels(found, releases, now, run):
    """Each build the pages list that the catalog has not recorded from an index yet."""
    held = {
        (torch_version, variant, platform, python): (pk, evidence)
        for pk, torch_version, variant, platform, python, evidence in Wheel.objects.values_list(
            "pk", "torch_version", "variant", "platform", "python", "evidence"
        )
    }
    listed, new, confirmed = set(), [], []
    for version, facts in found.items():
        spelled = f"{version.major}.{version.minor}.{version.micro}"
        release = releases[versions.Version(version.major, version.minor).key]
        for (variant, platform, python), url in sorted(facts.builds.items()):
            key = (spelled, variant, platform, python)
            listed.add(key)
            if key not in held:
                new.append(
                    Wheel(
                        release=release,
                        torch_version=spelled,
                        variant=variant,
                        platform=platform,
                        python=python,
                        evidence=Evidence.INDEX,
                        source_url=url,
                        read_at=now,
                    )
                )
            elif held[key][1] != Evidence.INDEX:
                confirmed.append((held[key][0], url))
    for row in new:
        row.prepare_save()
    for start in range(0, len(new), BATCH):
        Wheel.objects.bulk_create(new[start : start + BATCH])
    for pk, url in confirmed:  # an install command's wheel, now seen on its index
        row = Wheel.objects.get(pk=pk)
        row.evidence, row.source_url, row.read_at = Evidence.INDEX, url, now
        row.save()
    run.wheels = len(new)
    if confirmed:
        run.changes.append(f"{plural(len(confirmed), 'documented wheel')} now seen on an index")
    read_versions = {f"{v.major}.{v.minor}.{v.micro}" for v in found}
    gone = [
        key
        for key, (_pk, evidence) in held.items()
        if evidence == Evidence.INDEX and key[0] in read_versions and key not in listed
    ]
    if gone:
        run.notes.append(f"{plural(len(gone), 'recorded wheel')} no longer listed (kept)")


def record_companions(read, releases, now, run):
    """
    What each companion version states of itself: its Requires-Python, and the torch it
    requires. A pairing the catalog holds takes both (the editors' version stands); a version
    the catalog pairs with nothing, which requires exactly one torch the catalog holds,
    becomes that torch's pairing.
    """
    stated = {}
    for done in read:
        if done.page.package == TORCH or done.project is None:
            continue
        finals, _garbled = simple_index.final_versions(done.project)
        for public, facts in finals.items():
            key = (done.page.package, str(public))
            stated[key] = (facts.requires_python[:100], done.pins.get(str(public)), done.page.url)
    updated, paired = 0, []
    held = list(Companion.objects.filter(library__in={library for library, _v in stated}))
    for companion in held:
        python, pin, _url = stated.get((companion.library, companion.version), (None, None, ""))
        changed = python is not None and python != companion.requires_python
        changed |= bool(pin) and pin != companion.torch_requirement
        if changed:
            companion.requires_python = python if python is not None else companion.requires_python
            companion.torch_requirement = pin or companion.torch_requirement
            companion.read_at = now
            companion.save()
            updated += 1
    taken = {(c.torch_version, c.library) for c in held} | {(c.library, c.version) for c in held}
    for (library, version), (python, pin, url) in sorted(stated.items()):
        torch = exact_pin(pin)
        if torch is None or (library, version) in taken or (torch, library) in taken:
            continue
        release = releases.get(versions.Version(torch.major, torch.minor).key)
        if release is None:
            continue
        spelled = f"{torch.major}.{torch.minor}.{torch.micro}"
        Companion(
            release=release,
            torch_version=spelled,
            library=library,
            version=version,
            requires_python=python,
            torch_requirement=pin,
            source_url=url,
            read_at=now,
        ).save()
        taken |= {(spelled, library), (library, version)}
        paired.append(f"{library} {version} with torch {spelled}")
    if updated:
        run.changes.append(f"{plural(updated, 'companion version')} read from its own files")
    if paired:
        run.changes.append(f"paired {', '.join(paired)}")


def exact_pin(specifier):
    """The one torch version ``==2.5.1`` names; None for a range or nothing."""
    match = EXACT_PIN.fullmatch(specifier or "")
    if match is None:
        return None
    try:
        return versions.Version.parse(match["version"])
    except versions.InvalidVersion:
        return None
