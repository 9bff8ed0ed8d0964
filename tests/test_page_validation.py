"""Pages take the query of the API URL they link to, checked by the same code, with a 400 page."""

import re

import pytest

pytestmark = pytest.mark.django_db


def problems_on_the_page(client, path):
    """The 400 page's list of problems: {parameter: text}."""
    response = client.get(path)
    assert response.status_code == 400, (path, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "<h1>Bad request</h1>" in html
    return html


@pytest.mark.parametrize(
    ("page", "api", "name"),
    [
        ("/features/?page=abc", "/api/features/?page=abc", "page"),
        ("/features/?page=0", "/api/features/?page=0", "page"),
        ("/features/?page=%C2%B2", "/api/features/?page=%C2%B2", "page"),
        ("/features/?page_size=101", "/api/features/?page_size=101", "page_size"),
        ("/features/?bogus=1", "/api/features/?bogus=1", "bogus"),
        ("/features/?release=1.x", "/api/features/?release=1.x", "release"),
        ("/features/?promoted=yes", "/api/features/?promoted=yes", "promoted"),
        ("/matrix/?stability=x", "/api/tracks/?stability=x", "stability"),
        ("/matrix/?bogus=1", "/api/tracks/?bogus=1", "bogus"),
        ("/matrix/?page=0", "/api/tracks/?page=0", "page"),
        ("/tracks/?area=nope", "/api/tracks/?area=nope", "area"),
        ("/tracks/?as_of=one", "/api/tracks/?as_of=one", "as_of"),
        ("/releases/?min_version=x", "/api/releases/?min_version=x", "min_version"),
        ("/releases/?page=abc", "/api/releases/?page=abc", "page"),
        ("/releases/?bogus=1", "/api/releases/?bogus=1", "bogus"),
        ("/compare/?from=1.7&to=1.9&bogus=1", "/api/compare/?from=1.7&to=1.9&bogus=1", "bogus"),
        ("/compare/?from=1.9&to=1.7", "/api/compare/?from=1.9&to=1.7", "to"),
        ("/compare/?from=1.7", "/api/compare/?from=1.7", "to"),
    ],
)
def test_a_page_refuses_what_its_api_refuses_naming_the_parameter(client, catalog, page, api, name):
    refused = client.get(api)
    assert refused.status_code == 400
    messages = refused.json()
    assert list(messages) == [name]
    html = problems_on_the_page(client, page)
    # The API's own words (a page is HTML: it takes no ``format``).
    expected = messages[name][0].replace(" format,", "")
    assert f"<strong>{name}</strong>: {expected}".replace("'", "&#x27;") in html


@pytest.mark.parametrize(
    "path",
    [
        "/?bogus=1",
        "/releases/1.8/?page=2",
        "/tracks/torch-fft/?format=json",
        "/features/?format=json",
    ],
)
def test_pages_take_no_parameter_they_do_not_use(client, catalog, path):
    name = path.split("?")[1].split("=")[0]
    assert f"<strong>{name}</strong>" in problems_on_the_page(client, path)


def test_a_page_past_the_last_is_a_404_as_in_the_api(client, catalog):
    assert client.get("/api/features/?page=999").status_code == 404
    assert client.get("/features/?page=999").status_code == 404


def test_pages_accept_what_the_api_accepts(client, catalog):
    for query in ["page=last", "page_size=5&page=2", "release=1.8&release=1.9", "promoted=true"]:
        assert client.get(f"/api/features/?{query}").status_code == 200, query
        assert client.get(f"/features/?{query}").status_code == 200, query
    # A form's empty fields mean "any", as the form sends every field.
    assert client.get("/matrix/?area=&stability=").status_code == 200
    assert client.get("/features/?search=&release=1.8").status_code == 200


def test_the_features_page_pages_as_the_api_does(client, catalog):
    api = client.get("/api/features/", {"release": "1.8", "page_size": 5, "page": 2}).json()
    html = client.get("/features/", {"release": "1.8", "page_size": 5, "page": 2}).content.decode()
    for item in api["results"]:
        assert item["title"] in html
    assert f"Page 2 of {-(-api['count'] // 5)}" in html
    assert "page_size=5&amp;page=3" in html or "page=3" in html


def test_filters_of_the_list_pages_are_the_apis(client, catalog):
    html = client.get("/releases/", {"min_version": "1.8"}).content.decode()
    assert "PyTorch 1.9" in html and "PyTorch 1.8" in html and "PyTorch 1.7" not in html
    matrix = client.get("/matrix/", {"stability": "stable", "area": "frontend-apis"})
    api = client.get("/api/tracks/", {"stability": "stable", "area": "frontend-apis"}).json()
    assert f"{api['count']} track" in matrix.content.decode()
    for track in api["results"]:
        assert track["name"] in matrix.content.decode()


def test_the_features_page_counts_several_choices_of_one_filter(client, catalog):
    """The form's checkboxes repeat a parameter: the list and its counts read every choice."""
    both = client.get("/api/features/", {"release": "1.8,1.9"}).json()["count"]
    one = client.get("/api/features/", {"release": "1.9"}).json()["count"]
    assert both > one
    html = client.get("/features/?release=1.8&release=1.9").content.decode()
    assert f"{both} features." in html
    by_stage = re.findall(r'name="stability" value="\w+">[^<]*<span class="count">(\d+)<', html)
    assert sum(map(int, by_stage)) == both
