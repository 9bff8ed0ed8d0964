"""
What identifies a catalog object outside this database: its natural key and the natural keys of
what it refers to, read for many objects in a few queries. The history (``writes``) records them
and the public change log (``public_log``) publishes them.
"""

from releases.declarations import declared

BATCH = 500  # ids per IN (...) list: well inside every database's limit on parameters


def batches(ids):
    ids = list(ids)
    for start in range(0, len(ids), BATCH):
        yield ids[start : start + BATCH]


def fetch(model, ids, using):
    """The rows of ``ids``, as they are in the database now."""
    found = []
    for batch in batches(ids):
        found.extend(model._base_manager.using(using).filter(pk__in=batch))
    return found


def describe(model, objects, using):
    """(natural key, {reference: natural key}) of each object as of now, in a few queries."""
    public = declared(model)
    references = public.references if public else ()
    prime(model, objects, set(references) | set(public.key_path if public else ()), using)
    return [
        (
            list(obj.natural_key()),
            {name: natural_key_or_none(getattr(obj, name)) for name in references},
        )
        for obj in objects
    ]


def natural_key_or_none(obj):
    return list(obj.natural_key()) if obj is not None else None


def prime(model, objects, names, using):
    """Load the related objects ``names`` of ``objects`` in one query each (and their keys')."""
    for name in names:
        field = model._meta.get_field(name)
        related_model = field.related_model
        wanted = {getattr(obj, field.attname) for obj in objects if not field.is_cached(obj)}
        found = {obj.pk: obj for obj in fetch(related_model, wanted - {None}, using)}
        for obj in objects:
            if not field.is_cached(obj) and getattr(obj, field.attname) in found:
                field.set_cached_value(obj, found[getattr(obj, field.attname)])
        related = [getattr(obj, name) for obj in objects]
        related = [obj for obj in related if obj is not None]  # an optional reference
        inner = set(declared(related_model).key_path if declared(related_model) else ())
        if inner:
            prime(related_model, related, inner, using)
