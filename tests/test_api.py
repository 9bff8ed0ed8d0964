"""The public API, over real HTTP against a live server holding the seed catalog."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases import revision
from releases.models import Feature, Release, Track
from tests.conftest import http
from tests.factories import FeatureFactory, LinkFactory, ReleaseFactory
from tests.test_fixtures import FEATURES_PER_RELEASE

# Every feature of the seed catalog (1.6-1.9), each release's as tests/test_fixtures.py counts.
SEED_FEATURES = sum(FEATURES_PER_RELEASE.values())


def titles(response):
    return [item["title"] for item in response.json()["results"]]


# --- releases --------------------------------------------------------------------------------


def test_releases_newest_first_with_their_contract(api):
    response = api("/api/releases/")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/json")
    results = response.json()["results"]
    assert [item["version"] for item in results] == ["1.9", "1.8", "1.7", "1.6"]
    first = results[0]
    assert {
        "version",
        "title",
        "release_date",
        "announcement_url",
        "release_notes_url",
        "feature_count",
    } <= set(first)
    assert first["feature_count"] == 18
    assert first["release_date"] == "2021-06-15"


def test_version_filters_compare_as_versions(api, live_catalog):
    ReleaseFactory(version="1.10")
    assert [r["version"] for r in api("/api/releases/", min_version="1.9").json()["results"]] == [
        "1.10",
        "1.9",
    ]
    assert [r["version"] for r in api("/api/releases/", min_version="1.10").json()["results"]] == [
        "1.10"
    ]
    assert [r["version"] for r in api("/api/releases/", max_version="1.7").json()["results"]] == [
        "1.7",
        "1.6",
    ]


def test_release_date_and_search_filters(api):
    after = api("/api/releases/", released_after="2021-01-01").json()["results"]
    assert [r["version"] for r in after] == ["1.9", "1.8"]
    before = api("/api/releases/", released_before="2020-10-27").json()["results"]
    assert [r["version"] for r in before] == ["1.7", "1.6"]
    assert [
        r["version"] for r in api("/api/releases/", search="TorchElastic core").json()["results"]
    ] == ["1.9"]


def test_release_detail_lists_its_features_in_post_order(api):
    release = api("/api/releases/1.8/").json()
    assert release["version"] == "1.8"
    assert len(release["features"]) == 16  # 14 tagged, 2 from the prose's accepted claims
    assert [f["position"] for f in release["features"]] == list(range(1, 17))
    assert release["features"][0]["links"][0]["url"].startswith("https://pytorch.org/blog/")


def test_unknown_release_is_404(api):
    assert api("/api/releases/4.2/").status == 404


def test_drafts_are_invisible(api, live_catalog):
    draft = FeatureFactory(
        release=ReleaseFactory(version="9.0", is_published=False), title="Secret"
    )
    LinkFactory(feature=draft)
    assert "9.0" not in [r["version"] for r in api("/api/releases/").json()["results"]]
    assert api("/api/releases/9.0/").status == 404
    assert api("/api/features/", search="Secret").json()["count"] == 0
    assert api("/api/links/", release="9.0").json()["count"] == 0


# --- features --------------------------------------------------------------------------------


def test_feature_items_have_their_contract(api):
    item = api("/api/features/", release="1.7", search="Benchmark Utilities").json()["results"][0]
    assert item == {
        "release": "1.7",
        "title": "Benchmark Utilities",
        "slug": "benchmark-utilities",
        "kind": "feature",
        "stability": "beta",
        "stage_label": "Beta",
        "stage_source": "tag",
        "area": "performance-profiling",
        "area_name": "Performance & Profiling",
        "summary": item["summary"],
        "position": 4,
        "track": "benchmark-utilities",
        "links": [
            {
                "kind": "documentation",
                "label": "Documentation",
                "shown_label": "Documentation",
                "url": None,
                "is_missing": True,
                "status": "unchecked",
                "checked_at": None,
                "final_url": None,
            }
        ],
        "source": {
            "post": "pytorch-1.7-release-post.md",
            "url": "https://pytorch.org/blog/pytorch-1.7-released/",
            "section": "Performance & Profiling",
            "line": 72,
        },
    }


def test_prototype_features_of_1_8(api):
    response = api("/api/features/", release="1.8", stability="prototype")
    assert response.json()["count"] == 6


def test_beta_distributed_training_features_of_1_8(api):
    response = api("/api/features/", release="1.8", stability="beta", area="distributed-training")
    assert titles(response) == ["Pipeline Parallelism", "DDP Communication Hook"]


def test_several_stabilities_at_once(api):
    both = api("/api/features/", release="1.9", stability="beta,prototype").json()["count"]
    beta = api("/api/features/", release="1.9", stability="beta").json()["count"]
    prototype = api("/api/features/", release="1.9", stability="prototype").json()["count"]
    assert both == beta + prototype == 12


def test_features_without_stability(api):
    response = api("/api/features/", stability="none", page_size=100)
    assert sorted(titles(response)) == [
        "Demo apps",
        "TorchVision Library",
        "torchaudio 0.6",
        "torchvision 0.7",
    ]
    assert all(item["stability"] is None for item in response.json()["results"])


def test_stable_features_since_1_8(api):
    response = api("/api/features/", stability="stable", min_version="1.8", page_size=100)
    assert {item["release"] for item in response.json()["results"]} == {"1.8", "1.9"}
    # Three tagged Stable, two stated stable in 1.8's prose (accepted claims).
    assert response.json()["count"] == 7
    sources = [item["stage_source"] for item in response.json()["results"]]
    assert sorted(sources) == ["claim", "claim", "tag", "tag", "tag", "tag", "tag"]


def test_max_version_and_several_areas(api):
    response = api("/api/features/", max_version="1.6", area="torchvision,torchaudio")
    assert titles(response) == ["torchvision 0.7", "torchaudio 0.6"]


def test_has_missing_links(api):
    missing = api("/api/features/", has_missing_links="true").json()
    assert {(item["release"], item["slug"]) for item in missing["results"]} == {
        ("1.7", "benchmark-utilities"),
        ("1.7", "nccl-reliability-async-error-timeout-handling"),
        ("1.7", "torchscript-rpc-remote-and-rpc-sync"),
        ("1.7", "distributed-optimizer-with-torchscript-support"),
        ("1.6", "rpc-asynchronous-user-functions"),
    }
    complete = api("/api/features/", has_missing_links="false").json()["count"]
    assert complete + missing["count"] == SEED_FEATURES


def test_search_matches_title_and_summary_words(api):
    assert titles(api("/api/features/", search="zeroredundancy")) == ["ZeroRedundancyOptimizer"] * 2
    assert "Complex Autograd" in titles(api("/api/features/", search="complex gradients"))


def test_ordering(api):
    oldest_first = api("/api/features/", ordering="release,position", page_size=1).json()[
        "results"
    ][0]
    assert (oldest_first["release"], oldest_first["position"]) == ("1.6", 1)
    by_title = titles(api("/api/features/", release="1.9", ordering="-title", page_size=3))
    assert by_title == sorted(by_title, reverse=True)


def test_default_order_is_newest_release_then_post_order(api):
    results = api("/api/features/", page_size=100).json()["results"]
    keys = [(item["release"], item["position"]) for item in results]
    assert keys[0] == ("1.9", 1)
    assert keys == sorted(keys, key=lambda key: (-float(key[0]), key[1]))


# --- links and areas -------------------------------------------------------------------------


def test_missing_links_list(api):
    response = api("/api/links/", is_missing="true", release="1.7")
    body = response.json()
    assert body["count"] == 9
    assert all(item["url"] is None and item["is_missing"] for item in body["results"])
    assert set(body["results"][0]) >= {"release", "feature", "kind", "label", "url", "is_missing"}


def test_link_filters(api):
    rfcs = api("/api/links/", kind="rfc", page_size=100).json()["results"]
    assert {link["url"] for link in rfcs} >= {"https://github.com/pytorch/pytorch/issues/44827"}
    assert all(link["kind"] == "rfc" for link in rfcs)
    mobile = api("/api/links/", area="mobile", release="1.8", is_missing="false").json()["results"]
    assert [link["feature"] for link in mobile] == ["pytorch-mobile-lite-interpreter"]


def test_areas_with_feature_counts(api):
    areas = {area["slug"]: area for area in api("/api/areas/", page_size=100).json()["results"]}
    # 21 from the posts' sections, five from claims (1.7: async user functions, DDP dynamic
    # bucketing, the RPC framework; 1.8: RPC profiling, NCCL async error handling).
    assert areas["distributed-training"]["feature_count"] == 21 + 5
    assert "Front End APIs" in areas["frontend-apis"]["aliases"]
    assert sum(area["feature_count"] for area in areas.values()) == SEED_FEATURES
    assert api("/api/areas/mobile/").json()["name"] == "Mobile"


# --- pagination, errors, writes --------------------------------------------------------------


def test_page_size_defaults_to_50_and_caps_at_100(api):
    assert len(api("/api/features/").json()["results"]) == 50
    assert len(api("/api/features/", page_size=20, page=2).json()["results"]) == 20
    assert api("/api/features/", page=2).json()["next"] is None


@pytest.mark.parametrize(
    ("path", "params", "parameter", "says"),
    [
        ("/api/features/", {"colour": "red"}, "colour", "Allowed: area"),
        (
            "/api/features/",
            {"stability": "experimental"},
            "stability",
            "stable, beta, prototype, unstable, none",
        ),
        ("/api/features/", {"stability": "beta,bogus"}, "stability", "Unknown value 'bogus'"),
        ("/api/features/", {"release": "1.x"}, "release", "expected one such as"),
        ("/api/features/", {"min_version": "latest"}, "min_version", "expected one such as"),
        ("/api/features/", {"area": "nowhere"}, "area", "distributed-training"),
        ("/api/features/", {"has_missing_links": "maybe"}, "has_missing_links", "true or false"),
        ("/api/features/", {"ordering": "colour"}, "ordering", "Allowed: release"),
        ("/api/features/", {"page_size": "abc"}, "page_size", "from 1 to 100"),
        ("/api/features/", {"page_size": "500"}, "page_size", "from 1 to 100"),
        ("/api/features/", {"page": "first"}, "page", "whole number"),
        ("/api/releases/", {"max_version": "2"}, "max_version", "expected one such as"),
        ("/api/releases/", {"released_after": "last year"}, "released_after", "YYYY-MM-DD"),
        ("/api/releases/", {"stability": "beta"}, "stability", "Unknown query parameter"),
        ("/api/links/", {"kind": "video"}, "kind", "documentation"),
        ("/api/links/", {"is_missing": "2"}, "is_missing", "true or false"),
        ("/api/releases/1.9/", {"page": "1"}, "page", "Unknown query parameter"),
    ],
)
def test_bad_queries_get_a_400_naming_the_parameter(api, path, params, parameter, says):
    response = api(path, **params)
    assert response.status == 400
    body = response.json()
    assert list(body) == [parameter]
    assert says in body[parameter][0]


def test_every_bad_parameter_is_named_at_once(api):
    body = api("/api/features/", stability="x", colour="red").json()
    assert set(body) == {"stability", "colour"}


def test_a_page_past_the_end_is_404(api):
    assert api("/api/features/", page=99).status == 404


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize(
    "path",
    ["/api/releases/", "/api/releases/1.9/", "/api/features/", "/api/links/", "/api/areas/mobile/"],
)
def test_anonymous_writes_are_refused(live_catalog, method, path):
    response = http(
        live_catalog, path, method=method, data=b"{}", headers={"Content-Type": "application/json"}
    )
    assert response.status in {403, 405}
    assert http(live_catalog, "/api/releases/").json()["count"] == 4


def test_openapi_schema_documents_every_filter(api):
    response = api("/api/schema/", format="json")
    assert response.status == 200
    schema = response.json()
    parameters = {p["name"] for p in schema["paths"]["/api/features/"]["get"]["parameters"]}
    assert parameters >= {
        "release",
        "min_version",
        "max_version",
        "stability",
        "area",
        "has_missing_links",
        "search",
        "ordering",
        "page",
        "page_size",
    }
    link_parameters = {p["name"] for p in schema["paths"]["/api/links/"]["get"]["parameters"]}
    assert link_parameters >= {"release", "kind", "is_missing", "area"}


def test_docs_page_is_served_with_its_assets(api):
    page = api("/api/docs/")
    assert page.status == 200 and b"swagger" in page.body.lower()
    assert (
        http(
            api.server, "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"
        ).status
        == 200
    )


# --- query counts: in-process, so the queries are countable ----------------------------------


def count_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.content
    return len(queries)


@pytest.mark.parametrize(
    ("path", "first", "later"),
    [
        # Each counts one query for the catalog's revision (a row: releases/revision.py).
        # + four for what the releases run on and pair with (issue 32), whatever their number
        ("/api/releases/?", 7, 6),
        ("/api/features/?", 4, 3),
        ("/api/features/?release=1.8&stability=beta,prototype&has_missing_links=false&", 4, 3),
        # + validating the area slugs, once for the revision (reading.validated)
        ("/api/features/?area=mobile,torchvision&", 5, 3),
        # + one grouped query per facet, and the area filter's validation for the others
        ("/api/features/?facets=stability,area,release&", 7, 6),
        ("/api/links/?", 3, 2),
        ("/api/links/?is_missing=true&kind=documentation&", 3, 2),
        ("/api/areas/?", 4, 3),
        ("/api/changes/?", 2, 2),  # one, whatever the log holds (releases.public_log)
    ],
)
def test_list_query_count_does_not_grow_with_page_size(
    client, catalog, uncached, path, first, later
):
    """
    The first page counts the list and validates its query; the others read that count from
    the cache, and the query as validated in this revision.
    """
    counts = [count_queries(client, f"{path}page_size={size}") for size in (1, 10, 100)]
    assert counts == [first, later, later]


def test_a_query_is_validated_again_in_each_new_revision(client, catalog, uncached):
    """A track's slug, accepted while it names a track, is refused once the catalog's next
    revision renames it; the new slug is accepted (releases.queries.reading.validated)."""
    track = Track.objects.published().filter(features__isnull=False).first()
    before, after = f"/api/features/?track={track.slug}", "/api/features/?track=renamed-track"
    assert client.get(before).json()["count"] > 0
    assert client.get(after).status_code == 400
    Track.objects.filter(pk=track.pk).update(slug="renamed-track")
    revision.bump()  # what the rename's commit does
    refused = client.get(before)
    assert refused.status_code == 400 and "track" in refused.json()
    assert client.get(after).json()["count"] > 0


def test_release_page_query_count_does_not_grow_with_its_features(client, catalog, uncached):
    few = count_queries(client, "/api/releases/1.6/")
    FeatureFactory.create_batch(30, release=ReleaseFactory(version="1.6"))
    # With the revision, four for what it runs on and pairs with (issue 32), one its wheels.
    assert count_queries(client, "/api/releases/1.6/") == few == 9


def test_search_ranks_best_matches_first_on_postgresql(api):
    from django.db import connection

    results = api("/api/features/", search="profiler", page_size=100).json()["results"]
    found = [item["title"] for item in results]
    assert "Memory Profiler" in found and "PyTorch Profiler" in found
    if connection.vendor != "postgresql":
        return  # SQLite: substring matching, newest first, checked above
    in_title = ["profil" in title.lower() for title in found]
    assert in_title == sorted(in_title, reverse=True), found  # title matches first
    stemmed = api("/api/features/", search="profiling", page_size=100).json()["results"]
    assert "Memory Profiler" in [item["title"] for item in stemmed]


def test_titles_sort_as_people_read_them_whatever_their_case(api):
    titles = [
        item["title"]
        for item in api("/api/features/", ordering="title", page_size=100).json()["results"]
    ]
    assert titles == sorted(titles, key=str.lower)
    assert titles != sorted(titles)  # the catalog has titles that differ by case ("torch.fft")
    backwards = [
        item["title"]
        for item in api("/api/features/", ordering="-title", page_size=100).json()["results"]
    ]
    assert backwards == sorted(titles, key=str.lower, reverse=True)
    names = [track["name"] for track in api("/api/tracks/", page_size=100).json()["results"]]
    assert names == sorted(names, key=str.lower)


def test_facets_count_what_each_choice_would_give_with_the_other_filters(api):
    body = api("/api/features/", release="1.8", facets="stability").json()
    stages = body["facets"]["stability"]
    assert stages == {
        "stable": 3,
        "beta": 7,
        "prototype": 6,
        "unstable": 0,
    }  # 1 tagged, 2 from claims
    for stage, count in stages.items():
        assert api("/api/features/", release="1.8", stability=stage).json()["count"] == count
    # A facet leaves its own filter out: asking for beta still counts every stage.
    narrowed = api("/api/features/", release="1.8", stability="beta", facets="stability,area")
    assert narrowed.json()["facets"]["stability"] == stages
    areas = narrowed.json()["facets"]["area"]
    assert sum(areas.values()) == narrowed.json()["count"] == 7
    releases = api("/api/features/", facets="release", area="mobile").json()["facets"]["release"]
    assert list(releases) == ["1.9", "1.8", "1.7", "1.6"]  # newest first, as versions
    assert "facets" not in api("/api/features/").json()


def test_an_unknown_facet_is_a_400_naming_it(api):
    response = api("/api/features/", facets="stability,colour")
    assert response.status == 400
    assert "colour" in response.json()["facets"][0]


# --- CSV ------------------------------------------------------------------------------------


def csv_rows(response):
    import csv
    import io

    return list(csv.DictReader(io.StringIO(response.body.decode("utf-8"))))


def test_csv_streams_every_matching_row_not_one_page(api):
    everything = api("/api/features/", format="csv", page_size=1)
    assert everything.status == 200
    assert everything.headers["Content-Type"].startswith("text/csv")
    assert "attachment" in everything.headers["Content-Disposition"]
    rows = csv_rows(everything)
    assert len(rows) == api("/api/features/").json()["count"] == SEED_FEATURES
    assert list(rows[0]) == [
        "release", "title", "slug", "kind", "stability", "stage_label", "stage_source", "area",
        "area_name", "summary", "position", "track", "links", "source",
    ]  # fmt: skip
    # The same filters and order as the JSON list.
    beta = csv_rows(api("/api/features/", format="csv", release="1.8", stability="beta"))
    listed = api("/api/features/", release="1.8", stability="beta").json()["results"]
    assert [row["slug"] for row in beta] == [item["slug"] for item in listed]
    fft = next(row for row in rows if row["slug"].startswith("torch-fft-support"))
    assert "https://pytorch.org/" in fft["links"]


@pytest.mark.parametrize("path", ["/api/releases/", "/api/links/", "/api/areas/", "/api/tracks/"])
def test_every_list_speaks_csv(api, path):
    rows = csv_rows(api(path, format="csv"))
    assert len(rows) == api(path, page_size=100).json()["count"]
    assert all("format=" not in value for row in rows for value in row.values())


def csv_lists():
    """Every API list that offers CSV, as the router declares them."""
    from releases.api.urls import router
    from releases.api.views import CSVListMixin

    return sorted(
        f"/api/{prefix}/"
        for prefix, viewset, _ in router.registry
        if issubclass(viewset, CSVListMixin)
    )


# A CSV holds every row, so page, page size and cursor shape nothing there; each malformed one
# is a 400 all the same, on every list (a cursor was once taken and ignored).
PRESENTATION_MISTAKES = [
    ({"page_size": "true"}, "page_size"), ({"page": "99999999999999"}, "page"),
    ({"cursor": "î"}, "cursor"),
]  # fmt: skip
BAD_CSV_REQUESTS = [
    *((path, {"release": "nope"}, "release")
      for path in ["/api/features/", "/api/links/", "/api/tracks/"]),
    *((path, params, name) for path in csv_lists() for params, name in PRESENTATION_MISTAKES),
]  # fmt: skip


@pytest.mark.parametrize(("path", "params", "name"), BAD_CSV_REQUESTS)
def test_a_bad_parameter_in_a_csv_request_is_still_a_json_400(api, path, params, name):
    response = api(path, format="csv", **params)
    assert response.status == 400
    assert list(response.json()) == [name]


def test_csv_reads_in_chunks_a_bounded_number_of_queries(client, catalog, uncached):
    more = FeatureFactory.create_batch(40, release=Release.objects.get(version="1.9"))
    assert more
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/features/?format=csv")
        lines = b"".join(response.streaming_content).count(b"\r\n")
    assert lines == 1 + Feature.objects.published().count()
    assert len(queries) <= 6  # the rows, their links (prefetched per chunk), validation
