"""
Reading the catalog's history: comparing versions, recovering deleted features, and the change
log that mirrors follow (``/api/changes/``).

The history is written by ``changes.record`` into django-simple-history's tables, one per
model; each record holds every field of the object, who changed it, when, why, and the natural
keys it and its references had at that moment.
"""

import base64
import binascii
import datetime as dt
import json
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, Subquery

from .changes import CREATED, DELETED, UPDATED
from .models import Area, AreaAlias, Feature, Link, Release, StageClaim, Track

# The change log's types, in the order a mirror must apply changes made at the same moment:
# what others refer to first.
TYPES = {
    "area": Area,
    "alias": AreaAlias,
    "track": Track,
    "release": Release,
    "feature": Feature,
    "link": Link,
    "claim": StageClaim,
}
ACTIONS = {CREATED: "created", UPDATED: "updated", DELETED: "deleted"}

# --- compare and recover ---------------------------------------------------------------------


def compare(older, newer):
    """Rows (field, value in ``older``, value in ``newer``, whether they differ)."""
    rows = []
    for field in older.instance_type._meta.concrete_fields:
        if field.attname not in {f.attname for f in type(older).tracked_fields}:
            continue
        before, after = getattr(older, field.attname), getattr(newer, field.attname)
        if field.is_relation:
            key = field.name
            before = ":".join(map(str, older.history_refs.get(key, []))) or before
            after = ":".join(map(str, newer.history_refs.get(key, []))) or after
        rows.append((field.verbose_name, before, after, before != after))
    return rows


def latest_records(model):
    """The latest history record of every object of ``model`` ever recorded."""
    history = model.history.model
    newer = history.objects.filter(id=OuterRef("id"), history_id__gt=OuterRef("history_id"))
    return history.objects.filter(~Exists(newer))


def deleted_features():
    """The records of deleted features (their last), newest first, with the user who did it."""
    return (
        latest_records(Feature)
        .filter(history_type=DELETED)
        .exclude(id__in=Feature.objects.values("id"))
        .select_related("history_user")
        .order_by("-history_date")
    )


class CannotRecover(Exception):
    """A deleted feature cannot come back as it was; the message says why."""


def recover_feature(record):
    """
    Bring back the feature of a deletion ``record``, with the links deleted along with it
    (those recorded in the same moment); returns (feature, number of links). Its own track
    comes back too, or it gets a new one if that track is gone.
    """
    if Feature.objects.filter(pk=record.id).exists():
        raise CannotRecover(f"{record.title} is not deleted.")
    if not Release.objects.filter(pk=record.release_id).exists():
        version = record.history_key[0] if record.history_key else "?"
        raise CannotRecover(
            f"Cannot recover {record.title}: its release {version} is deleted too; "
            "recover the release first."
        )
    if not Area.objects.filter(pk=record.area_id).exists():
        raise CannotRecover(f"Cannot recover {record.title}: its area is deleted.")
    links = [
        link
        for link in latest_records(Link).filter(
            feature_id=record.id, history_type=DELETED, history_date=record.history_date
        )
        if not Link.objects.filter(pk=link.id).exists()
    ]
    with transaction.atomic():
        feature = record.instance
        taken = Feature.objects.filter(track_id=feature.track_id, release_id=feature.release_id)
        if not Track.objects.filter(pk=feature.track_id).exists() or taken.exists():
            feature.track_id = None  # prepare_save gives it a track of its own
        feature._state.adding = True
        feature.save()
        for link in links:
            restored = link.instance
            restored._state.adding = True
            restored.save()
    return feature, len(links)


# --- the change log ----------------------------------------------------------------------------


class BadCursor(ValueError):
    """A cursor this server did not write."""


@dataclass(frozen=True)
class Position:
    """Where a page of the change log ends: the last entry's time, type and record."""

    time: dt.datetime
    rank: int
    record: int

    def encode(self):
        raw = json.dumps([self.time.isoformat(), self.rank, self.record]).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text):
        try:
            padded = text + "=" * (-len(text) % 4)
            time, rank, record = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
            position = cls(dt.datetime.fromisoformat(time), int(rank), int(record))
        except (ValueError, TypeError, UnicodeEncodeError, binascii.Error):
            raise BadCursor("not a cursor this API gave out; start again with since") from None
        if position.time.tzinfo is None or not 0 <= position.rank < len(TYPES):
            raise BadCursor("not a cursor this API gave out; start again with since")
        return position


def changes_since(since=None, after=None, limit=100):
    """
    Up to ``limit`` change-log entries after ``since`` (a time) or ``after`` (a Position),
    oldest first, and whether more follow. One query per type, whatever the history's size.
    """
    entries = []
    for rank, (name, model) in enumerate(TYPES.items()):
        records = model.history.all()
        if after is not None:
            records = records.filter(after_position(after, rank))
        elif since is not None:
            records = records.filter(history_date__gte=since)
        previous = model.history.filter(
            id=OuterRef("id"), history_id__lt=OuterRef("history_id")
        ).order_by("-history_id")
        records = records.annotate(
            previous_key=Subquery(previous.values("history_key")[:1])
        ).order_by("history_date", "history_id")[: limit + 1]
        entries.extend((r.history_date, rank, r.history_id, name, r) for r in records)
    entries.sort(key=lambda entry: entry[:3])
    more = len(entries) > limit
    page = entries[:limit]
    last = Position(*page[-1][:3]) if page else after
    return [entry_of(name, record) for *_, name, record in page], last, more


def after_position(position, rank):
    """Records of the type ``rank`` that come after ``position`` in (time, type, record) order."""
    later = Q(history_date__gt=position.time)
    if rank < position.rank:
        return later
    if rank > position.rank:
        return later | Q(history_date=position.time)
    return later | Q(history_date=position.time, history_id__gt=position.record)


def entry_of(name, record):
    """One change-log entry: what changed, how, when, and the object as it then was."""
    key = record.history_key
    entry = {
        "type": name,
        "action": ACTIONS[record.history_type],
        "key": key,
        "time": record.history_date,
    }
    previous = record.previous_key
    if isinstance(previous, str):  # some databases hand back JSON in a subquery as text
        previous = json.loads(previous)
    entry["previous_key"] = previous if previous not in (None, key) else None
    if record.history_type == DELETED:
        entry["object"] = None
        entry["tombstone"] = {"type": name, "key": key, "deleted_at": record.history_date}
    else:
        entry["object"] = payload(name, record)
        entry["tombstone"] = None
    return entry


def payload(name, record):
    """The object as a record holds it: what fixtures carry, references as natural keys."""
    values = {}
    for field_name in TYPES[name].carried_fields():
        if field_name in record.history_refs:
            values[field_name] = record.history_refs[field_name]
        else:
            values[field_name] = getattr(record, field_name)
    return values
