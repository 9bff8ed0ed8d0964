"""
The API's filter backend: django-filter's, reading each list through the query layer
(releases.queries.reading.filtered), so that an unknown parameter or a malformed value is the
same 400 on the API and the pages.
"""

from django_filters.rest_framework import DjangoFilterBackend

from releases.queries.params import reject_bad_query
from releases.queries.reading import filtered


class StrictFilterBackend(DjangoFilterBackend):
    """django-filter, plus a 400 for any query parameter the endpoint does not know."""

    ALWAYS_ALLOWED = {"format"}

    def allowed_parameters(self, request, queryset, view):
        allowed = set(self.ALWAYS_ALLOWED)
        if getattr(view, "action", None) == "list":
            filterset_class = self.get_filterset_class(view, queryset)
            if filterset_class is not None:
                allowed |= set(filterset_class.base_filters)
            paginator = getattr(view, "paginator", None)
            allowed |= set(getattr(paginator, "query_parameters", ()))
        return allowed

    def filter_queryset(self, request, queryset, view):
        allowed = self.allowed_parameters(request, queryset, view)
        filterset_class = None
        if getattr(view, "action", None) == "list":
            filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is None:
            reject_bad_query(request.query_params, allowed)
            return queryset
        token = getattr(request, "catalog_revision", None)  # releases.web.middleware's
        return filtered(request.query_params, filterset_class, queryset, allowed, token=token)
