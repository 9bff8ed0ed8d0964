"""The production stack, in real processes: gunicorn, whitenoise, shared caches, settings."""

import shutil
import subprocess
import time

import pytest

from bench import serve
from tests.conftest import http

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


class Server:
    def __init__(self, url):
        self.url = url


def get(url, path, **headers):
    return http(Server(url), path, headers=headers)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """A production database with the fixtures and collected static files."""
    workdir = tmp_path_factory.mktemp("serve")
    env = serve.production_env(workdir)
    serve.prepare(env, collectstatic=True)
    return workdir, env


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
        assert releases.status == 200 and releases.json()["count"] == 4
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


def test_anonymous_throttle_counts_across_worker_processes(prepared):
    _, env = prepared
    with serve.running({**env, "API_ANON_RATE": "6/minute"}, workers=2) as url:
        statuses = [get(url, "/api/releases/").status for _ in range(12)]
    # Counted per process, two workers would allow up to 12.
    assert statuses == [200] * 6 + [429] * 6


@pytest.mark.parametrize("cache", ["file", "redis"])
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
