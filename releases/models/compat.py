"""
What a release runs on and what goes with it: the platforms it supports (Python, C++, CUDA,
ROCm, CUDA architectures, operating systems), the companion libraries paired with each torch
version, its patch releases and its schedule. Each row keeps where it was read (a table's URL
and line), and a row an import found in dispute with what the catalog holds waits for an
editor (``needs_review``): not public until one decides.
"""

import re

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from releases import versions
from releases.declarations import Public, Reaches
from releases.managers import (
    CompanionManager,
    PatchReleaseManager,
    ScheduleDateManager,
    SupportManager,
    WheelManager,
)
from releases.models.base import Timestamped, history, validate_version
from releases.models.catalog import Release


class SupportKind(models.TextChoices):
    PYTHON = "python", "Python"
    CXX = "cxx", "C++ standard"
    CUDA = "cuda", "CUDA"
    ROCM = "rocm", "ROCm"
    CUDA_ARCH = "cuda_arch", "CUDA architecture"
    OS = "os", "Operating system"
    # The versions of what a release builds with that its announcement states (a notice's
    # facts: 2.13 pins Triton 3.7.1 and updates oneDNN to 3.12).
    TRITON = "triton", "Triton"
    ONEDNN = "onednn", "oneDNN"


class SupportLevel(models.TextChoices):
    STABLE = "stable", "Stable"
    EXPERIMENTAL = "experimental", "Experimental"


class Library(models.TextChoices):
    TORCHVISION = "torchvision", "torchvision"
    TORCHAUDIO = "torchaudio", "torchaudio"
    TORCHTEXT = "torchtext", "torchtext"
    TORCHDATA = "torchdata", "torchdata"
    TORCHCODEC = "torchcodec", "torchcodec"


class ScheduleKind(models.TextChoices):
    BRANCH_CUT = "branch_cut", "Release branch cut"
    RELEASE = "release", "Release"
    PATCH = "patch", "Patch release"


class Precision(models.TextChoices):
    DAY = "day", "Day"
    MONTH = "month", "Month"


NUMBER = re.compile(r"[0-9]+")


def number_key(text):
    """
    The order of versions such as 3.9 < 3.10 < 3.14t and 12.6 < 12.8 < 13.0: up to three
    numbers read from the text, as one integer (0 for text with no number: C++17 is 17).
    """
    parts = [int(part) for part in NUMBER.findall(text)[:3]]
    parts += [0] * (3 - len(parts))
    return (min(parts[0], 9999) * 1_000_000) + (min(parts[1], 999) * 1_000) + min(parts[2], 999)


class Sourced(Timestamped):
    """A row read from a table: where, and whether an editor must settle it first."""

    source_url = models.URLField(
        max_length=500, blank=True, help_text="The table it was read from, pinned to a commit."
    )
    source_line = models.PositiveIntegerField(
        null=True, blank=True, help_text="The line of its row in that table."
    )
    disputed = models.TextField(
        blank=True,
        help_text="Where another source says otherwise: what it says and where, in our words.",
    )
    needs_review = models.BooleanField(
        default=False,
        help_text="Read where the catalog already said otherwise: not public until an editor "
        "keeps it (clear this) or deletes it.",
    )
    read_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the source was read, for a source that changes (a package index).",
    )

    # Curated after its release: load_catalog adds the rows a held release never had.
    curated_after_release = True

    class Meta:
        abstract = True


def release_rows(type_, order, topics):
    """The declaration of a row that belongs to a release, shown in its item."""
    return Public(
        type=type_,
        order=order,
        topics=topics,
        references=("release",),
        key_path=("release",),
        shown_in=(Reaches("release", through="release_id"),),
        public_with=("release",),
    )


