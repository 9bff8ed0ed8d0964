"""
The pages with every release loaded (issue 21): the latest is the newest release, the matrix
holds every track on one page grouped by area, its filters are the API's (first release
included), compare reads across eras, and no page's query count grows with the catalog.
"""

import re
from html import unescape

import html5lib
import pytest

from releases.models import Release, Track
from releases.pages import timeline

# Each with one query for the catalog's revision (releases/revision.py). A release's page reads
# what it runs on and pairs with in four more (issue 32) and its wheels in one (issue 40), the
# home page its latest patch, the newest release out and the next planned one in three; a
# track's page its upgrade notes in one (issue 33).
FULL_SIZE_PAGES = {
    "/": 6,
    "/releases/": 3,
    "/releases/2.0/": 10,  # one history query: an editor corrected a title
    "/releases/2.14/": 9,
    "/compatibility/": 6,
    "/releases/2.14/state/": 8,  # as tests/test_state.py bounds the state pages
    "/compare/?from=2.6&to=2.14": 6,  # + one query each to check from and to are published
    "/stages/": 1,
    "/tracks/fsdp/": 5,
    "/tracks/": 4,
    "/tracks/functorch-torch-func/": 5,
    "/matrix/": 6,
    "/matrix/?area=compiler&stability=beta&first_release=2.0": 7,
    "/compare/?from=1.13&to=2.4": 6,
    "/features/": 7,
}


@pytest.mark.parametrize(("path", "most"), FULL_SIZE_PAGES.items())
def test_each_page_costs_a_few_queries_with_every_release_loaded(
    client, full_catalog, uncached, django_assert_max_num_queries, path, most
):
    with django_assert_max_num_queries(most):
        response = client.get(path)
    assert response.status_code == 200
    html5lib.HTMLParser(strict=True).parse(response.content.decode())


def test_the_home_page_shows_the_newest_release_and_counts_for_every_release(client, full_catalog):
    html = client.get("/").content.decode()
    newest = Release.objects.announcing().newest_first().first()
    assert newest.version == "2.14"
    assert '<h2 id="latest">Latest: <a href="/releases/2.14/">PyTorch 2.14</a>' in html
    assert '<time datetime="2026-09-02">' in html  # and when it shipped
    rows = re.findall(r'<th scope="row"><a href="/releases/([0-9.]+)/">', html)
    assert rows == [release.version for release in Release.objects.announcing().newest_first()]
    assert len(rows) == 27
    # Each count is the API's stability facet of that release.
    for version in ("1.2", "2.0", "2.6", "2.14"):
        facets = client.get("/api/features/", {"release": version, "facets": "stability"}).json()[
            "facets"
        ]["stability"]
        for stage in ("stable", "beta", "prototype", "unstable"):
            link = f'href="/features/?release={version}&amp;stability={stage}">{facets[stage]}<'
            assert facets[stage] == 0 or link in html, (version, stage)


def test_the_release_list_shows_each_releases_date(client, full_catalog):
    html = client.get("/releases/").content.decode()
    for release in Release.objects.released():
        if release.release_date is None:  # out, its day not known yet (2.15)
            assert "out, day not known" in html
            continue
        assert f'<time datetime="{release.release_date:%Y-%m-%d}">' in html, release.version


def test_the_matrix_holds_every_track_on_one_page_grouped_by_area(client, full_catalog):
    html = client.get("/matrix/").content.decode()
    tracks = Track.objects.for_api()
    assert f"{tracks.count()} tracks × 27 releases" in html
    assert 'aria-label="Pages"' not in html  # no pager: one page
    drawn = re.findall(r'<th scope="row"><a href="/tracks/([^/]+)/">', html)
    assert sorted(drawn) == sorted(track.slug for track in tracks)
    groups = re.findall(
        r'<th scope="rowgroup"[^>]*><span>([^<]+?) <span class="count">(\d+)<', html
    )
    by_area = {}
    for track in tracks:
        by_area[track.area.name] = by_area.get(track.area.name, 0) + 1
    groups = [(unescape(name), int(count)) for name, count in groups]
    assert dict(groups) == by_area
    assert [name for name, _ in groups] == sorted(by_area, key=str.lower)
    assert "position: sticky" not in html  # the stylesheet's, not inline
    # Each row has a cell per release, and a promotion is marked where it happened.
    rpc = re.search(r'href="/tracks/rpc-profiling/">.*?</tr>', html).group(0)
    assert rpc.count("<td") == 27
    assert re.search(r'<td class="on stage-stable">S<span class="visually-hidden">table</span>'
                     r'<span aria-hidden="true">▲</span>', rpc)  # fmt: skip


