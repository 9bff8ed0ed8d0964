"""
What may need a change in a user's code when upgrading: the upgrade notes of a release, read
from its release notes' "Backwards Incompatible Changes" and "Deprecations" sections
(releases/importing/notes.py), each with the APIs it names. A deprecation and the later
removal of the same API are linked (``removes``), so the catalog can say "deprecated in 2.10,
removed in 2.12" or "no removal announced yet". The summary is an editor's, in our words; the
source (URL, section, line) and the pull requests hold the detail.
"""

import re
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from releases.declarations import Public, Reaches
from releases.managers import UpgradeAPIManager, UpgradeNoteManager
from releases.models.base import Timestamped, history, validate_version
from releases.models.catalog import Release, Track
from releases.models.compat import Sourced
from releases.slugs import slugify


class UpgradeKind(models.TextChoices):
    """In the order a person upgrading works through them."""

    BC_BREAKING = "bc-breaking", "Backwards-incompatible change"
    REMOVAL = "removal", "Removal"
    DEPRECATION = "deprecation", "Deprecation"


KIND_RANKS = {kind: rank for rank, kind in enumerate(UpgradeKind.values)}
PULL_REQUEST_URL = "https://github.com/pytorch/pytorch/pull/{}"


def validate_pull_requests(value):
    if not isinstance(value, list) or not all(
        isinstance(number, int) and not isinstance(number, bool) and 0 < number < 10**8
        for number in value
    ):
        raise ValidationError(
            "A list of pull request numbers of pytorch/pytorch, such as [163134]."
        )
    if len(set(value)) != len(value):
        raise ValidationError("A pull request is listed twice.")


NO_AREA = "general"  # the slug of the notes the release notes group under no area


def area_slug(area):
    """The area as ?area= names it: general for none (or for a name with no letter or digit)."""
    return slugify(area, max_length=100) if re.search(r"[A-Za-z0-9]", area) else NO_AREA


