"""
Reading a list from a query, the one way every surface does: unknown parameters refused, the
values cleaned once (by the list's FilterSet), filtered, then counted and paged with the cached
count. The API reaches it through DRF's seams (its filter backend and paginator,
releases.api); the pages call ``read_list``.
"""

from django.core.paginator import InvalidPage
from django.http import Http404

from releases import memory
from releases.queries import filtersets as _declared  # noqa: F401 - every FilterSet, declared
from releases.queries.fields import JoinedInput
from releases.queries.filters import CatalogFilterSet
from releases.queries.pagination import (
    LAST_PAGE,
    PAGE,
    PAGE_SIZE,
    CachedCountPaginator,
    Rows,
    check_page,
    count_name,
    page_size,
)
from releases.queries.params import reject_bad_query


def filtersets():
    """Every FilterSet of the catalog."""
    found, pending = [], [CatalogFilterSet]
    while pending:
        found.extend(subclasses := pending.pop().__subclasses__())
        pending.extend(subclasses)
    return found


# The parameters that take several values (releases.queries.params.problems lets them repeat):
# those whose field reads them joined.
MULTI_VALUED = frozenset(
    name
    for filterset in filtersets()
    for name, filter_ in filterset.base_filters.items()
    if issubclass(filter_.field_class.widget, JoinedInput)
)


def filtered(query, filterset_class, queryset, allowed):
    """
    ``queryset`` narrowed by ``query`` through ``filterset_class``, or one 400 naming every
    parameter not in ``allowed`` and every malformed value.
    """
    filterset = filterset_class(query, queryset=queryset)
    with memory.letting_go(filterset):
        errors = None if filterset.is_valid() else filterset.errors
        reject_bad_query(query, allowed, errors)
        return filterset.qs


def read_list(query, filterset_class, queryset, *, path, token=None, size=50, prepare=None):
    """
    The page of the list ``query`` asks for: ``queryset`` filtered by ``filterset_class``
    (a 400 for an unknown parameter or a malformed value), shaped by ``prepare``, then paged
    (``page``, ``page_size`` up to 100, ``size`` without it; ``page=last``; a page past the
    last is a 404) with its count kept under ``path`` and the filters as of revision ``token``.
    """
    rows = filtered(
        query, filterset_class, queryset, {*filterset_class.base_filters, PAGE, PAGE_SIZE}
    )
    per_page = page_size(query, size)
    check_page(query)
    paginator = CachedCountPaginator(
        Rows(prepare(rows) if prepare else rows, name=count_name(path, query), token=token),
        per_page,
    )
    number = query.get(PAGE) or 1
    if number == LAST_PAGE:
        number = paginator.num_pages
    try:
        return paginator.page(number)
    except InvalidPage:
        raise Http404("Invalid page.") from None
