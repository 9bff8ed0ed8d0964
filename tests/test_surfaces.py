"""
Issue 42: what a URL is, it says where it is declared (releases.surfaces). This test walks
every URL pattern of the URLconf and asks each public one what its surface promises: an ETag
and a 304, the throttle, a 400 for an unknown or repeated parameter, a 405 for a write, JSON
errors under the API, feeds and badges. A page added outside the rules fails here by name.
"""

import json
import re

import pytest
from django.core import checks
from django.urls import path, reverse

from releases import surfaces

# An argument each URL's converters can be reversed with, in the seed catalog (1.6-1.9).
ARGUMENTS = {"version": "1.8", "slug": "torch-fft", "pk": "1", "topic": "releases:1.x"}
BY_NAME = {"area-detail": {"slug": "distributed-training"}}
# What the endpoints that need a question are asked.
QUERIES = {
    "/api/state/": "version=1.8",
    "/api/install/": "torch=1.8",
    "/api/compare/": "from=1.7&to=1.8",
}
PUBLIC = (surfaces.API, surfaces.PAGE, surfaces.FEED, surfaces.BADGE)


def public_urls():
    """(surface, URL) of every public pattern that can be reversed with ARGUMENTS."""
    found = []
    for route in surfaces.walk():
        if route.surface not in PUBLIC or not route.name:
            continue
        names = set(route.pattern.pattern.regex.groupindex)
        if names - set(ARGUMENTS) or "format" in route.route:
            continue  # a router's format suffixes, and objects the seed catalog lacks
        prefix = "releases:" if route.surface == surfaces.API else ""
        kwargs = {name: BY_NAME.get(route.name, ARGUMENTS)[name] for name in names}
        url = reverse(prefix + route.name, kwargs=kwargs)
        query = QUERIES.get(url)
        found.append((route.surface, f"{url}?{query}" if query else url))
    return sorted(set(found))


URLS = public_urls()


def test_every_pattern_is_on_a_surface_and_the_check_says_so():
    assert {route.surface for route in surfaces.walk()} <= set(surfaces.SURFACES)
    assert not [route for route in surfaces.walk() if route.surface is None]
    assert checks.run_checks(tags=[checks.Tags.urls]) == []
    # Every page the issue found outside the rules is a page now, and in the sitemap.
    for name in ("page-compatibility", "page-upgrade", "page-deprecations", "page-sources"):
        assert surfaces.is_page(reverse(name)) and name in surfaces.sitemap_pages()
    assert surfaces.is_page("/calendar.ics")


def test_a_pattern_on_no_surface_is_a_startup_error(settings):
    settings.ROOT_URLCONF = __name__ + "_undeclared"
    module = type(json)("undeclared")
    module.urlpatterns = [path("stray/", lambda request: None, name="stray")]
    import sys

    sys.modules[settings.ROOT_URLCONF] = module
    try:
        errors = surfaces.check_every_url_is_declared(None)
    finally:
        del sys.modules[settings.ROOT_URLCONF]
    assert [error.id for error in errors] == ["releases.E010"]
    assert "stray/" in errors[0].msg


def test_a_page_the_menu_forgets_is_a_startup_error(settings):
    """Issue 43: /deprecations/ and /stages/ were in no menu, which was kept by hand."""
    settings.ROOT_URLCONF = __name__ + "_unlisted"
    module = type(json)("unlisted")
    module.urlpatterns = surfaces.on(
        surfaces.PAGE,
        [
            path("", lambda request: None, name="home"),
            surfaces.in_menu("Listed", path("listed/", lambda request: None, name="listed")),
            path("forgotten/", lambda request: None, name="forgotten"),
        ],
    )
    import sys

    sys.modules[settings.ROOT_URLCONF] = module
    try:
        errors = surfaces.check_every_page_is_in_the_menu(None)
        menu = surfaces.menu()
    finally:
        del sys.modules[settings.ROOT_URLCONF]
    assert [error.id for error in errors] == ["releases.E011"]
    assert "forgotten/" in errors[0].msg
    assert menu == [("Listed", "listed")]


def test_the_site_menu_lists_every_page_of_the_sitemap_but_home(client, catalog):
    home = client.get("/").content.decode()
    nav = home.split('<nav aria-label="Sections">')[1].split("</nav>")[0]
    linked = set(re.findall(r'href="([^"]+)"', nav))
    listed = {reverse(name) for name in surfaces.sitemap_pages()} - {"/"}
    assert listed <= linked
    assert {"/deprecations/", "/stages/", "/sources/"} <= linked


def test_the_walk_reaches_every_public_surface():
    assert {surface for surface, _ in URLS} == set(PUBLIC)
    assert len(URLS) > 40