class UpgradeNote(Sourced):
    """One backwards-incompatible change, removal or deprecation a release announced."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="upgrade_notes")
    release_version_key = models.BigIntegerField(editable=False, default=0)
    slug = models.SlugField(
        max_length=80,
        help_text="Its name within the release: pr-<first pull request> for an imported note.",
    )
    kind = models.CharField(max_length=20, choices=UpgradeKind.choices)
    asks_nothing = models.BooleanField(
        default=False,
        help_text="The notes list it under its kind, but it asks nothing of a user (2.12: an "
        "entry that lets config options be deprecated, deprecating none): kept with the notes, "
        "left out of /deprecations/.",
    )
    kind_rank = models.PositiveSmallIntegerField(editable=False, default=0)
    line_key = models.PositiveIntegerField(
        editable=False, default=0, help_text="Its source line, 0 for none: the order in an area."
    )
    area = models.CharField(
        max_length=100,
        blank=True,
        help_text="The release notes' area heading, as written: ONNX, torch.nn. Where the notes "
        "give none, the area an editor filed it under, with the reason (area_reason).",
    )
    area_reason = models.CharField(
        max_length=300,
        blank=True,
        help_text="Why an editor chose the area, where the notes give none: empty for an area "
        "as written.",
    )
    group = models.CharField(
        max_length=200,
        blank=True,
        help_text="The heading the notes list it under with other changes of their own (each "
        "with its own pull request), as plain text; empty for a change listed alone.",
    )
    area_slug = models.SlugField(
        max_length=100, editable=False, default="", help_text="The area as ?area= names it."
    )
    section = models.CharField(
        max_length=100, blank=True, help_text="The release notes' section, as written."
    )
    summary = models.CharField(
        max_length=200,
        blank=True,
        help_text="One line in our own words: what changed and what to do. Required to publish.",
    )
    replacement = models.CharField(
        max_length=300, blank=True, help_text="What to use instead, where the notes name it."
    )
    removed_in = models.CharField(
        max_length=20,
        blank=True,
        validators=[validate_version],
        help_text="For a deprecation: the version the notes say it will be removed in.",
    )
    removes = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="removed_by",
        help_text="For a removal or breaking change: the earlier deprecation it completes.",
    )
    track = models.ForeignKey(
        Track,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="upgrade_notes",
        help_text="The capability it is about, where the catalog follows one: TorchScript.",
    )
    pull_requests = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_pull_requests],
        help_text="The pytorch/pytorch pull requests the notes cite, as numbers.",
    )

    public = Public(
        type="upgrade",
        order=11,
        topics=("api",),
        references=("release", "track", "removes"),
        key_path=("release",),
        # A deprecation's item says what removed it.
        shown_in=(Reaches("upgrade", through="removes_id"),),
        public_with=("release", "track", "removes"),
    )
    # What load_catalog may leave out when loading one release without the one it refers to
    # (``load_catalog --release 2.11`` without 2.9): the link, not the note.
    optional_references = ("removes",)
    objects = UpgradeNoteManager()
    derived_fields = ("release_version_key", "kind_rank", "area_slug", "line_key")
    history = history(*derived_fields)

    class Meta:
        ordering = ["release_version_key", "kind_rank", "area_slug", "line_key", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["release", "slug"], name="upgrade_unique_slug"),
            models.CheckConstraint(
                condition=Q(kind__in=UpgradeKind.values), name="upgrade_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(needs_review=True) | ~Q(summary=""),
                name="upgrade_reviewed_has_summary",
            ),
        ]
        indexes = [
            models.Index(
                fields=["release_version_key", "kind_rank", "area_slug", "line_key", "slug"],
                name="upgrade_checklist_idx",
            ),
            models.Index(fields=["kind", "release_version_key"], name="upgrade_kind_idx"),
            models.Index(fields=["area_slug", "release_version_key"], name="upgrade_area_idx"),
        ]

    def __str__(self):
        return f"{self.release.version}: {self.summary or self.slug}"

    @classmethod
    def api_names(cls, ids, using="default"):
        """{note id: [the names of its APIs]}: the ``api:`` topics of a note (releases.topics)."""
        names, ids = defaultdict(list), sorted(ids)
        for start in range(0, len(ids), 500):
            rows = UpgradeAPI._base_manager.using(using).filter(
                note_id__in=ids[start : start + 500]
            )
            for note_id, name in rows.order_by("note_id", "position").values_list(
                "note_id", "name"
            ):
                names[note_id].append(name)
        return names

    def clean(self):
        super().clean()
        if not self.needs_review and not self.summary.strip():
            raise ValidationError({"summary": "Write its one-line summary before publishing it."})
        if self.area_reason.strip() and not self.area.strip():
            raise ValidationError({"area_reason": "Name the area this reason is for."})
        if self.pk and self.kind != UpgradeKind.DEPRECATION and self.removed_by.exists():
            raise ValidationError({"kind": "A removal links it: it stays a deprecation."})
        if self.removes_id is None or self.release_id is None:
            return
        if self.kind == UpgradeKind.DEPRECATION:
            raise ValidationError({"removes": "A deprecation removes nothing; link the removal."})
        removed = self.removes
        if removed.kind != UpgradeKind.DEPRECATION:
            raise ValidationError({"removes": "Link the deprecation this removal completes."})
        if removed.release.version_key >= self.release.version_key:
            raise ValidationError(
                {"removes": f"A deprecation of an earlier release than {self.release.version}."}
            )

    def prepare_save(self):
        self.summary = self.summary.strip()
        self.release_version_key = self.release.version_key
        self.kind_rank = KIND_RANKS.get(self.kind, 0)
        self.area_slug = area_slug(self.area)
        self.line_key = self.source_line or 0

    def natural_key(self):
        return (*self.release.natural_key(), self.slug)

    natural_key.dependencies = ["releases.release", "releases.track"]

    @property
    def area_shown(self):
        return self.area or "General"

    def pull_request_urls(self):
        return [(number, PULL_REQUEST_URL.format(number)) for number in self.pull_requests]

    def source_link(self):
        """The source's URL, at the note's line where the source is a file on GitHub."""
        if not self.source_url or not self.source_line or "/blob/" not in self.source_url:
            return self.source_url
        # GitHub shows a Markdown file rendered, without line anchors, unless asked for plain.
        plain = "?plain=1" if self.source_url.endswith(".md") else ""
        return f"{self.source_url}{plain}#L{self.source_line}"


class UpgradeAPI(Timestamped):
    """An API an upgrade note names, one row each, so that a name's prefix finds its notes."""

    note = models.ForeignKey(UpgradeNote, on_delete=models.CASCADE, related_name="apis")
    name = models.CharField(
        max_length=200,
        help_text="As the notes spell it: torch.load, torch.onnx.export(dynamic_axes=...).",
    )
    name_key = models.CharField(
        max_length=200,
        editable=False,
        default="",
        help_text="The name in lower case: what ?api= matches.",
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order within the note.")

    # Curated after its release, like the rows of releases.models.compat: load_catalog adds
    # those a held release never had.
    curated_after_release = True

    public = Public(
        type="upgrade_api",
        order=12,
        topics=("api",),
        references=("note",),
        key_path=("note",),
        shown_in=(Reaches("upgrade", through="note_id"),),
        public_with=("note",),
    )
    objects = UpgradeAPIManager()
    derived_fields = ("name_key",)
    history = history(*derived_fields)

    class Meta:
        ordering = ["note", "position", "name"]
        verbose_name = "upgrade note API"
        constraints = [
            models.UniqueConstraint(fields=["note", "name"], name="upgrade_api_unique_per_note"),
        ]
        indexes = [
            # A prefix match (api=torch.onnx): on SQLite a range of the key, on PostgreSQL a
            # LIKE 'prefix%', which this index serves whatever the database's collation.
            models.Index(
                fields=["name_key"], name="upgrade_api_key_idx", opclasses=["varchar_pattern_ops"]
            ),
        ]

    def __str__(self):
        return self.name

    def clean(self):
        super().clean()
        if self.name != self.name.strip() or "\n" in self.name:
            raise ValidationError({"name": "One line, without spaces around it."})

    def prepare_save(self):
        self.name_key = self.name.lower()

    def natural_key(self):
        return (*self.note.natural_key(), self.name)

    natural_key.dependencies = ["releases.upgradenote"]
