"""
The public pages in a real browser (Debian's chromium, Playwright), at a phone's width and at
1280 px: each is readable without sideways scrolling, shows no console error, passes axe-core
with no serious or critical violation, and its full-page screenshot is saved.
"""

import pytest

from tests.conftest import http

PAGES = [
    ("home", "/"),
    ("releases", "/releases/"),
    ("release", "/releases/1.8/"),
    ("state", "/releases/1.8/state/"),
    ("graduation", "/graduation/?stuck_for=2"),
    ("tracks", "/tracks/"),
    ("track", "/tracks/torch-fft/"),
    ("matrix", "/matrix/"),
    ("compare", "/compare/?from=1.7&to=1.9"),
    ("features", "/features/?stability=beta"),
    ("search", "/features/?search=profiling"),
    ("tracks-search", "/tracks/?search=profil"),
    ("not-found", "/releases/7.7/"),
]
WIDTHS = {"phone": 390, "desktop": 1280}


@pytest.mark.parametrize("screen", WIDTHS)
@pytest.mark.parametrize(("name", "path"), PAGES)
def test_each_page_reads_well_on_a_phone_and_a_desktop(live_catalog, browsing, screen, name, path):
    browsing.page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    response = browsing.page.goto(f"{live_catalog.url}{path}")
    assert response.status == (404 if name == "not-found" else 200)
    if name == "not-found":
        browsing.errors.clear()  # the browser reports the page's own 404: that is the point
    browsing.screenshot(f"{name}-{screen}")
    width = browsing.page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTHS[screen], f"{path} is {width} px wide"
    problems = browsing.serious_accessibility_problems()
    assert not problems, problems


def test_the_timeline_marks_are_the_apis_appearances(live_catalog, browsing):
    browsing.open("/tracks/rpc-profiling/")
    marks = browsing.page.locator("svg g.mark")
    drawn = [
        (marks.nth(i).get_attribute("data-release"), marks.nth(i).get_attribute("data-stability"))
        for i in range(marks.count())
    ]
    appearances = http(live_catalog, "/api/tracks/rpc-profiling/").json()["appearances"]
    assert drawn == [(a["release"], a["stability"]) for a in appearances]
    # Higher is more stable: each promotion is a step up.
    heights = [float(marks.nth(i).locator("circle").get_attribute("cy")) for i in range(3)]
    assert heights[0] > heights[1] > heights[2]
    # The 1.8 stage comes from the post's prose, and the picture says so.
    assert marks.nth(2).locator("circle.from-claim").count() == 1
    browsing.screenshot("rpc-profiling")


def test_the_features_form_narrows_with_counts_and_without_scripts(live_catalog, browsing):
    browsing.open("/features/")
    page = browsing.page
    page.check("input[name=release][value='1.8']")
    page.click("form.facets button[type=submit]")
    page.wait_for_url("**/features/?*release=1.8*")
    counts = http(
        live_catalog, "/api/features/", params={"release": "1.8", "facets": "stability"}
    ).json()
    assert f"{counts['count']} features." in page.inner_text("main")
    browsing.screenshot("features-1.8")


