"""
The state as of a version (issue 24): /api/state/?version= and /releases/<version>/state/ list
every track's stage as of that version, with the release that set it and since when it held.
"""

import csv
import io
import re

import html5lib
import pytest

from releases.models import Release, Track
from tests.factories import FeatureFactory, ReleaseFactory

# Checked by hand against fixtures/pytorch-*.json, as of 1.8:
# (stability, the release that set it, since, first release).
AS_OF_1_8 = {
    # beta in 1.7, stable in 1.8.
    "torch-fft": ("stable", "1.8", "1.8", "1.7"),
    # prototype in 1.6, beta in 1.7, stable in 1.8 (a claim in the 1.8 post's prose).
    "rpc-profiling": ("stable", "1.8", "1.8", "1.6"),
    # beta in 1.4, stable in 1.5 and again in 1.7: stable since 1.5, as last said in 1.7.
    "distributed-rpc": ("stable", "1.7", "1.5", "1.4"),
    # beta in 1.6, not mentioned in 1.7 or 1.8 (beta again in 1.12).
    "complex-numbers": ("beta", "1.6", "1.6", "1.6"),
    # prototype in 1.6 and again in 1.8.
    "graph-mode-quantization": ("prototype", "1.8", "1.6", "1.6"),
    # in 1.2, 1.4 and 1.6, never with a stage.
    "torchaudio": (None, "1.6", "1.2", "1.2"),
}


def every_item(client, **params):
    response = client.get("/api/state/", {**params, "page_size": 100})
    assert response.status_code == 200, response.content
    body = response.json()
    items = body["results"]
    while body["next"]:
        body = client.get(body["next"]).json()
        items += body["results"]
    return {item["track"]: item for item in items}


def test_the_state_as_of_1_8_is_each_tracks_latest_appearance_up_to_it(client, full_catalog):
    items = every_item(client, version="1.8")
    for slug, (stability, release, since, first) in AS_OF_1_8.items():
        item = items[slug]
        assert (item["stability"], item["release"], item["since"], item["first_release"]) == (
            stability,
            release,
            since,
            first,
        ), slug
    # Nothing first seen after 1.8, and every track seen by then.
    assert "torch-linalg" in items and "functorch-torch-func" not in items
    assert len(items) == Track.objects.with_stage("1.8").count()
    # Today torch.fft is still stable since 1.8; complex numbers were last said beta in 1.12.
    now = every_item(client, version="2.14")
    assert now["torch-fft"]["since"] == "1.8"
    assert (now["complex-numbers"]["release"], now["complex-numbers"]["since"]) == ("1.12", "1.6")


def test_the_state_narrows_by_area_and_stage(client, full_catalog):
    beta = every_item(client, version="1.8", stability="beta")
    assert "complex-numbers" in beta and "torch-fft" not in beta
    assert {item["stability"] for item in beta.values()} == {"beta"}
    several = every_item(client, version="1.8", stability="stable,none")
    assert {"torch-fft", "torchaudio"} <= set(several)
    distributed = every_item(client, version="1.8", area="distributed-training")
    assert "distributed-rpc" in distributed and "torch-fft" not in distributed
    assert {item["area"] for item in distributed.values()} == {"distributed-training"}


def test_the_state_as_csv_holds_every_row(client, full_catalog):
    response = client.get("/api/state/", {"version": "1.8", "format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == Track.objects.with_stage("1.8").count()
    fft = next(row for row in rows if row["track"] == "torch-fft")
    assert (fft["stability"], fft["release"], fft["since"]) == ("stable", "1.8", "1.8")


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ({}, "version"),
        ({"version": "9.9"}, "version"),
        ({"version": "nine"}, "version"),
        ({"version": "1.8", "stability": "gold"}, "stability"),
        ({"version": "1.8", "area": "nowhere"}, "area"),
        ({"version": "1.8", "as_of": "1.7"}, "as_of"),
        ({"version": "1.8", "page_size": "0"}, "page_size"),
        ({"version": "1.8", "format": "csv", "page": "x"}, "page"),
    ],
)
def test_a_bad_state_query_is_a_400_naming_the_parameter(client, catalog, query, name):
    response = client.get("/api/state/", query)
    assert response.status_code == 400
    assert name in response.json()


def test_a_draft_release_has_no_state(client, catalog):
    ReleaseFactory(version="3.0", is_published=False)
    response = client.get("/api/state/", {"version": "3.0"})
    assert response.status_code == 400
    assert "No published release 3.0" in response.json()["version"][0]
    assert client.get("/releases/3.0/state/").status_code == 404


def test_a_draft_appearance_does_not_count(client, catalog):
    draft = ReleaseFactory(version="1.9.1", is_published=False)
    FeatureFactory(release=draft, track=Track.objects.get(slug="torch-fft"), stability="beta")
    assert every_item(client, version="1.9")["torch-fft"]["stability"] == "stable"


