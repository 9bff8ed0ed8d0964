"""
Issue 43: a view wider than the screen opens on the newest releases. The matrix at 1280 px
showed 1.2 to 2.9, so tracks that begin in 2.14 looked like empty rows; the home page's chart
stopped at 2.10 (at 1.8 on a phone). At 390 and 1280 px, with the whole catalog, the newest
release's column (the matrix), bar (the chart) and row and versions (the compatibility grids)
are inside the window when the page opens, with no scrolling.
"""

import pytest

from releases.versions import Version
from tests.test_browser_pages import WIDTHS

IN_VIEW = """element => {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.left >= -1 && box.right <= window.innerWidth + 1;
}"""


@pytest.mark.parametrize("screen", WIDTHS)
def test_the_newest_releases_are_in_view_when_a_wide_view_opens(
    live_full_catalog, browsing, screen
):
    page = browsing.page
    page.set_viewport_size({"width": WIDTHS[screen], "height": 900})

    browsing.open("/matrix/")
    headers = page.locator("table.matrix thead th")
    newest_column = headers.nth(headers.count() - 1)
    assert newest_column.evaluate(IN_VIEW), newest_column.inner_text()
    # The first column (the tracks' names) stays in view as well.
    assert headers.nth(0).evaluate(IN_VIEW)
    browsing.screenshot(f"matrix-{screen}")

    browsing.open("/")
    columns = page.locator("svg.chart g.column")
    newest_bar = columns.nth(columns.count() - 1)
    assert newest_bar.get_attribute("data-label") == "2.14"  # the newest with features
    assert newest_bar.evaluate(IN_VIEW)
    browsing.screenshot(f"home-{screen}")

    browsing.open("/compatibility/")
    for grid in ("python", "gpu"):
        table = page.locator(f"section[aria-labelledby={grid}] table")
        first_row = table.locator("tbody tr").first
        # The newest release is the first row, and the newest versions the first columns.
        shown = table.locator("tbody th").all_inner_texts()
        assert first_row.locator("th").inner_text() == max(shown, key=Version.parse)
        assert first_row.locator("th").evaluate(IN_VIEW)
        assert table.locator("thead th").nth(1).evaluate(IN_VIEW)
    browsing.screenshot(f"compatibility-{screen}")


@pytest.mark.parametrize("screen", WIDTHS)
def test_the_checker_answers_torch_alone_and_python_with_cuda(live_full_catalog, browsing, screen):
    """Issue 43: torch 2.3.1 alone gave an empty result; Python 3.9 with CUDA 11.8 two answers."""
    page = browsing.page
    page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    browsing.open("/compatibility/?torch=2.3.1")
    result = page.locator(".check-result").inner_text()
    assert "torch 2.3.1 pairs with" in result and "torchvision 0.18.1" in result
    assert "Python 3.8 to 3.12" in result
    browsing.screenshot(f"checker-torch-{screen}")
    browsing.open("/compatibility/?python=3.9&cuda=11.8")
    together = page.locator(".check-result .together").inner_text()
    assert "newest torch with stable builds for both is 2.7" in together
    browsing.screenshot(f"checker-together-{screen}")
    assert not browsing.serious_accessibility_problems()


def test_flexattentions_relabel_reads_2_11_on_each_page(live_full_catalog, browsing):
    """Issue 43: its track page said 2.11, /compare/ said 2.13; 2.12 was drawn below Prototype."""
    page = browsing.page
    browsing.open("/tracks/flexattention/")
    marks = page.locator("svg g.mark")
    drawn = {
        marks.nth(i).get_attribute("data-release"): marks.nth(i)
        .locator("circle")
        .get_attribute("cy")
        for i in range(marks.count())
    }
    assert drawn["2.12"] == drawn["2.11"] == drawn["2.13"]  # a neutral mark, not a step down
    assert "2.11: Unstable (relabelled" in page.locator("#timeline-desc").text_content()
    browsing.open("/compare/?from=2.7&to=2.14")
    item = page.locator("#relabelled + p + ul li", has_text="FlexAttention:")
    assert item.inner_text().startswith("FlexAttention:") and item.inner_text().endswith("in 2.11")
    browsing.open("/matrix/?search=flexattention")
    row = page.locator("table.matrix tbody tr", has_text="FlexAttention").first
    headers = page.locator("table.matrix thead th").all_inner_texts()
    cells = row.locator("td")
    marked = [
        headers[i + 1].split()[0]
        for i in range(cells.count())
        if "relabelled" in cells.nth(i).text_content()
    ]
    assert marked == ["2.11"]
