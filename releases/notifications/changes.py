"""
What a subscription has not read yet: the entries of the public change log after its cursor,
in its topics, and the one net change each object went through.

Several entries about one object read together are told as one: the state the subscriber last
saw of it (the entry before its cursor) against its state now. An edit undone before it was
sent (a title changed and changed back, a release published and unpublished) is no change at
all, and nothing is sent; a release created and then corrected is one ``created`` with the
corrected object. Applying the net changes in order gives a mirror the same objects as
replaying every entry of ``/api/changes/``.
"""

from dataclasses import dataclass

from django.db.models import Max
from django.urls import reverse

from releases import public_log, topics
from releases.models import ChangeTopic, PublicChange

# Entries read in one go: a subscription far behind catches up over several reads.
WINDOW = 500


@dataclass(frozen=True)
class Change:
    """One net change of one object, as it is told: ``entry`` is the last entry it covers."""

    entry: PublicChange
    action: str
    key: object
    previous_key: object
    object: dict | None

    @property
    def event(self):
        return f"{self.entry.type}.{self.action}"

    @property
    def path(self):
        """The page that shows the object (its release's, its track's), or the home page."""
        return page_path(self.entry.type, self.key, self.object)

    @classmethod
    def of(cls, entry):
        """One entry of the log as it was written."""
        return cls(entry, entry.action, entry.key, entry.previous_key, entry.payload)

    def describe(self):
        """(what changed, in words; the object's own title, if it has one)."""
        shown = self.object or {}
        title = next(
            (str(shown[f]) for f in ("title", "name", "summary", "subject") if shown.get(f)), ""
        )
        key = self.key
        key = " ".join(str(part) for part in key) if isinstance(key, list) else str(key)
        words = {"created": "new", "updated": "changed", "deleted": "removed"}[self.action]
        return f"{self.entry.type.replace('_', ' ')} {key}: {words}", title

    def as_item(self):
        """The change as ``/api/changes/`` shows an entry, with its number."""
        deleted = self.action == public_log.DELETED
        return {
            "change": self.entry.pk,
            "type": self.entry.type,
            "action": self.action,
            "key": self.key,
            "previous_key": self.previous_key,
            "time": self.entry.time,
            "object": None if deleted else self.object,
            "tombstone": (
                {"type": self.entry.type, "key": self.key, "deleted_at": self.entry.time}
                if deleted
                else None
            ),
        }


def page_path(type_, key, payload):
    version = topics.release_of(type_, key, payload)
    if not version and key and isinstance(key[0], str) and topics.VERSION.match(key[0]):
        version = key[0]  # most keys begin with their release's version
    if version and topics.VERSION.match(version):
        release = ".".join(version.split(".")[:2])
        return reverse("page-release", args=[release])
    slug = topics.track_of(type_, key, payload)
    if slug:
        return reverse("page-track", args=[slug])
    return reverse("page-home")


def latest(topic, limit=50):
    """The newest ``limit`` entries of the log in ``topic`` (a Topic), newest first: one query."""
    entries = PublicChange.objects.order_by("-pk")
    if topic.family != topics.ALL:
        tagged = ChangeTopic.objects.filter(topic=str(topic)).order_by("-change_id")
        ids = tagged.values_list("change_id", flat=True)[:limit]
        entries = entries.filter(pk__in=list(ids))
    return [Change.of(entry) for entry in entries[:limit]]


def head():
    """The number of the log's last entry (0 when it is empty)."""
    return PublicChange.objects.aggregate(last=Max("pk"))["last"] or 0


def entries_in(subscription_topics, after, upto, limit=WINDOW):
    """Up to ``limit`` entries numbered after ``after`` and up to ``upto``, in the topics."""
    entries = PublicChange.objects.filter(pk__gt=after, pk__lte=upto).order_by("pk")
    if topics.ALL not in subscription_topics:
        tagged = ChangeTopic.objects.filter(topic__in=subscription_topics, change__gt=after)
        entries = entries.filter(pk__in=tagged.filter(change__lte=upto).values("change_id"))
    return list(entries[:limit])


def unread(subscription, upto=None):
    """
    (the net changes of the entries after ``subscription``'s cursor, the cursor that reading
    them reaches): one window at most. An empty list with a new cursor means the subscription
    has read entries that were none of its business.
    """
    upto = head() if upto is None else upto
    entries = entries_in(subscription.topics, subscription.cursor, upto)
    reached = entries[-1].pk if len(entries) == WINDOW else upto
    return net(entries, subscription.cursor), max(reached, subscription.cursor)


def state(entry):
    """(key, payload) of an object after ``entry``; None where it was not public."""
    if entry is None or entry.action == public_log.DELETED:
        return None
    return (entry.key, entry.payload)


def net(entries, cursor):
    """The net change of each object ``entries`` are about, in the order of their last entry."""
    groups = {}
    for entry in entries:
        groups.setdefault((entry.type, entry.object_id), []).append(entry)
    # What the subscriber saw before, needed where several entries may undo one another.
    earlier = seen_before(
        [
            ident
            for ident, group in groups.items()
            if len(group) > 1 and group[0].action != public_log.CREATED
        ],
        cursor,
    )
    told = []
    for ident, group in groups.items():
        first, last = group[0], group[-1]
        if first.action == public_log.CREATED:
            before = None
        elif len(group) == 1:
            # One entry: told as the log tells it.
            told.append(Change(last, last.action, last.key, last.previous_key, last.payload))
            continue
        else:
            before = state(earlier.get(ident))
        after = state(last)
        if before == after:
            continue  # undone before it was sent
        if before is None:
            told.append(Change(last, public_log.CREATED, after[0], None, after[1]))
        elif after is None:
            told.append(Change(last, public_log.DELETED, before[0], None, None))
        else:
            moved = before[0] if before[0] != after[0] else None
            told.append(Change(last, public_log.UPDATED, after[0], moved, after[1]))
    told.sort(key=lambda change: change.entry.pk)
    return told


def seen_before(idents, cursor):
    """{(type, object id): the last entry about it numbered up to ``cursor``}: two queries."""
    if not idents:
        return {}
    found = {}
    for kind in {kind for kind, _ in idents}:
        ids = [object_id for k, object_id in idents if k == kind]
        last = (
            PublicChange.objects.filter(type=kind, object_id__in=ids, pk__lte=cursor)
            .values("object_id")
            .annotate(last=Max("pk"))
            .values_list("last", flat=True)
        )
        for entry in PublicChange.objects.filter(pk__in=list(last)):
            found[(entry.type, entry.object_id)] = entry
    return found
