"""
The few places where the catalog relies on a library's behaviour that its public API does not
offer. Each function says why the public API does not suffice and which version it was checked
against; tests/test_adapters.py pins the behaviour, so that an upgrade that changes it fails a
test rather than the catalog. Nothing outside this module reaches a private attribute of Django,
DRF, django-filter, simple-history or diskcache.
"""

from typing import NamedTuple

from django.db import NotSupportedError, models
from django.db.models.deletion import Collector
from simple_history.models import HistoricalRecords


class Deletion(NamedTuple):
    doomed: dict  # {model: [instances]}: everything the deletion takes, cascades included
    run: object  # carries it out; returns what QuerySet.delete() returns


def refusal(target):
    """
    Django's refusal to delete ``target`` (a QuerySet, or a list of instances): the exception
    its ``delete()`` would raise — a slice, ``values()``, ``distinct(*fields)``, a combined
    query, an unsaved instance — or None. Returned, not raised, so that the caller can raise
    it outside its transaction, which stays usable, as Django's own ``delete()`` leaves it.

    Public API only, kept beside ``deletion`` because it gives back the checks that going
    around ``delete()`` would lose: a QuerySet is asked by deleting it empty (``none()``)
    through ``QuerySet.delete``, which makes every check Django makes, now or in a later
    version, and no query inside a transaction (an empty deletion reads and writes nothing).
    ``Model.delete()``'s one check is restated, in its words.

    Checked against Django 5.2.
    """
    if isinstance(target, models.QuerySet):
        try:
            models.QuerySet.delete(target.none())
        except (TypeError, NotSupportedError) as error:
            return error
        return None
    for obj in target:
        if obj.pk is None:  # Model.delete()'s check, in its words
            return ValueError(
                f"{obj._meta.object_name} object can't be deleted because its "
                f"{obj._meta.pk.attname} attribute is set to None."
            )
    return None


def deletion(target, using):
    """
    What deleting ``target`` (a QuerySet, or a list of instances, which ``refusal`` accepts)
    takes with it, and the means to delete it: Django's own deletion, stopped between
    collecting and deleting.

    Why not the public API: the write path records every row that goes (its history, the
    public log's tombstones) and sets the SET_NULL references of what goes through the write
    path, in a few queries for the whole deletion, before the rows go. ``QuerySet.delete()`` and
    ``Model.delete()`` offer no moment between collecting and deleting, and their signals come
    one instance at a time; collecting apart and then deleting would collect twice. So this
    uses ``django.db.models.deletion.Collector`` (importable, undocumented) the way those two
    methods do: ``collect()``, then ``data`` and ``fast_deletes``, then ``delete()``.

    Checked against Django 5.2.
    """
    if isinstance(target, models.QuerySet):
        origin = target
        # As QuerySet.delete() collects: on the database it deletes from, unordered, no joins.
        collected = target.using(using).order_by().select_related(None)
    else:
        collected = list(target)
        origin = collected[0] if len(collected) == 1 else collected
    collector = Collector(using=using, origin=origin)
    collector.collect(collected)
    doomed = {model: list(instances) for model, instances in collector.data.items()}
    for queryset in collector.fast_deletes:
        doomed.setdefault(queryset.model, []).extend(queryset)
    return Deletion(doomed, collector.delete)


def request_user():
    """
    The signed-in user of the request being served, or None: what simple-history's
    ``HistoryRequestMiddleware`` keeps for the history of the writes the request makes.

    Why not the public API: simple-history documents the middleware, and the ``get_user``
    hook it calls with the request, but not where the request is kept; the catalog writes its
    history rows itself (``writes.record``), so it reads ``HistoricalRecords.context``, as
    simple-history's own ``get_history_user`` does.

    Checked against django-simple-history 3.13.
    """
    request = getattr(HistoricalRecords.context, "request", None)
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    return None


def clear_prefetched(objects):
    """
    Forget what ``prefetch_related`` cached on ``objects``. Prefetching a reverse relation
    sets each related object's reference back to its owner, a cycle only the garbage collector
    frees; a streamed export drops each chunk's prefetched objects as soon as it is written.

    Why not the public API: Django documents no way to drop a prefetched relation but
    ``refresh_from_db()``, which reads the row again. Its cache is ``_prefetched_objects_cache``,
    which ``Model.refresh_from_db`` and ``QuerySet._prefetch_related_objects`` use.

    Checked against Django 5.2.
    """
    for obj in objects:
        getattr(obj, "_prefetched_objects_cache", {}).clear()


def shared_filter_copy(filter_):
    """
    A copy of the django-filter ``filter_`` that shares its declaration (field, help, choices)
    and is bound to nothing yet: what a FilterSet's constructor makes of each filter, one set a
    request, without deep-copying the whole declaration each time.

    Why not the public API: django-filter deep-copies every declared filter per FilterSet and
    offers no lighter hook. A filter declared with ``method=`` keeps that method bound to the
    filter (a ``FilterMethod`` as its instance attribute ``filter``, made by the ``method``
    property's setter), so the copy sets ``method`` again, which binds it to the copy.

    Checked against django-filter 26.2.
    """
    clone = object.__new__(type(filter_))
    clone.__dict__.update(filter_.__dict__)
    if filter_.method is not None:
        clone.method = filter_.method  # the setter binds a FilterMethod to the copy
    return clone


# What a FilterSet's pieces hold of one another once it has filtered (django-filter 26.2,
# Django 5.2): each filter its FilterSet (``parent``) and a method bound to itself
# (``filter``); the form its bound fields, each holding the form (``_bound_fields_cache``).
FILTER_CYCLES = ("parent", "filter")
FORM_CYCLES = ("_bound_fields_cache",)
FILTERSET_CYCLES = ("filters", "_form", "request")
# What a DRF viewset holds once it has answered (DRF 3.18): its handlers, bound to itself by
# ``as_view`` (the methods ``action_map`` names, and ``head``), its request and its response,
# whose renderer context holds the view.
VIEW_CYCLES = ("head", "request", "response")


def drop(obj, names):
    for name in names:
        vars(obj).pop(name, None)


def break_filterset_cycles(filterset):
    """
    Break the reference cycles a django-filter FilterSet leaves (see FILTER_CYCLES), so that
    it is freed with the request rather than by the garbage collector.

    Why not the public API: nothing is offered to release a FilterSet; these attributes are
    the ones django-filter and Django's forms set, named here and pinned in
    tests/test_adapters.py.
    """
    for filter_ in filterset.filters.values():
        drop(filter_, FILTER_CYCLES)
    form = vars(filterset).get("_form")
    if form is not None:
        drop(form, FORM_CYCLES)
    drop(filterset, FILTERSET_CYCLES)


def break_view_cycles(view):
    """
    Break the reference cycles a DRF viewset leaves once its response is rendered (see
    VIEW_CYCLES). Why not the public API: DRF offers no hook after rendering; these are the
    attributes ``ViewSetMixin.as_view`` and ``APIView.dispatch`` set, pinned in
    tests/test_adapters.py.
    """
    drop(view, (*getattr(view, "action_map", {}), *VIEW_CYCLES))
