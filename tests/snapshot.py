"""
The rows a load writes, kept so that later tests get them back in one bulk insert a table.

The catalog fixtures fill the database through the catalog's write path (`load_catalog`), the
slowest step of most tests. A `Snapshot` runs its load for real in the first test that asks,
reads every row the load added or changed, and gives the next tests the same rows (primary keys
and timestamps included) with `bulk_create` and `bulk_update`, inside their own transaction.
What the load does outside the tables happens at commit, a new revision, and a restore asks
for it as the load's writes did. Rows the load points at but did not write
(users, say) may differ from test to test, and a transactional test flushes the tables: the
snapshot compares each table it wrote or points at by row count and highest key, and where
one differs it loads for real again.
"""

from django.apps import apps
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import Count, Max

from releases import revision


def tables():
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]


def values(obj):
    return tuple(getattr(obj, field.attname) for field in obj._meta.concrete_fields)


def rows(model):
    return {obj.pk: obj for obj in model._base_manager.all()}


def state(models):
    """
    Each table's row count and highest primary key: what a snapshot's rows rest on. (A key
    that is no number, django-tasks-db's UUIDs, has no highest on PostgreSQL: its count alone.)
    """
    return {
        model: tuple(
            model._base_manager.aggregate(
                n=Count("pk"), **({"top": Max("pk")} if is_numbered(model) else {})
            ).values()
        )
        for model in models
    }


def is_numbered(model):
    return model._meta.pk.get_internal_type() in ("AutoField", "BigAutoField", "IntegerField")


class Taken:
    """The rows one load wrote, and the state of the tables they rest on before it."""

    def __init__(self, before, created, updated):
        self.before, self.created, self.updated = before, created, updated

    def fits(self):
        return state(self.before) == self.before

    def restore(self):
        with transaction.atomic():
            for model, objs in self.created.items():
                model._base_manager.bulk_create(objs)
            for model, objs in self.updated.items():
                fields = [f.name for f in model._meta.concrete_fields if not f.primary_key]
                model._base_manager.bulk_update(objs, fields)
            # Inserting explicit keys leaves PostgreSQL's sequences behind: new rows need them.
            with connection.cursor() as cursor:
                for statement in connection.ops.sequence_reset_sql(no_style(), list(self.created)):
                    cursor.execute(statement)
            # What the write path does at commit, as the load's writes asked for it.
            revision.catalog_changed()


class Snapshot:
    def __init__(self, load):
        self.load = load
        self.taken = []

    def apply(self):
        """The load's rows in the database: restored where the tables it wrote and points at
        are as they were before one earlier load, or else loaded for real (and kept)."""
        for taken in self.taken:
            if taken.fits():
                return taken.restore()
        self.taken.append(self.take())

    def take(self):
        before = state(tables())
        old = {model: {pk: values(obj) for pk, obj in rows(model).items()} for model in tables()}
        self.load()
        created, updated = {}, {}
        for model in tables():
            new = rows(model)
            if set(old[model]) - set(new):
                raise RuntimeError(f"{self.load.__name__} deleted {model.__name__} rows")
            added = [obj for pk, obj in new.items() if pk not in old[model]]
            changed = [
                obj for pk, obj in new.items() if pk in old[model] and values(obj) != old[model][pk]
            ]
            if added:
                created[model] = added
            if changed:
                updated[model] = changed
        written = {*created, *updated}
        pointed_at = {
            field.related_model
            for model in written
            for field in model._meta.concrete_fields
            if field.is_relation
        }
        return Taken({model: before[model] for model in written | pointed_at}, created, updated)
