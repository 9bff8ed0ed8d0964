"""
The one write path: every write to the catalog is stamped, recorded and published here.

Whichever way a row is written — ``Model.save()`` or ``delete()``, or a QuerySet's ``update()``,
``delete()``, ``bulk_create()`` or ``bulk_update()`` (the admin and its actions, the importer,
merge and split, ``load_catalog``) — the write comes through this module, which

1. stamps ``updated_at`` on the rows written and *touches* the rows whose API items show them
   (a link's feature and release; a release's features and links when its version changes;
   an area's or a track's features when what they show of it changes), so that
   ``updated_since`` is true of every list;
2. records the change in the model's history (django-simple-history's tables): when, who —
   the editor signed in, or the command named with ``acting_as()`` — every field, and the
   natural keys the object and its references had then, which the admin's history and
   ``/api/changes/`` read;
3. starts one new catalog revision when the transaction commits (``revision.catalog_changed``).

A save or an update that changes nothing writes nothing, records nothing and keeps the
revision.
"""

import functools
import re
from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import models, router, transaction
from django.utils import timezone
from simple_history.models import HistoricalRecords

from releases import adapters, public_log, revision
from releases.actions import CREATED, DELETED, UPDATED
from releases.declarations import declared, public_models, reached
from releases.keys import BATCH, batches, describe, fetch


class CatalogHistory(HistoricalRecords):
    """
    simple-history's historical tables, written by this module instead of by the library's
    signal receivers: those see ``save()`` and ``delete()`` but not QuerySet writes, and the
    catalog records every write the same way. Overriding ``create_historical_record`` is how
    simple-history's documentation ("Disable Creating Historical Records") says to do it.
    """

    def create_historical_record(self, instance, history_type, using=None):
        pass


class HistoricalKeys(models.Model):
    """What each historical record adds to the copied fields: the natural keys of its time."""

    history_key = models.JSONField(
        default=list, help_text="The object's natural key when the change was made."
    )
    history_refs = models.JSONField(
        default=dict, help_text="The natural keys of the objects it referred to then."
    )

    class Meta:
        abstract = True


# --- who ---------------------------------------------------------------------------------------

_actor = ContextVar("catalog_actor", default=None)


@contextmanager
def acting_as(reason, user=None):
    """Record the writes made inside as made by ``user`` (or a command), for ``reason``."""
    token = _actor.set((user, reason))
    try:
        yield
    finally:
        _actor.reset(token)


def actor(instance=None):
    """(user, reason) of a write: acting_as(), else the editor of the admin request."""
    user, reason = _actor.get() or (None, "")
    # ``_history_user`` is simple-history's documented way to name the user of one write.
    user = getattr(instance, "_history_user", None) or user
    if user is None:
        user = adapters.request_user()
    return user, reason


# --- what --------------------------------------------------------------------------------------


@functools.cache
def tracked_fields(model):
    """
    The columns whose change is a change: all but generated ones and the stamp. Read for every
    row loaded (``remember_loaded``), so worked out once per model.
    """
    return tuple(
        field
        for field in model._meta.concrete_fields
        if not field.generated and field.attname != "updated_at"
    )


def snapshot(instance):
    """The instance's tracked values (those loaded, for a partly loaded instance)."""
    values = instance.__dict__
    return {
        field.attname: values[field.attname]
        for field in tracked_fields(type(instance))
        if field.attname in values
    }


def remember_loaded(instance):
    instance._loaded_values = snapshot(instance)


def changed_fields(before, after):
    return {name for name, value in after.items() if name in before and before[name] != value}


def stamp(objects, when=None):
    when = when or timezone.now()
    for obj in objects:
        obj.updated_at = when
    return when


# --- the write paths -----------------------------------------------------------------------------


class StaleEdit(Exception):
    """
    A write from a stale read: the row was written since (its ``row_version`` moved on).
    ``concurrency.changes_since`` says by whom and what.
    """

    def __init__(self, model, pk, read_version, current_version=None):
        self.model, self.pk = model, pk
        self.read_version, self.current_version = read_version, current_version
        super().__init__(
            f"{model._meta.verbose_name} {pk} was changed since it was read "
            f"(version {read_version}, now {current_version or 'another'})"
        )


