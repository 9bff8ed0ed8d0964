"""
``manage.py sync_index`` against a stand-in package index on loopback: PEP 691 JSON and PEP
503 HTML project pages written for these tests (versions 7.x do not exist), with a yanked
version, a local-version variant, a garbled file name, an oversized answer and a compressed
bomb, and a minor the catalog never heard of. No test reaches beyond 127.0.0.1.
"""

import datetime as dt
import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from releases.importing import simple_index
from releases.models import Companion, IndexPage, IndexSync, PatchRelease, Release, Wheel
from tests.factories import ReleaseFactory

pytestmark = pytest.mark.django_db

JSON = "application/vnd.pypi.simple.v1+json"


def wheel(name, version, tags, uploaded=None, **extra):
    entry = {
        "filename": f"{name}-{version}-{tags}.whl",
        "url": f"https://files.example.org/{name}-{version}-{tags}.whl",
        "hashes": {},
        "requires-python": extra.pop("requires_python", ">=3.10"),
        "size": 1234,
    }
    if uploaded:
        entry["upload-time"] = uploaded
    entry.update(extra)
    return entry


def torch_page():
    """The main index's torch page: 7.1.0, its patch 7.1.1 (yanked), 7.2.0, 7.3.0rc1, 8.0.0."""
    files = [
        wheel("torch", "7.1.0", "cp312-cp312-manylinux_2_28_x86_64", "2031-03-04T17:00:00Z"),
        wheel("torch", "7.1.0", "cp313-cp313t-manylinux_2_28_x86_64", "2031-03-04T17:05:00Z"),
        wheel("torch", "7.1.0", "cp312-none-macosx_11_0_arm64", "2031-03-04T18:00:00Z"),
        wheel(
            "torch",
            "7.1.1",
            "cp312-cp312-win_amd64",
            "2031-04-09T20:00:00.123456Z",
            yanked="It breaks loading of saved models",
        ),
        wheel("torch", "7.2.0", "cp313-cp313-manylinux_2_28_aarch64", "2031-06-01T09:30:00Z"),
        wheel("torch", "7.3.0rc1", "cp313-cp313-manylinux_2_28_x86_64", "2031-07-01T00:00:00Z"),
        wheel("torch", "8.0.0", "cp314-cp314-manylinux_2_28_x86_64", "2032-01-15T12:00:00Z"),
        {
            "filename": "torch-not-a-wheel.whl",
            "url": "https://files.example.org/x.whl",
            "hashes": {},
        },
    ]
    return {
        "meta": {"api-version": "1.1"},
        "name": "torch",
        "files": files,
        "versions": ["7.1.0", "7.1.1", "7.2.0", "7.3.0rc1", "8.0.0"],
    }


# The CPU variant's index speaks only PEP 503 HTML, as simple file servers do.
CPU_PAGE = """<!DOCTYPE html>
<html><body><h1>Links for torch</h1>
<a href="/whl/cpu/torch-7.1.0%2Bcpu-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=00"
   data-requires-python="&gt;=3.10">torch-7.1.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl</a><br>
<a href="/whl/cpu/torch-7.2.0%2Bcpu-cp313-cp313-win_amd64.whl#sha256=00"
   data-requires-python="&gt;=3.10">torch-7.2.0+cpu-cp313-cp313-win_amd64.whl</a><br>
</body></html>
"""


def torchvision_page():
    """9.1.0 (paired with 7.1 in the catalog) and 9.2.0 (paired with nothing yet)."""
    files = [
        wheel(
            "torchvision",
            version,
            "cp312-cp312-manylinux_2_28_x86_64",
            uploaded,
            requires_python=">=3.10",
            **{"core-metadata": {"sha256": "00"}},
        )
        for version, uploaded in (
            ("9.1.0", "2031-03-04T19:00:00Z"),
            ("9.2.0", "2031-06-01T10:00:00Z"),
        )
    ]
    for file in files:  # on the stand-in itself, relative to the page
        file["url"] = "../../files/" + file["filename"] + "#sha256=00"
    return {"meta": {"api-version": "1.1"}, "name": "torchvision", "files": files}


