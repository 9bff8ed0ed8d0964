"""
The API's pagination: DRF's page-number pagination over the query layer's rules
(releases.queries.pagination): the same page size and page checks as the pages, and Django's
Paginator with the cached count (``django_paginator_class``, DRF's seam).
"""

from urllib.parse import urlencode

from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from releases.queries.fields import WholeNumberField
from releases.queries.keyset import CURSOR, CURSOR_PATTERN, Keyset, check_spelling
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
        # Each row carries its place in the list's order, so that a page knows its cursor.
        self.keyset = Keyset(rows.queryset)
        self.rows = rows
        self.after = None
        cursor = request.query_params.get(CURSOR)
        if cursor is not None:
            self.after = self.keyset.following(rows.queryset, cursor)
            return self.paginate_after(rows, request)
        rows.rows = self.shaped(self.keyset.annotate(rows.queryset))
        return super().paginate_queryset(rows, request, view)

    def shaped(self, queryset):
        """The rows the list builds its items from, for ``queryset``, with their keys."""
        build = self.rows.build
        return build(queryset, self.keyset.names) if build else queryset

    def paginate_after(self, rows, request):
        """
        The page after the cursor (``page`` counts on from it: page 2 is the page after the
        cursor's next), with one more row read to know whether another follows.
        """
        self.request = request
        per_page = self.validate(request)
        after = self.after
        number = request.query_params.get(self.page_query_param) or "1"
        if number in self.last_page_strings:
            number = max(1, -(-after.count() // per_page))
        start = (int(number) - 1) * per_page
        fetched = list(self.shaped(after)[start : start + per_page + 1])
        if not fetched and int(number) > 1:
            raise NotFound("Invalid page.")
        self.more = len(fetched) > per_page
        self.page_rows = fetched[:per_page]
        self.total = CachedCountPaginator(rows, per_page).count
        return self.page_rows

    def get_paginated_response(self, data):
        next_cursor = self.next_cursor_link()  # signed once, whichever link it serves as
        if self.after is not None:
            count, following, previous = self.total, next_cursor, None
        else:
            count, following, previous = (
                self.page.paginator.count,
                self.get_next_link(),
                self.get_previous_link(),
            )
        return Response(
            {
                "count": count,
                "next": following,
                "previous": previous,
                "next_cursor": next_cursor,
                "results": data,
            }
        )

    def next_cursor_link(self):
        """The link to the rows after this page's last, or None on the last page."""
        if self.after is not None:
            last = self.page_rows[-1] if self.more else None
        else:
            last = self.page.object_list[-1] if self.page.has_next() else None
        if last is None:
            return None
        query = dict(self.request.query_params.lists())
        query.pop(self.page_query_param, None)
        query[CURSOR] = [self.keyset.cursor(last)]
        url = self.request.build_absolute_uri(self.request.path)
        return f"{url}?{urlencode(sorted(query.items()), doseq=True)}"

    def get_paginated_response_schema(self, schema):
        answer = super().get_paginated_response_schema(schema)
        properties = answer["properties"]
        answer["properties"] = {
            **{name: properties[name] for name in ("count", "next", "previous")},
            "next_cursor": {
                "type": "string",
                "nullable": True,
                "format": "uri",
                "description": "The rows after this page's last, by cursor: as fast at any "
                "depth (keyset pagination). null on the last page.",
            },
            "results": properties["results"],
        }
        answer["required"] = [*answer.get("required", []), "next_cursor"]
        return answer

    def validate(self, request):
        """
        The page size, or a 400 for a malformed ``page``, ``page_size`` or ``cursor``, even
        where nothing is paged (CSV).
        """
        page_size = self.get_page_size(request)
        check_page(request.query_params)
        cursor = request.query_params.get(CURSOR)
        if cursor is not None:
            check_spelling(cursor)
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
        return {self.page_query_param, self.page_size_query_param, CURSOR}

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
            {
                "name": CURSOR,
                "required": False,
                "in": "query",
                "description": "Instead of page: the rows after a page's last, as the "
                "next_cursor link of that page gives it (as fast at any depth).",
                "schema": {"type": "string", "minLength": 1, "pattern": CURSOR_PATTERN},
            },
        ]
