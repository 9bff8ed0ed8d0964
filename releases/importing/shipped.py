"""
What the package indexes' pages say, written into the catalog (``sync_index``'s second half;
releases/importing/indexes.py reads the pages): torch's final versions as releases and patch
releases, its wheels, and what companion versions state of themselves. Every write goes
through the write path, inside the run's transaction; editors' dates and pairings stand.
"""

import datetime as dt
import re
from dataclasses import dataclass, field

from releases import versions
from releases.importing import simple_index
from releases.models import (
    DEFAULT_VARIANT,
    Companion,
    Evidence,
    PatchRelease,
    Release,
    Wheel,
)
from releases.models.compat import Platform

TORCH = "torch"
# Created rows go in batches of this many.
BATCH = 500
EXACT_PIN = re.compile(r"==(?P<version>[0-9]+\.[0-9]+\.[0-9]+)")


def plural(count, noun):
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


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
    Wheel.objects.bulk_create(new, batch_size=BATCH)
    seen = Wheel.objects.in_bulk([pk for pk, _url in confirmed])
    for pk, url in confirmed:  # an install command's wheel, now seen on its index
        row = seen[pk]
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
