"""
Choices, helpers and the abstract models every catalog model builds on: timestamps and
the one write path (``Timestamped``), and where the importer read a row (``FromPost``).
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Case, Value, When
from django.utils import timezone

from releases import text, versions, writes
from releases.classification import STABILITY_RANKS


class StageSource(models.TextChoices):
    """Where an appearance's stability comes from."""

    TAG = "tag", "The feature's own tag"
    SECTION = "section", "The section it is listed under"
    CLAIM = "claim", "An accepted claim in the post's prose"
    EDITOR = "editor", "An editor"


class ClaimStatus(models.TextChoices):
    PENDING = "pending", "Awaiting review"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


def stability_rank_expression(field="stability"):
    return Case(
        *(When(**{field: level}, then=Value(rank)) for level, rank in STABILITY_RANKS.items()),
        default=None,
        output_field=models.PositiveSmallIntegerField(),
    )


class LinkStatus(models.TextChoices):
    """What the last checks of a link found (``check_links``, releases/links/checking.py)."""

    UNCHECKED = "unchecked", "Not checked yet"
    OK = "ok", "OK"
    REDIRECTED = "redirected", "Permanently redirected"
    BROKEN = "broken", "Broken"
    UNREACHABLE = "unreachable", "Unreachable"


class LinkKind(models.TextChoices):
    DOCUMENTATION = "documentation", "Documentation"
    TUTORIAL = "tutorial", "Tutorial"
    RECIPE = "recipe", "Recipe"
    RFC = "rfc", "RFC"
    DESIGN_DOC = "design_doc", "Design doc"
    USAGE_EXAMPLES = "usage_examples", "Usage examples"
    PULL_REQUEST = "pull_request", "Pull request"
    ISSUE = "issue", "Issue"
    RELEASE_NOTES = "release_notes", "Release notes"
    BLOG_POST = "blog_post", "Blog post"
    PAPER = "paper", "Paper"
    SOURCE_CODE = "source_code", "Source code"
    # Roles rather than documents: a credit the post gives, a person's page.
    ACKNOWLEDGEMENT = "acknowledgement", "Acknowledgement"
    PROFILE = "profile", "Profile"
    OTHER = "other", "Other"


def validate_version(value):
    try:
        versions.Version.parse(value)
    except versions.InvalidVersion as error:
        raise ValidationError(str(error), code="invalid_version") from error


NEWEST_FIRST = ("-version_key",)
# Positions are small integers on every database: PostgreSQL's smallint, checked on SQLite too.
MAX_POSITION = 32767
FEATURES_NEWEST_FIRST = ("-release_version_key", "position")


def search_column(help_text):
    """A column search compares, derived by ``prepare_save`` (releases.text.searchable)."""
    return models.TextField(blank=True, default="", editable=False, help_text=help_text)


def history(*derived):
    """
    The model's history (django-simple-history's table), written by ``writes.record``.

    Fields derived from others (version parts, copied keys, generated columns) and the
    ``updated_at`` stamp are left out: the history keeps what editors and posts decide.
    """
    return writes.CatalogHistory(
        excluded_fields=["updated_at", "row_version", *derived], bases=[writes.HistoricalKeys]
    )


class Timestamped(models.Model):
    """
    When a row was created and last changed. ``save()`` and ``delete()`` go through the one
    write path (``changes``): a save that changes nothing writes nothing.
    """

    # Defaults rather than auto_now: writes.stamp() sets updated_at, on every write path.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    # Optimistic concurrency: every write through ``changes`` adds one, and a save from a form
    # read at an older version is refused (``writes.StaleEdit``).
    row_version = models.PositiveIntegerField(
        default=1, editable=False, help_text="How many times the row was written."
    )

    class Meta:
        abstract = True

    # Columns derived from others by prepare_save(): written along with any change.
    derived_fields = ()

    def save(self, *args, **kwargs):
        writes.prepare(self)
        writes.save(self, super().save, *args, **kwargs)

    save.alters_data = True

    def delete(self, using=None, keep_parents=False):
        return writes.delete([self], using=using or self._state.db or "default")

    delete.alters_data = True

    @classmethod
    def carried_fields(cls):
        """
        What a copy of the catalog carries of this model — a fixture, a mirror: every field
        but the primary key, the timestamps and what is derived from other fields.
        """
        return [
            field.name
            for field in cls._meta.concrete_fields
            if not (field.primary_key or field.generated)
            and field.name not in {"created_at", "updated_at", "row_version", *cls.derived_fields}
        ]

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        writes.remember_loaded(instance)  # what a save compares with, to write only changes
        return instance

    def prepare_save(self):
        """Derive the fields that follow from others, before any write path stores the row."""


class FromPost(models.Model):
    """Where the importer read a row: refreshed by every import, empty for an editor's own."""

    source_post = models.CharField(
        max_length=255,
        blank=True,
        default="",
        editable=False,
        help_text="The file name of the post it was read from.",
    )
    source_url = models.URLField(
        max_length=500, blank=True, default="", editable=False, help_text="That post's URL."
    )
    source_section = models.CharField(
        max_length=200,
        blank=True,
        default="",
        editable=False,
        help_text="The heading of the post's section it is in; empty outside any section.",
    )

    class Meta:
        abstract = True

    @property
    def section_name(self):
        """The section's heading as readers see it: in sentence case where a post shouted it."""
        return text.sentence_case(self.source_section)
