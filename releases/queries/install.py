"""
The exact command that installs torch with its paired companions, for pip and for uv
(/api/install/, the release pages, /compatibility/, /constraints/<version>.txt): from the
wheels the catalog recorded (releases.queries.wheels), and where none was recorded for a CUDA
or ROCm variant, from the support the release's table documents, said as such.
"""

from django.conf import settings

from releases.models import DEFAULT_VARIANT, Companion, Evidence, Library, Support
from releases.models.compat import accelerator_variant
from releases.queries.fields import VersionField
from releases.queries.wheels import (
    Build,
    BuildForm,
    nearest,
    of_torch,
    release_of,
    variant_order,
)

# The companions an install command pins beside torch: those built for every variant.
INSTALLED_WITH = (Library.TORCHVISION, Library.TORCHAUDIO)
# The evidence of a build only a release's table documents (a CUDA or ROCm version).
DOCUMENTED = "documented_support"


class InstallForm(BuildForm):
    torch = VersionField(help_text="A torch version: 2.5 (its newest patch) or 2.5.1.")

    field_order = ["torch", "variant", "python", "os", "arch"]


def variant_of(support):
    """The variant name of a documented CUDA or ROCm version: 12.4 is cu124."""
    return accelerator_variant(support.kind, support.version)


def index_url(variant):
    """Where a variant's wheels are: the main index for the default, else the variant's."""
    if variant == DEFAULT_VARIANT:
        return settings.PACKAGE_INDEX_URL
    known = settings.WHEEL_VARIANT_INDEXES.get(variant)
    return known or f"https://download.pytorch.org/whl/{variant}/"


class NoWheel(Exception):
    """No wheel for what was asked: {parameter: message}, and the nearest that have one."""

    def __init__(self, errors, nearest):
        super().__init__(errors)
        self.errors, self.nearest = errors, nearest


def install(data):
    """
    The exact command that installs ``torch`` (InstallForm's cleaned data) with its paired
    companions, for pip and for uv; NoWheel naming what has none and the nearest that has.
    """
    torch, build = data["torch"], Build.of(data)
    build.variant = build.variant or DEFAULT_VARIANT
    release = release_of(torch)
    if release is None:
        raise NoWheel({"torch": [f"The catalog has no released torch {torch}."]}, [])
    rows, of_version = of_torch(release, torch)
    matching = [w for w in of_version if build.matches(w)]
    if matching:
        chosen = max(w.torch_version_key for w in matching)
        matching = [w for w in matching if w.torch_version_key == chosen]
        exact, evidence = matching[0].torch_version, matching[0].evidence
        measured = [w for w in matching if w.evidence == Evidence.INDEX]
        evidence = Evidence.INDEX if measured else evidence
        sources = sorted({(w.source_url, w.source_line) for w in (measured or matching)}, key=str)
    else:
        documented = documented_build(release, torch, build, of_version)
        if documented is None:
            asked = build.describe()
            raise NoWheel(
                {
                    wanting(of_version, build): [
                        f"No wheel of torch {torch} was published for {asked}."
                    ]
                },
                nearest(of_version or rows, build, release),
            )
        exact, evidence, sources = documented
    return {
        "torch": exact,
        "release": release.version,
        "variant": build.variant,
        "python": build.python,
        "os": build.os,
        "arch": build.arch,
        **command(exact, companion_pins(exact), build.variant),
        "evidence": evidence,
        "sources": [{"url": url, "line": line} for url, line in sources],
    }


def wanting(wheels, build):
    """
    The parameter that leaves no wheel of ``wheels``: adding the variant, the Python, the OS
    and the architecture asked for one at a time, the first after which none matches.
    """
    so_far = Build()
    for name in ("variant", "python", "os", "arch"):
        setattr(so_far, name, getattr(build, name))
        if getattr(build, name) and not any(so_far.matches(w) for w in wheels):
            return name
    return "torch"


def command(torch, pins, variant):
    """The index, the packages and the pip and uv commands that install ``torch`` with ``pins``."""
    packages = [f"torch=={torch}", *pins]
    url = index_url(variant)
    option = "" if variant == DEFAULT_VARIANT else f" --index-url {url}"
    return {
        "index_url": url,
        "packages": packages,
        "pip": f"pip install {' '.join(packages)}{option}",
        "uv": f"uv pip install {' '.join(packages)}{option}",
    }


def release_commands(release):
    """
    The commands that install the newest torch version of ``release`` (with_compatibility's
    and with_wheels' rows: no query), one a variant: the variants recorded, then the CUDA and
    ROCm builds only its table documents.
    """
    if not release.public_wheels:
        return None, []
    newest = newest_version(release, release.public_wheels)
    found = {}
    for wheel in release.public_wheels:
        if wheel.torch_version == newest:
            measured = found.get(wheel.variant) == Evidence.INDEX
            found[wheel.variant] = Evidence.INDEX if measured else wheel.evidence
    for support in release.public_supports:
        if support.kind in ("cuda", "rocm"):
            found.setdefault(variant_of(support), DOCUMENTED)
    pins = pins_of(c for c in release.public_companions if c.torch_version == newest)
    return newest, [
        {"variant": variant, "evidence": found[variant], **command(newest, pins, variant)}
        for variant in sorted(found, key=variant_order)
    ]


def documented_build(release, torch, build, of_version):
    """
    Where no wheel was recorded for a variant of ``release``, a CUDA or ROCm build its
    compatibility table documents: (torch version, evidence, sources), or None. CUDA builds
    are for Linux and Windows, ROCm's for Linux; a Python, OS or architecture asked for must
    have a wheel on the main index (the tables do not say which variant wheels exist).
    """
    if build.variant in (DEFAULT_VARIANT, "cpu") or build.os == "macos":
        return None
    supports = Support.objects.published().filter(release=release, kind__in=("cuda", "rocm"))
    match = next((s for s in supports if variant_of(s) == build.variant), None)
    if match is None or (match.kind == "rocm" and build.os not in (None, "linux")):
        return None
    if build.python or build.os or build.arch:
        # Only where the main index's own wheels have that Python and platform.
        plain = Build(build.python, build.os, build.arch, DEFAULT_VARIANT)
        of_version = [w for w in of_version if plain.matches(w)]
        if not of_version:
            return None
    exact = str(torch) if torch.names_patch else newest_version(release, of_version)
    return exact, DOCUMENTED, [(match.source_url, match.source_line)]


def newest_version(release, wheels):
    """The newest torch version of ``wheels`` (a release's), or its X.Y.0 where it has none."""
    if wheels:
        return max(wheels, key=lambda w: w.torch_version_key).torch_version
    return f"{release.version}.0"


def companion_pins(torch):
    """The companions paired with ``torch`` (exactly that version), as pins."""
    return pins_of(Companion.objects.published().filter(torch_version=torch))


def pins_of(companions):
    """The pins of the companions an install command takes, torchvision first."""
    chosen = [c for c in companions if c.library in INSTALLED_WITH]
    return [
        f"{c.library}=={c.version}"
        for c in sorted(chosen, key=lambda c: INSTALLED_WITH.index(c.library))
    ]


def constraints(torch):
    """
    (the release, the exact torch version, its pins) of a constraints file for ``torch`` (a
    versions.Version; a minor: its newest version recorded); None for a release the public
    does not know.
    """
    release = release_of(torch)
    if release is None:
        return None
    exact = (
        str(torch) if torch.names_patch else newest_version(release, of_torch(release, torch)[0])
    )
    return release, exact, [f"torch=={exact}", *companion_pins(exact)]
