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
    ("tracks", "/tracks/"),
    ("track", "/tracks/torch-fft/"),
    ("matrix", "/matrix/"),
    ("compare", "/compare/?from=1.7&to=1.9"),
    ("features", "/features/?stability=beta"),
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
