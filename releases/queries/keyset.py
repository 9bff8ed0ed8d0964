"""
Keyset pagination beside page numbers: ``?cursor=`` reads the rows after the last row of the
previous page, in the list's own order, by comparing the values that order sorts by (a
``WHERE (a, b, pk) > (…)`` that the ordering's index answers), so that a page far down a list
costs what the first page costs; ``page=N`` has the database count and skip N pages of rows.

A cursor is the values of the list's ordering at a page's last row, and the id as the final
tie-break, signed (Django's signing, with the secret key): clients follow ``next_cursor`` and
cannot make one up, so the values compared are always ones the list gave. A cursor that is
not even spelled as one is a 400 naming ``cursor``; a well-spelled one this list did not give
leads nowhere, a 404, as a page past the last does.
"""

import re

from django.core import signing
from django.core.exceptions import FieldDoesNotExist
from django.db.models import F, OrderBy, Q
from django.db.models.constants import LOOKUP_SEP
from rest_framework.exceptions import NotFound, ValidationError

CURSOR = "cursor"
PREFIX = "cursor_key_"
MAX_CURSOR_LENGTH = 1000
CURSOR_PATTERN = "^[A-Za-z0-9_.-]+$"
SALT = "releases.queries.keyset"


def signer():
    return signing.Signer(salt=SALT, sep=".")


class Keyset:
    """The ordering of ``queryset`` as keyset terms: (expression, descending) pairs, id last."""

    def __init__(self, queryset):
        query = queryset.query
        ordering = list(query.order_by) or (
            list(queryset.model._meta.ordering) if query.default_ordering else []
        )
        self.terms = [term(item) for item in ordering]
        if not any(is_id(expression, queryset.model) for expression, _ in self.terms):
            self.terms.append((F("pk"), False))
        # A term that is a column of the list's own table is read and compared by its name;
        # any other (a related column, an expression) is selected under a name of its own.
        self.names = [
            column(expression, queryset.model) or f"{PREFIX}{index}"
            for index, (expression, _) in enumerate(self.terms)
        ]

    def annotate(self, queryset):
        """
        ``queryset`` with each term's value selected, under ``names``: a row knows its key.
        The columns of its own table are there already (``values()`` names them too).
        """
        selected = {
            name: expression
            for name, (expression, _) in zip(self.names, self.terms, strict=True)
            if name.startswith(PREFIX)
        }
        return queryset.annotate(**selected) if selected else queryset

    def after(self, queryset, values):
        """
        The rows of the annotated ``queryset`` that its order puts after ``values``: the row
        comparison spelled as ORs, under the bound the first term alone implies (``a >= x``
        for ``(a, b) > (x, y)``), which lets the ordering's index start its scan at the cursor
        rather than read the rows before it to discard them.
        """
        later = Q()
        for index, (name, (_, descending)) in enumerate(zip(self.names, self.terms, strict=True)):
            same = {earlier: values[i] for i, earlier in enumerate(self.names[:index])}
            later |= Q(**same, **{f"{name}__{'lt' if descending else 'gt'}": values[index]})
        first, (_, descending) = self.names[0], self.terms[0]
        bound = Q(**{f"{first}__{'lte' if descending else 'gte'}": values[0]})
        return queryset.filter(bound & later)

    def following(self, queryset, token):
        """The rows of ``queryset``, each with its key, after the cursor ``token`` (see read)."""
        return self.after(self.annotate(queryset), self.read(token))

    def cursor(self, row):
        """The cursor of the row ``row`` (a model instance or a values dict)."""
        read = row.get if isinstance(row, dict) else lambda name: getattr(row, name)
        return signer().sign_object([read(name) for name in self.names])

    def read(self, token):
        """The values a cursor holds: a 400 if it is no cursor, a 404 if not this list's."""
        check_spelling(token)
        try:
            values = signer().unsign_object(token)
        except (signing.BadSignature, ValueError, UnicodeDecodeError):
            values = None
        if not (isinstance(values, list) and len(values) == len(self.terms)):
            raise NotFound("No such cursor in this list: follow a next_cursor it gave.")
        return values


def check_spelling(token):
    """A 400 naming ``cursor`` unless ``token`` is spelled as a cursor is (whether or not the
    list gave it): where no list is paged (CSV), a cursor is still checked as one."""
    if len(token) > MAX_CURSOR_LENGTH or not re.fullmatch(CURSOR_PATTERN, token):
        raise ValidationError({CURSOR: ["Not a cursor: follow a next_cursor a list gave."]})


def term(item):
    """One ordering item as (expression, descending)."""
    if isinstance(item, str):
        return F(item.lstrip("-")), item.startswith("-")
    if isinstance(item, OrderBy):
        return item.expression, item.descending
    return item, False


def column(expression, model):
    """The name of the column of ``model``'s own table that ``expression`` reads, or None."""
    if not isinstance(expression, F) or LOOKUP_SEP in expression.name:
        return None
    if expression.name == "pk":
        return None if model._meta.pk.is_relation else "pk"
    try:
        field = model._meta.get_field(expression.name)
    except FieldDoesNotExist:
        return None  # an annotation of the queryset's, selected under a name of its own
    return expression.name if field.concrete and not field.is_relation else None


def is_id(expression, model):
    return isinstance(expression, F) and expression.name in ("pk", model._meta.pk.name)