def expect_version(instance, version):
    """The next ``save()`` of ``instance`` is refused unless the row is still at ``version``."""
    instance._expected_row_version = version


def check_versions(objects, using="default"):
    """
    Refuse (StaleEdit) if a row of ``objects`` was written since it was read: its version in
    the database, read under a row lock inside the caller's transaction, is not the object's.
    """
    stale = stale_version(list(objects), using)
    if stale is not None:
        raise stale


def stale_version(objects, using):
    """The StaleEdit of the first of ``objects`` whose row moved on, or None."""
    if not objects:
        return None
    model = type(objects[0])
    current = {}
    for batch in batches([obj.pk for obj in objects]):
        rows = model._base_manager.using(using).select_for_update().filter(pk__in=batch)
        current.update(rows.values_list("pk", "row_version"))
    for obj in objects:
        if current.get(obj.pk) != obj.row_version:
            return StaleEdit(model, obj.pk, obj.row_version, current.get(obj.pk))
    return None


def claim(model, instance, expected, using):
    """
    Take the row's next version, or return the StaleEdit if it is no longer ``expected``
    (returned, not raised: an UPDATE of no row leaves the caller's transaction usable).
    """
    rows = model._base_manager.using(using).filter(pk=instance.pk)
    if expected is None:
        rows.update(row_version=models.F("row_version") + 1)
        instance.row_version = rows.values_list("row_version", flat=True).get()
    elif rows.filter(row_version=expected).update(row_version=expected + 1):
        instance.row_version = expected + 1
    else:
        current = rows.values_list("row_version", flat=True).first()
        return StaleEdit(model, instance.pk, expected, current)
    return None


# The only schemes a stored URL may have: a link must lead to a web page, never run a script
# (javascript:) or carry its own content (data:), whoever writes it (fixtures, importers, the
# admin, the shell).
WEB_SCHEMES = ("http", "https")


def is_web_url(value):
    """Whether ``value`` is a URL of a web page (http or https): the only URLs stored, and the
    only ones a page or a feed renders as a link (a row from before the rule included)."""
    return isinstance(value, str) and urlsplit(value.strip()).scheme.lower() in WEB_SCHEMES