def metadata(version, torch):
    """A wheel's core metadata (PEP 658), as a companion's states its torch."""
    return (
        f"Metadata-Version: 2.1\nName: torchvision\nVersion: {version}\n"
        f"Requires-Python: >=3.10\nRequires-Dist: numpy\nRequires-Dist: torch=={torch}\n"
        "Requires-Dist: scipy; extra == 'scipy'\n\nA stand-in description.\n"
    ).encode()


class IndexHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        server = self.server
        server.requests.append((self.path, dict(self.headers.items())))
        route = server.routes.get(self.path)
        if route is None:
            return self.answer(404, {}, b"no such page")
        status, headers, body = route
        etag = headers.get("ETag")
        if etag and self.headers.get("If-None-Match") == etag:
            return self.answer(304, {"ETag": etag}, b"")
        return self.answer(status, headers, body)

    def answer(self, status, headers, body):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def index():
    server = ThreadingHTTPServer(("127.0.0.1", 0), IndexHandler)
    server.daemon_threads, server.requests = True, []
    server.url = lambda path: f"http://127.0.0.1:{server.server_port}{path}"
    server.routes = {
        "/simple/torch/": (
            200,
            {"Content-Type": JSON, "ETag": '"t1"'},
            json.dumps(torch_page()).encode(),
        ),
        "/simple/torchvision/": (
            200,
            {"Content-Type": JSON, "ETag": '"v1"'},
            json.dumps(torchvision_page()).encode(),
        ),
        "/files/torchvision-9.1.0-cp312-cp312-manylinux_2_28_x86_64.whl.metadata": (
            200,
            {"Content-Type": "application/octet-stream"},
            metadata("9.1.0", "7.1.0"),
        ),
        "/files/torchvision-9.2.0-cp312-cp312-manylinux_2_28_x86_64.whl.metadata": (
            200,
            {"Content-Type": "application/octet-stream"},
            metadata("9.2.0", "7.2.0"),
        ),
        "/whl/cpu/torch/": (
            200,
            {
                "Content-Type": "text/html",
                "Last-Modified": "Tue, 01 Jul 2031 00:00:00 GMT",
                "ETag": '"c1"',
            },
            CPU_PAGE.encode(),
        ),
    }
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def catalog():
    """7.1 released (no patches yet), 7.2 planned for a day that has passed."""
    ReleaseFactory(version="7.1", release_date=dt.date(2031, 3, 4), is_published=True)
    ReleaseFactory(
        version="7.2",
        title="PyTorch 7.2 (planned)",
        release_date=dt.date(2031, 5, 20),
        planned=True,
        is_published=True,
    )
    ReleaseFactory(version="6.9", release_date=dt.date(2030, 12, 1), is_published=True)
    Companion.objects.create(
        release=Release.objects.get(version="7.1"),
        torch_version="7.1",
        library="torchvision",
        version="9.1.0",
    )


def sync_index(index, *extra):
    from io import StringIO

    out = StringIO()
    call_command(
        "sync_index",
        "--index-url",
        index.url("/simple/"),
        "--variant-index",
        f"cpu={index.url('/whl/cpu/')}",
        "--package",
        "torch",
        "--package",
        "torchvision",
        "--timeout",
        "2",
        "--attempts",
        "1",
        *extra,
        stdout=out,
    )
    return out.getvalue()


