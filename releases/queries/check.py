"""
Whether an environment is a supported combination (/api/check/ and the compatibility page):
torch with Python, CUDA, ROCm and companion libraries, one verdict per pair, each with its
reason and source, and the nearest supported alternatives. Read from what the public sees.
"""

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from releases import versions
from releases.models import Companion, Library, PatchRelease, Release, Support
from releases.queries import wheels
from releases.queries.fields import PatternField, PlatformVersionField, VersionField

SUPPORTED, UNSUPPORTED, EXPERIMENTAL, UNKNOWN = (
    "supported",
    "unsupported",
    "experimental",
    "unknown",
)
# Every verdict of a pair, as /api/check/'s schema states them.
VERDICTS = (SUPPORTED, UNSUPPORTED, EXPERIMENTAL, UNKNOWN)
PLATFORMS = {"python": "Python", "cuda": "CUDA", "rocm": "ROCm"}
COMPANION_VERSION = r"[0-9]{1,3}\.[0-9]{1,3}(\.[0-9]{1,3})?"


class CompanionVersionField(PatternField):
    """A companion library's version: 0.20 or 0.20.1."""

    PATTERN = COMPANION_VERSION
    MESSAGE = "Not a version such as 0.20.1"


class CheckForm(wheels.BuildForm):
    torch = VersionField(required=False, help_text="A torch version: 2.5 or 2.5.1.")
    cuda = PlatformVersionField(required=False, help_text="A CUDA version: 12.4.")
    rocm = PlatformVersionField(required=False, help_text="A ROCm version: 6.2.")

    field_order = ["torch", "python", "cuda", "rocm"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for library in Library.values:
            self.fields[library] = CompanionVersionField(
                required=False, help_text=f"A {library} version, e.g. 0.20.1."
            )


def source_of(row):
    return {"url": row.source_url, "line": row.source_line} if row is not None else None


def verdict(parameter, value, result, reason, row=None):
    return {
        "parameter": parameter,
        "value": value,
        "verdict": result,
        "reason": reason,
        "disputed": (row.disputed or None) if row is not None else None,
        "source": source_of(row),
    }


def minor_of(version):
    return f"{version.major}.{version.minor}"


def check(query):
    """The answer for a CheckForm's cleaned data ``query``."""
    version = query.get("torch")  # a versions.Version, parsed when the query was read
    torch = str(version) if version else None
    given = {name: query[name] for name in (*PLATFORMS, *Library.values) if query.get(name)}
    answer = {"torch": torch, "release": None, "checks": [], "alternatives": []}
    release = None
    if version and version.pre_rank < versions.PRE_RELEASE_RANKS[""]:
        # 2.5.0rc1 is not 2.5: what a pre-release ran on and paired with is not recorded.
        reason = f"torch {torch} is a pre-release: the catalog covers final releases only."
        answer["checks"] = [verdict("torch", torch, UNKNOWN, reason)] + [
            verdict(name, value, UNKNOWN, reason) for name, value in given.items()
        ]
    elif version:
        release = Release.objects.released().of_version(minor_of(version)).first()
        answer["release"] = release.version if release else None
        answer["checks"] = (
            pair_checks(release, version, torch, given)
            if release is not None
            else [
                verdict(name, value, UNKNOWN, f"The catalog has no released torch {torch}.")
                for name, value in given.items()
            ]
        )
        if release is not None and version.micro and not patch_exists(release, torch):
            answer["checks"].insert(
                0,
                verdict(
                    "torch",
                    torch,
                    UNKNOWN,
                    f"The catalog knows no patch release {torch} of {release.version}.",
                ),
            )
    build = wheels.Build.of(query)
    answer["published"] = (
        wheels.published(release, torch, build) if release is not None and build.given else None
    )
    answer["built_for"] = wheels.built_for(build) if version is None else None
    found = alternatives(given)
    answer["alternatives"] = found
    answer["together"] = together(given, found)
    answer["runs_on"] = runs_on(release) if release is not None else None
    answer["pairs_with"] = pairs_with(release, version) if release is not None else None
    verdicts = {item["verdict"] for item in answer["checks"]}
    answer["verdict"] = next(
        (v for v in (UNSUPPORTED, UNKNOWN, EXPERIMENTAL) if v in verdicts),
        SUPPORTED if verdicts else None,
    )
    return answer


def patch_exists(release, torch):
    return PatchRelease.objects.published().filter(release=release, version=torch).exists()


def pair_checks(release, version, torch, given):
    supports = list(Support.objects.published().filter(release=release))
    checks = []
    for name, label in PLATFORMS.items():
        if name not in given:
            continue
        value = given[name]
        rows = [s for s in supports if s.kind == name]
        match = next((s for s in rows if s.version.lower() == value.lower()), None)
        if match is not None:
            result = SUPPORTED if match.level == "stable" else EXPERIMENTAL
            reason = f"torch {release.version} has {match.level} builds for {label} {value}."
            checks.append(verdict(name, value, result, reason, match))
        elif rows:
            listed = ", ".join(s.version for s in rows)
            reason = f"torch {release.version} has builds for {label} {listed}; not {value}."
            checks.append(verdict(name, value, UNSUPPORTED, reason, rows[0]))
        else:
            reason = (
                f"The catalog does not know which {label} versions torch {release.version} has."
            )
            checks.append(verdict(name, value, UNKNOWN, reason))
    pairs = list(Companion.objects.published().filter(release=release))
    own_pairs = own_pairings(pairs, release, version)
    for library in Library.values:
        if library not in given:
            continue
        value = given[library]
        paired = [c for c in pairs if c.library == library]
        own = [c for c in own_pairs if c.library == library]
        candidates = own or paired
        match = next((c for c in candidates if same_version(c.version, value)), None)
        if match is not None:
            checks.append(declared_check(library, value, version, match))
        elif candidates:
            listed = ", ".join(f"{c.version} (torch {c.torch_version})" for c in candidates)
            reason = f"torch {torch} pairs with {library} {listed}; not {value}."
            checks.append(verdict(library, value, UNSUPPORTED, reason, candidates[0]))
        else:
            reason = f"The catalog pairs no {library} with torch {torch}."
            checks.append(verdict(library, value, UNKNOWN, reason))
    return checks


def declared_check(library, value, torch, match):  # torch: a versions.Version
    """
    A pairing the catalog holds, checked against what the companion itself requires of torch
    (its metadata, as the package index serves it): a torch it excludes is unsupported.
    """
    reason = f"torch {match.torch_version} pairs with {library} {match.version}"
    if not match.torch_requirement:
        return verdict(library, value, SUPPORTED, reason + ".", match)
    itself = f"{library} {match.version} itself requires torch {match.torch_requirement}"
    try:
        admits = not torch.names_patch or SpecifierSet(match.torch_requirement).contains(str(torch))
    except InvalidSpecifier:
        admits = True
    if admits:
        return verdict(library, value, SUPPORTED, f"{reason}; {itself}.", match)
    return verdict(library, value, UNSUPPORTED, f"{itself}, not {torch}.", match)


def same_version(paired, given):
    """0.20.1 is 0.20.1; 0.20 is any 0.20.x."""
    return paired == given or (given.count(".") == 1 and paired.startswith(f"{given}."))


def alternatives(given):
    """
    For each platform given, the released torch versions with builds for it (newest first,
    stable and experimental apart); for each companion, the torch versions it pairs with.
    """
    found = []
    for name, label in PLATFORMS.items():
        if name not in given:
            continue
        rows = (
            Support.objects.published()
            .filter(kind=name, version__iexact=given[name], release__planned=False)
            .select_related("release")
            .order_by("-release__version_key")
        )
        stable = [s.release.version for s in rows if s.level == "stable"]
        experimental = [s.release.version for s in rows if s.level != "stable"]
        found.append(
            {
                "for": f"{label} {given[name]}",
                "torch": stable,
                "newest": stable[0] if stable else None,
                "oldest": stable[-1] if stable else None,
                "experimental": experimental,
            }
        )
    for library in Library.values:
        if library not in given:
            continue
        rows = Companion.objects.published().filter(library=library)
        paired = [c.torch_version for c in rows.order_by("-torch_version_key")]
        matching = [
            c.torch_version
            for c in rows.order_by("-torch_version_key")
            if same_version(c.version, given[library])
        ]
        found.append(
            {
                "for": f"{library} {given[library]}",
                "torch": matching,
                "newest": matching[0] if matching else (paired[0] if paired else None),
                "oldest": matching[-1] if matching else None,
                "experimental": [],
            }
        )
    return found


def together(given, found):
    """
    With two platforms or more given (Python 3.9 and CUDA 11.8), the released torch versions
    with stable builds for all of them, newest first: the one answer the separate ones leave to
    the reader. None with fewer than two.
    """
    platforms = [item for name, item in zip(given, found, strict=False) if name in PLATFORMS]
    if len(platforms) < 2:
        return None
    common = set(platforms[0]["torch"]).intersection(*(set(p["torch"]) for p in platforms[1:]))
    ordered = sorted(common, key=versions.Version.parse, reverse=True)
    return {
        "for": " with ".join(item["for"] for item in platforms),
        "torch": ordered,
        "newest": ordered[0] if ordered else None,
    }


def own_pairings(companions, release, version):
    """Of a release's ``companions``, those paired with torch ``version`` itself: a patch's own
    (2.3.1), or for a minor (2.3) its X.Y.0's."""
    exact = str(version) if version.names_patch else f"{release.version}.0"
    return [c for c in companions if c.torch_version == exact]


def pairs_with(release, version):
    """
    The companions paired with torch ``version`` (a versions.Version): a patch's own pairings
    (2.3.1: torchvision 0.18.1), a minor's X.Y.0 ones (or its first, where X.Y.0 has none).
    """
    rows = list(
        Companion.objects.published()
        .filter(release=release)
        .order_by("library", "torch_version_key")
    )
    own = own_pairings(rows, release, version)
    if not own and not version.names_patch:
        first = {}
        for companion in rows:
            first.setdefault(companion.library, companion)
        own = list(first.values())
    return [
        {
            "library": c.library,
            "version": c.version,
            "torch": c.torch_version,
            "source": source_of(c),
        }
        for c in own
    ]


def runs_on(release):
    """What ``release`` has builds for: {python: [...], cuda: [...], rocm: [...]}."""
    rows = Support.objects.published().filter(release=release, kind__in=list(PLATFORMS))
    found = {name: [] for name in PLATFORMS}
    for support in rows.order_by("version_key", "version"):
        found[support.kind].append(support.version)
    return found