class Support(Sourced):
    """One thing a release supports: Python 3.13, CUDA 12.8 (with its cuDNN), ROCm 6.4."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="supports")
    kind = models.CharField(max_length=20, choices=SupportKind.choices)
    version = models.CharField(
        max_length=60, help_text="As the table spells it: 3.13, 3.14t, 12.8, 6.2.4, C++17, 9.0."
    )
    version_key = models.BigIntegerField(editable=False, default=0)
    level = models.CharField(
        max_length=20, choices=SupportLevel.choices, default=SupportLevel.STABLE
    )
    cudnn = models.CharField(max_length=30, blank=True, help_text="cuDNN, for a CUDA version.")
    nccl = models.CharField(max_length=30, blank=True, help_text="NCCL, for a CUDA version.")
    detail = models.CharField(
        max_length=300,
        blank=True,
        help_text="What else the table says of it: an architecture's name and the builds that "
        "have it (Hopper; CUDA 12.6.3; Linux x86 and Windows).",
    )

    public = release_rows("support", 7, topics=("compatibility",))
    objects = SupportManager()
    derived_fields = ("version_key",)
    history = history(*derived_fields)

    class Meta:
        ordering = ["release", "kind", "version_key", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "kind", "version"], name="support_unique_per_release"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=SupportKind.values), name="support_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(level__in=SupportLevel.values), name="support_level_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["kind", "version"], name="support_kind_version_idx"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.version} ({self.release.version})"

    def prepare_save(self):
        self.version_key = number_key(self.version)

    def natural_key(self):
        return (*self.release.natural_key(), self.kind, self.version)

    natural_key.dependencies = ["releases.release"]


class PatchRelease(Sourced):
    """A patch release of a minor release: 2.7.1 of 2.7."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="patches")
    version = models.CharField(max_length=20, unique=True, validators=[validate_version])
    version_key = models.BigIntegerField(editable=False, default=0)
    release_date = models.DateField(
        null=True, blank=True, help_text="The day it shipped: its first upload to the index."
    )
    yanked = models.BooleanField(
        default=False,
        help_text="Withdrawn on the package index (PEP 592): installers skip it unless pinned.",
    )
    yanked_reason = models.CharField(
        max_length=300, blank=True, help_text="The reason the index gives for the yank."
    )

    public = release_rows("patch", 8, topics=("releases",))
    objects = PatchReleaseManager()
    derived_fields = ("version_key",)
    history = history(*derived_fields)

    class Meta:
        ordering = ["release", "version_key"]
        verbose_name_plural = "patch releases"

    def __str__(self):
        return self.version

    def clean(self):
        super().clean()
        try:
            patch, minor = versions.Version.parse(self.version), self.release.version
        except (versions.InvalidVersion, Release.DoesNotExist):
            return
        if minor_of(patch) != minor_of(versions.Version.parse(minor)):
            raise ValidationError({"version": f"{self.version} is not a patch of {minor}."})

    def prepare_save(self):
        self.version_key = versions.Version.parse(self.version).key

    def natural_key(self):
        return (self.version,)


def minor_of(version):
    return (version.major, version.minor)


