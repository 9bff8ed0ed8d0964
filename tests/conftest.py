import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command

SEEDS_DIR = Path(os.environ.get("SEEDS_DIR", Path(settings.BASE_DIR).parent / "shared" / "seeds"))
SAMPLES_DIR = Path(__file__).parent / "samples"


@pytest.fixture(autouse=True)
def clear_caches():
    """Each test starts with empty caches: no page or revision survives a test database."""
    for alias in settings.CACHES:
        caches[alias].clear()


@pytest.fixture
def uncached(settings):
    """No page cache: for tests that count the queries a view itself makes."""
    settings.API_PAGE_CACHE_SECONDS = 0


@pytest.fixture
def catalog(db):
    call_command("load_catalog", verbosity=0)


@pytest.fixture
def editor(catalog):
    """A member of "Editors" who is not a superuser, made as the README says."""
    from django.contrib.auth.models import User

    from releases.editors import EDITORS_GROUP

    call_command("create_editor", "eddie", "--no-input", verbosity=0)
    user = User.objects.get(username="eddie")
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == [EDITORS_GROUP]
    return user


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def live_catalog(transactional_db, live_server):
    """The seed catalog behind a real HTTP server."""
    call_command("load_catalog", verbosity=0)
    return live_server


class HttpResponse:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


def http(server, path, method="GET", params=None, data=None, headers=None):
    """A real HTTP request to a live server; 4xx and 5xx come back as responses too."""
    url = f"{server.url}{path}"
    if params:
        url += "?" + urllib.parse.urlencode(params)
    request = urllib.request.Request(url, method=method, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return HttpResponse(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return HttpResponse(error.code, error.headers, error.read())


@pytest.fixture
def api(live_catalog):
    """GET an API path over HTTP: api("/api/features/", release="1.8") -> HttpResponse."""

    def get(path, **params):
        return http(live_catalog, path, params=params)

    get.server = live_catalog
    return get