# Stored text never holds a control character (C0 but tab, line feed and carriage return;
# DEL); a one-line field (a CharField: a title, a label) holds no line break either.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
LINE_BREAK = re.compile(r"[\r\n\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@functools.cache
def checked_fields(model):
    """(the text fields of ``model``, each with the pattern it refuses; its URL fields): read
    once a model, not on every row a bulk write prepares."""
    text = [
        (field, LINE_BREAK if isinstance(field, models.CharField) else CONTROL)
        for field in model._meta.concrete_fields
        if isinstance(field, models.CharField | models.TextField)
    ]
    urls = [field for field in model._meta.concrete_fields if isinstance(field, models.URLField)]
    return text, urls


def prepare(instance):
    """What every write does before it writes a row: derive its columns (``prepare_save``);
    refuse a URL of any scheme but http and https, a control character in text, a line break
    in a one-line field (a ValidationError naming the field)."""
    instance.prepare_save()
    text, urls = checked_fields(type(instance))
    for field, refused in text:
        value = getattr(instance, field.attname)
        found = isinstance(value, str) and refused.search(value)
        if found:
            where = f"U+{ord(found.group()):04X} at character {found.start() + 1}"
            fix = "write it on one line" if refused is LINE_BREAK else "remove it"
            message = f"Holds a control character ({where}): {fix}."
            raise ValidationError({field.name: [message]})
    for field in urls:
        value = getattr(instance, field.attname) or ""
        if value and not is_web_url(value):
            raise ValidationError(
                {field.name: [f"Only http and https URLs are stored; got {value[:40]!r}."]}
            )


def save(instance, base_save, *args, **kwargs):
    """``Model.save()``: write the instance if anything changed, then record it."""
    model = type(instance)
    using = kwargs.get("using") or router.db_for_write(model, instance=instance)
    before = getattr(instance, "_loaded_values", None)
    # The version a form was read at (expect_version), else the one loaded with the instance.
    expected = getattr(instance, "_expected_row_version", None)
    if expected is None and before is not None:
        expected = before.get("row_version")
    exists = not instance._state.adding
    if before is None and instance.pk is not None:
        # Built rather than loaded (a revert, a recovery): compare with the row, if any.
        current = model._base_manager.using(using).filter(pk=instance.pk).first()
        exists = current is not None
        before = snapshot(current) if exists else None
    if exists and before is not None:
        changed = changed_fields(before, snapshot(instance))
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            named = {model._meta.get_field(name).attname for name in update_fields}
            changed &= named | {model._meta.get_field(n).attname for n in model.derived_fields}
        if not changed:
            return
    stamp([instance])
    if kwargs.get("update_fields") is not None:
        written = {"updated_at", "row_version", *model.derived_fields}
        kwargs["update_fields"] = {*kwargs["update_fields"], *written}
    with transaction.atomic(using=using, savepoint=False):
        # One conditional UPDATE takes the next version: race-free.
        stale = claim(model, instance, expected, using) if exists else None
        if stale is None:
            base_save(*args, **kwargs)
            instance._expected_row_version = None
            previous = {instance.pk: before} if exists and before is not None else None
            record(model, [instance], UPDATED if exists else CREATED, using=using, before=previous)
    if stale is not None:
        raise stale
    remember_loaded(instance)


def update(queryset, values, base_update):
    """``QuerySet.update()``: update, then stamp and record the rows that really changed."""
    model, using = queryset.model, queryset.db
    with transaction.atomic(using=using, savepoint=False):
        ids = list(queryset.values_list("pk", flat=True))
        if not ids:
            return 0
        before = {obj.pk: snapshot(obj) for obj in fetch(model, ids, using)}
        rows = base_update(**values)
        changed = []
        for obj in fetch(model, ids, using):
            prepare(obj)  # derived columns follow what the update changed
            if changed_fields(before[obj.pk], snapshot(obj)):
                changed.append(obj)
        if changed:
            stamp(changed)
            for obj in changed:  # read after the UPDATE, which holds the rows
                obj.row_version += 1
            base = model._base_manager.using(using)
            written = ["updated_at", "row_version", *model.derived_fields]
            base.bulk_update(changed, written, batch_size=BATCH)
            record(model, changed, UPDATED, using=using, before=before)
    return rows


def bulk_update(queryset, objects, fields, base_bulk_update, *args, **kwargs):
    """``QuerySet.bulk_update()``: write the objects that changed, stamp and record them."""
    model, using = queryset.model, queryset.db
    with transaction.atomic(using=using, savepoint=False):
        # Each object as read is the row's latest version (checked under a row lock).
        stale = stale_version(objects, using)
        if stale is None:
            rows = write_bulk_update(model, objects, fields, base_bulk_update, using, args, kwargs)
    if stale is not None:
        raise stale
    return rows


def write_bulk_update(model, objects, fields, base_bulk_update, using, args, kwargs):
    """bulk_update's writes, once the versions are checked."""
    before = {obj.pk: snapshot(obj) for obj in fetch(model, [o.pk for o in objects], using)}
    for obj in objects:
        prepare(obj)
    changed = [obj for obj in objects if changed_fields(before[obj.pk], snapshot(obj))]
    if not changed:
        return 0
    stamp(changed)
    for obj in changed:
        obj.row_version += 1
    rows = base_bulk_update(
        changed, [*fields, *model.derived_fields, "updated_at", "row_version"], *args, **kwargs
    )
    record(model, changed, UPDATED, using=using, before=before)
    return rows


def delete(target, using):
    """
    ``Model.delete()`` and ``QuerySet.delete()``: delete as Django does, and record every row
    that goes, cascades included, with the natural keys it had.
    """
    with transaction.atomic(using=using, savepoint=False):
        refused = adapters.refusal(target)  # Django's checks, at no cost inside a transaction
        if refused is None:
            result = write_deletion(target, using)
    if refused is not None:
        raise refused
    return result


def write_deletion(target, using):
    """delete()'s writes, once Django accepted the deletion."""
    doomed, run = adapters.deletion(target, using)
    doomed = {model: objects for model, objects in doomed.items() if is_catalog(model)}
    for model, objects in doomed.items():
        unlink_set_null(model, objects, using)
    # Described before they go: the deletion clears their primary keys, and what they
    # referred to may go with them.
    when = timezone.now()
    rows = {
        model: history_rows(model, objects, DELETED, using, when)
        for model, objects in doomed.items()
    }
    result = run()
    for model, objects in doomed.items():
        record(model, objects, DELETED, using=using, rows=rows[model], when=when, told=False)
    # The public change log hears of a deletion and its cascade at once, so that what
    # refers to others is tombstoned before what it refers to.
    public_log.follow([(model, rows[model], None) for model in doomed], using, when)
    return result


def unlink_set_null(model, objects, using):
    """
    What refers to ``objects`` with ``on_delete=SET_NULL`` lets go of them through this write
    path, recorded like any update, before they go (Django's own SET NULL would not be).
    """
    ids = [obj.pk for obj in objects]
    for relation in model._meta.related_objects:
        if relation.on_delete is models.SET_NULL and is_catalog(relation.related_model):
            name = relation.field.name
            referring = relation.related_model.objects.using(using)
            for batch in batches(ids):
                referring.filter(**{f"{name}__in": batch}).update(**{name: None})


def is_catalog(model):
    return hasattr(model, "history") and model._meta.app_label == "releases"


# --- the record ----------------------------------------------------------------------------------


def history_rows(model, objects, action, using, when):
    """The history records of a write of ``objects``, unsaved."""
    history_model = model.history.model
    fields = history_model.tracked_fields
    rows = []
    for obj, (key, refs) in zip(objects, describe(model, objects, using), strict=True):
        user, reason = actor(obj)
        rows.append(
            history_model(
                history_date=when,
                history_type=action,
                history_user=user,
                history_change_reason=reason,
                history_key=key,
                history_refs=refs,
                **{field.attname: getattr(obj, field.attname) for field in fields},
            )
        )
    return rows


def record(
    model, objects, action, *, using="default", before=None, rows=None, when=None, told=True
):
    """
    After ``objects`` (of ``model``) were created, updated or deleted (``action``): their
    history, the stamps of what shows them, the public change log (unless the caller tells it
    itself: ``told=False``), and a new revision once the transaction commits.
    """
    objects = list(objects)
    if not objects:
        return
    when = when or timezone.now()
    rows = rows if rows is not None else history_rows(model, objects, action, using, when)
    model.history.model.objects.using(using).bulk_create(rows, batch_size=BATCH)
    touch(model, objects, action, before or {}, when, using)
    if told:
        public_log.follow([(model, rows, before)], using, when)
    revision.catalog_changed(using)


def touch(model, objects, action, before, when, using):
    """
    Stamp the rows whose API items show ``objects`` (what ``updated_since`` reads), as the
    model declares them (``public.shown_in``), and copy what it declares copied (``copied_to``).
    """
    declaration = declared(model)
    if declaration is None:
        return
    for kind, lookup, values in reached(declaration.shown_in, objects, before):
        manager = public_models()[kind]._base_manager.using(using)
        for batch in batches(sorted(values)):
            manager.filter(**{f"{lookup}__in": batch}).update(updated_at=when)
    if action == UPDATED:
        for kind, key, field, source in getattr(model, "copied_to", ()):
            manager = public_models()[kind]._base_manager.using(using)
            for obj in objects:
                value = getattr(obj, source)
                if before.get(obj.pk, {}).get(source, value) != value:
                    manager.filter(**{key: obj.pk}).update(**{field: value})
