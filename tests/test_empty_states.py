"""
Issue 43: honest empty states on every page. /releases/2.15/ showed "Sources: ." and a heading
over nothing. Every page the sitemap lists, on an empty catalog and on the whole one, has no
heading with nothing under it and no list that ends before its first item.
"""

import re

import pytest
from django.urls import reverse

from releases import surfaces

pytestmark = pytest.mark.django_db

FILLED = ["/releases/2.15/", "/releases/2.16/", "/releases/2.14/", "/compatibility/?torch=2.15"]


def problems(html):
    main = html.split('<main id="main">')[1].split("</main>")[0]
    found = []
    # A heading followed by nothing but another heading of its level or above, or its end.
    ends = {"2": r"<h[12][ >]|</section>|</details>|$", "3": r"<h[123][ >]|</section>|$"}
    for level, end in ends.items():
        heading = rf"<h{level}[^>]*>(.*?)</h{level}>\s*(?:</summary>\s*)?(?={end})"
        for match in re.finditer(heading, main, re.S):
            found.append(f"an empty heading: {re.sub(r'<[^>]+>', '', match.group(1)).strip()}")
    text = " ".join(re.sub(r"<[^>]+>", " ", main).split())
    for empty in (r"\w: \.", r": ,", r"\s\(\s*\)"):
        for match in re.finditer(empty, text):
            found.append(f"an empty list: …{text[max(0, match.start() - 40) : match.end()]}")
    return found


def pages():
    return [reverse(name) for name in surfaces.sitemap_pages()]


def test_no_page_of_an_empty_catalog_shows_an_empty_part(client):
    found = {}
    for path in pages():
        response = client.get(path)
        assert response.status_code == 200, path
        if problems(response.content.decode()):
            found[path] = problems(response.content.decode())
    assert found == {}


def test_no_page_of_the_whole_catalog_shows_an_empty_part(client, full_catalog):
    found = {}
    for path in pages() + FILLED:
        response = client.get(path)
        assert response.status_code == 200, path
        if problems(response.content.decode()):
            found[path] = problems(response.content.decode())
    assert found == {}


def test_the_check_finds_an_empty_heading_and_an_empty_list():
    page = (
        '<main id="main"><section><h2 id="runs-on">What it runs on</h2></section>'
        '<p class="count">Sources: .</p><h2>Kept</h2><p>Something.</p></main>'
    )
    assert problems(page) == [
        "an empty heading: What it runs on",
        "an empty list: …What it runs on Sources: .",
    ]
