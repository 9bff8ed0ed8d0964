"""
What was published, from the wheels the catalog recorded (``Wheel``): a release's wheels by
torch version, whether a wheel exists for one combination (torch, Python, OS, architecture,
variant) and the nearest that does, and where the tables and the wheels disagree on Python.
The API (/api/check/, a release's item), the pages and the desk read it here; the install
commands built on it are releases.queries.install's.
"""

from dataclasses import dataclass

from django import forms

from releases import versions
from releases.models import (
    DEFAULT_VARIANT,
    PLATFORM_PARTS,
    Evidence,
    Release,
    Support,
    Wheel,
)
from releases.models.compat import VARIANT_PATTERN, number_key
from releases.queries.fields import OneOfField, PatternField, PlatformVersionField

# /api/check/'s verdict on a build: a wheel was published for it, none was, or none recorded.
PUBLISHED_VERDICTS = ("published", "not_published", "unknown")
OSES = sorted({os for os, _arch in PLATFORM_PARTS.values()})
ARCHES = sorted({arch for _os, arch in PLATFORM_PARTS.values()})


class VariantField(PatternField):
    """A wheel variant as its index names it: cpu, cu124, rocm6.2, xpu, default."""

    PATTERN = VARIANT_PATTERN
    MESSAGE = "Not a variant such as cpu, cu124, rocm6.2 or xpu"


class BuildForm(forms.Form):
    """What names one build: the parameters /api/check/ and /api/install/ share."""

    python = PlatformVersionField(required=False, help_text="A Python version: 3.13 (3.13t).")
    os = OneOfField(
        required=False, allowed=OSES, help_text=f"An operating system: {', '.join(OSES)}."
    )
    arch = OneOfField(
        required=False, allowed=ARCHES, help_text=f"An architecture: {', '.join(ARCHES)}."
    )
    variant = VariantField(
        required=False,
        help_text=f"A wheel variant: cpu, cu124, rocm6.2, xpu; {DEFAULT_VARIANT} for the main "
        "index's own wheels.",
    )


@dataclass
class Build:
    """One combination asked about; each part None when not given."""

    python: str | None = None
    os: str | None = None
    arch: str | None = None
    variant: str | None = None

    @classmethod
    def of(cls, data):
        return cls(*(data.get(name) or None for name in ("python", "os", "arch", "variant")))

    @property
    def given(self):
        return any((self.python, self.os, self.arch, self.variant))

    def matches(self, wheel):
        os, arch = PLATFORM_PARTS[wheel.platform]
        return (
            (self.variant is None or wheel.variant == self.variant)
            and (self.os is None or os == self.os)
            and (self.arch is None or arch == self.arch)
            and (self.python is None or wheel.python in ("", self.python))
        )

    def describe(self):
        parts = [
            f"variant {self.variant}" if self.variant else "",
            f"Python {self.python}" if self.python else "",
            "-".join(p for p in (self.os, self.arch) if p),
        ]
        return ", ".join(p for p in parts if p) or "any build"


def built_for(build):
    """
    Without a torch: the torch versions with a wheel published for ``build`` (an OS, an
    architecture, a variant, a Python), newest first, as the package indexes list them (one
    query); None when no part of a build is given.
    """
    if not build.given:
        return None
    rows = Wheel.objects.published().filter(release__planned=False)
    if build.variant:
        rows = rows.filter(variant=build.variant)
    found = {
        w.torch_version: w.torch_version_key for w in rows.only(*WHEEL_FIELDS) if build.matches(w)
    }
    ordered = sorted(found, key=found.get, reverse=True)
    return {"for": build.describe(), "torch": ordered, "newest": ordered[0] if ordered else None}


WHEEL_FIELDS = ("torch_version", "torch_version_key", "platform", "variant", "python")


def summary(wheels):
    """
    A release's wheels, one entry a torch version (oldest first): its Pythons, platforms and
    variants, and where each fact was read. ``wheels`` are a release's public wheels, in order.
    """
    found = {}
    for wheel in wheels:
        entry = found.setdefault(
            wheel.torch_version,
            {
                "version": wheel.torch_version,
                "python": {},
                "platforms": {},
                "variants": {},
                "sources": {},
            },
        )
        if wheel.python:
            entry["python"][wheel.python] = wheel.python_key
        entry["platforms"][wheel.platform] = None
        entry["variants"][wheel.variant] = None
        entry["sources"][(wheel.source_url, wheel.evidence)] = wheel.read_at
    return [
        {
            "version": entry["version"],
            "python": sorted(entry["python"], key=entry["python"].get),
            "platforms": sorted(entry["platforms"]),
            "variants": sorted(entry["variants"], key=variant_order),
            "sources": [
                {"url": url, "evidence": evidence, "read_at": read_at}
                for (url, evidence), read_at in entry["sources"].items()
            ],
        }
        for entry in found.values()
    ]


def variant_order(variant):
    """default first, then cpu, then the accelerators by name."""
    return (variant != DEFAULT_VARIANT, variant != "cpu", variant)


def release_of(torch):
    """The released minor of ``torch`` (2.5 of 2.5.1), as the public sees it; None if none."""
    version = versions.Version.parse(torch)
    return Release.objects.released().of_version(f"{version.major}.{version.minor}").first()


