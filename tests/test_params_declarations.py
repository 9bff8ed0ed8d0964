"""
Each query parameter is declared once, in its FilterSet (releases.queries.filtersets), and the rest
follows from that declaration: the schema, which parameters may repeat, the facets, the
count a list keeps, and which paths answer as the API (read from the URLconf).
"""

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.urls import include, path

from config.urls import urlpatterns as product_urlpatterns
from releases import surfaces
from releases.api import views
from releases.api.pagination import StrictPageNumberPagination
from releases.queries.filtersets import FeatureFilterSet, StateFilterSet
from releases.queries.pagination import CachedCountPaginator
from releases.queries.reading import MULTI_VALUED
from releases.versions import Version

# The catalog's URLconf with the API elsewhere, for test_the_api_prefix_follows_the_urlconf.
urlpatterns = [
    surfaces.on(surfaces.API, path("v1/", include("releases.api.urls"))),
    *(pattern for pattern in product_urlpatterns if str(pattern.pattern) != "api/"),
]

LISTS = {
    "/api/releases/": views.ReleaseViewSet,
    "/api/features/": views.FeatureViewSet,
    "/api/links/": views.LinkViewSet,
    "/api/areas/": views.AreaViewSet,
    "/api/tracks/": views.TrackViewSet,
    "/api/state/": views.StateViewSet,
    "/api/stats/releases/": views.ReleaseStatsViewSet,
    "/api/stats/graduation/": views.GraduationViewSet,
}


def features(client, query, queries_at_most, assert_max):
    with assert_max(queries_at_most):
        response = client.get(f"/api/features/?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def test_facets_read_a_repeated_parameter_as_the_list_does(
    client, catalog, uncached, django_assert_max_num_queries
):
    """release=1.8&release=1.9 is release=1.8,1.9 for the facets too, not release=1.9."""
    repeated = features(
        client, "release=1.8&release=1.9&facets=stability", 6, django_assert_max_num_queries
    )
    joined = features(client, "release=1.8,1.9&facets=stability", 5, django_assert_max_num_queries)
    last = features(client, "release=1.9&facets=stability", 5, django_assert_max_num_queries)
    assert repeated["count"] == joined["count"] > last["count"]
    assert repeated["facets"] == joined["facets"] != last["facets"]
    assert sum(repeated["facets"]["stability"].values()) == repeated["count"]


def test_the_features_page_counts_a_repeated_choice_as_the_api_does(client, catalog, uncached):
    page = client.get("/features/?stability=beta&stability=prototype").content.decode()
    api = client.get("/api/features/?stability=beta,prototype&facets=release").json()
    assert f"<p>{api['count']} features.</p>" in page
    for version, total in api["facets"]["release"].items():
        assert f'value="{version}"> {version} <span class="count">{total}</span>' in page


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "viewset"), LISTS.items())
def test_the_schema_states_each_declared_parameter_of_a_list(client, url, viewset):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    stated = {p["name"]: p for p in schema["paths"][url]["get"]["parameters"]}
    declared = set(viewset.filterset_class.base_filters)
    assert set(stated) == declared | {"page", "page_size", "cursor", "format"}
    for name in declared:
        parameter = stated[name]
        # What may repeat (the rule every query follows) is what the schema says may repeat.
        assert (parameter["schema"]["type"] == "array") == (name in MULTI_VALUED), name
        assert parameter["description"], name
        assert (
            parameter.get("required", False)
            == viewset.filterset_class.base_filters[name].extra["required"]
        )


@pytest.mark.django_db
def test_a_repeated_parameter_is_refused_unless_its_filter_takes_several(client):
    assert "kind" in MULTI_VALUED and "is_missing" not in MULTI_VALUED
    assert client.get("/api/links/?kind=rfc&kind=documentation").status_code == 200
    refused = client.get("/api/links/?is_missing=true&is_missing=true")
    assert refused.status_code == 400
    assert refused.json() == {"is_missing": ["Given 2 times; give it once."]}


@pytest.mark.django_db
def test_a_filterset_is_built_by_django_filter_with_a_form_of_what_is_given():
    filterset = FeatureFilterSet(QueryDict("release=1.8&release=1.9&has_missing_links=true"))
    assert filterset.filters["release"] is not FeatureFilterSet.base_filters["release"]
    assert filterset.filters["has_missing_links"].parent is filterset
    # kind is checked unasked: unnamed, it leaves notices out (issue 41).
    assert set(filterset.form.fields) == {"release", "has_missing_links", "kind"}
    assert filterset.is_valid()
    # A version is parsed where the query is read, once: below it, a versions.Version.
    assert filterset.form.cleaned_data == {
        "release": [Version.parse("1.8"), Version.parse("1.9")],
        "has_missing_links": True,
        "kind": None,
    }
    assert [str(v) for v in filterset.form.cleaned_data["release"]] == ["1.8", "1.9"]
    state = StateFilterSet(QueryDict("area=nowhere"))
    assert set(state.form.fields) == {"version", "area"}  # a required one is always checked
    assert state.errors["version"] == ["Required."]


def test_pages_share_one_count_through_the_paginator(client, catalog, uncached):
    assert StrictPageNumberPagination.django_paginator_class is CachedCountPaginator

    def counts(url):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return sum("COUNT(" in query["sql"].upper() for query in queries)

    first = counts("/api/features/?has_missing_links=true&page_size=2")
    # Another page, another size, another order, the parameter spelled otherwise: one count.
    assert first == 1
    assert counts("/api/features/?page=2&has_missing_links=true&page_size=3&ordering=title") == 0
    assert counts("/api/features/?has_missing_links=false&page_size=2") == 1


def test_the_api_prefix_follows_the_urlconf(settings):
    assert surfaces.answers_as_api("/api/nothing-here/")
    assert surfaces.answers_as_api("/feeds/releases/") and surfaces.answers_as_api("/badges/x")
    assert surfaces.is_page("/") and surfaces.is_page("/matrix/?x") and not surfaces.is_page("/x")
    assert not surfaces.answers_as_api("/admin/") and not surfaces.is_page("/admin/")
    settings.ROOT_URLCONF = __name__
    assert surfaces.surfaces(__name__)[0][0] == "/v1/"
    assert surfaces.answers_as_api("/v1/releases/")
    assert not surfaces.answers_as_api("/api/releases/")


@pytest.mark.django_db
def test_no_pattern_in_the_schema_admits_a_value_the_rule_refuses(client):
    """Every query refuses a value that begins or ends with a space (queries.params); a
    parameter's pattern in the schema may not promise one (schemathesis sent os='Q ')."""
    import re

    schema = client.get("/api/schema/", {"format": "json"}).json()
    checked = 0
    for url, operations in schema["paths"].items():
        for parameter in operations.get("get", {}).get("parameters", []):
            if parameter["in"] != "query":
                continue
            declared = parameter["schema"]
            pattern = declared.get("pattern") or declared.get("items", {}).get("pattern")
            if not pattern:
                continue
            checked += 1
            for value in (" a", "a ", "Q ", " 1", "1 "):
                assert not re.search(pattern, value), (url, parameter["name"], value)
    assert checked >= 10