@pytest.mark.parametrize("screen", WIDTHS)
def test_the_full_matrix_keeps_its_header_and_first_column_in_sight(
    live_full_catalog, browsing, screen
):
    page = browsing.page
    page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    browsing.open("/matrix/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTHS[screen], f"/matrix/ is {width} px wide"
    assert page.locator("table.matrix tbody th[scope=row]").count() > 100  # one page
    box = page.locator(".matrix-box")
    top = box.bounding_box()["y"]
    # Scrolled down and sideways inside its box, the header row and the names stay put.
    box.evaluate("box => { box.scrollTop = 1500; box.scrollLeft = 400; }")
    header = page.locator("table.matrix thead th").nth(3).bounding_box()
    assert abs(header["y"] - top) < 3, (header, top)
    name = page.locator("table.matrix tbody th[scope=row]").nth(40).bounding_box()
    assert abs(name["x"] - box.bounding_box()["x"]) < 3
    browsing.screenshot(f"matrix-full-{screen}")
    problems = browsing.serious_accessibility_problems()
    assert not problems, problems


# The pages of issue 24 at full size: the state as of 2.0, the charts, a track with its badge.
FULL_SIZE_PAGES = [
    ("state-2.0", "/releases/2.0/state/"),
    ("graduation-full", "/graduation/"),
    ("track-badge", "/tracks/torch-compile-support-for-autograd-function/"),
    ("home-full", "/"),
    ("release-2.0", "/releases/2.0/"),
    # Issue 32: which versions go together, a planned release, a release with patches.
    ("compatibility", "/compatibility/?torch=2.4.0&python=3.13"),
    ("release-2.16-planned", "/releases/2.16/"),
    ("release-2.7-runs-on", "/releases/2.7/"),
    # Issue 33: upgrading, as a checklist; the deprecated APIs; an API's history.
    ("upgrade-2.5-2.14", "/upgrade/?from=2.5&to=2.14"),
    ("deprecations", "/deprecations/"),
    ("upgrade-api", "/upgrade/?api=torch.onnx"),
    # Issue 40: a release out with no announcement; install commands; a build checked.
    ("release-2.15-out", "/releases/2.15/"),
    ("release-2.3-install", "/releases/2.3/"),
    ("compatibility-install", "/compatibility/?torch=2.5.1&variant=cu124&os=linux"),
    ("compatibility-no-wheel", "/compatibility/?torch=2.15&python=3.10"),
]


@pytest.mark.parametrize("screen", WIDTHS)
@pytest.mark.parametrize(("name", "path"), FULL_SIZE_PAGES)
def test_the_history_pages_read_well_at_full_size(live_full_catalog, browsing, screen, name, path):
    page = browsing.page
    page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    browsing.open(path)
    browsing.screenshot(f"{name}-{screen}")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTHS[screen], f"{path} is {width} px wide"
    # Every picture is drawn: the badges load as images, the charts are inline SVG.
    for image in page.locator("main img").all():
        assert image.evaluate("img => img.complete && img.naturalWidth > 0"), path
    problems = browsing.serious_accessibility_problems()
    assert not problems, problems


def test_the_home_chart_draws_the_apis_counts(live_full_catalog, browsing):
    browsing.open("/")
    columns = browsing.page.locator("svg.chart g.column")
    drawn = {
        columns.nth(i).get_attribute("data-label"): int(columns.nth(i).get_attribute("data-total"))
        for i in range(columns.count())
    }
    listed = http(live_full_catalog, "/api/stats/releases/", params={"page_size": 100}).json()
    assert drawn == {row["version"]: row["feature_count"] for row in listed["results"]}
    assert len(drawn) == 27


FITTING_PAGES = [
    "/features/?stability=beta",
    "/features/?search=deprecated",
    "/releases/2.0/state/?search=compile",
    "/releases/2.14/",
    "/releases/2.8/",
    "/tracks/flexattention/",
    "/tracks/fsdp/",
    "/compare/?from=2.6&to=2.14",
    "/matrix/",
    "/stages/",
]


@pytest.mark.parametrize("screen", WIDTHS)
def test_every_page_fits_a_phone_and_a_desktop_at_full_size(live_full_catalog, browsing, screen):
    """With every release loaded, the longest names and the most facets: nothing scrolls
    sideways but the tables and timelines that scroll in their own boxes."""
    browsing.page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    for path in FITTING_PAGES:
        response = browsing.page.goto(f"{live_full_catalog.url}{path}")
        assert response.status == 200, path
        width = browsing.page.evaluate("document.documentElement.scrollWidth")
        assert width <= WIDTHS[screen], f"{path} is {width} px wide at {WIDTHS[screen]} px"
