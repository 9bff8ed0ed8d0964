"""
Issue 43: on a phone, no table shows a cell under another column's header. A rule that hid
the fourth cell of every list table (`table.list td:nth-child(4)`) kept the header, so the
companions' versions sat under the wrong library and /deprecations/ lost "Instead".

Every public page the sitemap lists (one of each kind under a list), and the pages a query
fills, at 390 px and 1280 px with the whole catalog: in each table, each visible cell sits
under its own header, a header is shown exactly when its cells are, and a table read as cards
(its header hidden) names each cell's column.
"""

import re
import urllib.parse

import pytest

from tests.conftest import http
from tests.test_browser_pages import WIDTHS

FILLED = [
    "/compatibility/?torch=2.4.0&python=3.13",
    "/upgrade/?from=2.5&to=2.14",
    "/graduation/?stuck_for=2",
    "/releases/2.7/",
    "/releases/2.0/state/",
]

MISPLACED = """() => {
  const shown = e => {
    const box = e.getBoundingClientRect(), style = getComputedStyle(e);
    return box.width > 1 && box.height > 1
      && style.visibility !== "hidden" && style.display !== "none";
  };
  const problems = [];
  document.querySelectorAll("main table").forEach((table, t) => {
    const head = table.tHead;
    const where = `table ${t + 1} (${table.className || "no class"})`;
    const headers = head ? Array.from(head.rows[head.rows.length - 1].cells) : [];
    const cards = !head || !shown(head);
    for (const body of table.tBodies) for (const row of body.rows) {
      const cells = Array.from(row.cells);
      if (cells.some(c => c.colSpan > 1) || !shown(row)) continue;
      if (cards) {
        cells.forEach((c, i) => {
          if (i > 0 && c.tagName === "TD" && shown(c) && !c.dataset.label)
            problems.push(`${where}: a card's cell ${i + 1} names no column`);
        });
        continue;
      }
      if (headers.length && cells.length !== headers.length) {
        problems.push(`${where}: ${cells.length} cells under ${headers.length} headers`);
        continue;
      }
      cells.forEach((c, i) => {
        const header = headers[i];
        if (!header) return;
        if (shown(header) !== shown(c)) {
          const state = e => (shown(e) ? "shown" : "hidden");
          problems.push(
            `${where}: "${header.textContent.trim()}" is ${state(header)}, its cell ${state(c)}`);
        } else if (shown(c)) {
          const h = header.getBoundingClientRect(), b = c.getBoundingClientRect();
          const middle = (b.left + b.right) / 2;
          if (middle < h.left - 1 || middle > h.right + 1)
            problems.push(
              `${where}: a cell of "${header.textContent.trim()}" sits outside its header`);
        }
      });
    }
  });
  return Array.from(new Set(problems)).slice(0, 12);
}"""


def public_pages(server):
    """The sitemap's pages (the registry of surfaces derives it): each page that is not one of
    a list's items, one item of each list, and the pages a query fills."""
    sitemap = http(server, "/sitemap.xml").body.decode()
    locations = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    paths = sorted({urllib.parse.urlsplit(location).path for location in locations})
    top = [path for path in paths if path.count("/") <= 2]
    one_of_each = {path.split("/")[1]: path for path in paths if path.count("/") > 2}
    return top + sorted(one_of_each.values()) + FILLED


@pytest.mark.parametrize("screen", WIDTHS)
def test_no_cell_sits_under_another_columns_header(live_full_catalog, browsing, screen):
    browsing.page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    found = {}
    for path in public_pages(live_full_catalog):
        response = browsing.page.goto(f"{live_full_catalog.url}{path}")
        assert response.status == 200, path
        problems = browsing.page.evaluate(MISPLACED)
        if problems:
            found[path] = problems
    assert found == {}


@pytest.mark.parametrize("screen", WIDTHS)
def test_every_public_page_is_in_the_menu_in_view(live_full_catalog, browsing, screen):
    """Issue 43: the menu reaches every page the sitemap lists, on a phone too: each of its
    links is on screen, none cut off or hidden."""
    browsing.page.set_viewport_size({"width": WIDTHS[screen], "height": 900})
    browsing.open("/")
    links = browsing.page.locator('nav[aria-label="Sections"] a')
    shown = {}
    for index in range(links.count()):
        link = links.nth(index)
        box = link.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTHS[screen], (
            link.inner_text()
        )
        shown[link.get_attribute("href")] = link.inner_text()
    sitemap_top = [
        path for path in public_pages(live_full_catalog) if path.count("/") == 2 and "?" not in path
    ]
    assert set(sitemap_top) <= set(shown), set(sitemap_top) - set(shown)
    browsing.screenshot(f"menu-{screen}")
