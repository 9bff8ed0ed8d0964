"""
The API's pagination: DRF's page-number pagination over the query layer's rules
(releases.queries.pagination): the same page size and page checks as the pages, and Django's
Paginator with the cached count (``django_paginator_class``, DRF's seam).
"""

from urllib.parse import urlencode

from rest_framework.pagination import PageNumberPagination

from releases.queries.fields import WholeNumberField
from releases.queries.pagination import (
    MAX_PAGE,
    MAX_PAGE_SIZE,
    CachedCountPaginator,
    Rows,
    check_page,
    count_name,
    page_size,
)


class StrictPageNumberPagination(PageNumberPagination):
    django_paginator_class = CachedCountPaginator
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request):
        return page_size(request.query_params, self.page_size, self.max_page_size)

    def get_page_number(self, request, paginator):
        self.validate(request)
        return super().get_page_number(request, paginator)

    def paginate_queryset(self, queryset, request, view=None):
        rows = queryset if isinstance(queryset, Rows) else Rows(queryset)
        rows.name = count_name(request.path, request.query_params)
        rows.token = getattr(request, "catalog_revision", None)
        return super().paginate_queryset(rows, request, view)

    def validate(self, request):
        """
        The page size, or a 400 for a malformed ``page`` or ``page_size``, even where nothing
        is paged (CSV).
        """
        page_size = self.get_page_size(request)
        check_page(request.query_params)
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