def test_the_state_page_lists_the_same_tracks_as_the_api(client, full_catalog):
    response = client.get("/releases/2.0/state/")
    assert response.status_code == 200
    html = response.content.decode()
    html5lib.HTMLParser(strict=True).parse(html)
    listed = re.findall(r'<th scope="row" class="name"><a href="/tracks/([^/]+)/">', html)
    assert sorted(listed) == sorted(every_item(client, version="2.0"))
    # The picker offers every release out with an announcement, and marks this one.
    picked = re.findall(r'<a href="/releases/([0-9.]+)/state/[^"]*"', html)
    assert picked == [r.version for r in Release.objects.announcing().oldest_first()]
    assert 'aria-current="page">2.0</a>' in html
    assert 'href="/api/state/?version=2.0"' in html


def test_the_state_page_filters_as_the_api_does(client, full_catalog):
    html = client.get("/releases/1.8/state/", {"stability": "beta", "area": ""}).content.decode()
    listed = re.findall(r'<th scope="row" class="name"><a href="/tracks/([^/]+)/">', html)
    assert sorted(listed) == sorted(every_item(client, version="1.8", stability="beta"))


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/releases/9.9/state/", 404),
        ("/releases/nine/state/", 404),
        ("/releases/1.8/state/?version=1.9", 400),
        ("/releases/1.8/state/?stability=gold", 400),
        ("/releases/1.8/state/?format=json", 400),
    ],
)
def test_the_state_page_refuses_what_the_api_refuses(client, catalog, path, status):
    assert client.get(path).status_code == status


def test_every_release_page_links_to_its_state(client, full_catalog):
    for release in Release.objects.published():
        html = client.get(f"/releases/{release.version}/").content.decode()
        link = f'href="/releases/{release.version}/state/"'
        # A release with no announcement (0.1 to 1.1, 2.15) has no features, so no state page.
        assert (link in html) == (release.announced and not release.planned), release.version
        if link in html:
            assert client.get(f"/releases/{release.version}/state/").status_code == 200


@pytest.mark.parametrize(
    ("path", "most"),
    [
        ("/api/state/?version=2.0", 5),
        ("/api/state/?version=1.8&stability=beta&area=distributed-training", 6),
        ("/releases/2.0/state/", 6),
        ("/releases/2.14/state/?stability=unstable", 8),
    ],
)
def test_the_state_costs_a_few_queries_at_full_size(
    client, full_catalog, uncached, django_assert_max_num_queries, path, most
):
    with django_assert_max_num_queries(most):
        response = client.get(path)
    assert response.status_code == 200


def test_the_state_csv_costs_a_few_queries(
    client, full_catalog, uncached, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        response = client.get("/api/state/", {"version": "2.14", "format": "csv"})
        b"".join(response.streaming_content)


def test_the_state_is_in_the_openapi_schema(client, catalog):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    parameters = {p["name"]: p for p in schema["paths"]["/api/state/"]["get"]["parameters"]}
    assert parameters["version"]["required"] is True
    assert {"version", "area", "stability", "page", "page_size", "format"} <= set(parameters)
    # The versions it takes: the published releases, as an enum a client can offer.
    assert "1.8" in parameters["version"]["schema"]["enum"]


def test_the_state_answers_for_one_capability(client, full_catalog):
    """Is torch.fft stable as of 1.9? One row, by its slug or by words of its name."""
    by_slug = client.get("/api/state/", {"version": "1.9", "track": "torch-fft"}).json()
    assert [(i["track"], i["stability"], i["since"]) for i in by_slug["results"]] == [
        ("torch-fft", "stable", "1.8")
    ]
    by_words = client.get("/api/state/", {"version": "1.9", "search": "torch.fft"}).json()
    assert "torch-fft" in {item["track"] for item in by_words["results"]}
    assert by_words["count"] < 10
    page = client.get("/releases/1.9/state/", {"track": "torch-fft"}).content.decode()
    assert 'href="/tracks/torch-fft/"' in page
    assert client.get("/api/state/", {"version": "1.9", "track": "no-such"}).status_code == 400


def test_the_state_page_parses_its_version_once_and_reads_the_stages_once(
    client, full_catalog, uncached
):
    """The walk from URL to SQL: one parse of the path's version, one query of the stages as
    of it for the rows, no second query for the counts by stage."""
    from unittest import mock

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from releases import versions

    parse = versions.Version.parse
    with (
        mock.patch.object(versions.Version, "parse", side_effect=parse) as parsed,
        CaptureQueriesContext(connection) as queries,
    ):
        response = client.get("/releases/1.8/state/")
    assert response.status_code == 200
    assert [call.args[0] for call in parsed.call_args_list if isinstance(call.args[0], str)] == [
        "1.8"
    ]
    staged = [q["sql"] for q in queries if '"stage"' in q["sql"] or "AS stage" in q["sql"]]
    assert len(staged) == 1, staged  # the page's rows (their count selects no stage)
    assert not [sql for sql in staged if "GROUP BY" in sql]
    # The counts by stage are still every track's: the API's facet of the same version.
    html = response.content.decode()
    total = client.get("/api/state/", {"version": "1.8", "page_size": 1}).json()["count"]
    counted = sum(
        int(n) for n in re.findall(r'class="badge[^"]*"[^>]*>[^<]*</span>\s+(\d+)</a>', html)
    )
    assert counted == total
