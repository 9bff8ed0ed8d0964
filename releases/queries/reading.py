"""
Reading a list from a query, the one way every surface does: unknown parameters refused, the
values cleaned once (by the list's FilterSet), filtered, then counted and paged with the cached
count. The API reaches it through DRF's seams (its filter backend and paginator,
releases.api); the pages through ``Listing.for_request``.

Each list the API and the pages both serve is declared once, at the end: its FilterSet and the
public rows it narrows. The API's viewsets take theirs from here.
"""

import functools
from typing import NamedTuple

from django.core.paginator import InvalidPage
from django.http import Http404, QueryDict
from rest_framework.exceptions import NotFound

from releases import memory
from releases.models import Feature, Release, Track, UpgradeNote
from releases.queries.fields import JoinedInput
from releases.queries.filters import CatalogFilterSet
from releases.queries.filtersets import (
    FeatureFilterSet,
    ReleaseFilterSet,
    StateAtFilterSet,
    StateFilterSet,
    TrackFilterSet,
)
from releases.queries.keyset import CURSOR, Keyset
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
from releases.queries.upgrades import DeprecationFilterSet, UpgradeFilterSet


def filtersets():
    """Every FilterSet of the catalog."""
    found, pending = [], [CatalogFilterSet]
    while pending:
        found.extend(subclasses := pending.pop().__subclasses__())
        pending.extend(subclasses)
    return found


# Queries a process keeps validated (``validated``), the most recently asked: a few hundred KB.
VALIDATED_QUERIES = 128

# The parameters that take several values (releases.queries.params.problems lets them repeat):
# those whose field reads them joined.
MULTI_VALUED = frozenset(
    name
    for filterset in filtersets()
    for name, filter_ in filterset.base_filters.items()
    if issubclass(filter_.field_class.widget, JoinedInput)
)


def filtered(query, filterset_class, queryset, allowed, asked=None, token=None):
    """
    ``queryset`` narrowed by ``query`` through ``filterset_class``, or one 400 naming every
    parameter not in ``allowed`` and every malformed value. ``asked``, a dict if given, gets
    the query's values as its form cleaned them (a version as a versions.Version): a page
    reads them there rather than parse ``query`` again. With ``token``, the catalog revision
    the request reads, the query is validated once for every request asking the same of it
    (``validated``).
    """
    if token is None:
        filterset = filterset_class(query, queryset=queryset)
        with memory.letting_go(filterset):
            return narrowed(filterset, query, queryset, allowed, asked)
    return narrowed(validated(filterset_class, given(query, filterset_class), token),
                    query, queryset, allowed, asked)  # fmt: skip


def narrowed(filterset, query, queryset, allowed, asked):
    """``queryset`` through the filters of ``filterset`` (see ``filtered``)."""
    errors = None if filterset.is_valid() else filterset.errors
    reject_bad_query(query, allowed, errors)
    if asked is not None:
        asked.update(filterset.form.cleaned_data)
    return filterset.filter_queryset(queryset.all())


def given(query, filterset_class):
    """What ``query`` gives the parameters of ``filterset_class``: (name, its values) pairs."""
    return tuple(
        (name, tuple(query.getlist(name))) for name in filterset_class.base_filters if name in query
    )


@functools.lru_cache(maxsize=VALIDATED_QUERIES)
def validated(filterset_class, parameters, token):
    """
    A FilterSet of ``filterset_class`` bound to ``parameters`` (``given``) and validated, kept
    for the next requests that ask the same while the catalog is at revision ``token``: the
    values it accepts (areas, tracks and releases that exist) depend on nothing else, and
    every write gives the catalog a new revision. Such requests skip building the FilterSet,
    its form and its cleaning (about 0.12 ms of a filtered list's 3.4 ms in process; see
    bench/README.md), and narrow their own rows through it (``filter_queryset``, which reads
    the FilterSet and changes nothing of it, so requests on several threads can share one).
    """
    data = QueryDict(mutable=True)
    for name, values in parameters:
        data.setlist(name, list(values))
    filterset = filterset_class(data)
    filterset.is_valid()
    return filterset


def read_list(
    query, filterset_class, queryset, *, path, token=None, size=50, prepare=None, asked=None
):
    """
    The page of the list ``query`` asks for: ``queryset`` filtered by ``filterset_class``
    (a 400 for an unknown parameter or a malformed value), shaped by ``prepare``, then paged
    (``page``, ``page_size`` up to 100, ``size`` without it; ``page=last``; a page past the
    last is a 404) with its count kept under ``path`` and the filters as of revision ``token``.
    With ``cursor``, the list is the rows after it (releases.queries.keyset), paged from there.
    ``asked``, a dict if given, gets the query as its form cleaned it (``filtered``).
    """
    allowed = {*filterset_class.base_filters, PAGE, PAGE_SIZE, CURSOR}
    rows = filtered(query, filterset_class, queryset, allowed, asked, token)
    per_page = page_size(query, size)
    check_page(query)
    rows = prepare(rows) if prepare else rows
    if query.get(CURSOR) is None:
        listed = Rows(rows, name=count_name(path, query), token=token)
    else:  # counted as it is: the rows after a cursor are a list of their own
        keyset = Keyset(rows)
        try:
            listed = Rows(keyset.following(rows, query[CURSOR]))
        except NotFound as error:
            raise Http404(str(error.detail)) from None
    paginator = CachedCountPaginator(listed, per_page)
    number = query.get(PAGE) or 1
    if number == LAST_PAGE:
        number = paginator.num_pages
    try:
        return paginator.page(number)
    except InvalidPage:
        raise Http404("Invalid page.") from None


class Listing(NamedTuple):
    filterset: type
    queryset: object  # a callable: the public rows, before the filters

    def read(self, query, *, queryset=None, **kwargs):
        """
        The page of this list that ``query`` asks for (read_list's keyword arguments), from
        ``queryset`` where the caller has narrowed the public rows already.
        """
        rows = self.queryset() if queryset is None else queryset
        return read_list(query, self.filterset, rows, **kwargs)

    def filtered(self, query, asked=None):
        """Every public row ``query`` asks for, unpaged (a 400 for what the FilterSet refuses);
        ``asked`` as ``filtered`` fills it."""
        allowed = set(self.filterset.base_filters)
        return filtered(query, self.filterset, self.queryset(), allowed, asked)

    def for_request(self, request, query=None, **kwargs):
        """
        The page of this list a page's ``request`` asks for (its query, or ``query`` where the
        page narrows it), its count kept under the page's path as of the request's revision.
        """
        return self.read(
            request.GET if query is None else query,
            path=request.path,
            token=getattr(request, "catalog_revision", None),
            **kwargs,
        )


RELEASES = Listing(ReleaseFilterSet, Release.objects.for_api)
FEATURES = Listing(FeatureFilterSet, Feature.objects.for_api)
# The tracks' FilterSets apply for_api() themselves, with the version their stages are as of.
TRACKS = Listing(TrackFilterSet, Track.objects.all)
STATE = Listing(StateFilterSet, Track.objects.all)
# The state page's: its version is in the path, so it gives the list with its stages.
STATE_AT = Listing(StateAtFilterSet, Track.objects.for_api)
UPGRADES = Listing(UpgradeFilterSet, UpgradeNote.objects.for_api)
DEPRECATIONS = Listing(
    DeprecationFilterSet, lambda: UpgradeNote.objects.for_api().deprecations().newest_first()
)
