"""
check_links against a local HTTP server the tests start (threads, 127.0.0.1 only): never the
internet. The server answers as the sites a catalog links to do — 200s, servers that refuse
HEAD, redirect chains and loops, 404, 410, 429 with Retry-After, 500, a response slower than
the timeout — and notes every request it gets, so tests can read what the checker sent, to
which host, and when.
"""

import datetime as dt
import http.server
import io
import socket
import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from releases import revision
from releases.links import checking, health
from releases.models import Link, LinkStatus
from tests.factories import FeatureFactory, LinkFactory, ReleaseFactory

CATALOG_URL = "https://catalog.example.org/"
DELAY = 0.2  # seconds between two requests to one host, in these tests
TIMEOUT = 0.5
SLOW = 1.5  # how long /slow takes to answer: past the timeout


class Handler(http.server.BaseHTTPRequestHandler):
    """Answers by path; see ROUTES."""

    def do_HEAD(self):
        self.answer()

    def do_GET(self):
        self.answer()

    def answer(self):
        started = time.monotonic()
        path = self.path
        server = self.server
        with server.lock:
            server.counts[path] = server.counts.get(path, 0) + 1
            count = server.counts[path]
        status, headers = 200, {}
        if path in REDIRECTS:
            status, location = REDIRECTS[path]
            headers["Location"] = location
        elif path == "/head-refused" and self.command == "HEAD":
            status = 405
        elif path == "/head-404" and self.command == "HEAD":
            status = 404
        elif path in ("/gone-404", "/gone-410", "/error"):
            status = {"/gone-404": 404, "/gone-410": 410, "/error": 500}[path]
        elif path == "/busy" and count == 1:
            status, headers["Retry-After"] = 429, "1"
        elif path == "/busy-for-long":
            status, headers["Retry-After"] = 429, "3600"
        elif path == "/flaky":
            status = server.flaky_status
        elif path == "/slow":
            time.sleep(SLOW)
        elif path.startswith("/page/"):
            time.sleep(0.05)  # long enough for overlapping requests to show
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with server.lock:
            server.requests.append(
                {
                    "host": self.headers["Host"].rsplit(":", 1)[0],
                    "method": self.command,
                    "path": path,
                    "user_agent": self.headers["User-Agent"],
                    "start": started,
                    "end": time.monotonic(),
                }
            )

    def log_message(self, *args):
        pass


REDIRECTS = {
    "/moved": (301, "/moved-again"),
    "/moved-again": (308, "/ok"),
    "/temporary": (302, "/ok"),
    "/moved-then-temporary": (301, "/temporary"),
    "/moved-to-404": (301, "/gone-404"),
    "/loop-a": (302, "/loop-b"),
    "/loop-b": (302, "/loop-a"),
}


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.requests, self.counts, self.flaky_status = [], {}, 200

    def url(self, path, host="127.0.0.1"):
        return f"http://{host}:{self.server_port}{path}"

    def requests_for(self, path):
        return [request for request in self.requests if request["path"] == path]


