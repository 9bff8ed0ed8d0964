"""The production stack, in real processes: gunicorn, whitenoise, shared caches, settings."""

import gc
import json
import shutil
import subprocess
import time

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from bench import profile, serve
from tests.conftest import http

pytestmark = [pytest.mark.live_server, pytest.mark.filterwarnings("ignore::ResourceWarning")]


class Server:
    def __init__(self, url):
        self.url = url


def get(url, path, **headers):
    return http(Server(url), path, headers=headers)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, production_catalog):
    """A production database with the fixtures and collected static files."""
    workdir = tmp_path_factory.mktemp("serve")
    return workdir, production_catalog(workdir)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A throwaway redis-server on loopback, or a skip where none is installed."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (CI installs it)")
    port = serve.free_port()
    folder = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)


def test_make_serve_stack_serves_api_docs_and_admin_with_static_files(prepared):
    _, env = prepared
    with serve.running(env) as url:
        releases = get(url, "/api/releases/")
        # 1.2 to 2.14 announced, 0.1 to 1.1 from the compatibility tables (2.15, 2.16 planned)
        # 34 out: 0.1 to 2.15 (2.15 on the package index, issue 40); 2.16 planned.
        assert releases.status == 200 and releases.json()["count"] == 34
        assert get(url, "/api/releases/", Accept="text/html").status == 406  # JSON only
        docs = get(url, "/api/docs/")
        assert docs.status == 200
        login = get(url, "/admin/login/")
        assert login.status == 200
        css = login.body.decode().split('href="/static/admin/css/base.')[1].split('"')[0]
        static = get(url, f"/static/admin/css/base.{css}")
        assert static.status == 200 and "max-age" in static.headers["Cache-Control"]
        editors_only = get(url, "/admin/releases/release/")  # redirected to the login page
        assert b'name="username"' in editors_only.body