def test_a_run_records_patches_releases_yanks_wheels_and_new_minors(index, catalog):
    output = sync_index(index)

    assert output.startswith("sync_index: 3 pages read; ")
    patch = PatchRelease.objects.get(version="7.1.1")
    assert (patch.release.version, patch.release_date) == ("7.1", dt.date(2031, 4, 9))
    assert patch.yanked and patch.yanked_reason == "It breaks loading of saved models"
    assert patch.source_url == index.url("/simple/torch/") and patch.read_at is not None
    shipped = Release.objects.get(version="7.2")
    assert not shipped.planned and shipped.release_date == dt.date(2031, 6, 1)
    assert shipped.title == "PyTorch 7.2"
    unknown = Release.objects.get(version="8.0")
    assert unknown.is_published and not unknown.announced and not unknown.planned
    assert unknown.release_date == dt.date(2032, 1, 15)
    assert not Release.objects.filter(version="7.3").exists()  # a release candidate only
    builds = set(Wheel.objects.values_list("torch_version", "variant", "platform", "python"))
    assert builds == {
        ("7.1.0", "default", "linux-x86_64", "3.12"),
        ("7.1.0", "default", "linux-x86_64", "3.13t"),
        ("7.1.0", "default", "macos-arm64", "3.12"),
        ("7.1.1", "default", "windows-amd64", "3.12"),
        ("7.2.0", "default", "linux-aarch64", "3.13"),
        ("7.1.0", "cpu", "linux-x86_64", "3.12"),
        ("7.2.0", "cpu", "windows-amd64", "3.13"),
        ("8.0.0", "default", "linux-x86_64", "3.14"),
    }
    paired = Companion.objects.get(version="9.1.0")
    assert (paired.requires_python, paired.torch_requirement) == (">=3.10", "==7.1.0")
    new = Companion.objects.get(version="9.2.0")  # its metadata pins torch 7.2.0
    assert (new.torch_version, new.release.version, new.library) == ("7.2.0", "7.2", "torchvision")
    assert new.source_url == index.url("/simple/torchvision/")
    assert "paired torchvision 9.2.0 with torch 7.2.0" in output
    assert "7.2 released on 2031-06-01" in output
    assert "8.0 found on the index, released on 2032-01-15" in output
    assert "1 file name not understood, left out" in output
    state = IndexSync.objects.get()
    assert "patch 7.1.1 of 7.1, 2031-04-09 (yanked)" in state.changes
    assert not state.is_failing and state.lease_holder == ""


def test_a_second_run_asks_conditionally_and_changes_nothing(index, catalog):
    sync_index(index)
    history = PatchRelease.history.count() + Wheel.history.count() + Release.history.count()
    index.requests.clear()

    output = sync_index(index)

    assert output == "sync_index: 3 pages read (3 unchanged since the last run); nothing changed.\n"
    sent = {path: headers for path, headers in index.requests}
    assert sent["/simple/torch/"]["If-None-Match"] == '"t1"'
    assert sent["/whl/cpu/torch/"]["If-Modified-Since"] == "Tue, 01 Jul 2031 00:00:00 GMT"
    assert "PyTorchReleaseCatalog-sync/" in sent["/simple/torch/"]["User-Agent"]
    assert sent["/simple/torch/"]["Accept"].startswith(JSON)
    after = PatchRelease.history.count() + Wheel.history.count() + Release.history.count()
    assert after == history


def test_a_second_run_without_validators_changes_nothing_either(index, catalog):
    sync_index(index)
    IndexPage.objects.update(etag="", last_modified="")
    count = Wheel.history.count() + PatchRelease.history.count()

    assert sync_index(index).endswith(
        "nothing changed; noticed: 1 file name not understood, left out.\n"
    )
    assert Wheel.history.count() + PatchRelease.history.count() == count


def test_an_editors_date_stands(index, catalog):
    release = Release.objects.get(version="7.1")
    PatchRelease.objects.create(release=release, version="7.1.1", release_date=dt.date(2031, 4, 8))

    sync_index(index)

    patch = PatchRelease.objects.get(version="7.1.1")
    assert patch.release_date == dt.date(2031, 4, 8)  # the editor's
    assert patch.yanked  # the index's fact


def broken(index, path, status=200, headers=None, body=b""):
    index.routes[path] = (status, headers or {"Content-Type": JSON}, body)


