"""Page-number pagination that answers a malformed ``page`` or ``page_size`` with a 400."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

from .params import ASCII_WHOLE_NUMBER, whole_number

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
        self.validate(request)
        return super().paginate_queryset(queryset, request, view)

    def validate(self, request):
        """A 400 for a malformed ``page`` or ``page_size``, even where nothing is paged (CSV)."""
        self.get_page_size(request)
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

    @property
    def query_parameters(self):
        return {self.page_query_param, self.page_size_query_param}


class CountedValues:
    """
    What a paginator pages through when items are built from ``.values()`` rows: it counts
    ``queryset`` as it is, and slices ``values``. Counting the values queryset instead would
    keep the joins its related fields add, and cost twice as much.
    """

    def __init__(self, queryset, values):
        self.queryset, self.values = queryset, values

    def count(self):
        return self.queryset.count()

    def __getitem__(self, index):
        return list(self.values[index])
