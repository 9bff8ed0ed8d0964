"""
Issue 42: two instances of `make serve`'s stack (gunicorn, production settings), on different
ports, one PostgreSQL database, one Redis and one DJANGO_SECRET_KEY, as two hosts behind a
proxy would run: they agree. A save through one shows through the other at its next request;
an editor signed in on one is signed in on the other; the throttle counts both together; two
runs of a cron command on both never overlap; the change log reads the same from both.

Runs in the suite's run on PostgreSQL, where redis-server is installed (CI installs both).
"""

import http.cookiejar
import json
import re
import secrets
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings

from bench import run as bench_run
from bench import serve
from tests.test_serving import redis_url  # noqa: F401  (a fixture: a throwaway redis-server)

pytestmark = [pytest.mark.live_server, pytest.mark.filterwarnings("ignore::ResourceWarning")]

PASSWORD = secrets.token_urlsafe(16)
RATE = 12  # a minute, per address, both instances together


@pytest.fixture(scope="module")
def shared(tmp_path_factory, redis_url, worker_id):  # noqa: F811
    """One PostgreSQL database with the catalog, one Redis, one secret: the two instances'
    environment (each gets its own cache folder and port). Each pytest-xdist worker that runs
    a test of this module gets a database of its own, named after it."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("two instances share one PostgreSQL server: run in the suite's PostgreSQL run")
    server_url = bench_run.postgres_url()
    if server_url is None:
        pytest.skip("DATABASE_URL names no PostgreSQL server")
    workdir = tmp_path_factory.mktemp("two-instances")
    with bench_run.scratch_postgres(server_url, [f"two_instances_{worker_id}"]) as urls:
        env = serve.production_env(
            workdir,
            DATABASE_URL=urls[f"two_instances_{worker_id}"],
            REDIS_URL=redis_url,
            API_ANON_RATE=f"{RATE}/minute",
            EDITOR_PASSWORD=PASSWORD,
        )
        serve.prepare(env, load_fixtures=True, collectstatic=True)
        serve.manage(env, "create_editor", "eddie", "--no-input")
        yield env


@pytest.fixture(scope="module")
def instances(shared, tmp_path_factory):
    """Two instances (their base URLs): the same environment, but their own port and cache
    folder, as on two hosts."""
    first = {**shared, "DJANGO_CACHE_DIR": str(tmp_path_factory.mktemp("cache-a"))}
    second = {**shared, "DJANGO_CACHE_DIR": str(tmp_path_factory.mktemp("cache-b"))}
    with serve.running(first) as a, serve.running(second) as b:
        yield a, b


class Browser:
    """A client with cookies: one person, whichever instance the proxy sends them to."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, url, **headers):
        request = urllib.request.Request(url, headers=headers)
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    def post(self, url, data):
        body = urllib.parse.urlencode(data).encode()
        request = urllib.request.Request(url, data=body, headers={"Referer": url})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.geturl(), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, url, error.read().decode()

    def csrf(self, page):
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def anonymous(url):
    """A request from no session (its own address's throttle)."""
    return Browser().get(url)


