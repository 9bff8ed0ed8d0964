"""
Serving when a dependency fails (issue 29), in real processes: a Redis that is killed or
frozen is only a slower cache, a save during a Redis stall is seen on the next request, and a
database that cannot be reached is an honest 503 in the surface's own format.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from bench import serve
from tests.conftest import http

pytestmark = [pytest.mark.live_server, pytest.mark.filterwarnings("ignore::ResourceWarning")]

FEATURE = "/api/features/?release=1.9&search=prepare"


class Server:
    def __init__(self, url):
        self.url = url


def get(url, path, **headers):
    return http(Server(url), path, headers=headers)


def timed(url, path, **headers):
    started = time.monotonic()
    response = get(url, path, **headers)
    return response, time.monotonic() - started


@pytest.fixture
def prepared(tmp_path, production_catalog):
    return production_catalog(tmp_path)


@pytest.fixture
def redis_server(tmp_path):
    """A redis-server of this test's own (to kill and to freeze), or a skip where none is."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing: .ci/run installs it")
        pytest.skip("redis-server is not installed (CI installs it)")
    port = serve.free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    process.url = f"redis://127.0.0.1:{port}/0"
    yield process
    if process.poll() is None:
        process.send_signal(signal.SIGCONT)
        process.terminate()
        process.wait(timeout=10)


def retitle(env, title):
    """An editor's save, through the catalog's write path, in a process of its own."""
    return serve.manage(
        env,
        "shell",
        "-c",
        "from releases.models import Feature; "
        "f = Feature.objects.get(release__version='1.9', slug='prepare-for-inference'); "
        f"f.title = {title!r}; f.save(); print('saved')",
    )


def title_of(url):
    return get(url, FEATURE).json()["results"][0]["title"]


def test_a_killed_redis_is_a_slower_cache_not_an_outage(prepared, redis_server):
    env = {**prepared, "REDIS_URL": redis_server.url}
    with serve.running(env, workers=1) as url:
        assert get(url, FEATURE).status == 200
        assert get(url, FEATURE).headers["X-Cache"] == "hit"  # Redis serves the page cache
        redis_server.kill()
        redis_server.wait(timeout=10)
        for path in (FEATURE, "/api/releases/", "/releases/1.9/", "/matrix/", "/feeds/releases/"):
            response, seconds = timed(url, path)
            assert response.status == 200, (path, response.status)
            assert seconds < 2, (path, seconds)
        # Saves still work, and the next request shows them.
        assert "saved" in retitle(env, "Prepare for inference, retitled").stdout
        assert title_of(url) == "Prepare for inference, retitled"


def test_a_frozen_redis_costs_a_short_timeout_and_a_save_is_seen_at_once(prepared, redis_server):
    env = {**prepared, "REDIS_URL": redis_server.url}
    with serve.running(env, workers=1) as url:
        first = get(url, FEATURE)
        etag = first.headers["ETag"]
        assert get(url, FEATURE, **{"If-None-Match": etag}).status == 304
        redis_server.send_signal(signal.SIGSTOP)  # answers nothing, refuses nothing
        try:
            for _ in range(5):
                response, seconds = timed(url, FEATURE)
                assert response.status == 200 and seconds < 2, (response.status, seconds)
            # An editor saves during the stall: committed, so a success.
            saved = retitle(env, "Prepare for inference, during the stall")
            assert saved.returncode == 0 and "saved" in saved.stdout
            assert title_of(url) == "Prepare for inference, during the stall"
            assert get(url, FEATURE, **{"If-None-Match": etag}).status == 200
        finally:
            redis_server.send_signal(signal.SIGCONT)
        # Redis is back, with the pages of the old revision still in it: none is served.
        time.sleep(float(env.get("CACHE_RETRY_SECONDS", 5)) + 0.5)
        assert title_of(url) == "Prepare for inference, during the stall"
        assert get(url, FEATURE, **{"If-None-Match": etag}).status == 200


def test_a_database_that_cannot_be_reached_is_a_503_with_retry_after(prepared):
    # A PostgreSQL address where nothing listens: every connection is refused.
    env = {**prepared, "DATABASE_URL": f"postgresql://catalog@127.0.0.1:{serve.free_port()}/x"}
    with serve.running(env, workers=1) as url:
        api = get(url, "/api/releases/")
        assert api.status == 503, api.body[:500]
        assert api.headers["Content-Type"] == "application/json"
        assert int(api.headers["Retry-After"]) > 0
        assert "database" in api.json()["detail"]
        page = get(url, "/releases/")
        assert page.status == 503 and int(page.headers["Retry-After"]) > 0
        assert page.headers["Content-Type"].startswith("text/html")
        assert b"Unavailable for a moment" in page.body


def test_fifty_slow_clients_do_not_starve_the_others(prepared):
    """
    Fifty connections that send their request a byte at a time (as a slow or hostile client
    would) while others ask normally: `make serve`'s setup keeps answering them. Bounded: the
    slow clients trickle for ten seconds, then give up.
    """
    import socket
    import threading

    stop = threading.Event()

    def trickle(port):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            for byte in b"GET /api/releases/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"y" * 400:
                if stop.wait(0.25):
                    return
                sock.sendall(bytes([byte]))

    with serve.running(prepared, workers=2) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = [threading.Thread(target=trickle, args=(port,), daemon=True) for _ in range(50)]
        for thread in slow:
            thread.start()
        time.sleep(1.5)  # every slow client is connected and holding what it holds
        try:
            seconds = []
            for _ in range(30):
                response, spent = timed(url, "/api/releases/?page_size=5")
                assert response.status == 200
                seconds.append(spent)
                time.sleep(0.1)
        finally:
            stop.set()
            for thread in slow:
                thread.join(timeout=5)
    assert max(seconds) < 2, sorted(seconds)[-3:]


