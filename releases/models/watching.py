"""
What ``watch_blog`` keeps of the blog's feed: the feed's state and each announcement found.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from releases import versions
from releases.models.base import (
    validate_version,
)
from releases.models.catalog import (
    Release,
)


class Run(models.Model):
    """
    A command run from cron, one at a time (releases/importing/lease.py): when it last ended,
    what it said, and the lease that keeps two runs from overlapping, on every host that
    shares the database. ``watch_blog``'s feed and ``sync_index``'s sync are each one.
    """

    checked_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run last ended, whatever it found."
    )
    outcome = models.CharField(max_length=500, blank=True, help_text="The last run's summary.")
    lease_holder = models.CharField(
        max_length=200, blank=True, help_text="The run under way: its host and process."
    )
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="When the run under way loses the lease, if it stalls."
    )

    class Meta:
        abstract = True


class BlogFeed(Run):
    """
    The blog's feed as ``watch_blog`` last read it (releases/importing/watch.py): the
    validators of its last answer, sent back on the next run so that an unchanged feed costs a
    304; when a run last ended and what it said; and the lease that keeps two runs from
    overlapping, on every host that shares the database.
    """

    url = models.URLField(max_length=500, help_text="The feed's address (BLOG_FEED_URL).")
    etag = models.CharField(
        max_length=500, blank=True, help_text="The ETag of the feed's last full answer."
    )
    last_modified = models.CharField(
        max_length=100, blank=True, help_text="The Last-Modified of that answer, as it was sent."
    )
    read_at = models.DateTimeField(
        null=True, blank=True, help_text="When the feed last answered (200 or 304)."
    )
    is_failing = models.BooleanField(
        default=False, help_text="The last run failed: the feed or a post was out of reach."
    )

    class Meta:
        ordering = ["url"]
        constraints = [models.UniqueConstraint(fields=["url"], name="blogfeed_unique_url")]

    def __str__(self):
        return self.url


class BlogAnnouncement(models.Model):
    """
    A post of the blog's feed that announces a release, as ``watch_blog`` found it, and what
    became of it: the release imported from it (or the release the catalog already held), or
    why it is not imported yet. Observations, not editors' data: no history, no fixtures.
    """

    feed = models.ForeignKey(
        BlogFeed,
        on_delete=models.CASCADE,
        related_name="announcements",
        help_text="The feed that lists it: a run reads and imports its own feed's only.",
    )
    url = models.URLField(max_length=500, help_text="The post's address, as the feed links it.")
    title = models.CharField(max_length=300, help_text="The post's title in the feed.")
    version = models.CharField(
        max_length=20, validators=[validate_version], help_text="The release its title announces."
    )
    version_key = models.BigIntegerField(
        editable=False, help_text="The version's parts as one integer: the order of versions."
    )
    published_date = models.DateField(
        null=True, blank=True, help_text="The day the feed says the post was published."
    )
    release = models.ForeignKey(
        Release,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="blog_announcements",
        help_text="The catalog's release of that version: imported from the post, or already "
        "held. Empty while the post is not imported.",
    )
    problem = models.TextField(
        blank=True, help_text="Why the post is not imported: its download, or the importer."
    )
    first_seen_at = models.DateTimeField(
        default=timezone.now, help_text="When a run first found it in the feed."
    )
    last_seen_at = models.DateTimeField(
        default=timezone.now, help_text="When a run last found it in the feed."
    )
    attempted_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run last downloaded it to import it."
    )

    class Meta:
        ordering = ["-version_key", "url"]
        constraints = [
            models.UniqueConstraint(
                fields=["feed", "url"], name="blogannouncement_unique_feed_url"
            ),
        ]
        indexes = [
            models.Index(fields=["-version_key", "url"], name="blogannouncement_newest_idx"),
            # A run's and the desk's "announced, not imported": the rows without a release.
            models.Index(
                fields=["feed", "version_key"],
                condition=Q(release__isnull=True),
                name="blogannouncement_pending_idx",
            ),
        ]

    def __str__(self):
        return f"{self.title} ({self.version})"

    def save(self, *args, **kwargs):
        self.version = versions.normalize(self.version)
        self.version_key = versions.Version.parse(self.version).key
        super().save(*args, **kwargs)

    save.alters_data = True

    @property
    def is_imported(self):
        return self.release_id is not None


class IndexSync(Run):
    """
    ``sync_index`` as it last ran (releases/importing/indexes.py): when it last ended and what
    it said, what it changed, whether it failed, and the lease that keeps two runs from
    overlapping on every host that shares the database. One row, named ``index``.
    """

    name = models.CharField(max_length=50, help_text="Which sync: index.")
    read_at = models.DateTimeField(
        null=True, blank=True, help_text="When the indexes last answered, every page of them."
    )
    is_failing = models.BooleanField(
        default=False, help_text="The last run failed: an index was out of reach or garbled."
    )
    changes = models.TextField(
        blank=True, help_text="What the last run that changed anything changed, a line each."
    )
    changed_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run last changed the catalog."
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "package index sync"
        constraints = [models.UniqueConstraint(fields=["name"], name="indexsync_unique_name")]

    def __str__(self):
        return f"sync_index ({self.name})"


class IndexPage(models.Model):
    """
    A project page of a package index as ``sync_index`` last read it: the validators of its
    last full answer, sent back so that an unchanged page costs a 304.
    """

    url = models.URLField(max_length=500, help_text="The page's address.")
    etag = models.CharField(max_length=500, blank=True, help_text="Its last answer's ETag.")
    last_modified = models.CharField(
        max_length=100, blank=True, help_text="Its last answer's Last-Modified, as sent."
    )
    read_at = models.DateTimeField(
        null=True, blank=True, help_text="When the page last answered (200 or 304)."
    )

    class Meta:
        ordering = ["url"]
        constraints = [models.UniqueConstraint(fields=["url"], name="indexpage_unique_url")]

    def __str__(self):
        return self.url
