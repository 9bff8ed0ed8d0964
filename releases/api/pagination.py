"""
Page-number pagination that answers a malformed ``page`` or ``page_size`` with a 400, and
counts each filtered list once per catalog revision: every page of a filter, in every
process, shares one exact count (releases.revision.cached_count).

DRF pages through ``django_paginator_class``; ``CachedCountPaginator`` is Django's Paginator
with that count. What it pages through is a ``Rows``: the rows of a list (its queryset, or
the ``.values()`` a list builds its items from), the queryset to count, and the name its
count is kept under (``count_name``: the path and the filters, not the presentation).
"""

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.utils.functional import cached_property
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

from releases import revision
from releases.api.filters import PRESENTATION, WholeNumberField
from releases.api.params import ASCII_WHOLE_NUMBER, whole_number

MAX_PAGE = 10**9  # far past any last page; a larger number is no page at all


class Rows:
    """
    What the paginator pages through: slices of ``rows`` (``queryset`` itself, or the
    ``.values()`` that a list builds its items from), each a list, and the count of
    ``queryset`` as it is (counting the values would keep the joins their related fields
    add, at twice the cost), kept under ``name`` as of revision ``token`` when a name is given.
    """

    def __init__(self, queryset, rows=None, *, name=None, token=None):
        self.queryset = queryset
        self.rows = queryset if rows is None else rows
        self.name, self.token = name, token

    def __getitem__(self, index):
        return list(self.rows[index])


class CachedCountPaginator(Paginator):
    """Django's Paginator, counting a named ``Rows`` once per catalog revision."""

    @cached_property
    def count(self):
        rows = self.object_list
        if getattr(rows, "name", None) is None:
            return super().count
        return revision.cached_count(rows.name, rows.queryset.count, rows.token)


class StrictPageNumberPagination(PageNumberPagination):
    django_paginator_class = CachedCountPaginator
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        return whole_number(raw, self.page_size_query_param, 1, self.max_page_size)

    def get_page_number(self, request, paginator):
        self.validate(request)
        return super().get_page_number(request, paginator)

    def paginate_queryset(self, queryset, request, view=None):
        rows = queryset if isinstance(queryset, Rows) else Rows(queryset)
        rows.name = count_name(request)
        rows.token = getattr(request, "catalog_revision", None)
        return super().paginate_queryset(rows, request, view)

    def validate(self, request):
        """
        The page size, or a 400 for a malformed ``page`` or ``page_size``, even where nothing
        is paged (CSV).
        """
        page_size = self.get_page_size(request)
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and raw != "last":
            if not ASCII_WHOLE_NUMBER.match(raw) or not 1 <= int(raw) <= MAX_PAGE:
                raise ValidationError(
                    {
                        self.page_query_param: [
                            f"Must be a whole number from 1, or 'last'; got {raw!r}."
                        ]
                    }
                )
        return page_size

    def get_next_link(self):
        return self.page_link(self.page.next_page_number()) if self.page.has_next() else None

    def get_previous_link(self):
        if not self.page.has_previous():
            return None
        return self.page_link(self.page.previous_page_number())

    def page_link(self, number):
        """
        DRF's link to page ``number`` (the parameters sorted, page 1 without ``page``), made
        from the query as already parsed rather than by parsing the URL again.
        """
        query = dict(self.request.query_params.lists())
        query.pop(self.page_query_param, None)
        if number != 1:
            query[self.page_query_param] = [str(number)]
        url = self.request.build_absolute_uri(self.request.path)
        encoded = urlencode(sorted(query.items()), doseq=True)
        return f"{url}?{encoded}" if encoded else url

    @property
    def query_parameters(self):
        return {self.page_query_param, self.page_size_query_param}

    def get_schema_operation_parameters(self, view):
        """``page`` and ``page_size`` as the OpenAPI schema states them (drf-spectacular)."""
        page_size = WholeNumberField(low=1, high=self.max_page_size).openapi()
        return [
            {
                "name": self.page_query_param,
                "required": False,
                "in": "query",
                "description": "A page number, from 1 (or 'last').",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": f"Items a page, 1 to {self.max_page_size} ({self.page_size}).",
                **page_size,
            },
        ]


def count_name(request):
    """What a list's count depends on: its path and its filters, however they are spelled."""
    filters = sorted(
        (name, ",".join(values))  # release=1.8&release=1.9 is release=1.8,1.9
        for name, values in request.query_params.lists()
        if name not in PRESENTATION
    )
    return f"{request.path}?{filters!r}"