@pytest.fixture
def stand_in():
    server = Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def closed_port():
    """A port on 127.0.0.1 nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def catalog_url(settings):
    settings.CATALOG_URL = CATALOG_URL
    return CATALOG_URL


def published_link(url, **kwargs):
    feature = FeatureFactory(release=ReleaseFactory(version=kwargs.pop("version", "3.0")))
    return LinkFactory(feature=feature, url=url, **kwargs)


def policy(**kwargs):
    values = {
        "user_agent": checking.user_agent(CATALOG_URL),
        "timeout": TIMEOUT,
        "delay": DELAY,
        "max_retry_wait": 5,
        "allow_private": True,
    }
    return checking.Policy(**{**values, **kwargs})


def check_links(*args):
    out = io.StringIO()
    call_command(
        "check_links",
        "--delay",
        str(DELAY),
        "--timeout",
        str(TIMEOUT),
        "--max-retry-wait",
        "5",
        "--allow-private-addresses",
        *args,
        stdout=out,
    )
    return out.getvalue()


def check_at(now, *links):
    """Check ``links`` as check_links does, at the time ``now``."""
    links = Link.objects.filter(pk__in=[link.pk for link in links])
    return health.check(list(links), policy(), now=now)


def fresh(link):
    return Link.objects.get(pk=link.pk)


# --- what each answer records ---------------------------------------------------------------------


@pytest.mark.django_db
def test_check_links_records_what_each_server_answers(stand_in, closed_port, catalog_url):
    paths = [
        "/ok",
        "/head-refused",
        "/moved",
        "/temporary",
        "/moved-then-temporary",
        "/busy",
        "/gone-404",
        "/gone-410",
        "/error",
        "/moved-to-404",
        "/loop-a",
        "/slow",
    ]
    links = {path: published_link(stand_in.url(path)) for path in paths}
    # Another host: one that refused HEAD is asked with GET only, for the rest of the run.
    links["/head-404"] = published_link(stand_in.url("/head-404", host="localhost"))
    # A host that asks for more time than a run waits is left alone for the rest of the run.
    links["/busy-for-long"] = published_link(stand_in.url("/busy-for-long", host="localhost"))
    links["after-busy"] = published_link(stand_in.url("/ok?after-busy", host="localhost"))
    links["refused"] = published_link(f"http://127.0.0.1:{closed_port}/")
    draft = LinkFactory(
        feature=FeatureFactory(release=ReleaseFactory(version="3.1", is_published=False)),
        url=stand_in.url("/draft"),
    )
    missing = published_link("")

    output = check_links()

    found = {name: fresh(link) for name, link in links.items()}
    ok = found["/ok"]
    assert (ok.status, ok.http_status, ok.final_url) == (LinkStatus.OK, 200, "")
    assert ok.checked_at is not None and ok.consecutive_failures == 0
    # HEAD refused (405), or answered with an error (404) where GET works: GET decides.
    assert (found["/head-refused"].status, found["/head-refused"].http_status) == ("ok", 200)
    assert [r["method"] for r in stand_in.requests_for("/head-refused")] == ["HEAD", "GET"]
    refused_at = stand_in.requests_for("/head-refused")[0]["start"]
    after = [r for r in stand_in.requests if r["host"] == "127.0.0.1" and r["start"] > refused_at]
    assert after and {r["method"] for r in after} == {"GET"}  # that host now gets GET only
    assert found["/head-404"].status == LinkStatus.OK
    assert [r["method"] for r in stand_in.requests_for("/head-404")] == ["HEAD", "GET"]
    # Permanent redirects only (301 then 308): redirected, to where they end.
    assert found["/moved"].status == LinkStatus.REDIRECTED
    assert found["/moved"].final_url == stand_in.url("/ok")
    # A temporary redirect on the way: the link stays as it is, and where it ended is shown.
    for path in ("/temporary", "/moved-then-temporary"):
        assert (found[path].status, found[path].final_url) == (LinkStatus.OK, stand_in.url("/ok"))
    # 429 with Retry-After: 1 — waited for, then asked again.
    assert found["/busy"].status == LinkStatus.OK
    first, second = stand_in.requests_for("/busy")[:2]
    assert second["start"] - first["end"] >= 1
    # Retry-After beyond what a run waits: nothing recorded, checked first next time.
    for name in ("/busy-for-long", "after-busy"):
        later = found[name]
        assert (later.status, later.checked_at, later.consecutive_failures) == (
            "unchecked",
            None,
            0,
        )
    assert stand_in.requests_for("/ok?after-busy") == []
    # A first failure is counted, not yet a status.
    failures = {
        "/gone-404": 404,
        "/gone-410": 410,
        "/error": 500,
        "/moved-to-404": 404,
        "/loop-a": 302,
        "/slow": None,
        "refused": None,
    }
    for name, http_status in failures.items():
        link = found[name]
        assert link.status == LinkStatus.UNCHECKED, name
        assert link.consecutive_failures == 1, name
        assert link.http_status == http_status, name
        assert link.first_failure_at == link.checked_at, name
    assert len(stand_in.requests_for("/loop-a")) == 1  # the loop is seen, not walked again
    # Only published links that are not missing are checked.
    assert stand_in.requests_for("/draft") == []
    assert fresh(draft).checked_at is None and fresh(missing).checked_at is None
    assert "Checked 16 link(s)" in output
    assert "deferred" in output and "failed, to confirm" in output


@pytest.mark.django_db
def test_a_link_is_broken_only_after_two_failed_checks_a_day_apart(stand_in, closed_port):
    gone = published_link(stand_in.url("/gone-410"))
    refused = published_link(f"http://127.0.0.1:{closed_port}/", version="3.1")
    start = timezone.now()

    check_at(start, gone, refused)
    check_at(start + dt.timedelta(hours=23), gone, refused)
    assert fresh(gone).status == LinkStatus.UNCHECKED  # two failures, but within a day
    assert fresh(gone).consecutive_failures == 2
    assert fresh(gone).first_failure_at == start

    report = check_at(start + dt.timedelta(days=1), gone, refused)
    assert (fresh(gone).status, fresh(gone).http_status) == (LinkStatus.BROKEN, 410)
    assert fresh(gone).consecutive_failures == 3
    assert fresh(refused).status == LinkStatus.UNREACHABLE
    assert report.counts() == {"broken": 1, "unreachable": 1}


@pytest.mark.django_db
def test_a_success_forgets_failures_and_a_failure_keeps_the_status_until_confirmed(stand_in):
    flaky = published_link(stand_in.url("/flaky"))
    start = timezone.now()
    check_at(start, flaky)
    assert fresh(flaky).status == LinkStatus.OK

    stand_in.flaky_status = 500
    check_at(start + dt.timedelta(days=1), flaky)
    assert (fresh(flaky).status, fresh(flaky).http_status) == (LinkStatus.OK, 500)
    check_at(start + dt.timedelta(days=2), flaky)
    assert fresh(flaky).status == LinkStatus.BROKEN

    stand_in.flaky_status = 200
    check_at(start + dt.timedelta(days=3), flaky)
    link = fresh(flaky)
    assert (link.status, link.consecutive_failures, link.first_failure_at) == ("ok", 0, None)
    # A single failure after that does not bring the old ones back.
    stand_in.flaky_status = 404
    check_at(start + dt.timedelta(days=5), flaky)
    assert (fresh(flaky).status, fresh(flaky).consecutive_failures) == (LinkStatus.OK, 1)


# --- how it asks ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_one_request_at_a_time_per_host_with_a_pause_and_hosts_in_parallel(stand_in, catalog_url):
    for host in ("127.0.0.1", "localhost"):
        for number in range(4):
            published_link(stand_in.url(f"/page/{host}/{number}", host=host))
    published_link(stand_in.url("/head-refused", host="localhost"))  # HEAD and GET: two turns

    check_links("--concurrency", "8")

    by_host = {}
    for request in stand_in.requests:
        by_host.setdefault(request["host"], []).append(request)
    assert {host: len(requests) for host, requests in by_host.items()} == {
        "127.0.0.1": 4,
        "localhost": 6,
    }
    for requests in by_host.values():
        requests.sort(key=lambda request: request["start"])
        for before, after in zip(requests, requests[1:], strict=False):
            # The next request starts only after the previous answer, and the pause.
            assert after["start"] - before["end"] >= DELAY * 0.95
    # Hosts are not kept waiting for each other: their requests interleave.
    first_local = by_host["localhost"][0]["start"]
    assert first_local < by_host["127.0.0.1"][-1]["start"]


@pytest.mark.django_db
def test_every_request_names_the_catalog_and_its_address(stand_in, catalog_url):
    published_link(stand_in.url("/moved"))
    published_link(stand_in.url("/head-refused"), version="3.1")
    check_links()
    agents = {request["user_agent"] for request in stand_in.requests}
    assert agents == {checking.user_agent(CATALOG_URL)}
    assert "PyTorch Release Catalog" in agents.pop() and CATALOG_URL in checking.user_agent(
        CATALOG_URL
    )


@pytest.mark.django_db
def test_private_addresses_are_not_requested_unless_allowed(stand_in):
    link = published_link(stand_in.url("/ok"))
    health.check([link], policy(allow_private=False), now=timezone.now())
    assert stand_in.requests == []
    assert fresh(link).consecutive_failures == 1


def test_retry_after_is_read_as_seconds_or_as_a_date():
    now = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
    assert checking.retry_after_seconds("120", now) == 120
    assert checking.retry_after_seconds("Thu, 01 Jan 2026 12:01:00 GMT", now) == 60
    assert checking.retry_after_seconds("Thu, 01 Jan 2026 11:00:00 GMT", now) == 0
    for unreadable in (None, "soon", "1.5", "-1", "١٢"):
        assert checking.retry_after_seconds(unreadable, now) is None


# --- which links, and how it records --------------------------------------------------------------


@pytest.mark.django_db
def test_stale_after_and_limit_take_the_least_recently_checked(stand_in, catalog_url):
    now = timezone.now()
    recent = published_link(stand_in.url("/ok"))
    old = published_link(stand_in.url("/temporary"), version="3.1")
    never = published_link(stand_in.url("/moved"), version="3.2")
    Link._base_manager.filter(pk=recent.pk).update(checked_at=now - dt.timedelta(days=1))
    Link._base_manager.filter(pk=old.pk).update(checked_at=now - dt.timedelta(days=8))
    failing = published_link(stand_in.url("/gone-404"), version="3.3")
    Link._base_manager.filter(pk=failing.pk).update(
        checked_at=now - dt.timedelta(days=1), consecutive_failures=1
    )

    chosen = health.links_to_check(stale_after=dt.timedelta(days=7), now=now)
    # A failure to confirm comes back after a day; a link fine yesterday waits its week.
    assert [link.pk for link in chosen] == [never.pk, old.pk, failing.pk]
    Link._base_manager.filter(pk=failing.pk).update(checked_at=now - dt.timedelta(hours=23))
    chosen = health.links_to_check(stale_after=dt.timedelta(days=7), now=now)
    assert [link.pk for link in chosen] == [never.pk, old.pk]

    check_links("--stale-after", "7d", "--limit", "1")
    assert fresh(never).checked_at is not None
    assert fresh(old).checked_at == now - dt.timedelta(days=8)
    check_links("--release", "3.1")
    assert fresh(old).checked_at > now
    assert fresh(recent).checked_at == now - dt.timedelta(days=1)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--stale-after", "7"], "--stale-after"),
        (["--stale-after", "7w"], "--stale-after"),
        (["--stale-after", "７d"], "--stale-after"),
        (["--limit", "0"], "--limit"),
        (["--limit", "１"], "--limit"),
        (["--delay", "-1"], "--delay"),
        (["--timeout", "0"], "--timeout"),
        (["--release", "9.9"], "--release"),
        (["--release", "one"], "--release"),
    ],
)
def test_bad_options_are_refused_by_name(catalog_url, args, named):
    with pytest.raises(CommandError, match=named):
        call_command("check_links", *args)


@pytest.mark.django_db
def test_check_links_needs_the_catalog_url(settings):
    settings.CATALOG_URL = ""
    with pytest.raises(CommandError, match="CATALOG_URL"):
        call_command("check_links")


@pytest.mark.django_db(transaction=True)
def test_a_check_starts_a_revision_without_history_or_new_versions(stand_in):
    link = published_link(stand_in.url("/moved"))
    feature_stamp = fresh(link).feature.updated_at
    history = Link.history.count()
    before = revision.current()

    check_at(timezone.now(), link)  # committed: the revision starts on commit

    checked = fresh(link)
    assert checked.status == LinkStatus.REDIRECTED
    assert revision.current().token != before.token  # cached API pages show the new status
    assert Link.history.count() == history  # an observation, not an edit
    assert checked.row_version == link.row_version  # no editor's form goes stale
    assert checked.feature.updated_at == feature_stamp
    assert checked.updated_at > link.updated_at  # /api/links/?updated_since= finds it

    stamp = checked.updated_at
    check_at(timezone.now() + dt.timedelta(hours=1), checked)
    again = fresh(link)
    assert again.checked_at > checked.checked_at
    assert again.updated_at == stamp  # the same status again: nothing for updated_since


@pytest.mark.django_db
def test_a_new_url_is_unchecked_and_observations_stay_out_of_copies(stand_in):
    link = published_link(stand_in.url("/ok"))
    check_at(timezone.now(), link)
    link = fresh(link)
    assert link.status == LinkStatus.OK

    link.url = stand_in.url("/elsewhere")
    link.save()
    link = fresh(link)
    assert (link.status, link.checked_at, link.http_status) == ("unchecked", None, None)
    for name in Link.check_fields:
        assert name not in Link.carried_fields()  # fixtures and the public change log
        assert name not in {field.name for field in Link.history.model._meta.fields}


@pytest.mark.django_db
def test_an_observation_of_an_old_url_is_not_written_to_a_new_one(stand_in):
    link = published_link(stand_in.url("/gone-404"))
    links = list(Link.objects.filter(pk=link.pk))
    probes = checking.check_urls([link.url], policy())
    Link.objects.filter(pk=link.pk).update(url=stand_in.url("/ok"))  # an editor, meanwhile
    health.record(links, probes, timezone.now())
    assert (fresh(link).consecutive_failures, fresh(link).checked_at) == (0, None)


# --- what readers see -----------------------------------------------------------------------------


@pytest.fixture
def checked_links(db, stand_in):
    moved = published_link(stand_in.url("/moved"))
    fine = published_link(stand_in.url("/ok"), version="3.1")
    gone = published_link(stand_in.url("/gone-404"), version="3.2")
    start = timezone.now() - dt.timedelta(days=2)
    check_at(start, moved, fine, gone)
    check_at(start + dt.timedelta(days=1), gone)
    return {"moved": fresh(moved), "fine": fresh(fine), "gone": fresh(gone)}


def test_link_items_show_status_checked_at_and_final_url(client, checked_links, stand_in):
    items = {item["url"]: item for item in client.get("/api/links/").json()["results"]}
    moved = items[checked_links["moved"].url]
    assert moved["status"] == "redirected"
    assert moved["final_url"] == stand_in.url("/ok")
    assert moved["checked_at"].endswith("Z")
    assert items[checked_links["fine"].url]["final_url"] is None
    assert items[checked_links["gone"].url]["status"] == "broken"

    # The features list's fast path shows links exactly as the serializer does.
    from releases.api.serializers import FeatureSerializer, feature_items, feature_values
    from releases.models import Feature

    features = Feature.objects.for_api()
    served = feature_items(list(feature_values(features)))
    documented = FeatureSerializer(features.prefetch_related("links"), many=True).data
    assert [item["links"] for item in served] == [item["links"] for item in documented]
    assert {link["status"] for item in served for link in item["links"]} == {
        "redirected",
        "ok",
        "broken",
    }


def test_links_filter_by_link_status(client, checked_links):
    def urls(**params):
        return {item["url"] for item in client.get("/api/links/", params).json()["results"]}

    assert urls(link_status="broken") == {checked_links["gone"].url}
    assert urls(link_status="broken,redirected") == {
        checked_links["gone"].url,
        checked_links["moved"].url,
    }
    assert urls(link_status="unreachable") == set()
    response = client.get("/api/links/", {"link_status": "dead"})
    assert response.status_code == 400
    assert "link_status" in response.json()


def test_links_csv_carries_the_status(client, checked_links):
    response = client.get("/api/links/", {"format": "csv", "link_status": "broken"})
    lines = b"".join(response.streaming_content).decode().splitlines()
    header = lines[0].split(",")
    assert {"status", "checked_at", "final_url"} <= set(header)
    row = dict(zip(header, lines[1].split(","), strict=True))
    assert row["status"] == "broken"
    assert len(lines) == 2


@pytest.mark.django_db
def test_the_schema_documents_link_status(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    parameters = {p["name"]: p for p in schema["paths"]["/api/links/"]["get"]["parameters"]}
    assert "broken" in parameters["link_status"]["description"]
    assert "broken" in parameters["link_status"]["schema"]["items"]["pattern"]
    link = schema["components"]["schemas"]["LinkList"]["properties"]
    assert {"status", "checked_at", "final_url"} <= set(link)
    statuses = schema["components"]["schemas"]["LinkStatus"]["enum"]
    assert statuses == ["unchecked", "ok", "redirected", "broken", "unreachable"]