@pytest.mark.parametrize(
    "status, headers, body, message",
    [
        (200, {"Content-Type": JSON}, b"{not json", "not a project page: not JSON"),
        (200, {"Content-Type": JSON}, b'{"files": 3}', "no list of files"),
        (200, {"Content-Type": "image/png"}, b"\x89PNG", "the answer is image/png"),
        (404, {}, b"gone", "HTTP 404"),
        (500, {}, b"down", "HTTP 500"),
        (
            200,
            {"Content-Type": JSON, "Content-Length": str(64 * 1024 * 1024)},
            b"{}",
            "larger than 32 MiB",
        ),
    ],
)
def test_a_broken_index_leaves_the_catalog_unchanged_with_one_line(
    index, catalog, status, headers, body, message
):
    broken(index, "/simple/torchvision/", status, headers, body)

    with pytest.raises(CommandError) as failure:
        sync_index(index)

    text = str(failure.value)
    assert text.startswith("sync_index: ") and "\n" not in text
    assert message in text and text.endswith("the catalog is unchanged.")
    assert not PatchRelease.objects.exists() and not Wheel.objects.exists()
    assert Release.objects.get(version="7.2").planned
    assert not IndexPage.objects.exists()  # no validators kept either
    assert IndexSync.objects.get().is_failing


BOMB = gzip.compress(b"[" + b" " * (64 * 1024 * 1024) + b"]")  # 64 MiB, 64 KiB on the wire


@pytest.mark.parametrize(
    "encoding, body, message",
    [
        ("gzip", BOMB, "the answer is larger than 32 MiB"),
        ("gzip, gzip", gzip.compress(BOMB), "the answer is encoded 2 times over (gzip, gzip)"),
        ("zstd", b"(\xb5/\xfd", "the answer is encoded as 'zstd', which is not understood"),
    ],
)
def test_a_compressed_bomb_is_refused_while_it_inflates(index, catalog, encoding, body, message):
    assert len(body) < 100_000
    broken(index, "/simple/torch/", 200, {"Content-Type": JSON, "Content-Encoding": encoding}, body)

    with pytest.raises(CommandError) as failure:
        sync_index(index)
    assert message in str(failure.value) and "\n" not in str(failure.value)
    assert not Wheel.objects.exists()


def test_a_compressed_page_is_read(index, catalog):
    body = gzip.compress(json.dumps(torch_page()).encode())
    broken(index, "/simple/torch/", 200, {"Content-Type": JSON, "Content-Encoding": "gzip"}, body)

    sync_index(index)

    assert PatchRelease.objects.filter(version="7.1.1").exists()


def test_a_run_while_another_holds_the_sync_does_nothing(index, catalog):
    from releases.importing import indexes, lease

    lease.take(IndexSync, "cron.example pid 9", indexes.LEASE, name=indexes.SYNC_NAME)

    output = sync_index(index)

    assert output.startswith("sync_index: another run is active (cron.example pid 9")
    assert index.requests == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["--index-url", "file:///etc/"], "--index-url: must be an http or https address"),
        (["--variant-index", "cu124"], "--variant-index: expected NAME=URL"),
        (["--variant-index", "Bad Name=http://x/"], "is not a variant name"),
        (["--package", "../etc"], "is not a package name"),
        (["--timeout", "soon"], "--timeout: must be a number of seconds"),
    ],
)
def test_bad_options_are_one_line_errors(db, args, message):
    with pytest.raises(CommandError, match=message.replace(".", r"\.")):
        call_command("sync_index", *args)


# --- the plain reader --------------------------------------------------------------------------


def test_wheel_names_say_what_they_were_built_for():
    built = simple_index.built("torch-2.5.1+cu124-cp313-cp313t-manylinux_2_28_x86_64.whl")
    assert (str(built.version), built.variant) == ("2.5.1", "cu124")
    assert (built.pythons, built.platforms) == (("3.13t",), ("linux-x86_64",))
    built = simple_index.built("torch-2.2.0-cp311-none-macosx_10_9_x86_64.whl")
    assert (built.pythons, built.platforms) == (("3.11",), ("macos-x86_64",))
    assert simple_index.built("torch-2.5.1.tar.gz") is None
    with pytest.raises(ValueError, match="torch-2.whl"):
        simple_index.built("torch-2.whl")


