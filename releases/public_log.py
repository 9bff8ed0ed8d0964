"""
The public change log (``/api/changes/``): what a mirror replays to stay equal to the public
catalog, and never a word of a draft.

The write path (``writes.record``) calls ``follow()`` after every write, inside the writing
transaction. ``follow()`` works out which objects' public state the write can have changed —
the object itself, and what shows it or is shown through it (publishing a release reaches its
features, links and claims; a feature reaches its track and area) — computes each one's public
state now (its natural key and payload, or nothing where the ``published()`` rule of its
QuerySet hides it) and compares it with the state the log last announced
(``PublicObject``). Each difference is one entry (``PublicChange``):

- public now, not before: *created* — publishing a release, approving a feature;
- public before and now, with another key or payload: *updated*;
- public before, not now: *deleted*, a tombstone — unpublishing, deleting.

Entries of one write come deletions first (what refers to others first), then creations and
updates (what others refer to first), so a mirror that applies them in order never holds a
dangling reference. Writers take the log's head row for update, so entries are numbered in the
order their transactions commit, and a cursor never skips an entry committed later.
"""

import base64
import binascii
import json
from collections import defaultdict

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from releases import actions, declarations, topics
from releases.declarations import public_models, type_of
from releases.keys import BATCH, batches, describe

# The actions of the log, as words (releases.actions, the one spelling).
CREATED, UPDATED, DELETED = (
    actions.WORDS[a] for a in (actions.CREATED, actions.UPDATED, actions.DELETED)
)


def types():
    """The log's types, in the order a mirror creates them (releases.declarations)."""
    return list(public_models())


def catalog_model(name):
    return public_models()[name]


log_model = declarations.model


# --- what a write reaches --------------------------------------------------------------------


def follow(writes, using, when):
    """
    After ``writes`` — (model, rows, before) each: the history records of what was written,
    which keep the ids and references of deleted objects too, and the values the rows had
    before an update — announce every change they made to the public catalog.
    """
    reached = defaultdict(set)
    for model, rows, before in writes:
        kind = type_of(model)
        if kind is not None and rows:
            reach(kind, rows, before or {}, reached, using)
    if reached:
        # Inside the writer's transaction; a write made in autocommit gets one of its own,
        # which the head row's lock needs.
        with transaction.atomic(using=using, savepoint=False):
            close(reached, using)
            announce(reached, using, when)


def reach(kind, rows, before, reached, using):
    """
    Add to ``reached`` the ids whose public state a write of ``rows`` may change: the rows
    themselves, and what their model declares it reaches (releases.declarations).
    """
    reached[kind] |= {row.id for row in rows}
    for other, lookup, values in declarations.reached(
        catalog_model(kind).public.reaches, rows, before
    ):
        if lookup == "pk":
            reached[other] |= values
            continue
        manager = catalog_model(other)._base_manager.using(using)
        for batch in batches(sorted(values)):
            found = manager.filter(**{f"{lookup}__in": batch}).values_list("pk", flat=True)
            reached[other] |= set(found)


def close(reached, using):
    """
    What is public only with what was reached: a claim with its feature and track, an alias
    with its area, as their models declare (``public_with``). (Publishing 1.8 can hide a 1.9
    claim whose track loses its last public appearance.)
    """
    for kind, model in public_models().items():
        manager = model._base_manager.using(using)
        for name in model.public.public_with:
            other = type_of(model._meta.get_field(name).related_model)
            for batch in batches(sorted(reached.get(other, ()))):
                found = manager.filter(**{f"{name}__in": batch}).values_list("pk", flat=True)
                reached[kind] |= set(found)


# --- the public state of objects -------------------------------------------------------------


def public_states(kind, ids, using):
    """{id: (natural key, payload)} of those of ``ids`` the public may see, as they are now."""
    model = catalog_model(kind)
    states = {}
    for batch in batches(sorted(ids)):
        objects = list(model.objects.using(using).published().filter(pk__in=batch))
        for obj, (key, refs) in zip(objects, describe(model, objects, using), strict=True):
            states[obj.pk] = (key, payload(model, obj, refs))
    return states


def payload(model, obj, refs):
    """What a mirror holds of ``obj``: the fields fixtures carry, references as natural keys."""
    values = {
        name: refs[name] if name in refs else getattr(obj, name) for name in model.carried_fields()
    }
    return plain(values)


def plain(value):
    """``value`` as JSON gives it back: what is stored is what is compared."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


# --- announcing ------------------------------------------------------------------------------


def announce(reached, using, when):
    """Compare the public state of the ``reached`` objects with the log's; log differences."""
    PublicObject, PublicChange = log_model("PublicObject"), log_model("PublicChange")
    removals, additions = [], []
    for kind in types():
        ids = reached.get(kind)
        if not ids:
            continue
        now = public_states(kind, ids, using)
        announced = {}
        for batch in batches(sorted(ids)):
            for known in PublicObject.objects.using(using).filter(type=kind, object_id__in=batch):
                announced[known.object_id] = known
        for object_id in sorted(ids):
            state, known = now.get(object_id), announced.get(object_id)
            if state is None and known is not None:
                removals.append((kind, object_id, None, known))
            elif state is not None and (known is None or (known.key, known.payload) != state):
                additions.append((kind, object_id, state, known))
    if not (removals or additions):
        return
    head(using)  # numbered in commit order: see the module's docstring
    order = types()
    removals.sort(key=lambda change: -order.index(change[0]))
    entries, created, updated, gone, seen = [], [], [], [], []
    for kind, object_id, _, known in removals:
        entries.append(
            PublicChange(time=when, type=kind, object_id=object_id, action=DELETED, key=known.key)
        )
        seen.append((known.payload,))
        gone.append(known.pk)
    for kind, object_id, (key, values), known in additions:
        seen.append((values, known.payload if known is not None else None))
        entries.append(
            PublicChange(
                time=when,
                type=kind,
                object_id=object_id,
                action=CREATED if known is None else UPDATED,
                key=key,
                previous_key=known.key if known is not None and known.key != key else None,
                payload=values,
            )
        )
        if known is None:
            created.append(PublicObject(type=kind, object_id=object_id, key=key, payload=values))
        else:
            known.key, known.payload = key, values
            updated.append(known)
    PublicChange.objects.using(using).bulk_create(entries, batch_size=BATCH)
    tag(entries, seen, using)
    PublicObject.objects.using(using).filter(pk__in=gone).delete()
    PublicObject.objects.using(using).bulk_create(created, batch_size=BATCH)
    PublicObject.objects.using(using).bulk_update(updated, ["key", "payload"], batch_size=BATCH)
    stamp(additions, using, when)