def test_the_matrix_filters_by_first_release_as_the_api_does(client, full_catalog):
    api = client.get("/api/tracks/", {"first_release": "2.0", "page_size": 100}).json()
    assert api["count"] > 0
    assert {track["first_release"] for track in api["results"]} == {"2.0"}
    everything = client.get("/api/tracks/", {"page_size": 100, "page": 1}).json()["count"]
    assert api["count"] < everything
    html = client.get("/matrix/?first_release=2.0").content.decode()
    assert f"{api['count']} tracks × 27 releases" in html
    assert "<option selected>2.0</option>" in html
    # Versions are compared as versions; several are allowed, as for the other version lists.
    same = client.get("/api/tracks/", {"first_release": "2.0.0", "page_size": 100}).json()
    assert same["count"] == api["count"]
    both = client.get("/api/tracks/", {"first_release": "2.0,2.1", "page_size": 100}).json()
    assert {track["first_release"] for track in both["results"]} == {"2.0", "2.1"}


def test_a_bad_first_release_is_a_400_naming_it(client, full_catalog):
    refused = client.get("/api/tracks/", {"first_release": "two"})
    assert refused.status_code == 400
    assert list(refused.json()) == ["first_release"]
    page = client.get("/matrix/?first_release=two")
    assert page.status_code == 400
    assert "<strong>first_release</strong>" in page.content.decode()


def test_compare_across_eras_lists_what_is_new_by_release(client, full_catalog):
    html = client.get("/compare/?from=1.13&to=2.4").content.decode()
    api = client.get("/api/compare/", {"from": "1.13", "to": "2.4"}).json()
    assert f"New since 1.13 ({len(api['added'])})" in html
    assert f"Promoted ({len(api['promoted'])})" in html
    assert f"Demoted ({len(api['demoted'])})" in html
    introduced = re.findall(r'<h3>In <a href="/releases/([0-9.]+)/">', html)
    assert introduced == sorted(
        {item["first_release"] for item in api["added"]},
        key=lambda v: tuple(map(int, v.split("."))),
    )


def test_a_long_timeline_keeps_its_version_labels_apart():
    versions = [f"1.{minor}" for minor in range(2, 14)] + [f"2.{minor}" for minor in range(7)]
    assert len(versions) == 19
    drawing = timeline.draw(
        versions, [("1.3", "prototype", "x", False, False), ("2.6", "stable", "y", False, False)]
    )
    xs = [x for x, _, _ in drawing.ticks]
    assert len(xs) == 19  # the whole history: one release before the first appearance
    gaps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
    assert min(gaps) > max(timeline.label_width(v) for v in versions)
    assert not drawing.turned
    # Where labels would not fit side by side, they are turned.
    assert timeline.draw(versions, [("1.3", "beta", "x", False, False)], step=20).turned


def test_a_recent_tracks_timeline_starts_a_release_before_it(client, full_catalog):
    html = client.get("/tracks/torch-compile/").content.decode()
    ticks = re.findall(r'<text class="tick[^"]*"[^>]*>([0-9.]+)</text>', html)
    assert ticks[:2] == ["1.13", "2.0"] and ticks[-1] == "2.14"
    assert 'role="img"' in html and '<title id="timeline-title">' in html
    assert 'class="kept"' in html  # its stage carried to 2.14