def of_torch(release, torch):
    """
    (every public wheel of ``release``, those of ``torch``: a patch's own, or for a minor
    every version's), in one query.
    """
    rows = list(Wheel.objects.published().filter(release=release))
    version = versions.Version.parse(torch)
    if not version.names_patch:
        return rows, rows
    exact = f"{version.major}.{version.minor}.{version.micro}"
    return rows, [w for w in rows if w.torch_version == exact]


def published(release, torch, build):
    """
    Whether a wheel of ``torch`` (a minor: any of its versions) was published for ``build``:
    a verdict (published, not_published, unknown), its reason, the wheels that match, and the
    nearest combinations that have one.
    """
    rows, of_version = of_torch(release, torch)
    what = f"torch {torch}"
    if not of_version:
        return {
            "verdict": "unknown",
            "reason": f"The catalog has recorded no wheel of {what}.",
            "wheels": [],
            "nearest": [],
        }
    matching = [w for w in of_version if build.matches(w)]
    if matching:
        measured = [w for w in matching if w.evidence == Evidence.INDEX]
        how = "read from the package index" if measured else "documented by an install command"
        return {
            "verdict": "published",
            "reason": f"{what} has a wheel for {build.describe()} ({how}).",
            "wheels": combinations(matching),
            "nearest": [],
        }
    if build.variant and not any(w.variant == build.variant for w in rows):
        return {
            "verdict": "unknown",
            "reason": f"No wheel of variant {build.variant} is recorded for torch "
            f"{release.version}: its index was not read (the documented support says which "
            "CUDA and ROCm builds it had).",
            "wheels": [],
            "nearest": nearest(of_version, build, release),
        }
    return {
        "verdict": "not_published",
        "reason": f"No wheel of {what} was published for {build.describe()}.",
        "wheels": [],
        "nearest": nearest(of_version, build, release),
    }


def combinations(wheels):
    """Distinct (version, variant, platform, python) of ``wheels``, each with its source."""
    return [
        {
            "torch": w.torch_version,
            "variant": w.variant,
            "platform": w.platform,
            "python": w.python or None,
            "evidence": w.evidence,
            "source": w.source_url,
        }
        for w in wheels[:20]
    ]


def elsewhere(build, release, most=3):
    """
    The wheels of other releases built for exactly ``build``, the releases nearest
    ``release`` first (one query): where a Python, a platform or a variant ended or began.
    """
    rows = Wheel.objects.published().exclude(release=release)
    if build.variant:
        rows = rows.filter(variant=build.variant)
    platforms = [
        name
        for name, (os, arch) in PLATFORM_PARTS.items()
        if build.os in (None, os) and build.arch in (None, arch)
    ]
    if build.python:
        rows = rows.filter(python__in=[build.python, ""])
    found = {}
    for wheel in rows.filter(platform__in=platforms).order_by("-torch_version_key"):
        found.setdefault(wheel.torch_version, wheel)
    near = sorted(found.values(), key=lambda w: abs(w.torch_version_key - release.version_key))
    return near[:most]


def nearest(wheels, build, release=None):
    """
    The combinations that have a wheel, closest first: the same build in the releases nearest
    ``release``, then those of ``wheels`` (the release's own) differing from ``build`` in the
    fewest parts, the Python nearest the one asked for, the newest torch.
    """
    parts = ("python", "os", "arch", "variant")
    given = [name for name in parts if getattr(build, name) is not None]
    asked = number_key(build.python) if build.python else 0

    def distance(wheel):
        os, arch = PLATFORM_PARTS[wheel.platform]
        have = {"python": wheel.python, "os": os, "arch": arch, "variant": wheel.variant}
        misses = sum(1 for name in given if have[name] not in (getattr(build, name), ""))
        python = abs(wheel.python_key // 2 - asked) if asked and wheel.python else 0
        return (misses, python, wheel.python.endswith("t"), -wheel.torch_version_key)

    other = elsewhere(build, release) if release is not None and given else []
    ranked = other + sorted(wheels, key=distance)
    seen, found = set(), []
    for wheel in ranked:
        key = (wheel.variant, wheel.platform, wheel.python)
        if key in seen:
            continue
        seen.add(key)
        found.append(
            {
                "torch": wheel.torch_version,
                "variant": wheel.variant,
                "platform": wheel.platform,
                "python": wheel.python or None,
            }
        )
        if len(found) == 5:
            break
    return found


def python_disagreements(releases=None):
    """
    [(release version, documented without a wheel, with a wheel undocumented)] of every
    published release whose Python support, as its tables document it, differs from the
    Pythons its wheels were published for (two queries). Only releases with both count.
    """
    supports = Support.objects.published().filter(kind="python")
    built = Wheel.objects.published().exclude(python="")
    if releases is not None:
        supports, built = supports.filter(release__in=releases), built.filter(release__in=releases)
    documented, published_for = {}, {}
    for version, python in supports.values_list("release__version", "version"):
        documented.setdefault(version, set()).add(python)
    for version, python in built.values_list("release__version", "python").distinct():
        published_for.setdefault(version, set()).add(python)
    found = []
    for version in sorted(documented.keys() & published_for.keys(), key=versions.Version.parse):
        missing = sorted(documented[version] - published_for[version], key=python_order)
        extra = sorted(published_for[version] - documented[version], key=python_order)
        if missing or extra:
            found.append((version, missing, extra))
    return found


def python_order(python):
    return (number_key(python), python.endswith("t"))
