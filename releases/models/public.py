"""
What the public surfaces read beside the catalog: the public change log mirrors replay,
and the catalog's revision (ETags, the page cache).
"""

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from releases.declarations import TYPE_LENGTH
from releases.topics import TOPIC_LENGTH


class PublicObject(models.Model):
    """
    The last public state of a catalog object that the public change log announced: its natural
    key and payload. ``public_log`` compares the catalog with it after every write.
    """

    type = models.CharField(max_length=TYPE_LENGTH, help_text="The change log's name of its model.")
    object_id = models.BigIntegerField(help_text="The object's primary key.")
    key = models.JSONField(encoder=DjangoJSONEncoder)
    payload = models.JSONField(encoder=DjangoJSONEncoder)

    class Meta:
        ordering = ["type", "object_id"]
        constraints = [
            models.UniqueConstraint(fields=["type", "object_id"], name="publicobject_unique")
        ]

    def __str__(self):
        return f"{self.type} {self.key}"


class PublicChange(models.Model):
    """One entry of the public change log, ``/api/changes/``: numbered in commit order."""

    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        DELETED = "deleted"

    id = models.BigAutoField(primary_key=True)
    time = models.DateTimeField(db_index=True)
    type = models.CharField(max_length=TYPE_LENGTH)
    object_id = models.BigIntegerField()
    action = models.CharField(max_length=10, choices=Action.choices)
    key = models.JSONField(encoder=DjangoJSONEncoder)
    previous_key = models.JSONField(encoder=DjangoJSONEncoder, null=True)
    payload = models.JSONField(encoder=DjangoJSONEncoder, null=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            # An object's entries in order: the state a subscriber last saw of it
            # (releases.notifications.changes).
            models.Index(fields=["type", "object_id", "id"], name="publicchange_object_idx"),
        ]

    def __str__(self):
        return f"{self.action} {self.type} {self.key}"


class ChangeTopic(models.Model):
    """
    A topic an entry of the public change log belongs to (releases.topics), stored with the
    entry: a subscription's or a topic feed's entries are one indexed lookup.
    """

    change = models.ForeignKey(PublicChange, on_delete=models.CASCADE, related_name="topics")
    topic = models.CharField(max_length=TOPIC_LENGTH)

    class Meta:
        ordering = ["change_id", "topic"]
        constraints = [
            # Also the index of a topic's entries in log order.
            models.UniqueConstraint(fields=["topic", "change"], name="changetopic_unique"),
        ]

    def __str__(self):
        return f"{self.topic} {self.change_id}"


class CatalogRevision(models.Model):
    """
    The catalog's revision (``releases.revision``): one row, rewritten in the transaction of
    every write to the catalog, so that what decides whether a cached answer is fresh commits
    with the change it announces, whatever happens to a cache.
    """

    token = models.CharField(max_length=32, help_text="Drawn anew at every write.")
    changed_at = models.DateTimeField(help_text="When the revision started.")
    number = models.PositiveBigIntegerField(default=1, help_text="Revisions so far.")
    second_first = models.PositiveBigIntegerField(
        default=1,
        help_text="The number of the first revision that started in the same whole second.",
    )

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return f"revision {self.number} ({self.token})"


class PublicLogHead(models.Model):
    """One row that writers of the public change log hold while they write: one at a time."""

    def __str__(self):
        return "public change log"
