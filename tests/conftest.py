import contextlib
import json
import os
import re
import shutil
import sqlite3
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command

from bench import serve
from releases import revision
from releases.queries import reading
from releases.web.throttle import counters
from tests.snapshot import Snapshot

SEEDS_DIR = Path(os.environ.get("SEEDS_DIR", Path(settings.BASE_DIR).parent / "shared" / "seeds"))
SAMPLES_DIR = Path(__file__).parent / "samples"
# CI sets CI=true (.ci/run): there, whatever a test needs must be present, or the test fails.
IN_CI = os.environ.get("CI", "").lower() in {"true", "1", "yes"}


@pytest.fixture(autouse=True)
def clear_caches():
    """
    Each test starts with empty caches: no page, revision, validated query or throttle count
    survives. (A test's rollback brings back the revision it started from, which the next
    test starts from too, with whatever rows a factory wrote and no write path counted.)
    """
    revision.forget()  # a read of the last test's revision, which its rollback undid
    reading.validated.cache_clear()
    for alias in settings.CACHES:
        caches[alias].clear()
    counters(caches["shared"], getattr(settings, "CACHE_DIR", None)).clear()


@pytest.fixture
def uncached(settings):
    """No page cache: for tests that count the queries a view itself makes."""
    settings.API_PAGE_CACHE_SECONDS = 0


# The four releases whose posts are the seeds (../shared/seeds): most tests read their facts.
SEED_RELEASES = ["1.6", "1.7", "1.8", "1.9"]


def load_seed_releases():
    args = [arg for version in SEED_RELEASES for arg in ("--release", version)]
    call_command("load_catalog", *args, verbosity=0)


def load_every_release():
    call_command("load_catalog", verbosity=0)


SEED_CATALOG = Snapshot(load_seed_releases)
FULL_CATALOG = Snapshot(load_every_release)


@pytest.fixture(scope="session")
def seeds():
    """
    The folder of the seed posts, the blog's release posts for 1.6 to 1.9 (../shared/seeds
    beside the checkout, or SEEDS_DIR): seeds / "pytorch-1.8-release-post.md". Where it is
    absent the test is skipped, saying so; in CI it fails.
    """
    if not SEEDS_DIR.is_dir():
        message = f"no seed posts at {SEEDS_DIR} (../shared/seeds, or set SEEDS_DIR to them)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return SEEDS_DIR


@pytest.fixture
def catalog(db):
    """The seed releases of the committed fixtures, 1.6 to 1.9 (tests/snapshot.py)."""
    SEED_CATALOG.apply()


@pytest.fixture
def full_catalog(db):
    """Every release of the committed fixtures, as `make run` serves them."""
    FULL_CATALOG.apply()


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
    SEED_CATALOG.apply()
    return live_server


@pytest.fixture
def live_full_catalog(transactional_db, live_server):
    """Every release of the committed fixtures behind a real HTTP server (tests/snapshot.py)."""
    FULL_CATALOG.apply()
    return live_server


@pytest.fixture(scope="session")
def production_catalog(tmp_path_factory):
    """
    The catalog as `make serve` prepares it (migrate, collectstatic, load_catalog) on a SQLite
    file of its own, prepared once a worker: ``production_catalog(folder, **overrides)`` is the
    environment (bench.serve.production_env) of a copy of it in ``folder``, with its own cache
    folder and the collected static files shared. A test's servers may write to their copy.

    Whatever DATABASE_URL names, the copy is SQLite: a run of the suite on PostgreSQL skips
    these tests (serving, caches, faults), which the SQLite run has run on the same file.
    """
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("serves a SQLite catalog of its own: run in the suite's run on SQLite")
    template = tmp_path_factory.mktemp("production-catalog")
    serve.prepare(serve.production_env(template), collectstatic=True)

    def copy(folder, **overrides):
        folder = Path(folder)
        with (
            contextlib.closing(sqlite3.connect(template / "catalog.sqlite3")) as source,
            contextlib.closing(sqlite3.connect(folder / "catalog.sqlite3")) as target,
        ):
            source.backup(target)
        static = {"DJANGO_STATIC_ROOT": template / "static"}
        return serve.production_env(folder, **{**static, **overrides})

    return copy


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


