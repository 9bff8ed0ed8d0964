"""
Page-number pagination that answers a malformed ``page`` or ``page_size`` with a 400, and
counts each filtered list once per catalog revision: every page of a filter, in every
process, shares one exact count (releases.revision.cached_count).
"""

from urllib.parse import urlencode

from django.core.paginator import InvalidPage
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination

from releases import revision
from releases.api.params import ASCII_WHOLE_NUMBER, whole_number

# Parameters that choose a page or its form, not which items the list holds.
NOT_COUNTED = {"page", "page_size", "format", "facets", "ordering"}

MAX_PAGE = 10**9  # far past any last page; a larger number is no page at all


class StrictPageNumberPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        return whole_number(raw, self.page_size_query_param, 1, self.max_page_size)

    def paginate_queryset(self, queryset, request, view=None):
        # DRF's, but for the count (cached under the list's name) and the last line.
        page_size = self.validate(request)
        if not isinstance(queryset, Counted):
            queryset = Counted(queryset)
        queryset.name = count_name(request)
        queryset.token = getattr(request, "catalog_revision", None)
        self.request = request
        paginator = self.django_paginator_class(queryset, page_size)
        page_number = self.get_page_number(request, paginator)
        try:
            self.page = paginator.page(page_number)
        except InvalidPage as error:
            message = self.invalid_page_message.format(page_number=page_number, message=error)
            raise NotFound(message) from None
        if paginator.num_pages > 1 and self.template is not None:
            self.display_page_controls = True  # the browsable API's page links
        # DRF copies the page item by item (list(page)): Counted made it a list already.
        return self.page.object_list

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


def count_name(request):
    """What a list's count depends on: its path and its filters, however they are spelled."""
    filters = sorted(
        (name, ",".join(values))  # release=1.8&release=1.9 is release=1.8,1.9
        for name, values in request.query_params.lists()
        if name not in NOT_COUNTED
    )
    return f"{request.path}?{filters!r}"


class Counted:
    """
    What the paginator pages through: slices of ``rows`` (``queryset`` itself, or the
    ``.values()`` that a list builds its items from), and the count of ``queryset`` as it is
    (counting the values would keep the joins their related fields add, at twice the cost),
    from the cache when the list's ``name`` is set.
    """

    name = token = None

    def __init__(self, queryset, rows=None):
        self.queryset = queryset
        self.rows = queryset if rows is None else rows

    def count(self):
        if self.name is None:
            return self.queryset.count()
        return revision.cached_count(self.name, self.queryset.count, self.token)

    def __getitem__(self, index):
        return list(self.rows[index])
