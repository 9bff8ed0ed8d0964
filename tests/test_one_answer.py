"""
One answer per question (issue 30): a version no public release has, a draft's version and an
unknown parameter get the same family of answer on every surface that takes them.
"""

import pytest

from tests.factories import ReleaseFactory

pytestmark = pytest.mark.django_db

# Every endpoint that takes a version in its query, with the parameter that carries it.
VERSION_QUERIES = [
    ("/api/compare/", {"from": "1.7", "to": "{v}"}, "to"),
    ("/compare/", {"from": "1.7", "to": "{v}"}, "to"),
    ("/api/compare/", {"from": "{v}", "to": "1.9"}, "from"),
    ("/api/state/", {"version": "{v}"}, "version"),
]
# Every endpoint, for an unknown parameter.
ENDPOINTS = [
    "/", "/releases/", "/releases/1.9/", "/releases/1.9/state/", "/tracks/", "/matrix/",
    "/compare/", "/features/", "/graduation/", "/stages/", "/sitemap.xml",
    "/feeds/releases/", "/badges/tracks/torch-fft.svg",
    "/api/releases/", "/api/releases/1.9/", "/api/features/", "/api/links/", "/api/areas/",
    "/api/tracks/", "/api/tracks/torch-fft/", "/api/state/?version=1.9",
    "/api/compare/?from=1.7&to=1.9", "/api/changes/", "/api/stats/releases/",
]  # fmt: skip


@pytest.mark.parametrize(("path", "query", "named"), VERSION_QUERIES)
@pytest.mark.parametrize("version", ["99.0", "draft"])
def test_an_unknown_or_draft_version_is_a_400_naming_the_parameter(
    client, catalog, path, query, named, version
):
    if version == "draft":
        version = ReleaseFactory(version="9.1", is_published=False).version
    response = client.get(path, {k: v.format(v=version) for k, v in query.items()})
    assert response.status_code == 400, (path, version, response.status_code)
    assert named in response.content.decode()


@pytest.mark.parametrize("path", ENDPOINTS)
def test_an_unknown_parameter_is_a_400_everywhere(client, catalog, path):
    joiner = "&" if "?" in path else "?"
    response = client.get(f"{path}{joiner}section=x")
    assert response.status_code == 400, (path, response.status_code)
    assert "section" in response.content.decode()


@pytest.mark.parametrize("spelling", ["1.9.0", "v1.9", "01.9", "1.09"])
@pytest.mark.parametrize(
    ("path", "canonical"),
    [
        ("/releases/{v}/", "/releases/1.9/"),
        ("/releases/{v}/state/?stability=beta", "/releases/1.9/state/?stability=beta"),
        ("/api/releases/{v}/", "/api/releases/1.9/"),
    ],
)
def test_every_spelling_of_a_version_redirects_to_its_one_url(
    client, catalog, spelling, path, canonical
):
    response = client.get(path.format(v=spelling))
    assert response.status_code == 301 and response["Location"] == canonical
    assert client.get(canonical).status_code == 200


@pytest.mark.parametrize("path", ["/releases/{v}/", "/api/releases/{v}/"])
def test_a_version_that_names_nothing_or_a_draft_is_the_same_404(client, catalog, path):
    draft = ReleaseFactory(version="9.1", is_published=False).version
    for version in ("99.0", draft, "not-a-version"):
        assert client.get(path.format(v=version)).status_code == 404, version


def test_pages_name_their_canonical_url(client, catalog):
    html = client.get("/releases/1.9/").content.decode()
    assert '<link rel="canonical" href="/releases/1.9/">' in html
