"""
The editors' desk: what needs doing, as queues with counts, each a link to the list that
works it, how current the catalog is (its newest releases, and what the blog announced that it
does not hold), the drafts with their publishing checklists, and the latest changes with who
made them. A bounded number of queries, whatever the catalog's size.
"""

from dataclasses import dataclass, replace
from heapq import merge
from itertools import islice

from django.conf import settings
from django.db.models import Subquery
from django.urls import reverse

from releases import actions, publishing
from releases.actions import DELETED
from releases.admin import linkdesk
from releases.declarations import public_models
from releases.importing import indexes
from releases.importing.areas import UNFILED_AREA
from releases.models import (
    Area,
    BlogAnnouncement,
    BlogFeed,
    Companion,
    Feature,
    IndexSync,
    Link,
    PatchRelease,
    Release,
    ScheduleDate,
    StageClaim,
    Support,
    UpgradeNote,
    Webhook,
    Wheel,
)
from releases.queries import wheels

SOURCED = (Support, Companion, PatchRelease, ScheduleDate, Wheel)
SHOWN = 20  # rows of each list the desk shows; the rest are a link away, whatever is stored


@dataclass
class Shown:
    """The first SHOWN rows of a list, how many there are, and where to see them all."""

    rows: list
    total: int
    url: str = ""

    def __iter__(self):
        return iter(self.rows)

    def __bool__(self):
        return bool(self.rows)

    @property
    def more(self):
        return self.total - len(self.rows)


def shown(queryset, url=""):
    """The desk's part of ``queryset`` (two queries however many rows it holds)."""
    rows = list(queryset[:SHOWN])
    total = len(rows) if len(rows) < SHOWN else queryset.count()
    return Shown(rows, total, url)


@dataclass
class Queue:
    title: str
    count: int
    url: str
    hint: str


def changelist(model_name, query=""):
    return reverse(f"admin:releases_{model_name}_changelist") + (f"?{query}" if query else "")


def queues():
    """Every queue, in the order an editor's day works them."""
    features = Feature.objects.all()
    return [
        Queue(
            "Links missing",
            Link.objects.missing().count(),
            changelist("link", "is_missing=yes"),
            "Links a post promised but left empty: fill in the URL.",
        ),
        Queue(
            "Broken links",
            linkdesk.queue().count(),
            linkdesk.queue_url(),
            "Broken, unreachable or moved for good, as check_links found them: apply a fix.",
        ),
        Queue(
            "Draft releases",
            Release.objects.drafts().count(),
            changelist("release", "is_published__exact=0"),
            "Imported, not yet public: work the checklist below, then publish.",
        ),
        Queue(
            "New features awaiting approval",
            features.awaiting_approval().count(),
            changelist("feature", "needs_approval__exact=1"),
            "Added by a post to a release already published.",
        ),
        Queue(
            "Stage claims awaiting review",
            StageClaim.objects.pending().count(),
            changelist("stageclaim", "status__exact=pending"),
            "Stages a post states in prose: accept or reject each.",
        ),
        Queue(
            "Areas awaiting review",
            Area.objects.filter(needs_review=True).count(),
            changelist("area", "needs_review__exact=1"),
            "Headings no area knew: keep as an area, or make them an alias.",
        ),
        Queue(
            "Planned releases past their date",
            Release.objects.overdue().count(),
            changelist("release", "planned__exact=1"),
            "The schedule's day has passed and no announcement was imported: import its post, "
            "or correct the date.",
        ),
        Queue(
            "Compatibility rows awaiting review",
            sum(model.objects.filter(needs_review=True).count() for model in SOURCED),
            changelist("support", "needs_review__exact=1"),
            "Platforms, companions, patches and dates an import brought: keep or delete each "
            "(the other lists are under Releases in the menu).",
        ),
        Queue(
            "Upgrade notes awaiting review",
            UpgradeNote.objects.filter(needs_review=True).count(),
            changelist("upgradenote", "needs_review__exact=1"),
            "Breaking changes, removals and deprecations import_release_notes read: write each "
            "one's summary in our words, check its APIs, then keep it.",
        ),
        Queue(
            "Webhooks paused",
            Webhook.objects.filter(paused_at__isnull=False).count(),
            changelist("webhook", "is_paused=yes"),
            "Paused after repeated failed deliveries (WEBHOOK_MAX_FAILURES): fix the receiver "
            "or ask its owner, then resume it; what waits is sent then.",
        ),
        Queue(
            "Features without a stage",
            features.filter(stability="").count(),
            changelist("feature", "missing=stage"),
            "No tag, section or claim gave a stability.",
        ),
        Queue(
            "Features without an area",
            features.filter(area__name=UNFILED_AREA).count(),
            changelist("feature", "missing=area"),
            f"Filed under {UNFILED_AREA} because the post put them under no heading.",
        ),
        Queue(
            "Features without a summary",
            features.filter(summary="").count(),
            changelist("feature", "missing=summary"),
            "Say what each is, in our own words.",
        ),
    ]


