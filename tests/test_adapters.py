"""
What releases.adapters (and the kept connections of releases.web.caches) rely on in Django,
simple-history and diskcache: each test fails if an upgrade changes that behaviour.
"""

import os
import threading

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, models, transaction
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from simple_history.middleware import HistoryRequestMiddleware

from releases import adapters
from releases.models import Feature, Link, Release, StageClaim
from releases.web.caches import DiskCache
from tests.factories import FeatureFactory, LinkFactory, ReleaseFactory

pytestmark = pytest.mark.django_db


class RolledBack(Exception):
    """Raised to leave an atomic block without keeping its writes."""


def attempt(action):
    """(what ``action`` returned, its queries), its writes rolled back."""
    result = None
    with CaptureQueriesContext(connection) as queries:
        try:
            with transaction.atomic():
                result = action()
                raise RolledBack
        except RolledBack:
            pass
    return result, [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]


@pytest.fixture
def release():
    release = ReleaseFactory(version="3.1")
    for feature in FeatureFactory.create_batch(2, release=release):
        LinkFactory.create_batch(2, feature=feature)
    StageClaim.objects.create(
        release=release, subject="torch.thing", stability="beta", phrase="is beta", line=1
    )
    return release


# --- adapters.deletion: Django's collector, stopped between collecting and deleting ----------


def test_a_deletion_takes_what_djangos_own_delete_takes(release):
    def ours():
        doomed, run = adapters.deletion(Release.objects.filter(pk=release.pk), "default")
        ids = {model: sorted(obj.pk for obj in objects) for model, objects in doomed.items()}
        return ids, run()

    def djangos():
        return models.QuerySet.delete(Release.objects.filter(pk=release.pk))

    (doomed, ours_result), ours_queries = attempt(ours)
    djangos_result, djangos_queries = attempt(djangos)
    assert ours_result == djangos_result == (8, djangos_result[1])
    assert djangos_result[1] == {
        "releases.Release": 1,
        "releases.Feature": 2,
        "releases.Link": 4,
        "releases.StageClaim": 1,
    }
    assert doomed[Release] == [release.pk]
    assert doomed[Link] == sorted(Link.objects.values_list("pk", flat=True))
    assert doomed[StageClaim] == list(StageClaim.objects.values_list("pk", flat=True))
    # Collected once, as Django collects: the same statements, none more.
    assert ours_queries == djangos_queries


def test_an_instance_is_deleted_as_model_delete_deletes_it(release):
    feature = release.features.first()

    def ours():
        return adapters.deletion([Feature.objects.get(pk=feature.pk)], "default").run()

    def djangos():
        return models.Model.delete(Feature.objects.get(pk=feature.pk))

    assert attempt(ours) == attempt(djangos)


@pytest.mark.parametrize(
    "misuse",
    [
        lambda links: links[:1],
        lambda links: links[1:],
        lambda links: links.values("pk"),
        lambda links: links.values_list("pk", flat=True),
        lambda links: links.union(links),
    ],
    ids=["slice", "offset", "values", "values_list", "union"],
)
def test_a_deletion_refuses_what_djangos_delete_refuses(misuse):
    LinkFactory()
    links = misuse(Link.objects.all())
    with pytest.raises(Exception) as djangos:
        models.QuerySet.delete(links)
    with CaptureQueriesContext(connection) as queries, pytest.raises(Exception) as ours:
        links.delete()
    assert type(ours.value) is type(djangos.value)
    assert str(ours.value) == str(djangos.value)
    assert Link.objects.count() == 1 and len(queries) == 0


def test_distinct_fields_are_refused_as_django_refuses_them():
    if not connection.features.can_distinct_on_fields:
        pytest.skip("DISTINCT ON is PostgreSQL's")
    links = Link.objects.order_by("feature").distinct("feature")
    with pytest.raises(TypeError) as djangos:
        models.QuerySet.delete(links)
    with pytest.raises(TypeError) as ours:
        links.delete()
    assert str(ours.value) == str(djangos.value)


def test_djangos_checks_cost_no_query():
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert models.QuerySet.delete(Link.objects.filter(label="x").none()) == (0, {})
    assert len(queries) == 0


def test_an_unsaved_instance_is_refused_in_djangos_words():
    with pytest.raises(ValueError) as djangos:
        models.Model.delete(Link())
    with pytest.raises(ValueError) as ours:
        Link().delete()
    assert str(ours.value) == str(djangos.value)


# --- simple-history ---------------------------------------------------------------------------


def test_the_request_user_is_the_signed_in_editor_of_the_request(admin_user):
    seen = []

    def view(request):
        seen.append(adapters.request_user())
        return None

    middleware = HistoryRequestMiddleware(view)
    for user in (admin_user, AnonymousUser()):
        request = RequestFactory().get("/admin/")
        request.user = user
        middleware(request)
    assert seen == [admin_user, None]
    assert adapters.request_user() is None  # outside a request


def test_simple_historys_receivers_record_nothing_of_their_own():
    """The write path records each write once (CatalogHistory.create_historical_record)."""
    link = LinkFactory()
    link.label = "Guide"
    link.save()
    pk = link.pk
    link.delete()
    assert list(Link.history.filter(id=pk).values_list("history_type", flat=True)) == [
        "-",
        "~",
        "+",
    ]