def tag(entries, payloads, using):
    """
    Store the topics of each of the new ``entries`` (releases.topics), from its key and
    ``payloads`` (its payload now, and before), and for a model that names APIs elsewhere
    (``api_names``), those.
    """
    ChangeTopic = log_model("ChangeTopic")
    named = defaultdict(list)
    for entry in entries:
        if topics.API in catalog_model(entry.type).public.topics:
            named[entry.type].append(entry.object_id)
    api_names = {
        kind: catalog_model(kind).api_names(ids, using)
        for kind, ids in named.items()
        if hasattr(catalog_model(kind), "api_names")
    }
    rows = [
        ChangeTopic(change_id=entry.pk, topic=topic)
        for entry, seen in zip(entries, payloads, strict=True)
        for topic in sorted(
            topics.of(
                entry.type,
                catalog_model(entry.type).public.topics,
                entry.key,
                seen,
                api_names.get(entry.type, {}).get(entry.object_id, ()),
            )
        )
    ]
    ChangeTopic.objects.using(using).bulk_create(rows, batch_size=BATCH)


def stamp(additions, using, when):
    """
    What became public, or changed in public, is updated at this moment for ``updated_since``
    too: a published release's features are new to the public lists.
    """
    by_kind = defaultdict(list)
    for kind, object_id, _, _ in additions:
        by_kind[kind].append(object_id)
    for kind, ids in by_kind.items():
        manager = catalog_model(kind)._base_manager.using(using)
        for batch in batches(sorted(ids)):
            manager.filter(pk__in=batch).exclude(updated_at__gte=when).update(updated_at=when)


def head(using):
    """Hold the log's head row until this transaction ends: one writer of entries at a time."""
    PublicLogHead = log_model("PublicLogHead")
    PublicLogHead.objects.using(using).get_or_create(pk=1)
    PublicLogHead.objects.using(using).select_for_update().get(pk=1)


def catch_up(using="default"):
    """
    Announce whatever the log has not: every object of the catalog compared with the log's
    state. Run once on a catalog whose history predates this log (``post_migrate``); on a
    catalog the log follows, it finds nothing to add.
    """
    reached = {
        kind: set(catalog_model(kind)._base_manager.using(using).values_list("pk", flat=True))
        for kind in types()
    }
    with transaction.atomic(using=using):
        announce(reached, using, timezone.now())


# --- reading ---------------------------------------------------------------------------------


def entries_after(since=None, after=None, limit=100):
    """
    Up to ``limit`` entries after the entry numbered ``after``, or from the time ``since``,
    oldest first, and whether more follow: one query.
    """
    PublicChange = log_model("PublicChange")
    entries = PublicChange.objects.order_by("pk")
    if after is not None:
        entries = entries.filter(pk__gt=after)
    elif since is not None:
        entries = entries.filter(time__gte=since)
    page = list(entries[: limit + 1])
    return page[:limit], len(page) > limit


class BadCursor(ValueError):
    """A cursor this server did not write."""


def encode_cursor(entry_id):
    return base64.urlsafe_b64encode(json.dumps(["v2", entry_id]).encode()).decode().rstrip("=")


def decode_cursor(text):
    """The entry number a cursor names; BadCursor for anything this API did not give out."""
    try:
        padded = text + "=" * (-len(text) % 4)
        tag, entry_id = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, TypeError, UnicodeEncodeError, binascii.Error):
        raise BadCursor("not a cursor this API gave out; start again with since") from None
    if tag != "v2" or type(entry_id) is not int or entry_id < 0:
        raise BadCursor("not a cursor this API gave out; start again with since")
    return entry_id


def as_item(entry):
    """One entry as ``/api/changes/`` shows it."""
    deleted = entry.action == DELETED
    return {
        "type": entry.type,
        "action": entry.action,
        "key": entry.key,
        "previous_key": entry.previous_key,
        "time": entry.time,
        "object": None if deleted else entry.payload,
        "tombstone": (
            {"type": entry.type, "key": entry.key, "deleted_at": entry.time} if deleted else None
        ),
    }


def start(sender, using="default", **kwargs):
    """``post_migrate``: a catalog whose log has never been written gets it written now."""
    PublicChange, PublicObject = log_model("PublicChange"), log_model("PublicObject")
    if not (
        PublicChange.objects.using(using).exists() or PublicObject.objects.using(using).exists()
    ):
        catch_up(using)