def checklist(release):
    """The release's publishing checklist (releases.publishing), each check linked to the admin
    list where it is done."""
    links = reverse("admin:releases_link_changelist")
    features = reverse("admin:releases_feature_changelist")
    change = reverse("admin:releases_release_change", args=[release.pk])
    where = {
        "release_date": change,
        "summary": change,
        "areas": reverse("admin:releases_area_changelist") + "?needs_review__exact=1",
        "claims": reverse("admin:releases_stageclaim_changelist")
        + f"?status__exact=pending&release__id__exact={release.pk}",
        "links": f"{links}?is_missing=yes&feature__release__id__exact={release.pk}",
        "summaries": f"{features}?missing=summary&release__id__exact={release.pk}",
    }
    return [replace(check, url=where[check.key]) for check in publishing.checklist(release)]


def drafts():
    """The newest draft releases, each with its publishing checklist (two queries)."""
    listed = shown(
        Release.objects.drafts().with_checklist().newest_first(),
        changelist("release", "is_published__exact=0"),
    )
    listed.rows = [(release, checklist(release)) for release in listed.rows]
    return listed


@dataclass
class Currency:
    """How current the catalog is."""

    newest: Release | None  # the newest release held, draft or published
    newest_published: Release | None
    announced: Shown  # BlogAnnouncements not imported, newest version first
    watch: BlogFeed | None  # the blog's feed as watch_blog last read it; None if it never ran
    index: IndexSync | None  # the package indexes as sync_index last read them
    unannounced: Shown  # releases out (the index lists them) with no announcement imported
    disagreements: Shown  # (release, documented without a wheel, wheels undocumented): Python


def currency():
    """
    The newest releases held, what the blog announced that is not imported, what the package
    index lists that no announcement covers, and where wheels and tables disagree (at most 10
    queries, and SHOWN rows of each list).
    """
    releases = Release.objects.newest_first()
    announced = releases.filter(announced=True, planned=False).values("version_key")[:1]
    return Currency(
        newest=releases.first(),
        newest_published=releases.published().first(),
        announced=shown(
            BlogAnnouncement.objects.filter(release__isnull=True),
            changelist("blogannouncement", "is_imported=no"),
        ),
        watch=BlogFeed.objects.filter(url=settings.BLOG_FEED_URL).first(),
        index=IndexSync.objects.filter(name=indexes.SYNC_NAME).first(),
        unannounced=shown(
            releases.filter(announced=False, planned=False, version_key__gt=Subquery(announced)),
            changelist("release", "announced__exact=0&planned__exact=0"),
        ),
        disagreements=shown_list(wheels.python_disagreements()),
    )


def shown_list(rows):
    return Shown(rows[:SHOWN], len(rows))


@dataclass
class Change:
    when: object
    who: str
    action: str
    what: str
    why: str
    url: str


def named(record):
    """What a history record is of, from its own fields: its object's ``__str__`` would read
    its release (a query a row)."""
    for field in ("version", "title", "name", "label", "subject"):
        value = getattr(record, field, None)
        if value:
            return value
    return " / ".join(map(str, record.history_key))


def recent_changes(limit=12):
    """The latest changes to the catalog, newest first: one query per kind of object."""
    streams = []
    for model in public_models().values():
        records = model.history.select_related("history_user").order_by(
            "-history_date", "-history_id"
        )[:limit]
        streams.append([(record, model) for record in records])
    newest = merge(*streams, key=lambda item: item[0].history_date, reverse=True)
    changes = []
    for record, model in islice(newest, limit):
        url = ""
        if record.history_type != DELETED:
            url = reverse(f"admin:releases_{model._meta.model_name}_history", args=[record.id])
        changes.append(
            Change(
                when=record.history_date,
                who=record.history_user.get_username() if record.history_user else "",
                action=actions.WORDS[record.history_type],
                what=f"{model._meta.verbose_name} {named(record)}",
                why=record.history_change_reason or "",
                url=url,
            )
        )
    return changes
