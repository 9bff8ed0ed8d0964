"""
Who is told of the catalog's changes, and what they were sent: webhooks and their deliveries,
email subscriptions and their digests (releases/notifications/). Each subscription reads the
public change log from its own cursor; none of this is catalog data: no fixtures, no change log
of its own, but a history of every change an editor or the worker makes.
"""

import uuid

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from simple_history.models import HistoricalRecords

from releases.models.public import PublicChange
from releases.topics import BadTopic, parse_all


class Subscription(models.Model):
    """
    What a webhook and an email subscription share: the topics they follow (releases.topics),
    the last entry of the public change log they have read (``cursor``), and a lease that keeps
    two workers from serving one subscription at once (releases/importing/lease.py).
    """

    topics = models.JSONField(
        default=list,
        help_text="What it follows: all, releases, releases:2.x, releases:2.14, compatibility, "
        "schedule, track:SLUG, api:PREFIX (one a line in the admin).",
    )
    cursor = models.BigIntegerField(
        default=0,
        editable=False,
        help_text="The number of the last change-log entry read: it follows what comes after.",
    )
    lease_holder = models.CharField(max_length=200, blank=True, editable=False)
    lease_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        abstract = True

    def clean(self):
        super().clean()
        try:
            self.topics = parse_all(self.topics if isinstance(self.topics, list) else [])
        except BadTopic as error:
            raise ValidationError({"topics": str(error)}) from None


class Webhook(Subscription):
    """An endpoint that receives a signed POST for each change in its topics."""

    url = models.URLField(
        max_length=500,
        help_text="Where deliveries are POSTed: https, on a public address.",
    )
    description = models.CharField(max_length=200, blank=True, help_text="Whose it is, what for.")
    secret = models.CharField(
        max_length=200,
        editable=False,
        help_text="Signs each delivery (X-Catalog-Signature); shown once, when it is drawn.",
    )
    is_active = models.BooleanField(
        default=True, help_text="Off: nothing is sent; changes still queue for it."
    )
    paused_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it was paused after repeated failures (WEBHOOK_MAX_FAILURES). "
        "Resume it in the admin: the queued deliveries are then sent.",
    )
    consecutive_failures = models.PositiveIntegerField(
        default=0, help_text="Failed attempts since the last success."
    )
    last_error = models.CharField(max_length=500, blank=True, help_text="The last failure.")

    history = HistoricalRecords(excluded_fields=["secret", "lease_holder", "lease_expires_at"])

    class Meta:
        ordering = ["url", "id"]
        indexes = [models.Index(fields=["is_active", "paused_at"], name="webhook_sending_idx")]

    def __str__(self):
        return self.url

    @property
    def is_paused(self):
        return self.paused_at is not None


class WebhookDelivery(models.Model):
    """
    One change sent to one webhook: the body exactly as it is (and will be again) sent, and
    what became of each attempt. Made once per (webhook, change-log entry), so a worker that
    restarts never makes it twice; its ``uuid`` is the delivery's id in the body and in
    ``X-Catalog-Delivery``.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "waiting to be sent"
        DELIVERED = "delivered", "delivered"

    uuid = models.UUIDField(default=uuid.uuid4, editable=False, unique=True)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    change = models.ForeignKey(
        PublicChange,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The change-log entry it reports (the last, where several about one object "
        "were read together).",
    )
    event = models.CharField(max_length=60, help_text="release.created, feature.updated, ...")
    body = models.TextField(editable=False, help_text="The JSON sent, byte for byte.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(
        default=timezone.now, help_text="When it is next due, while pending."
    )
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The HTTP status of the last answer."
    )
    error = models.CharField(max_length=500, blank=True, help_text="Why the last attempt failed.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    history = HistoricalRecords(excluded_fields=["body"])

    class Meta:
        ordering = ["webhook", "change"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(fields=["webhook", "change"], name="delivery_once_per_change"),
        ]
        indexes = [
            # A webhook's queue, in log order; and the worker's scan for what is due.
            models.Index(fields=["webhook", "status", "change"], name="delivery_queue_idx"),
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due_idx"),
        ]

    def __str__(self):
        return f"{self.event} to {self.webhook_id} ({self.get_status_display()})"


class EmailSubscription(Subscription):
    """An address that receives a digest of the changes in its topics, once confirmed."""

    class Frequency(models.TextChoices):
        DAILY = "daily", "daily"
        WEEKLY = "weekly", "weekly"

    email = models.EmailField(max_length=254, help_text="In lower case.")
    frequency = models.CharField(max_length=10, choices=Frequency.choices, default=Frequency.WEEKLY)
    confirmed_at = models.DateTimeField(
        null=True, blank=True, help_text="Nothing but a confirmation is sent before this."
    )
    confirmation_sent_at = models.DateTimeField(
        null=True, blank=True, help_text="One confirmation an address per SUBSCRIBE_RESEND_SECONDS."
    )
    unsubscribed_at = models.DateTimeField(null=True, blank=True)
    last_digest_at = models.DateTimeField(null=True, blank=True)

    history = HistoricalRecords(excluded_fields=["lease_holder", "lease_expires_at"])

    class Meta:
        ordering = ["email"]
        constraints = [
            models.UniqueConstraint(fields=["email"], name="email_subscription_unique"),
        ]
        indexes = [
            models.Index(
                fields=["confirmed_at", "unsubscribed_at", "last_digest_at"],
                name="email_due_idx",
            )
        ]

    def __str__(self):
        return self.email

    @property
    def is_receiving(self):
        return self.confirmed_at is not None and self.unsubscribed_at is None


class EmailDigest(models.Model):
    """One digest mailed to a subscriber: the entries of the change log it covered."""

    subscription = models.ForeignKey(
        EmailSubscription, on_delete=models.CASCADE, related_name="digests"
    )
    first_change = models.BigIntegerField(help_text="The first change-log entry it covers.")
    last_change = models.BigIntegerField(help_text="The last change-log entry it covers.")
    items = models.PositiveIntegerField(help_text="How many changes it told.")
    sent_at = models.DateTimeField(default=timezone.now)

    history = HistoricalRecords()

    class Meta:
        ordering = ["-sent_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "last_change"], name="digest_once_per_cursor"
            ),
        ]

    def __str__(self):
        return f"digest to {self.subscription} up to {self.last_change}"