@pytest.mark.parametrize("surface, url", URLS)
def test_every_public_url_keeps_its_surfaces_rules(client, catalog, settings, surface, url):
    settings.API_ANON_RATE = "3/m"  # read when the test client builds its middleware
    fresh = client.get(url)
    assert fresh.status_code == 200, (url, fresh.status_code)
    assert fresh["ETag"] and "max-age" in fresh["Cache-Control"], url
    again = client.get(url, headers={"If-None-Match": fresh["ETag"]})
    assert again.status_code == 304, url
    joiner = "&" if "?" in url else "?"
    unknown = client.get(f"{url}{joiner}no_such_parameter=1")
    assert unknown.status_code == 400, url
    assert (surface in surfaces.JSON_ERRORS) == unknown["Content-Type"].startswith(
        "application/json"
    ), url
    write = client.post(url, {})
    assert write.status_code == 405, url
    throttled = client.get(url)
    assert throttled.status_code == 429, url


def test_a_repeated_parameter_is_refused_on_every_page(client, catalog):
    for url in (
        "/upgrade/?from=2.5&to=2.14&to=2.6",
        "/compatibility/?torch=2.5&torch=2.6",
        "/deprecations/?present_in=2.12&present_in=2.13",
        "/features/?search=a&search=b",
    ):
        response = client.get(url)
        assert response.status_code == 400, url
        assert "repeated" in response.content.decode().lower() or "once" in (
            response.content.decode().lower()
        ), url


def test_the_calendar_refuses_parameters_with_a_400(client, catalog):
    for query in ("x=1", "a=%00"):
        response = client.get(f"/calendar.ics?{query}")
        assert response.status_code in (400, 404), query
        assert b"\x00" not in response.content


def test_errors_under_json_surfaces_are_json(client, catalog):
    for url in ("/api/no-such-thing/", "/feeds/no-such-feed/", "/badges/no/such.svg"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"].startswith("application/json"), url


def test_a_value_with_spaces_around_it_is_refused_on_the_new_pages_too(client, catalog):
    for url in ("/upgrade/?from=%202.5&to=2.6", "/compatibility/?torch=%202.5"):
        assert client.get(url).status_code == 400, url
    assert client.get("/api/upgrade/?from=%202.5&to=2.6").status_code == 400


def test_a_nul_byte_is_refused_and_never_echoed(client, catalog):
    for url in ("/upgrade/?from=%00", "/compatibility/?torch=%00", "/deprecations/?area=%00"):
        response = client.get(url)
        assert response.status_code == 400 and b"\x00" not in response.content, url


@pytest.mark.parametrize(
    "url",
    [
        "/api/releases/?page={n}",
        "/api/features/?page_size={n}",
        "/api/upgrade/?page={n}",
        "/api/changes/?page_size={n}",
        "/api/tracks/?page={n}",
        "/api/stats/graduation/?stuck_for={n}",
        "/features/?page={n}",
        "/graduation/?stuck_for={n}",
        "/deprecations/?page={n}",
    ],
)
def test_a_number_of_thousands_of_digits_is_a_400_naming_it(client, catalog, url):
    response = client.get(url.format(n="9" * 5000))
    assert response.status_code == 400, url
    assert len(response.content) < 20_000
    if url.startswith("/api/"):
        assert response["Content-Type"].startswith("application/json")


def boom(request):
    raise RuntimeError("a fault of the catalog's own")


# A URLconf with a failing API endpoint: for the 500 below.
urlpatterns = [
    *surfaces.on(surfaces.API, [path("api/boom/", boom, name="boom")]),
    *surfaces.on(surfaces.PAGE, [path("boom/", boom, name="page-boom")]),
]
handler500 = "releases.web.unavailable.server_error"  # the catalog's, as config/urls.py names it


def test_a_500_under_the_api_is_json_and_a_page_s_a_page(client, settings, caplog):
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    api = client.get("/api/boom/")
    assert api.status_code == 500 and api["Content-Type"].startswith("application/json")
    assert "detail" in api.json()
    page = client.get("/boom/")
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")


def test_a_control_character_in_a_page_path_is_a_page_404(client, catalog):
    response = client.get("/releases/2.5%00/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
    api = client.get("/api/releases/2.5%00/")
    assert api.status_code == 404 and api["Content-Type"].startswith("application/json")


def test_badges_and_feeds_redirect_another_spelling_of_a_version(client, catalog):
    """Issue 42: as pages do, a badge or a feed under 1.8.0 is a 301 to 1.8, query kept."""
    for spelled, canonical in (
        ("/badges/releases/1.8.0/python.svg", "/badges/releases/1.8/python.svg"),
        ("/badges/releases/v1.8/python.json", "/badges/releases/1.8/python.json"),
        ("/feeds/releases/1.8.0/upgrade/", "/feeds/releases/1.8/upgrade/"),
    ):
        response = client.get(spelled)
        assert (response.status_code, response["Location"]) == (301, canonical), spelled
