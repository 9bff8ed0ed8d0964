"""
Reading the catalog's history: comparing versions and recovering deleted features. (The change
log that mirrors follow, ``/api/changes/``, is the public catalog's: ``public_log``.)

The history is written by ``changes.record`` into django-simple-history's tables, one per
model; each record holds every field of the object, who changed it, when, why, and the natural
keys it and its references had at that moment.
"""

from django.db import transaction
from django.db.models import Exists, OuterRef

from releases.actions import DELETED
from releases.models import Area, Feature, Link, Release, Track

# --- compare and recover ---------------------------------------------------------------------


def field_rows(older, newer):
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
