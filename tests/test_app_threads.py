"""
A fixed number of threads run the catalog in a worker (releases/web/app_threads.py): in this
process with small WSGI applications of the test's own, and in a real gunicorn.
"""

import concurrent.futures
import os
import time
import urllib.request
from pathlib import Path

import pytest

from bench import serve
from releases.web.app_threads import PIECE, AppThreads, ClientStalled


def start_response(status, headers, exc_info=None):
    return lambda data: None


def application(environ, start_response_):
    """/endless never ends (counting its pieces in environ["made"]); /ok is short; /fail raises."""
    path = environ.get("PATH_INFO", "/ok")
    if path == "/fail":
        raise RuntimeError("the application failed")
    start_response_("200 OK", [("Content-Type", "text/plain")])
    if path == "/empty":
        return []
    if path == "/ok":
        return [b"o", b"k"]
    environ["made"] = 0

    def endless():
        while True:
            environ["made"] += 1
            yield b"x" * 1024

    return endless()


def timed(app, path):
    started = time.monotonic()
    body = b"".join(app({"PATH_INFO": path}, start_response))
    return body, time.monotonic() - started


def still(environ):
    """True when nothing is made any more."""
    made = environ["made"]
    time.sleep(0.3)
    return environ["made"] == made


def test_a_body_comes_back_whole_and_errors_where_they_were_raised():
    app = AppThreads(application, threads=2)
    assert b"".join(app({"PATH_INFO": "/ok"}, start_response)) == b"ok"
    assert list(app({"PATH_INFO": "/empty"}, start_response)) == []
    with pytest.raises(RuntimeError, match="the application failed"):
        app({"PATH_INFO": "/fail"}, start_response)


def test_a_client_that_stops_reading_gives_its_thread_back():
    app = AppThreads(application, threads=1, stall_seconds=1)
    environ = {"PATH_INFO": "/endless"}
    body = iter(app(environ, start_response))
    next(body)  # one piece read, then nothing more
    # The one thread waits for the reader for a second, then takes the next request.
    answer, seconds = timed(app, "/ok")
    assert answer == b"ok" and 0.5 < seconds < 5
    assert still(environ)
    with pytest.raises(ClientStalled):
        list(body)


def test_a_closed_response_stops_its_body_and_frees_the_thread():
    app = AppThreads(application, threads=1, stall_seconds=60)
    environ = {"PATH_INFO": "/endless"}
    body = app(environ, start_response)
    next(iter(body))
    body.close()  # the server is done: the client went
    answer, seconds = timed(app, "/ok")
    assert answer == b"ok" and seconds < 3
    assert still(environ)


def catalog_connections(pid, database):
    """The worker ``pid``'s open files on the catalog's SQLite database (one a connection)."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(fd) == str(database)
        except OSError:  # closed meanwhile
            pass
    return count


@pytest.mark.live_server
def test_a_worker_holds_no_more_connections_than_app_threads(tmp_path, production_catalog):
    """
    32 clients at once against one gunicorn worker of 64 threads: every answer comes, the
    worker never has more catalog connections open than WEB_APP_THREADS, and the whole list as
    CSV comes through the threads' relay byte for byte as gunicorn's own thread sends it.
    """
    env = production_catalog(tmp_path)
    env["API_PAGE_CACHE_SECONDS"] = "0"
    database = Path(env["DATABASE_URL"].removeprefix("sqlite:///"))
    paths = [f"/api/features/?page={page}&page_size=20" for page in range(1, 9)]
    paths += ["/api/features/?format=csv", "/api/releases/", "/releases/"]
    with serve.server({**env, "WEB_APP_THREADS": "3"}, workers=1) as server:
        (pid,) = server.worker_pids()

        def fetch(path):
            with urllib.request.urlopen(server.url + path, timeout=60) as response:
                return response.status, response.read()

        with concurrent.futures.ThreadPoolExecutor(32) as clients:
            answers = list(clients.map(fetch, paths * 8))
            assert {status for status, _ in answers} == {200}
        assert 1 <= catalog_connections(pid, database) <= 3
        relayed = fetch("/api/features/?format=csv")[1]
    with serve.server({**env, "WEB_APP_THREADS": "0"}, workers=1) as server:
        with urllib.request.urlopen(server.url + "/api/features/?format=csv") as response:
            assert response.read() == relayed
    assert len(relayed) > 2 * PIECE  # in several pieces
