"""
Keyset pagination beside page numbers: every list offers ``next_cursor``, and following the
cursors gives the same rows, in the same order, as following the page numbers, whatever the
filters and the ordering; a bad cursor is a 400 naming it.
"""

import pytest

pytestmark = pytest.mark.django_db

LISTS = [
    ("/api/features/", {}),
    ("/api/features/", {"stability": "beta"}),
    ("/api/features/", {"ordering": "-title"}),
    ("/api/features/", {"ordering": "area,release"}),
    ("/api/features/", {"search": "profiler"}),
    ("/api/releases/", {}),
    ("/api/links/", {}),
    ("/api/areas/", {}),
    ("/api/tracks/", {}),
    ("/api/tracks/", {"as_of": "1.8"}),
    ("/api/state/", {"version": "1.9"}),
    ("/api/stats/releases/", {}),
    ("/api/stats/graduation/", {}),
]


def identity(item):
    return item.get("url") or item.get("slug") or item.get("track") or repr(sorted(item.items()))


def walk(client, path, params, follow):
    """Every item of a list, page after page, following ``follow`` (next or next_cursor)."""
    items, url, query, counts = [], path, {**params, "page_size": 7}, set()
    while url:
        body = client.get(url, query).json()
        items += [identity(item) for item in body["results"]]
        counts.add(body["count"])
        url, query = body[follow], None
    return items, counts


@pytest.mark.parametrize(("path", "params"), LISTS)
def test_following_cursors_gives_what_following_pages_gives(client, catalog, path, params):
    by_page, page_counts = walk(client, path, params, "next")
    by_cursor, cursor_counts = walk(client, path, params, "next_cursor")
    assert by_cursor == by_page and len(by_page) == page_counts.pop()
    assert cursor_counts == {len(by_page)}  # the count is the list's, on every page


def test_the_last_page_offers_no_cursor(client, catalog):
    body = client.get("/api/releases/", {"page": "last", "page_size": 2}).json()
    assert body["next"] is None and body["next_cursor"] is None


def test_a_cursor_page_links_its_next_by_cursor_and_no_previous(client, catalog):
    first = client.get("/api/features/", {"page_size": 3}).json()
    assert "cursor=" in first["next_cursor"] and "page=2" in first["next"]
    second = client.get(first["next_cursor"]).json()
    assert second["previous"] is None and second["next"] == second["next_cursor"]
    assert (
        second["results"]
        == client.get("/api/features/", {"page_size": 3, "page": 2}).json()["results"]
    )


@pytest.mark.parametrize("cursor", ["!!", "a b", "é", "a:b", "A" * 2000])
def test_what_is_no_cursor_is_a_400_naming_it(client, catalog, cursor):
    response = client.get("/api/features/", {"cursor": cursor})
    assert response.status_code == 400
    assert list(response.json()) == ["cursor"]


def forged(values):
    """A cursor spelled right but signed with another key: what a client might make up."""
    from django.core import signing

    return signing.Signer(
        key="not the catalog's", salt="releases.queries.keyset", sep="."
    ).sign_object(values)


@pytest.mark.parametrize("cursor", ["x", "W10", "WzEsMl0.abc", "eyJhIjoxfQ", "v2.v2"])
def test_a_well_spelled_cursor_the_list_did_not_give_leads_nowhere(client, catalog, cursor):
    response = client.get("/api/features/", {"cursor": cursor})
    assert response.status_code == 404
    assert "cursor" in response.json()["detail"]


def test_a_made_up_cursor_never_reaches_the_database(client, catalog):
    """Values a client chose (a version key spelled as text) are refused before any query."""
    for values in (["v2", 1, 1], [1, 2], "x"):
        response = client.get("/api/features/", {"cursor": forged(values)})
        assert response.status_code == 404, values


def test_a_cursor_from_another_list_leads_nowhere(client, catalog):
    releases = client.get("/api/releases/", {"page_size": 2}).json()["next_cursor"]
    cursor = releases.split("cursor=")[1].split("&")[0]
    assert client.get("/api/features/", {"cursor": cursor}).status_code == 404


def test_a_page_counts_on_from_the_cursor(client, catalog):
    first = client.get("/api/features/", {"page_size": 5}).json()
    cursor = first["next_cursor"].split("cursor=")[1].split("&")[0]
    third = client.get("/api/features/", {"page_size": 5, "page": 3}).json()["results"]
    assert (
        client.get("/api/features/", {"cursor": cursor, "page": "2", "page_size": 5}).json()[
            "results"
        ]
        == third
    )
    last = client.get("/api/features/", {"page_size": 5, "page": "last"}).json()["results"]
    assert (
        client.get("/api/features/", {"cursor": cursor, "page": "last", "page_size": 5}).json()[
            "results"
        ]
        == last
    )
    assert client.get("/api/features/", {"cursor": cursor, "page": "999"}).status_code == 404
    assert client.get("/api/features/", {"cursor": cursor, "page": "x"}).status_code == 400


def test_a_cursor_page_costs_what_a_first_page_costs(
    client, full_catalog, uncached, django_assert_max_num_queries
):
    first = client.get("/api/features/", {"page_size": 20}).json()
    deep = first
    for _ in range(5):
        deep = client.get(deep["next_cursor"]).json()
    with django_assert_max_num_queries(4):  # the revision, the count, the rows, their links
        response = client.get(deep["next_cursor"])
    assert response.status_code == 200


def test_the_schema_states_the_cursor_and_next_cursor(client, catalog):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/features/"]["get"]
    assert "cursor" in {p["name"] for p in operation["parameters"]}
    paginated = schema["components"]["schemas"]["PaginatedFeatureList"]
    assert paginated["properties"]["next_cursor"]["nullable"] is True


def test_a_page_takes_the_cursor_its_api_list_gave(client, catalog):
    """The pages take their API URL's parameters: a cursor reads the rows after it."""
    body = client.get("/api/features/", {"page_size": 10}).json()
    cursor = body["next_cursor"].split("cursor=")[1].split("&")[0]
    after = client.get("/api/features/", {"page_size": 10, "page": 2}).json()["results"]
    html = client.get("/features/", {"cursor": cursor, "page_size": 10}).content.decode()
    assert after[0]["title"] in html and body["results"][-1]["title"] not in html
    assert client.get("/features/", {"cursor": "!!"}).status_code == 400
    assert client.get("/features/", {"cursor": "x"}).status_code == 404