def test_production_settings_pass_check_deploy(prepared):
    _, env = prepared
    production = {**env, "DJANGO_HTTPS": "1", "DJANGO_ALLOWED_HOSTS": "catalog.example.org"}
    result = serve.manage(production, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key(prepared):
    _, env = prepared
    env = {key: value for key, value in env.items() if key != "DJANGO_SECRET_KEY"}
    result = serve.manage(env, "check", check=False)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


@pytest.mark.parametrize("cache", ["disk", "redis"])
def test_anonymous_throttle_counts_across_worker_processes(prepared, cache, request):
    _, env = prepared
    if cache == "redis":
        env = {**env, "REDIS_URL": request.getfixturevalue("redis_url")}
    with serve.running({**env, "API_ANON_RATE": "6/minute"}, workers=2) as url:
        statuses = [get(url, "/api/releases/").status for _ in range(12)]
    # Counted per process, two workers would allow up to 12.
    assert statuses == [200] * 6 + [429] * 6


@pytest.mark.parametrize("cache", ["disk", "redis"])
def test_an_edit_invalidates_cached_pages_in_every_process(prepared, cache, request, tmp_path):
    workdir, env = prepared
    if cache == "redis":
        env = {**env, "REDIS_URL": request.getfixturevalue("redis_url")}
    path = "/api/features/?release=1.9&stability=prototype"
    with serve.running(env, workers=1) as first, serve.running(env, workers=1) as second:
        for url in (first, second):
            get(url, path)
            assert get(url, path).headers["X-Cache"] == "hit"
        # A third process edits the catalog, as an editor or the importer would.
        serve.manage(
            env,
            "shell",
            "-c",
            "from releases.models import Feature; "
            "f = Feature.objects.get(release__version='1.9', slug='prepare-for-inference'); "
            "f.stability = 'beta'; f.save()",
        )
        for url in (first, second):
            fresh = get(url, path)
            assert fresh.headers["X-Cache"] == "miss"
            assert fresh.json()["count"] == 1
    serve.manage(
        env,
        "shell",
        "-c",
        "from releases.models import Feature; "
        "Feature.objects.filter(slug='prepare-for-inference').update(stability='prototype')",
    )


def test_no_state_on_local_disk_with_redis(prepared, redis_url, tmp_path):
    _, env = prepared
    cache_dir = tmp_path / "unused-cache"
    env = {**env, "REDIS_URL": redis_url, "DJANGO_CACHE_DIR": str(cache_dir)}
    with serve.running(env, workers=2) as url:
        for _ in range(3):
            assert get(url, "/api/features/").status == 200
    assert not cache_dir.exists()


# --- the file cache's folder -----------------------------------------------------------------


def settings_load(env):
    return serve.manage(env, "check", "--deploy", check=False)


def test_the_file_cache_folder_is_created_private(prepared, tmp_path):
    _, env = prepared
    folder = tmp_path / "fresh-cache"
    result = settings_load({**env, "DJANGO_CACHE_DIR": str(folder)})
    assert result.returncode == 0, result.stderr
    assert folder.is_dir() and folder.stat().st_mode & 0o777 == 0o700


def test_a_cache_folder_others_may_write_is_refused(prepared, tmp_path):
    _, env = prepared
    folder = tmp_path / "planted"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    result = settings_load({**env, "DJANGO_CACHE_DIR": str(folder)})
    assert result.returncode != 0
    assert f"The cache folder {folder}" in result.stderr and "refuses" in result.stderr


def test_a_cache_folder_another_user_owns_is_refused(prepared, tmp_path):
    import os

    if os.getuid() != 0:
        pytest.skip("only root can give a folder to another user")
    _, env = prepared
    folder = tmp_path / "someone-elses"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    result = settings_load({**env, "DJANGO_CACHE_DIR": str(folder)})
    assert result.returncode != 0 and "belongs to another user" in result.stderr


# --- readers never fail during writes --------------------------------------------------------


def large_post(features):
    """A release post of our own making, as long as a large real one."""
    sections = [
        f"## [Beta] Synthetic capability {n}\n\nDoes thing {n}. "
        f"[Documentation](https://example.org/docs/{n}) and [RFC](https://example.org/rfc/{n})\n"
        for n in range(features)
    ]
    head = "---\ntitle: 'PyTorch 7.5 with many small things'\ndate: 2031-01-01\n---\n\n"
    return head + "# Frontend APIs\n\n" + "\n".join(sections)


def test_readers_never_fail_while_a_large_import_writes(production_catalog, tmp_path):
    import threading

    post = tmp_path / "large.md"
    post.write_text(large_post(3000), encoding="utf-8")
    env = {**production_catalog(tmp_path), "API_PAGE_CACHE_SECONDS": "0", "API_ANON_RATE": ""}
    statuses, done = [], threading.Event()

    def read(url):
        paths = ["/api/features/?page_size=100", "/api/releases/", "/api/links/?is_missing=true"]
        n = 0
        while not done.is_set():
            statuses.append(get(url, paths[n % len(paths)]).status)
            n += 1

    with serve.running(env, workers=2) as url:
        readers = [threading.Thread(target=read, args=(url,)) for _ in range(3)]
        for reader in readers:
            reader.start()
        try:
            result = serve.manage(env, "import_post", str(post), "--publish", check=False)
        finally:
            done.set()
            for reader in readers:
                reader.join()
    assert result.returncode == 0, result.stderr
    assert "Features: 3000 created" in result.stdout
    assert len(statuses) > 20 and set(statuses) == {200}, sorted(set(statuses))


# --- the garbage collector in a worker -------------------------------------------------------

SETTLING = """
import gc, json
from bench.profile import serve
from config.wsgi import application
from releases.memory import SETTLE_AFTER

first = SETTLE_AFTER[0]
for _ in range(first - 1):
    serve(application, "/api/features/?stability=beta")
before = {"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}
serve(application, "/api/features/?stability=beta")
after = {"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}
print(json.dumps({"before": before, "after": after}))
"""


def test_a_warmed_up_worker_freezes_what_it_keeps_out_of_the_collectors_sight(prepared):
    _, env = prepared
    result = subprocess.run(
        [serve.PYTHON, "-c", SETTLING], env=env, cwd=serve.ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    counts = json.loads(result.stdout.strip().splitlines()[-1])
    # Before: the app and every cache the requests built, scanned by each full collection.
    assert counts["before"]["frozen"] == 0 and counts["before"]["tracked"] > 50_000
    # After the warm-up: frozen, so that a full collection scans only what requests leave.
    assert counts["after"]["frozen"] > 50_000 and counts["after"]["tracked"] < 5_000


@pytest.mark.parametrize(
    "path, status",
    [
        ("/api/features/?release=1.9&stability=beta", "200"),
        ("/api/features/?stability=nonsense", "400"),  # a bad filter, answered by DRF too
        ("/api/features/?release=1.9&facets=stability,area", "200"),  # a FilterSet a facet
    ],
)
def test_a_feature_list_request_leaves_nothing_for_the_garbage_collector(
    catalog, uncached, path, status
):
    """
    What the request built (its view, DRF's request and response, the filters, the queries,
    the page of rows) is freed with its response, not by the collector's scans. Django's own
    cycle is left: a request and its messages storage, as for any view.
    """
    handler = WSGIHandler()
    for _ in range(2):  # warm: lazily built caches are not garbage
        assert served(handler, path) == status
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert served(handler, path) == status
        gc.collect()
        left = {f"{type(item).__module__}.{type(item).__qualname__}" for item in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    built = ("rest_framework.", "django_filters.", "django.db.", "releases.")
    assert sorted(name for name in left if name.startswith(built)) == []


def served(handler, path):
    """
    The status of ``path`` served in this process by ``handler``, its body read and closed;
    the test's database connection kept open through it, as Django's test client keeps it.
    """
    statuses = []
    environ = {**profile.environ(path), "HTTP_HOST": "testserver"}
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        body = handler(environ, lambda status, headers, *_: statuses.append(status))
        b"".join(body)
        body.close()
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)
    return statuses[0][:3]


@pytest.mark.parametrize(("trusted", "scheme"), [("192.0.2.1", "http"), ("127.0.0.1", "https")])
def test_a_forwarded_scheme_is_believed_only_from_the_proxys_address(prepared, trusted, scheme):
    """`make serve` believes X-Forwarded-Proto from FORWARDED_ALLOW_IPS alone (loopback by
    default): a client elsewhere claiming https changes no link the API gives."""
    _, env = prepared
    with serve.running({**env, "FORWARDED_ALLOW_IPS": trusted}, workers=1) as url:
        body = get(url, "/api/releases/?page_size=1", **{"X-Forwarded-Proto": "https"}).json()
    assert body["results"][0]["url"].startswith(f"{scheme}://"), body["results"][0]["url"]
    assert body["next"].startswith(f"{scheme}://")


def test_what_make_run_serves_answers_no_500(prepared):
    """`make run` is the production stack on loopback: its own 404 page, no debug page, a
    refused Host and a path that climbs out of /static/ are answered, never a 500."""
    _, env = prepared
    with serve.running(env, workers=1) as url:
        missing = get(url, "/no-such-page/")
        assert missing.status == 404 and b"<h1>Not found</h1>" in missing.body
        assert b"URLconf" not in missing.body  # not Django's debug page
        for path in ("/static/..%2f..%2fdb.sqlite3", "/static/%2e%2e/%2e%2e/manage.py"):
            assert get(url, path).status == 404, path
        assert get(url, "/", Host="evil.example").status == 400
        assert get(url, "/api/releases/", Host="evil.example").status == 400


def test_a_worker_puts_what_it_loaded_out_of_the_collectors_sight():
    """gunicorn's post_worker_init hook (config/gunicorn.py): full collections skip it."""
    import config.gunicorn

    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    try:
        config.gunicorn.post_worker_init(worker=None)
        assert gc.get_freeze_count() > 10_000  # Django, its apps and their models
    finally:
        gc.unfreeze()
