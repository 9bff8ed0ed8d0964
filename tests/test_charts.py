"""
Charts of the history (issue 24): the home page's features by release and stage, /graduation/
(releases taken to become stable, tracks long at prototype or beta), their data as tables and
as /api/stats/releases/ and /api/stats/graduation/; and each release page's "what's new".
"""

import csv
import io
import re
import xml.etree.ElementTree as ET

import pytest

from releases.stats import DEFAULT_STUCK_FOR

SVG = "{http://www.w3.org/2000/svg}"


def svgs(html):
    """Every inline SVG of a page, parsed as XML (a failure to parse fails the test)."""
    return [ET.fromstring(match) for match in re.findall(r"<svg .*?</svg>", html, re.S)]


def every_item(client, path, **params):
    body = client.get(path, {**params, "page_size": 100}).json()
    items = body["results"]
    while body["next"]:
        body = client.get(body["next"]).json()
        items += body["results"]
    return items


def test_the_home_chart_has_a_column_per_release_with_its_counts(client, full_catalog):
    html = client.get("/").content.decode()
    (chart,) = svgs(html)
    assert chart.get("role") == "img"
    assert chart.find(f"{SVG}title").text
    stats = every_item(client, "/api/stats/releases/")
    columns = [g for g in chart.iter(f"{SVG}g") if g.get("class") == "column"]
    assert [g.get("data-label") for g in columns] == [row["version"] for row in stats]
    for column, row in zip(columns, stats, strict=True):
        drawn = {r.get("data-key"): int(r.get("data-value")) for r in column.iter(f"{SVG}rect")}
        stages = ("stable", "beta", "prototype", "unstable", "none")
        wanted = {key: row[key] for key in stages if row[key]}
        assert drawn == wanted, row["version"]
        assert int(column.get("data-total")) == row["feature_count"]
    # Heights are in proportion: 1.7's 13 stable features stand 13 times as tall as one.
    seventeen = next(g for g in columns if g.get("data-label") == "1.7")
    stable = next(r for r in seventeen.iter(f"{SVG}rect") if r.get("data-key") == "stable")
    unit = float(stable.get("height")) / 13
    beta = next(r for r in seventeen.iter(f"{SVG}rect") if r.get("data-key") == "beta")
    assert float(beta.get("height")) == pytest.approx(13 * unit, abs=0.05)
    # The same numbers, as a table, for screen readers; the chart's data as JSON and CSV.
    assert '<caption id="tally-caption">Each release\'s features at each stage</caption>' in html
    assert (
        'href="/api/stats/releases/"' in html and 'href="/api/stats/releases/?format=csv"' in html
    )


