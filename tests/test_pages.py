"""The public pages: what they show agrees with the API, drafts never appear, HTML is valid."""

import re

import html5lib
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases import revision
from releases.models import Feature, Release, Track
from tests.conftest import http
from tests.factories import FeatureFactory, ReleaseFactory

PAGES = [
    "/",
    "/releases/",
    "/releases/1.8/",
    "/tracks/",
    "/tracks/torch-fft/",
    "/matrix/",
    "/matrix/?area=frontend-apis&stability=stable",
    "/releases/?min_version=1.7",
    "/tracks/?area=frontend-apis&page_size=5",
    "/compare/?from=1.7&to=1.9",
    "/features/",
    "/features/?stability=beta&area=frontend-apis",
]


def page(server, path):
    response = http(server, path)
    return response, response.body.decode("utf-8")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_valid_html_and_links_its_json(live_catalog, path):
    response, html = page(live_catalog, path)
    assert response.status == 200, html[:300]
    assert response.headers["Content-Type"].startswith("text/html")
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(html)  # raises on any parse error
    assert "The same data as JSON" in html
    assert response.headers["ETag"]  # cached and validated like the API


def test_the_release_page_groups_features_by_area_and_marks_missing_links(live_catalog):
    _, html = page(live_catalog, "/releases/1.7/")
    api = http(live_catalog, "/api/releases/1.7/").json()
    for feature in api["features"]:
        assert f'id="{feature["slug"]}"' in html
    assert html.count('class="missing"') == sum(
        link["is_missing"] for feature in api["features"] for link in feature["links"]
    )
    _, html = page(live_catalog, "/releases/1.8/")
    assert "states this stage in its prose" in html  # RPC profiling's accepted claim


def test_the_track_timeline_draws_one_mark_per_appearance(live_catalog):
    _, html = page(live_catalog, "/tracks/torch-fft/")
    marks = re.findall(r'<g class="mark stage-(\w+)" data-release="([^"]+)"', html)
    api = http(live_catalog, "/api/tracks/torch-fft/").json()
    assert (
        [(release, stage) for stage, release in marks]
        == [(a["release"], a["stability"]) for a in api["appearances"]]
        == [("1.7", "beta"), ("1.8", "stable")]
    )
    assert "<svg" in html and "<title" in html


def test_the_matrix_and_compare_agree_with_the_api(live_catalog):
    _, html = page(live_catalog, "/matrix/?stability=stable")
    stable = http(live_catalog, "/api/tracks/", params={"stability": "stable", "page_size": 100})
    assert f"{stable.json()['count']} tracks × 4 releases" in html
    _, html = page(live_catalog, "/compare/?from=1.7&to=1.9")
    compare = http(live_catalog, "/api/compare/", params={"from": "1.7", "to": "1.9"}).json()
    assert f"New since 1.7 ({len(compare['added'])})" in html
    assert f"Promoted ({len(compare['promoted'])})" in html


def test_the_features_page_shows_facet_counts_beside_each_choice(live_catalog):
    _, html = page(live_catalog, "/features/?release=1.8")
    facets = http(
        live_catalog, "/api/features/", params={"release": "1.8", "facets": "stability"}
    ).json()["facets"]["stability"]
    for stage, count in facets.items():
        choice = rf'name="stability" value="{stage}"> [A-Za-z ]+ <span class="count">{count}<'
        assert re.search(choice, html)


def test_drafts_never_appear_and_unknowns_are_404_pages(live_catalog):
    draft = ReleaseFactory(version="9.0", is_published=False, title="Secret")
    FeatureFactory(release=draft, title="Secret feature")
    for path in ["/", "/releases/", "/tracks/", "/matrix/", "/features/"]:
        assert "Secret" not in page(live_catalog, path)[1]
    for path in ["/releases/9.0/", "/releases/7.7/", "/releases/not-a-version/", "/tracks/nope/"]:
        response, html = page(live_catalog, path)
        assert response.status == 404, path
        assert "PyTorch Release Catalog" in html and "Not found" in html


def test_bad_parameters_are_400_pages_naming_them(live_catalog):
    for path, name in [
        ("/matrix/?area=nope", "area"),
        ("/features/?stability=shiny", "stability"),
        ("/compare/?from=1.9&to=1.7", "to"),
        ("/features/?ordering=sideways", "ordering"),
        ("/tracks/?x=%00", "x"),
    ]:
        response, html = page(live_catalog, path)
        assert response.status == 400, path
        assert name in html


def test_the_sitemap_lists_every_public_page(live_catalog):
    _, xml = page(live_catalog, "/sitemap.xml")
    for path in ["/releases/1.9/", "/tracks/torch-fft/", "/matrix/"]:
        assert path in xml
    assert "9.0" not in xml


def test_view_on_site_opens_the_public_page(db):
    assert Release(version="1.8").get_absolute_url() == "/releases/1.8/"
    assert Track(slug="torch-fft").get_absolute_url() == "/tracks/torch-fft/"


@pytest.mark.parametrize(
    "path", ["/", "/releases/1.9/", "/tracks/", "/tracks/torch-fft/", "/matrix/", "/features/"]
)
def test_pages_cost_the_same_queries_whatever_the_catalog_holds(client, catalog, uncached, path):
    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(path).status_code == 200
        return len(queries)

    before = count()
    release = Release.objects.get(version="1.9")
    FeatureFactory.create_batch(15, release=release)
    revision.bump()  # what the commit would do (the test's transaction never commits)
    assert count() == before
    assert Feature.objects.filter(release=release).count() > 18


@pytest.mark.parametrize(
    ("heading", "shown"),
    [
        ("BETA FEATURES", "Beta features"),
        ("API-UNSTABLE FEATURES", "API-unstable features"),
        ("Performance Related API-UNSTABLE Features", "Performance Related API-UNSTABLE Features"),
        ("Frontend APIs", "Frontend APIs"),
    ],
)
def test_a_shouted_section_is_shown_in_sentence_case(heading, shown):
    from releases.text import sentence_case

    assert sentence_case(heading) == shown


def test_the_release_page_names_sections_in_sentence_case(client, full_catalog):
    html = client.get("/releases/2.6/").content.decode()
    assert "section Beta features" in html and "BETA FEATURES" not in html