def test_an_html_page_carries_yanks_and_requires_python():
    page = (
        b'<a href="a/torch-7.0.0-py3-none-any.whl" data-yanked="" '
        b'data-requires-python="&gt;=3.9">torch-7.0.0-py3-none-any.whl</a>'
    )
    project = simple_index.parse_html(page, "http://127.0.0.1/simple/torch/")
    (file,) = project.files
    assert file.yanked and file.yanked_reason == "" and file.requires_python == ">=3.9"
    assert project.name == "torch"


def test_a_page_with_a_byte_order_mark_reads():
    page = "\ufeff" + json.dumps(torch_page())
    project = simple_index.parse_project(page.encode(), JSON, "http://127.0.0.1/simple/torch/")
    assert len(project.files) == 8


def test_what_a_run_records_shows_on_the_pages_the_api_and_the_desk(
    index, catalog, client, admin_client
):
    sync_index(index)

    item = client.get("/api/releases/7.1/").json()
    assert {"version": "7.1.1", "release_date": "2031-04-09", "yanked": True} == {
        key: item["patches"][0][key] for key in ("version", "release_date", "yanked")
    }
    versions = {entry["version"]: entry for entry in item["wheels"]}
    assert versions["7.1.0"]["variants"] == ["default", "cpu"]
    assert versions["7.1.0"]["python"] == ["3.12", "3.13t"]
    page = client.get("/releases/7.1/").content.decode()
    assert "7.1.1, 9 April 2031" in page and "yanked: It breaks loading of saved models" in page
    shipped = client.get("/api/releases/7.2/").json()
    assert shipped["status"] != "planned" and shipped["overdue"] is False
    assert "Released 1 June 2031" in client.get("/releases/7.2/").content.decode()
    desk = admin_client.get("/admin/").content.decode()
    assert "Out, with no announcement imported yet" in desk and "PyTorch 8.0" in desk
    assert "Package index last read" in desk and "7.2 released on 2031-06-01" in desk


def test_a_planned_release_the_index_does_not_list_is_overdue_on_the_desk(
    index, catalog, admin_client
):
    broken(
        index,
        "/simple/torch/",
        200,
        {"Content-Type": JSON},
        json.dumps({"meta": {"api-version": "1.0"}, "name": "torch", "files": []}).encode(),
    )
    index.routes["/whl/cpu/torch/"] = (200, {"Content-Type": "text/html"}, b"<html></html>")
    Release.objects.filter(version="7.2").update(release_date=dt.date(2026, 1, 5))

    assert sync_index(index).endswith("; paired torchvision 9.2.0 with torch 7.2.0.\n")

    assert Release.objects.get(version="7.2").planned
    assert "overdue" in admin_client.get("/admin/").content.decode()


def test_a_pairing_is_checked_against_what_the_companion_requires(index, catalog, client):
    sync_index(index)

    fits = client.get("/api/check/", {"torch": "7.1.0", "torchvision": "9.1.0"}).json()
    assert fits["checks"][0]["verdict"] == "supported"
    assert "torchvision 9.1.0 itself requires torch ==7.1.0" in fits["checks"][0]["reason"]
    # An editor pairs 9.1.0 with 7.1.1 too: the companion's own pin says otherwise.
    Companion.objects.create(
        release=Release.objects.get(version="7.1"),
        torch_version="7.1.1",
        library="torchvision",
        version="9.1.0",
        torch_requirement="==7.1.0",
    )
    refused = client.get("/api/check/", {"torch": "7.1.1", "torchvision": "9.1.0"}).json()
    assert refused["checks"][-1]["verdict"] == "unsupported"
    assert "itself requires torch ==7.1.0, not 7.1.1" in refused["checks"][-1]["reason"]


def test_a_release_out_with_no_day_is_dated_by_its_first_upload(index, catalog):
    Release.objects.filter(version="7.2").update(planned=False, release_date=None, announced=False)

    output = sync_index(index)

    assert Release.objects.get(version="7.2").release_date == dt.date(2031, 6, 1)
    assert "7.2 dated 2031-06-01 (its first upload)" in output