class Companion(Sourced):
    """A companion library's version paired with a torch version (a minor or a patch)."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="companions")
    torch_version = models.CharField(
        max_length=20, validators=[validate_version], help_text="2.3 or 2.3.1, as paired."
    )
    torch_version_key = models.BigIntegerField(editable=False, default=0)
    library = models.CharField(max_length=20, choices=Library.choices)
    version = models.CharField(max_length=20)
    requires_python = models.CharField(
        max_length=100,
        blank=True,
        help_text="The Pythons the companion's own files declare (Requires-Python), as the "
        "package index states it.",
    )
    torch_requirement = models.CharField(
        max_length=100,
        blank=True,
        help_text="The torch the companion itself requires (its metadata's Requires-Dist: "
        "==2.5.1), as the package index serves it: a pairing is checked against it.",
    )

    public = release_rows("companion", 9, topics=("compatibility",))
    objects = CompanionManager()
    derived_fields = ("torch_version_key",)
    history = history(*derived_fields)

    class Meta:
        ordering = ["release", "torch_version_key", "library"]
        constraints = [
            models.UniqueConstraint(
                fields=["torch_version", "library"], name="companion_one_per_torch_version"
            ),
            models.CheckConstraint(
                condition=Q(library__in=Library.values), name="companion_library_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["library", "version"], name="companion_library_version_idx"),
        ]

    def __str__(self):
        return f"{self.library} {self.version} with torch {self.torch_version}"

    def prepare_save(self):
        self.torch_version_key = versions.Version.parse(self.torch_version).key

    def natural_key(self):
        return (self.torch_version, self.library)


class Platform(models.TextChoices):
    """Where a wheel runs, as people name it (from its platform tag)."""

    LINUX_X86_64 = "linux-x86_64", "Linux x86-64"
    LINUX_AARCH64 = "linux-aarch64", "Linux ARM64"
    MACOS_ARM64 = "macos-arm64", "macOS Apple silicon"
    MACOS_X86_64 = "macos-x86_64", "macOS Intel"
    WINDOWS_AMD64 = "windows-amd64", "Windows x86-64"
    WINDOWS_ARM64 = "windows-arm64", "Windows ARM64"
    WINDOWS_X86 = "windows-x86", "Windows 32-bit"
    LINUX_S390X = "linux-s390x", "Linux s390x"
    LINUX_PPC64LE = "linux-ppc64le", "Linux ppc64le"


# The platform each (os, arch) of /api/check/ and /api/install/ names.
PLATFORM_PARTS = {value: tuple(value.split("-", 1)) for value in Platform.values}


class Evidence(models.TextChoices):
    """How the catalog knows a wheel exists."""

    INDEX = "index", "Read from the package index's files"
    INSTALL_PAGE = "install_page", "An install command PyTorch published"


def accelerator_variant(kind, version):
    """The wheel variant of a CUDA or ROCm version, as the indexes name it: CUDA 12.4 is cu124,
    ROCm 6.2 rocm6.2."""
    numbers = version.split(".")
    if kind == SupportKind.CUDA:
        return "cu" + "".join(numbers[:2])
    return "rocm" + ".".join(numbers[:2])


# The variant of the wheels the main index (PyPI) serves, which name none of their own.
DEFAULT_VARIANT = "default"
# A variant's name: cpu, cu124, rocm6.2, xpu, default.
VARIANT_PATTERN = r"[a-z][a-z0-9.]{0,19}"


class Wheel(Sourced):
    """
    A wheel of torch that was published: for one torch version, one accelerator variant (as
    its index names it: cpu, cu124, rocm6.2, xpu; ``default`` on the main index), one
    platform and one Python (3.13t: free-threaded). A measured fact, kept apart from the
    support the compatibility tables document (``Support``).
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="wheels")
    torch_version = models.CharField(
        max_length=20, validators=[validate_version], help_text="The torch version: 2.5.1."
    )
    torch_version_key = models.BigIntegerField(editable=False, default=0)
    variant = models.CharField(
        max_length=20,
        help_text="The accelerator build, as its index names it (cpu, cu124, rocm6.2, xpu); "
        f"{DEFAULT_VARIANT}: the main index's own.",
    )
    platform = models.CharField(max_length=30, choices=Platform.choices)
    python = models.CharField(
        max_length=10,
        blank=True,
        help_text="3.13, or 3.13t for a free-threaded build; empty where the source names none "
        "(an install command).",
    )
    python_key = models.BigIntegerField(editable=False, default=0)
    evidence = models.CharField(max_length=20, choices=Evidence.choices, default=Evidence.INDEX)

    public = release_rows("wheel", 13, topics=("compatibility",))
    objects = WheelManager()
    derived_fields = ("torch_version_key", "python_key")
    history = history(*derived_fields)

    class Meta:
        ordering = ["release", "torch_version_key", "variant", "platform", "python_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["torch_version", "variant", "platform", "python"],
                name="wheel_one_per_build",
            ),
            models.CheckConstraint(
                condition=Q(platform__in=Platform.values), name="wheel_platform_valid"
            ),
            models.CheckConstraint(
                condition=Q(evidence__in=Evidence.values), name="wheel_evidence_valid"
            ),
            models.CheckConstraint(
                condition=Q(python="") | Q(python__regex=r"^3\.[0-9]{1,2}t?$"),
                name="wheel_python_valid",
            ),
        ]
        indexes = [
            models.Index(
                fields=["release", "torch_version_key", "variant", "platform", "python_key"],
                name="wheel_order_idx",
            ),
            models.Index(fields=["variant", "platform", "python"], name="wheel_build_idx"),
        ]

    def __str__(self):
        python = f", Python {self.python}" if self.python else ""
        return f"torch {self.torch_version} {self.variant} {self.platform}{python}"

    def prepare_save(self):
        self.torch_version_key = versions.Version.parse(self.torch_version).key
        self.python_key = number_key(self.python) * 2 + self.python.endswith("t")

    def natural_key(self):
        return (self.torch_version, self.variant, self.platform, self.python)


class ScheduleDate(Sourced):
    """A date of a release's schedule: its branch cut, its release, a planned patch."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="schedule")
    kind = models.CharField(max_length=20, choices=ScheduleKind.choices)
    number = models.PositiveSmallIntegerField(
        default=0, help_text="Which patch: 1 for the first, 2 for the second (0 otherwise)."
    )
    date = models.DateField(help_text="The day, or the month's first day when only the month.")
    precision = models.CharField(max_length=10, choices=Precision.choices, default="day")
    tentative = models.BooleanField(default=False, help_text="The table gives it as tentative.")

    public = release_rows("schedule", 10, topics=("schedule",))
    objects = ScheduleDateManager()
    history = history()

    class Meta:
        ordering = ["date", "release", "kind", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "kind", "number"], name="schedule_one_date_per_event"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=ScheduleKind.values), name="schedule_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(precision__in=Precision.values), name="schedule_precision_valid"
            ),
        ]

    def __str__(self):
        return f"{self.release.version} {self.label()}"

    def label(self):
        if self.kind == ScheduleKind.PATCH:
            return f"patch {self.number}"
        return self.get_kind_display().lower()

    def shown_date(self):
        """The date as precise as the source: 2026-12-22, or 2026-12 for a month."""
        return self.date.isoformat() if self.precision == "day" else self.date.strftime("%Y-%m")

    def natural_key(self):
        return (*self.release.natural_key(), self.kind, self.number)

    natural_key.dependencies = ["releases.release"]
