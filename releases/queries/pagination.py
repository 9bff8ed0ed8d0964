"""
Paging a list: its page size and page number as a query gives them (a 400 for a malformed one),
and Django's Paginator counting each filtered list once per catalog revision, so that every
page of a filter, in every process, shares one exact count (releases.revision.cached_count).

What it pages through is a ``Rows``: the rows of a list (its queryset, or the ``.values()`` a
list builds its items from), the queryset to count, and the name its count is kept under
(``count_name``: the path and the filters, not the presentation).
"""

from django.core.paginator import Paginator
from django.utils.functional import cached_property
from rest_framework.exceptions import ValidationError

from releases import revision
from releases.queries.params import ASCII_WHOLE_NUMBER, whole_number

PAGE, PAGE_SIZE = "page", "page_size"
LAST_PAGE = "last"
MAX_PAGE = 10**9  # far past any last page; a larger number is no page at all
MAX_PAGE_SIZE = 100
# Parameters that shape the answer (its page, form, order and facets), not which items it
# holds: neither a facet nor a list's count depends on them.
PRESENTATION = frozenset({"facets", "ordering", PAGE, PAGE_SIZE, "format", "cursor"})


class Rows:
    """
    What the paginator pages through: slices of ``rows`` (``queryset`` itself, or the
    ``.values()`` that a list builds its items from), each a list, and the count of
    ``queryset`` as it is (counting the values would keep the joins their related fields
    add, at twice the cost), kept under ``name`` as of revision ``token`` when a name is given.
    """

    def __init__(self, queryset, rows=None, *, name=None, token=None, build=None):
        self.queryset = queryset
        if rows is not None:
            self.rows = rows
        self.name, self.token = name, token
        # How the rows are made from a queryset (and the extra columns they must carry), for
        # a paginator that narrows or annotates the queryset first: keyset pagination.
        self.build = build

    @cached_property
    def rows(self):
        """The rows, built when first read: a paginator that shapes them itself never does."""
        return self.queryset if self.build is None else self.build(self.queryset, ())

    def __getitem__(self, index):
        return list(self.rows[index])

    def count(self):
        """The rows' count, as Django's Paginator asks for it (the list's, not the values')."""
        return self.queryset.count()


class CachedCountPaginator(Paginator):
    """Django's Paginator, counting a named ``Rows`` once per catalog revision."""

    @cached_property
    def count(self):
        rows = self.object_list
        if getattr(rows, "name", None) is None:
            return super().count
        return revision.cached_count(rows.name, rows.queryset.count, rows.token)


def page_size(query, default, maximum=MAX_PAGE_SIZE):
    """The page size ``query`` asks for (``default`` without one), or a 400 naming it."""
    raw = query.get(PAGE_SIZE)
    return default if raw is None else whole_number(raw, PAGE_SIZE, 1, maximum)


def check_page(query):
    """A 400 for a malformed ``page``: a whole number from 1, or ``last``."""
    raw = query.get(PAGE)
    if raw is not None and raw != LAST_PAGE:
        if not ASCII_WHOLE_NUMBER.match(raw) or not 1 <= int(raw) <= MAX_PAGE:
            raise ValidationError(
                {PAGE: [f"Must be a whole number from 1, or 'last'; got {raw!r}."]}
            )


def count_name(path, query):
    """What a list's count depends on: its path and its filters, however they are spelled."""
    filters = sorted(
        (name, ",".join(values))  # release=1.8&release=1.9 is release=1.8,1.9
        for name, values in query.lists()
        if name not in PRESENTATION
    )
    return f"{path}?{filters!r}"