# --- a real browser: Debian's chromium, driven by Playwright ----------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# CI sets this: there, a missing browser fails the run instead of skipping its tests.
BROWSER_REQUIRED = os.environ.get("CATALOG_BROWSER_TESTS") == "required"
SCREENSHOTS_DIR = Path(settings.BASE_DIR) / "test-artifacts" / "screenshots"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch the system's chromium: Playwright's own browser downloads are never used."""
    if CHROMIUM is None:
        message = "no chromium on PATH (apt-get install chromium): browser tests not run"
        if BROWSER_REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": CHROMIUM}


# pytest-playwright's fixtures: a test that uses one (directly or through another) drives a browser.
BROWSER_FIXTURES = {"browser", "context", "page"}
# Real HTTP servers: Django's live server, and the stand-in for the web that check_links asks.
LIVE_FIXTURES = {"live_server", "stand_in"}


def is_browser_test(item):
    return item.get_closest_marker("browser") is not None


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(session, config, items):
    """
    Each test is marked by the fixtures it uses, before -m selects, so that a new test needs
    no mark of its own: a browser makes it `browser`, a real HTTP server `live_server`
    (pyproject.toml lists the markers; `make test-fast` leaves these out).

    Browser tests run last, after every other plugin has ordered the tests (pytest-django
    puts transactional tests last): Playwright's event loop, once started, runs in this
    thread until the session ends, and every test after it would see an async context.
    """
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if fixtures & LIVE_FIXTURES:
            item.add_marker(pytest.mark.live_server)
    result = yield
    items.sort(key=is_browser_test)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """
    Playwright's sync API keeps an event loop running in the test's thread; the tests' own
    ORM calls (and their fixtures' set-up and tear-down) are ordinary synchronous code all the
    same. Only around browser tests: a subprocess of another test must not inherit it (check
    --deploy refuses it).
    """
    if not is_browser_test(item):
        return (yield)
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        return (yield)
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


# pytest-django's blocker, kept by the session fixture below for the hook after it.
_db_blocker = []


@pytest.fixture(scope="session", autouse=True)
def keep_db_blocker(django_db_blocker):
    _db_blocker.append(django_db_blocker)
    yield
    _db_blocker.clear()


def vacuum_postgresql():
    """
    On PostgreSQL, VACUUM the test database once a test's transaction has rolled back. Every
    test rolls back what it wrote, which PostgreSQL keeps as dead rows until a vacuum; a
    vacuum while a test holds the tables counts their rows at zero without cutting their
    pages off, and the planner then takes every table for one row (nested loops, seconds a
    statement). Between tests nothing holds them, so their empty pages go and the planner
    sizes each table by its pages as they are. .ci/postgres.sh turns autovacuum off for it.
    """
    if not _db_blocker:
        return
    from django.db import connection

    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    with _db_blocker[0].unblock(), connection.cursor() as cursor:
        cursor.execute("VACUUM")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test's own fixtures are torn down (its transaction rolled back)."""
    result = yield
    vacuum_postgresql()
    return result


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900}}


class Browsing:
    """A page in a real browser, with its console watched and each step's screenshot kept."""

    def __init__(self, page, server, name):
        self.page, self.server, self.name = page, server, name
        self.errors, self.steps = [], 0
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))

    def open(self, path):
        response = self.page.goto(f"{self.server.url}{path}")
        assert response.status < 400, (path, response.status)
        return response

    def screenshot(self, step):
        """Save the whole page, as a person would see it, under test-artifacts/screenshots/."""
        self.steps += 1
        SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS_DIR / f"{self.name}-{self.steps:02d}-{step}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def widest(self):
        """How wide the page is, counting tables that scroll inside their own box."""
        return self.page.evaluate(
            """() => Math.max(document.documentElement.scrollWidth,
                ...Array.from(document.querySelectorAll('.results, .tabular')).map(
                    e => e.scrollWidth - e.clientWidth + document.documentElement.clientWidth))"""
        )

    def serious_accessibility_problems(self):
        """axe-core's serious and critical violations on the page: (rule, impact, help, count)."""
        from axe_playwright_python.sync_playwright import Axe

        results = Axe().run(self.page)
        return [
            (
                violation["id"],
                violation["impact"],
                violation["help"],
                [node["target"] for node in violation["nodes"]][:5],
            )
            for violation in results.response["violations"]
            if violation["impact"] in {"serious", "critical"}
        ]


@pytest.fixture
def browsing(page, live_server, request):
    """A browser page on the live server; fails the test on any console error."""
    name = re.sub(r"[^A-Za-z0-9_.]+", "-", request.node.name).strip("-")
    session = Browsing(page, live_server, name)
    yield session
    assert not session.errors, f"console errors: {session.errors}"


# --- a stand-in for the web: tests never reach the internet ----------------------------------


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.server.requests.append(dict(self.headers.items()))
        status, headers, body = self.server.routes.get(self.path, (404, {}, b"no such page"))
        self.send_response(status)
        for name, value in {"Content-Type": "text/html; charset=utf-8", **headers}.items():
            self.send_header(name, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: as it should past the limit

    def do_POST(self):
        """A webhook receiver: keeps each POST, answers the next of ``answers[path]`` (200)."""
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.posts.append((self.path, dict(self.headers.items()), body))
        answers = self.server.answers.get(self.path) or [200]
        status = answers.pop(0) if len(answers) > 1 else answers[0]
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def stand_in(settings):
    """A stand-in blog on 127.0.0.1 serving ``routes``: path -> (status, headers, body)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads, server.routes, server.requests = True, {}, []
    server.posts, server.answers = [], {}  # POSTs kept; statuses to answer them, per path
    server.url = lambda path: f"http://127.0.0.1:{server.server_port}{path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.CATALOG_URL = "https://catalog.example.org/"
    yield server
    server.shutdown()
    server.server_close()
