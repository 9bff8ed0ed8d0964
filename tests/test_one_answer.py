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