# --- diskcache: releases.web.caches.DiskCache keeps its connections ---------------------------


def connections_of(cache):
    """The SQLite connections this thread holds open in each shard (diskcache's internals)."""
    return [getattr(shard._local, "con", None) for shard in cache._cache._shards]


def test_each_thread_has_its_own_disk_cache_connections(tmp_path):
    cache = DiskCache(str(tmp_path), {"SHARDS": 2})
    for key in ("a", "b", "c", "d"):
        cache.set(key, key)
    held, seen = connections_of(cache), []

    def other():
        seen.append([cache.get(key) for key in "abcd"])
        seen.append(connections_of(cache))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen[0] == list("abcd")
    assert all(
        mine is not None and mine is not theirs for mine, theirs in zip(seen[1], held, strict=True)
    )


def test_the_disk_cache_keeps_its_connections_and_a_fork_opens_its_own(tmp_path):
    cache = DiskCache(str(tmp_path), {"SHARDS": 2})
    for key in ("a", "b", "c", "d"):
        cache.set(key, key)
    held = connections_of(cache)
    assert all(held)
    cache.close()  # what Django does at the end of each request
    assert connections_of(cache) == held and cache.get("a") == "a"

    pid = os.fork()
    if pid == 0:  # the child: its own connections, the parent's left alone
        fine = False
        try:
            fine = [cache.get(key) for key in "abcd"] == list("abcd")
            fine = fine and all(
                mine is not None and mine is not theirs
                for mine, theirs in zip(connections_of(cache), held, strict=True)
            )
        finally:
            os._exit(0 if fine else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert cache.get("d") == "d" and connections_of(cache) == held


# --- adapters.clear_prefetched: a prefetched relation dropped without a query ----------------


def test_dropping_what_was_prefetched_breaks_the_cycle_it_made(release):
    import gc
    import weakref

    features = list(Feature.objects.filter(release=release).prefetch_related("links"))
    link = features[0].links.all()[0]
    # Prefetching sets each link's feature to its owner: a cycle, feature <-> its links.
    assert link.feature is features[0]
    watched = weakref.ref(features[0])
    gc.collect()
    gc.disable()
    try:
        adapters.clear_prefetched(features)
        with CaptureQueriesContext(connection) as queries:
            assert features[0].links.all()[0].pk == link.pk  # read again: the cache is gone
        assert len(queries) == 1
        del features, link
        assert watched() is None  # freed by reference counting, the collector off
    finally:
        gc.enable()


def filtered_filterset():
    from django.http import QueryDict

    from releases.queries.filtersets import FeatureFilterSet

    filterset = FeatureFilterSet(
        QueryDict("stability=beta&has_missing_links=true"), queryset=Feature.objects.for_api()
    )
    assert filterset.is_valid()
    str(filterset.form["stability"])  # a bound field, as a page's form draws it
    filterset.qs  # noqa: B018 - filtering is what leaves the cycles
    return filterset


@pytest.mark.django_db
def test_a_shared_copy_of_a_filter_binds_its_method_to_the_copy():
    from releases.queries.filtersets import FeatureFilterSet

    declared = FeatureFilterSet.base_filters["has_missing_links"]
    copied = adapters.shared_filter_copy(declared)
    assert copied is not declared and copied.extra is declared.extra  # the declaration, shared
    assert copied.filter.f is copied  # django-filter's FilterMethod, bound to the copy
    assert FeatureFilterSet().filters["has_missing_links"].filter.f is not declared


@pytest.mark.django_db
def test_the_cycles_a_filterset_leaves_are_where_the_adapter_breaks_them():
    filterset = filtered_filterset()
    for filter_ in filterset.filters.values():
        assert filter_.parent is filterset and "parent" in adapters.FILTER_CYCLES
        if filter_.method is not None:  # a method bound to the filter itself
            assert vars(filter_)["filter"].f is filter_ and "filter" in adapters.FILTER_CYCLES
    form = filterset.form
    assert set(adapters.FORM_CYCLES) <= set(vars(form))
    assert set(adapters.FILTERSET_CYCLES) <= set(vars(filterset))
    adapters.break_filterset_cycles(filterset)
    assert not set(adapters.FILTERSET_CYCLES) & set(vars(filterset))
    assert not set(adapters.FORM_CYCLES) & set(vars(form))


@pytest.mark.django_db
def test_the_cycles_a_viewset_leaves_are_where_the_adapter_breaks_them():
    from releases.api.views import FeatureViewSet

    request = RequestFactory().get("/api/features/")
    request.catalog_revision = None
    response = FeatureViewSet.as_view({"get": "list"})(request)
    response.render()
    view = response.renderer_context["view"]
    assert {"get", *adapters.VIEW_CYCLES} <= set(vars(view))
    assert view.get.__self__ is view and view.response is response
    adapters.break_view_cycles(view)
    assert not {"get", *adapters.VIEW_CYCLES} & set(vars(view))