# --- a database that refuses writes: SQLite's query_only stands in for a read-only disk ------


@pytest.fixture
def read_only():
    """The test's SQLite connection refusing writes, as a read-only disk makes it."""
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("query_only is SQLite's; PostgreSQL's outage is the 503 test above")

    def switch(on):
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")

    yield switch
    switch(False)


@pytest.mark.django_db
def test_a_save_the_database_refuses_is_told_as_refused_with_the_input_kept(
    editor_client, read_only
):
    from django.urls import reverse

    from releases.models import Feature
    from tests.admin_post import page_data

    feature = Feature.objects.get(release__version="1.9", slug="torch-linalg")
    url = reverse("admin:releases_feature_change", args=[feature.pk])
    data = {**page_data(editor_client.get(url)), "title": "Typed during the outage"}
    read_only(True)
    response = editor_client.post(url, data)
    read_only(False)
    assert response.status_code == 200  # the form again, not a redirect to "changed"
    html = response.content.decode()
    assert "Not saved: the database refused the change" in html
    assert 'value="Typed during the outage"' in html  # the editor's input, kept
    assert "changed successfully" not in html
    feature.refresh_from_db()
    assert feature.title == "torch.linalg"  # nothing was written


@pytest.mark.django_db
def test_an_import_the_database_refuses_exits_with_one_line(catalog, read_only, tmp_path, capsys):
    from django.core.management import CommandError, call_command

    post = tmp_path / "2026-01-01-pytorch-9-1.md"
    post.write_text(
        "---\ntitle: PyTorch 9.1 is out\n---\n\n## Prototype Features\n\n### A new thing\n\n"
        "Words of our own about it.\n",
        encoding="utf-8",
    )
    read_only(True)
    with pytest.raises(CommandError) as refused:
        call_command("import_post", str(post), verbosity=0)
    read_only(False)
    message = str(refused.value)
    assert "the database refused the work" in message and "\n" not in message
    from releases.models import Release

    assert not Release.objects.filter(version="9.1").exists()


# --- PostgreSQL stopped and started again, under a running server -----------------------------


def as_postgres(*command):
    """Run a PostgreSQL tool as its own user where this runs as root (initdb refuses root)."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *command], check=True, capture_output=True, text=True)


@pytest.fixture
def postgres():
    """A PostgreSQL server of this test's own, to stop and start again."""
    import glob

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is missing: .ci/run installs it")
        pytest.skip("PostgreSQL is not installed (CI installs it)")
    bin_dir = os.path.dirname(found[-1])
    # Outside pytest's private temporary folder, which the postgres user may not enter.
    folder = Path(tempfile.mkdtemp(prefix="catalog-pg-"))
    os.chmod(folder, 0o755)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    port = serve.free_port()
    data = str(folder / "data")
    as_postgres(f"{bin_dir}/initdb", "-D", data, "-U", "catalog", "--auth=trust", "-E", "UTF8")
    options = f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off"

    def start():
        as_postgres(
            f"{bin_dir}/pg_ctl", "-D", data, "-l", f"{folder}/log", "-w", "-o", options, "start"
        )

    def stop():
        as_postgres(f"{bin_dir}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop")

    start()
    as_postgres(
        f"{bin_dir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "catalog", "catalog"
    )
    server = type("Postgres", (), {})()
    server.url, server.start, server.stop = (
        f"postgres://catalog@127.0.0.1:{port}/catalog",
        start,
        stop,
    )
    yield server
    subprocess.run(
        [
            "runuser",
            "-u",
            "postgres",
            "--",
            f"{bin_dir}/pg_ctl",
            "-D",
            data,
            "-m",
            "immediate",
            "stop",
        ]
        if os.geteuid() == 0
        else [f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop"],
        capture_output=True,
    )
    shutil.rmtree(folder, ignore_errors=True)


def test_postgresql_stopped_is_a_503_and_started_again_answers_with_no_restart(tmp_path, postgres):
    env = serve.production_env(tmp_path, DATABASE_URL=postgres.url)
    serve.prepare(env, load_fixtures=False, collectstatic=True)
    with serve.running(env, workers=1) as url:
        assert get(url, "/api/releases/").status == 200
        postgres.stop()
        api = get(url, "/api/releases/")
        assert api.status == 503 and int(api.headers["Retry-After"]) > 0
        assert api.headers["Content-Type"] == "application/json"
        page = get(url, "/releases/")
        assert page.status == 503 and b"Unavailable for a moment" in page.body
        postgres.start()
        deadline = time.monotonic() + 10
        while get(url, "/api/releases/").status != 200:
            assert time.monotonic() < deadline, "the catalog did not come back within 10 s"
            time.sleep(0.5)
        assert get(url, "/releases/").status == 200


# --- the throttle's own store failing ----------------------------------------------------------


def test_a_throttle_whose_store_fails_counts_in_its_process(tmp_path, caplog, settings):
    from releases.web import caches
    from releases.web.throttle import SQLiteCounters, Throttle

    settings.CACHE_RETRY_SECONDS = 60
    caches.reset_circuits()
    # A file where its folder should be: every connection fails, as on a broken disk.
    (tmp_path / "not-a-folder").write_text("", encoding="utf-8")
    throttle = Throttle("2/m", SQLiteCounters(tmp_path / "not-a-folder" / "throttle.sqlite3"))
    waits = [throttle.wait("192.0.2.7", now=600.0 + n) for n in range(4)]
    assert waits[:2] == [0, 0] and all(wait > 0 for wait in waits[2:])  # still a limit
    failing = [r for r in caplog.records if r.name == "releases.caches"]
    assert len(failing) == 1 and "failing" in failing[0].getMessage()  # one line a window
    caches.reset_circuits()