def test_a_save_through_one_shows_through_the_other_at_its_next_request(instances):
    a, b = instances
    editor = Browser()
    status, _, page = editor.get(f"{a}/admin/login/")
    assert status == 200
    status, landed, _ = editor.post(
        f"{a}/admin/login/?next=/admin/",
        {"username": "eddie", "password": PASSWORD, "csrfmiddlewaretoken": editor.csrf(page)},
    )
    assert status == 200 and landed.endswith("/admin/")

    # Signed in on the first, signed in on the second: the session is the database's.
    status, _, desk = editor.get(f"{b}/admin/")
    assert status == 200 and "Editors&#x27; desk" in desk

    _, before_a, _ = anonymous(f"{a}/api/releases/2.14/")
    _, before_b, listed = anonymous(f"{b}/api/releases/")
    assert before_a["ETag"].split("-")[0] == before_b["ETag"].split("-")[0]
    assert '"version":"2.14"' in listed.replace(" ", "")

    # Unpublish 2.14 through the second instance's admin ...
    release_id = re.search(r"/admin/releases/release/(\d+)/change/", editor.get(
        f"{b}/admin/releases/release/?q=2.14")[2]).group(1)  # fmt: skip
    _, _, form = editor.get(f"{b}/admin/releases/release/{release_id}/unpublish/")
    status, _, _ = editor.post(
        f"{b}/admin/releases/release/{release_id}/unpublish/",
        {"csrfmiddlewaretoken": editor.csrf(form)},
    )
    assert status == 200

    # ... and the first's next answer is new: a new ETag, and 2.14 is gone from the public.
    status, after_a, _ = anonymous(f"{a}/api/releases/2.14/")
    assert status == 404
    status, after, listed = anonymous(f"{a}/api/releases/")
    assert after["ETag"] != before_b["ETag"] and '"version":"2.14"' not in listed.replace(" ", "")
    # A client holding the old ETag gets the new page, not a 304, from either.
    for url in (a, b):
        status, _, _ = Browser().get(f"{url}/api/releases/", **{"If-None-Match": before_b["ETag"]})
        assert status == 200

    # The change log reads the same from both (its links name the instance asked).
    logs = [json.loads(anonymous(f"{url}/api/changes/")[2]) for url in (a, b)]
    assert logs[0]["results"] == logs[1]["results"] and logs[0]["results"]
    assert [urllib.parse.urlsplit(log["next"]).query for log in logs] == [
        urllib.parse.urlsplit(logs[0]["next"]).query
    ] * 2

    # Publish it again, for the tests after.
    _, _, form = editor.get(f"{a}/admin/releases/release/{release_id}/publish/")
    status, _, _ = editor.post(
        f"{a}/admin/releases/release/{release_id}/publish/",
        {"csrfmiddlewaretoken": editor.csrf(form)},
    )
    assert status == 200 and anonymous(f"{b}/api/releases/2.14/")[0] == 200


def test_public_answers_may_be_kept_by_a_shared_cache_and_the_admin_never(instances):
    a, _ = instances
    _, headers, _ = anonymous(f"{a}/features/")
    control = headers["Cache-Control"]
    assert "public" in control and "s-maxage=" in control and "stale-while-revalidate=" in control
    _, headers, _ = anonymous(f"{a}/admin/login/")
    assert "private" in headers["Cache-Control"] or "no-cache" in headers["Cache-Control"]
    assert "s-maxage" not in headers["Cache-Control"]


def test_the_throttle_counts_both_instances_together(instances):
    a, b = instances
    client = Browser()  # one address (loopback) for every request
    answers = [client.get(f"{(a, b)[n % 2]}/api/areas/")[0] for n in range(RATE + 4)]
    # Some requests of the earlier tests count too: at most RATE succeed, from both together.
    assert answers.count(200) <= RATE and 429 in answers
    assert 429 in answers[::2] or 429 in answers[1::2]


class SlowFeed(BaseHTTPRequestHandler):
    """A feed that takes two seconds: long enough for a second run to start meanwhile."""

    def do_GET(self):
        threading.Event().wait(2)
        body = b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>'
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_two_watch_blog_runs_on_two_hosts_never_overlap(shared, tmp_path):
    feed = ThreadingHTTPServer(("127.0.0.1", 0), SlowFeed)
    threading.Thread(target=feed.serve_forever, daemon=True).start()
    env = {**shared, "BLOG_FEED_URL": f"http://127.0.0.1:{feed.server_port}/feed/"}
    command = [serve.PYTHON, str(serve.ROOT / "manage.py"), "watch_blog", "--attempts", "1"]
    try:
        first = subprocess.Popen(
            command, env=env, cwd=serve.ROOT, stdout=subprocess.PIPE, text=True
        )
        threading.Event().wait(1)
        second = subprocess.run(command, env=env, cwd=serve.ROOT, capture_output=True, text=True)
        first_said, _ = first.communicate(timeout=60)
    finally:
        feed.shutdown()
        feed.server_close()
    assert "another run is active" in second.stdout and second.returncode == 0
    assert "0 release announcements" in first_said and first.returncode == 0
