"""
A serializer's JSON built from ``.values()`` rows instead of model instances.

DRF serializes a list one model instance at a time, which is what makes a long list slow.
``RowShape(FeatureSerializer(), ...)`` reads the serializer's declared fields once, through
DRF's public field API (``Serializer.fields``, each field's ``source_attrs``,
``get_attribute`` and ``to_representation``), and applies them to plain values rows: the
same names in the same order, each value shown by the serializer's own field, null where DRF
gives null. The serializer stays the one definition of the JSON; this module only reads it.
The items are built a field at a time, down all the rows: each field's conversion is looked
up once, not once an object.

It reads the kinds of fields the catalog's fast lists use, and refuses anything else with
``ImproperlyConfigured`` rather than serve a different JSON:

- a field whose source is a column, or a column across foreign keys (``release.version``
  reads ``release__version``);
- a nested serializer over the same object (``source="*"``) whose fields are such columns.
  Its ``get_attribute`` is given the row as a dict of those columns (DRF's accessors read a
  dict as they read an object): a nested serializer that is null for some objects says so
  there, not in ``to_representation``;
- a nested ``many=True`` serializer over a reverse foreign key (a feature's links): its items
  are read with one more query for all the rows, from the queryset given for it in
  ``children``, which orders them as a ``Prefetch`` queryset would.

A serializer that overrides ``to_representation``, or a column field that overrides
``get_attribute``, is refused too: its rows would not show what it shows.
"""

from collections import defaultdict
from functools import cached_property, partial

from django.core.exceptions import ImproperlyConfigured
from rest_framework import serializers
from rest_framework.relations import ManyRelatedField, RelatedField


class RowShape:
    """The JSON of ``serializer`` (a ModelSerializer instance), from ``.values()`` rows."""

    def __init__(self, serializer, children=None):
        self.serializer = serializer
        self.children = dict(children or {})

    def __repr__(self):
        return f"RowShape({type(self.serializer).__name__})"

    def values(self, queryset, extra=()):
        """
        ``queryset`` as the plain values rows ``items`` reads: one query, joins included;
        ``extra`` names more of its annotations for each row to carry (a keyset's values).
        """
        return queryset.values(*dict.fromkeys(["pk", *self.columns, *extra]))

    def items(self, rows):
        """
        The serializer's items for ``rows`` (from ``values()``), in their order, with one more
        query for each nested list, whatever the number of rows.
        """
        rows = list(rows)
        columns = {name: [row[name] for row in rows] for name in self.columns}
        return self.items_from(columns, len(rows), rows)

    def items_from(self, columns, count, rows=None):
        """
        The items of ``count`` rows given as ``columns`` (each column's values, a row each,
        by name), and as the row dicts themselves where the caller has them.
        """
        items = [{} for _ in range(count)]
        for name, field in self.plan[0].items():
            for item, value in zip(items, field(columns, rows), strict=True):
                item[name] = value
        return items

    @property
    def columns(self):
        """The columns ``items`` reads, as ``values()`` names them."""
        return self.plan[1]

    @cached_property
    def plan(self):
        """
        What ``items_from`` does, worked out once from the serializer's fields: for each
        field, in the serializer's order, a function from the columns (and rows) to the
        field's value in each item; and the columns those functions read.
        """
        fields, columns = {}, []
        for name, field in readable(self.serializer).items():
            where = f"{type(self.serializer).__name__}.{name}"
            if isinstance(field, serializers.ListSerializer):
                fields[name] = self.nested_list(name, field, where)
                columns.append("pk")
            elif isinstance(field, serializers.BaseSerializer) and field.source == "*":
                same_row = RowShape(field)
                fields[name] = partial(same_row_items, field.get_attribute, same_row)
                columns += same_row.columns
            elif field.source == "*" or isinstance(
                field, serializers.BaseSerializer | RelatedField | ManyRelatedField
            ):
                raise ImproperlyConfigured(f"{where}: not a column; RowShape cannot read it.")
            elif type(field).get_attribute is not serializers.Field.get_attribute:
                raise ImproperlyConfigured(f"{where}: reads its value its own way.")
            else:
                column = "__".join(field.source_attrs)
                fields[name] = partial(shown_column, column, field.to_representation)
                columns.append(column)
        return fields, list(dict.fromkeys(columns))

    def nested_list(self, name, field, where):
        """A function from the columns to each row's items of the nested list ``field``."""
        relation = name in self.children and self.serializer.Meta.model._meta.get_field(
            field.source
        )
        if not (relation and relation.one_to_many):
            raise ImproperlyConfigured(
                f"{where}: a nested list needs a reverse foreign key, and its queryset in "
                "RowShape(children=...)."
            )
        shows_as_drf(field)  # a list_serializer_class of its own may show other lists
        parent = relation.remote_field.attname
        return partial(nested_lists, self.children[name], parent, RowShape(field.child))


def shows_as_drf(serializer):
    """Refuse a serializer that overrides how DRF shows an object (or a list of them)."""
    many = isinstance(serializer, serializers.ListSerializer)
    base = serializers.ListSerializer if many else serializers.Serializer
    if type(serializer).to_representation is not base.to_representation:
        raise ImproperlyConfigured(
            f"{type(serializer).__name__} overrides to_representation: RowShape cannot read it."
        )


def readable(serializer):
    """The fields ``serializer`` shows, by name, once it is known to show them as DRF does."""
    shows_as_drf(serializer)
    return {name: field for name, field in serializer.fields.items() if not field.write_only}


def shown_column(column, show, columns, rows):
    """Each row's value of ``column`` as ``show`` shows it; null stays null, as in DRF."""
    values = columns[column]
    if None in values:
        return [None if value is None else show(value) for value in values]
    return list(map(show, values))


def same_row_items(read, shape, columns, rows):
    """Each row as a nested serializer over the same object shows it; null where it reads None."""
    if rows is None:
        names = shape.columns
        values = zip(*(columns[name] for name in names), strict=True)
        rows = [dict(zip(names, row, strict=True)) for row in values]
    objects = list(map(read, rows))
    items = iter(shape.items([obj for obj in objects if obj is not None]))
    return [None if obj is None else next(items) for obj in objects]


def nested_lists(queryset, parent, shape, columns, rows):
    """Each row's nested list: the items of ``queryset`` whose foreign key ``parent`` is it."""
    names = list(dict.fromkeys([parent, *shape.columns]))
    children = list(queryset.filter(**{f"{parent}__in": columns["pk"]}).values_list(*names))
    transposed = list(zip(*children, strict=True)) or [()] * len(names)
    child_columns = dict(zip(names, transposed, strict=True))
    lists = defaultdict(list)
    items = shape.items_from(child_columns, len(children))
    for parent_pk, item in zip(child_columns[parent], items, strict=True):
        lists[parent_pk].append(item)
    return [lists[pk] for pk in columns["pk"]]