def test_release_stats_as_json_and_csv(client, full_catalog):
    body = client.get("/api/stats/releases/").json()
    assert body["count"] == 27
    first = body["results"][0]
    assert first["version"] == "1.2"  # oldest first, as the chart reads
    assert set(first) == {
        "version",
        "url",
        "release_date",
        "stable",
        "beta",
        "prototype",
        "unstable",
        "none",
        "feature_count",
    }
    seventeen = next(row for row in body["results"] if row["version"] == "1.7")
    assert (seventeen["stable"], seventeen["beta"], seventeen["prototype"]) == (13, 13, 2)
    response = client.get("/api/stats/releases/", {"format": "csv", "min_version": "2.0"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [row["version"] for row in rows][:2] == ["2.0", "2.1"] and len(rows) == 15


GRADUATION = {
    # slug: (first release, first stable release, releases it took)
    "torch-fft": ("1.7", "1.8", 1),
    "rpc-profiling": ("1.6", "1.8", 2),
    "distributed-rpc": ("1.4", "1.5", 1),
    "custom-c-classes": ("1.5", "1.7", 2),
    "automatic-mixed-precision-amp-training": ("1.6", "1.6", 0),
}


def test_graduation_counts_releases_from_first_appearance_to_stable(client, full_catalog):
    items = {item["track"]: item for item in every_item(client, "/api/stats/graduation/")}
    for slug, (first, stable_in, taken) in GRADUATION.items():
        item = items[slug]
        assert (item["first_release"], item["stable_in"], item["releases_to_stable"]) == (
            first,
            stable_in,
            taken,
        ), slug
    assert items["graph-mode-quantization"]["stable_in"] is None
    assert items["graph-mode-quantization"]["releases_to_stable"] is None


def test_the_graduation_page_draws_the_apis_numbers(client, full_catalog):
    html = client.get("/graduation/").content.decode()
    histogram, stuck = svgs(html)
    items = every_item(client, "/api/stats/graduation/")
    taken = [item["releases_to_stable"] for item in items if item["stable_in"]]
    columns = [g for g in histogram.iter(f"{SVG}g") if g.get("class") == "column"]
    drawn = {int(g.get("data-label")): int(g.get("data-total")) for g in columns}
    assert drawn == {n: taken.count(n) for n in range(max(taken) + 1)}
    # The tracks long at one pre-stable stage: the API's, N by default.
    assert f"for {DEFAULT_STUCK_FOR} releases or more" in html
    listed = every_item(client, "/api/stats/graduation/", stuck_for=DEFAULT_STUCK_FOR)
    assert listed and all(item["stability"] in ("beta", "prototype") for item in listed)
    assert all(item["releases_at_stage"] >= DEFAULT_STUCK_FOR for item in listed)
    bars = {
        g.get("data-track"): int(g.get("data-value"))
        for g in stuck.iter(f"{SVG}g")
        if g.get("data-track")
    }
    assert bars == {item["name"]: item["releases_at_stage"] for item in listed}
    # torch.fft became stable; graph mode quantization was last said prototype in 1.8.
    rows = re.findall(r'<tr><th scope="row" class="name"><a href="/tracks/([^/]+)/">', html)
    assert "graph-mode-quantization" in rows


def test_graduation_takes_n_from_the_query(client, full_catalog):
    fewer = client.get("/graduation/", {"stuck_for": "15"}).content.decode()
    more = client.get("/graduation/", {"stuck_for": "3"}).content.decode()
    assert "for 15 releases or more" in fewer
    assert fewer.count('class="bar-row"') < more.count('class="bar-row"')
    assert (
        fewer.count('class="bar-row"')
        == client.get("/api/stats/graduation/", {"stuck_for": "15"}).json()["count"]
    )


@pytest.mark.parametrize("value", ["0", "101", "x", "1.5", "５", "-3"])
def test_a_bad_n_is_a_400_naming_it(client, catalog, value):
    page = client.get("/graduation/", {"stuck_for": value})
    assert page.status_code == 400
    assert "stuck_for" in page.content.decode()
    api = client.get("/api/stats/graduation/", {"stuck_for": value})
    assert api.status_code == 400
    assert list(api.json()) == ["stuck_for"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/graduation/?n=5", 400),
        ("/graduation/?format=json", 400),
        ("/api/stats/releases/?stability=beta", 400),
        ("/api/stats/releases/?min_version=x", 400),
        ("/api/stats/graduation/?stability=gold", 400),
    ],
)
def test_unknown_or_malformed_parameters_are_refused(client, catalog, path, status):
    assert client.get(path).status_code == status


@pytest.mark.parametrize(
    ("path", "most"),
    [
        ("/", 6),  # + the latest patch and the next planned release (issue 32)
        ("/graduation/", 4),
        ("/graduation/?stuck_for=2", 4),
        ("/api/stats/releases/", 3),
        ("/api/stats/graduation/", 6),
        ("/api/stats/graduation/?stuck_for=10&area=distributed-training", 10),
        # With the one history query for its corrected title, and four for what it runs on.
        ("/releases/2.0/", 10),  # with its wheels (issue 40)
    ],
)
def test_the_charts_cost_a_few_queries_at_full_size(
    client, full_catalog, uncached, django_assert_max_num_queries, path, most
):
    with django_assert_max_num_queries(most):
        response = client.get(path)
    assert response.status_code == 200


@pytest.mark.parametrize("path", ["/api/stats/releases/", "/api/stats/graduation/"])
def test_the_chart_data_is_in_the_openapi_schema(client, catalog, path):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
    assert "format" in parameters and "page" in parameters
    if "graduation" in path:
        assert parameters["stuck_for"]["schema"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
        }


def test_every_svg_of_the_new_pages_parses(client, full_catalog):
    for path in ["/", "/graduation/", "/graduation/?stuck_for=1", "/tracks/torch-fft/"]:
        for svg in svgs(client.get(path).content.decode()):
            assert svg.tag == f"{SVG}svg"
            assert svg.find(f"{SVG}title") is not None


def test_a_release_page_sums_up_what_is_new(client, full_catalog):
    html = client.get("/releases/1.8/").content.decode()
    counts = dict(
        (kind, int(n))
        for n, kind in re.findall(
            r"<strong>(\d+)</strong> (new|promoted|demoted|mentioned again)</a>", html
        )
    )
    promoted = client.get("/api/features/", {"release": "1.8", "promoted": "true"}).json()
    assert counts["promoted"] == promoted["count"] >= 2  # torch.fft, RPC profiling
    total = client.get("/api/features/", {"release": "1.8"}).json()["count"]
    assert sum(counts.values()) == total
    # Each count links to its list, further down the page.
    for kind in ("new", "promoted", "demoted", "again"):
        assert f'href="#news-{kind}"' in html and f'id="news-{kind}"' in html
    promoted_list = html[html.index('id="news-promoted"') : html.index('id="news-demoted"')]
    assert 'href="#rpc-profiling"' in promoted_list and "Torch.fft support" in promoted_list
    # distributed RPC was stable in 1.5 and is mentioned in 1.7 as stable again.
    again = client.get("/releases/1.7/").content.decode()
    again_list = again[again.index('id="news-again"') :]
    assert '<a href="#distributed-rpc">Distributed RPC</a>' in again_list
