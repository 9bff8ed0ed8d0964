"""
Which versions go together (issue 32): the tables' parser on samples in our own words, the
importer, the curated catalog against answer keys of its sources, and the API's answers.
"""

import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases.importing import compatibility, tables
from releases.models import Companion, PatchRelease, Release, ScheduleDate, Support
from releases.versions import Version

KEYS = Path(__file__).parent / "answer_keys"
MATRIX = json.loads((KEYS / "compatibility-release-md.json").read_text())
PAIRINGS = json.loads((KEYS / "compatibility-pytorchkr.json").read_text())

# Samples in our own words, in the shapes the sources use (the versions are made up).
MATRIX_SAMPLE = """\
# Our release table

| PyTorch version | Python | C++ | Stable CUDA | Experimental CUDA | Stable ROCm |
| --- | --- | --- | --- | --- | --- |
| 9.2 | >=3.11, <=(3.16, 3.16t experimental) | C++20 | CUDA 14.0 (CUDNN 10.1.0.1) (NCCL 3.1.2), CUDA 14.2 (CUDNN 10.2.0.5) | -- | ROCm 8.1 |
| 9.1 | >=3.10, <=3.15, (3.15t experimental) | C++17 | CUDA 13.1, CUDA 13.3, CUDNN 9.9.9.9 | CUDA 14.0 (CUDNN 10.0.0.2) | ROCm 8.0.2 |
| 9.0 | >=3.10, <=3.14 | C++17 | CUDA 13.0, CUDNN 9.8.1.1 | None | ROCm 7.9 |

For Release 9.1 and 9.2 the builds carry these architectures:

| CUDA | architectures supported for Linux x86 builds | notes |
| --- | --- | --- |
| 14.0.1 | Hopper(9.0), Blackwell(10.0, 12.0+PTX) | |

| CUDA | architectures supported for Linux aarch64 builds |
| --- | --- |
| 14.0.1 | Hopper(9.0) |

| Minor Version | Release branch cut | Release date | First patch release date | Second patch release date|
| --- | --- | --- | --- | --- |
| 9.1 | Sept 2031 | 4 Nov 2031 | (Dec 2031) | Not planned |
| 9.2 | 3 Feb 2032 | 2 Mar 2032 | Not planned | Not planned |
"""

PAIRING_SAMPLE = """\
<p>Our pairing table</p>
<table>
  <tr><th>PyTorch</th><th>Release Date</th><th>torchvision</th><th>torchaudio</th>
      <th>Python</th><th>CUDA</th><th>ROCm</th></tr>
  <tr><th>9.1.1</th><td>2031/12/09</td><td>0.99.1</td><td>—</td>
      <td>&gt;=3.10, &lt;=3.15</td><td>14.0; 13.3</td><td>8.0.2</td></tr>
  <tr><th>9.1.0</th><td>2031/11/04</td><td><a href="#">0.99.0</a></td><td><em>—</em></td>
      <td>&gt;=3.10, &lt;=3.14</td><td>14.0; 13.3; 13.1</td><td>8.0.2</td></tr>
</table>
"""


def test_the_matrix_gives_each_release_its_platforms_with_their_lines():
    found = tables.read(MATRIX_SAMPLE)
    assert not found.problems
    rows = {row.release: row for row in found.platforms}
    assert list(rows) == ["9.2", "9.1", "9.0"] and rows["9.2"].line == 5
    python = [(s.version, s.level) for s in rows["9.2"].supports if s.kind == "python"]
    assert python == [(f"3.{n}", "stable") for n in range(11, 17)] + [("3.16t", "experimental")]
    cuda = {s.version: (s.level, s.cudnn, s.nccl) for s in rows["9.2"].supports if s.kind == "cuda"}
    assert cuda == {"14.0": ("stable", "10.1.0.1", "3.1.2"), "14.2": ("stable", "10.2.0.5", "")}
    # A cuDNN after the list is that of each version that gives none; experimental apart.
    cuda = {s.version: (s.level, s.cudnn) for s in rows["9.1"].supports if s.kind == "cuda"}
    assert cuda == {
        "13.1": ("stable", "9.9.9.9"),
        "13.3": ("stable", "9.9.9.9"),
        "14.0": ("experimental", "10.0.0.2"),
    }
    assert [s.version for s in rows["9.0"].supports if s.kind in ("cxx", "rocm")] == [
        "C++17",
        "7.9",
    ]


def test_architectures_merge_across_builds_for_the_releases_named_before_them():
    found = tables.read(MATRIX_SAMPLE)
    assert {row.release for row in found.architectures} == {"9.1", "9.2"}
    (x86, aarch64) = [row for row in found.architectures if row.release == "9.2"]
    assert [s.version for s in x86.supports] == ["9.0", "10.0", "12.0"]
    assert [s.version for s in aarch64.supports] == ["9.0"]
    assert x86.supports[0].detail == "Hopper; Linux x86: CUDA 14.0.1"
    # The importer makes one row of the two: an architecture once, with both builds.
    (merged,) = [row for row in compatibility.merged(found.architectures) if row.release == "9.2"]
    details = {s.version: s.detail for s in merged.supports}
    assert details["9.0"] == "Hopper; Linux x86: CUDA 14.0.1; Linux aarch64: CUDA 14.0.1"


def test_the_cadence_reads_days_months_and_tentative_dates():
    found = tables.read(MATRIX_SAMPLE)
    dates = {
        row.release: [(d.kind, d.number, str(d.date), d.precision, d.tentative) for d in row.dates]
        for row in found.schedule
    }
    assert dates["9.1"] == [
        ("branch_cut", 0, "2031-09-01", "month", False),
        ("release", 0, "2031-11-04", "day", False),
        ("patch", 1, "2031-12-01", "month", True),
    ]
    assert dates["9.2"][0] == ("branch_cut", 0, "2032-02-03", "day", False)


def test_an_html_pairing_table_gives_patches_dates_companions_and_platforms():
    found = tables.read(PAIRING_SAMPLE)
    assert not found.problems
    pairs = {row.torch_version: row for row in found.pairings}
    assert str(pairs["9.1.1"].release_date) == "2031-12-09"
    assert pairs["9.1.0"].companions == {"torchvision": "0.99.0"}  # a dash is no version
    # Its platforms come from the minor's own row (9.1.0), without a stable/experimental level.
    (platforms,) = found.platforms
    assert platforms.release == "9.1"
    assert [s.version for s in platforms.supports if s.kind == "cuda"] == ["14.0", "13.3", "13.1"]


@pytest.mark.parametrize(
    "row, problem",
    [
        ("| 9.3 | three-ten and up | C++17 | CUDA 13.0 | -- | ROCm 8.0 |", "gives no range"),
        ("| 9.3 | >=3.10, <=3.14 | C++17 | CUDA thirteen | -- | ROCm 8.0 |", "names no CUDA"),
        ("| nine | >=3.10, <=3.14 | C++17 | CUDA 13.0 | -- | ROCm 8.0 |", "nine"),
        ("| 9.3 | >=3.10, <=3.14 | C++17 | CUDA 13.0, cuBLAS 2 | -- | ROCm 8.0 |", "not a version"),
    ],
)
def test_a_row_that_cannot_be_read_is_a_problem_naming_its_line(row, problem):
    text = MATRIX_SAMPLE.replace(
        "| 9.0 | >=3.10, <=3.14 | C++17 | CUDA 13.0, CUDNN 9.8.1.1 | None | ROCm 7.9 |", row
    )
    found = tables.read(text)
    assert [line for line, _ in found.problems] == [7]
    assert problem in found.problems[0][1]


def test_a_cadence_date_that_is_no_date_is_a_problem():
    found = tables.read(MATRIX_SAMPLE.replace("4 Nov 2031", "31 Feb 2031"))
    assert found.problems == [(21, "'31 Feb 2031' is not a day of the calendar")]


# --- the importer -------------------------------------------------------------------------------


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "release.md"
    path.write_text(MATRIX_SAMPLE, encoding="utf-8")
    return path


def run(*args):
    from io import StringIO

    out = StringIO()
    call_command("import_compatibility", *map(str, args), stdout=out)
    return out.getvalue()


def test_a_dry_run_shows_the_changes_and_writes_nothing(db, sample):
    out = run(sample, "--dry-run")
    assert "new draft release 9.2" in out and "add 9.2: Python 3.16t (experimental)" in out
    assert "dry run: nothing written" in out
    assert not Release.objects.filter(version__startswith="9.").exists()


def test_an_import_adds_drafts_for_review_once_and_never_overwrites(db, sample):
    run(sample, "--source-url", "https://example.org/release.md")
    release = Release.objects.get(version="9.1")
    assert not release.is_published and release.planned  # the cadence knows it; it is not out
    rows = Support.objects.filter(release=release)
    assert rows.filter(needs_review=False).count() == 0  # every row waits for an editor
    assert rows.get(kind="cuda", version="14.0").source_line == 6
    assert ScheduleDate.objects.filter(release=release).count() == 3
    # An editor changes a row; a second import changes nothing and reports the difference.
    row = rows.get(kind="cuda", version="13.1")
    row.cudnn = "9.9.9.8"
    row.save()
    before = Support.history.count()
    out = run(sample)
    assert Support.history.count() == before
    assert "0 new release(s), 0 row(s) to review, 1 difference(s)" in out
    assert "cudnn 9.9.9.9 here, 9.9.9.8 in the catalog" in out


def test_an_unreadable_row_stops_the_import_naming_file_and_line(db, tmp_path):
    path = tmp_path / "broken.md"
    path.write_text(MATRIX_SAMPLE.replace("C++20", "C plus plus"), encoding="utf-8")
    with pytest.raises(CommandError, match=rf"^{path}:5: the C\+\+ cell"):
        run(path)
    assert not Release.objects.filter(version__startswith="9.").exists()


@pytest.mark.parametrize(
    "content, message",
    [(None, "no such file"), (b"\xff\xfe", "not UTF-8"), (b"# nothing here\n", "no compatibility")],
)
def test_what_is_not_a_table_file_is_one_clear_error(db, tmp_path, content, message):
    path = tmp_path / "input.md"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(CommandError, match=message):
        run(path)


# --- the curated catalog against its sources ---------------------------------------------------


def supports(version, kind, level=None):
    rows = Support.objects.published().filter(release__version=version, kind=kind)
    if level:
        rows = rows.filter(level=level)
    return rows


@pytest.mark.parametrize("version", sorted(MATRIX["matrix"]))
def test_each_release_runs_on_what_the_release_matrix_says(full_catalog, version):
    key = MATRIX["matrix"][version]
    low, high = (int(key[name].split(".")[1]) for name in ("python_min", "python_max"))
    stable = {f"3.{n}" for n in range(low, high + 1)}
    python = supports(version, "python")
    assert stable <= set(python.values_list("version", flat=True))
    for experimental in key["python_experimental"]:
        assert python.get(version=experimental).level == "experimental"
    for level in ("stable", "experimental"):
        expected = {(c["version"], c["cudnn"], c["nccl"]) for c in key[f"cuda_{level}"]}
        held = supports(version, "cuda").filter(level=level, source_url=MATRIX["source"])
        assert set(held.values_list("version", "cudnn", "nccl")) == expected
    rocm = supports(version, "rocm").filter(source_url=MATRIX["source"])
    assert set(rocm.values_list("version", flat=True)) == {r for r in key["rocm"] if r}
    if key["cxx"]:
        assert supports(version, "cxx").get().version == key["cxx"]


@pytest.mark.parametrize("version", sorted(MATRIX["cadence"]))
def test_each_release_has_the_schedule_of_the_cadence_table(full_catalog, version):
    key = MATRIX["cadence"][version]
    names = {
        "branch_cut": ("branch_cut", 0),
        "release_date": ("release", 0),
        "first_patch": ("patch", 1),
        "second_patch": ("patch", 2),
    }
    for name, (kind, number) in names.items():
        row = ScheduleDate.objects.filter(release__version=version, kind=kind, number=number)
        if key[name] is None:
            assert not row.exists()
        else:
            assert row.get().shown_date() == key[name]["date"]
            assert row.get().tentative == key[name]["tentative"]


@pytest.mark.parametrize("torch", sorted(PAIRINGS["rows"]))
def test_each_torch_version_has_its_date_and_companions(full_catalog, torch):
    key = PAIRINGS["rows"][torch]
    paired = dict(
        Companion.objects.published().filter(torch_version=torch).values_list("library", "version")
    )
    assert paired == {lib: v for lib, v in key["companions"].items() if v}
    minor = ".".join(torch.split(".")[:2])
    if torch.endswith(".0") or not PatchRelease.objects.filter(version=torch).exists():
        release = Release.objects.get(version=minor)
        if not release.announced:  # an announced release is dated by its post
            assert str(release.release_date) == key["date"]
    else:
        assert str(PatchRelease.objects.get(version=torch).release_date) == key["date"]


def test_the_releases_the_tables_brought_are_public_as_what_they_are(full_catalog):
    assert Release.objects.get(version="2.16").planned
    assert not Release.objects.get(version="1.0").announced
    assert Release.objects.filter(is_published=False).count() == 0


# --- the API ------------------------------------------------------------------------------------


def test_a_planned_release_has_its_item_and_its_dates(full_catalog, client):
    item = client.get("/api/releases/2.16/").json()
    assert item["status"] == "planned" and item["release_date"] == "2026-12-22"
    events = {(e["event"], e["number"]): e["date"] for e in item["schedule"]}
    assert events[("branch_cut", 0)] == "2026-11-30" and events[("patch", 1)] == "2027-01"


def test_the_list_shows_the_releases_that_are_out_unless_asked(full_catalog, client):
    listed = client.get("/api/releases/", {"page_size": 100}).json()
    versions = {item["version"] for item in listed["results"]}
    assert "2.16" not in versions and "2.14" in versions and "1.0" in versions
    statuses = {item["version"]: item["status"] for item in listed["results"]}
    # 2.15 is out (the package index lists it) though not announced yet: the latest.
    assert statuses["2.15"] == "latest" and statuses["2.14"] == "superseded"
    planned = client.get("/api/releases/", {"status": "planned"}).json()
    assert [item["version"] for item in planned["results"]] == ["2.16"]


@pytest.mark.parametrize("python, cuda", [("3.13", "12.8"), ("3.9", "11.8"), ("3.12", "12.6")])
def test_filtering_by_python_and_cuda_matches_the_matrix(full_catalog, client, python, cuda):
    expected = set()
    for version, key in MATRIX["matrix"].items():
        low, high = (int(key[name].split(".")[1]) for name in ("python_min", "python_max"))
        pythons = {f"3.{n}" for n in range(low, high + 1)} | set(key["python_experimental"])
        cudas = {c["version"] for c in key["cuda_stable"] + key["cuda_experimental"]}
        if python in pythons and cuda in cudas:
            expected.add(version)
    answer = client.get("/api/releases/", {"python": python, "cuda": cuda, "page_size": 100})
    found = {item["version"] for item in answer.json()["results"]}
    assert found & set(MATRIX["matrix"]) == expected


def test_the_releases_list_reads_a_bounded_number_of_queries(full_catalog, client):
    for size in (2, 100):  # counted once: the count is cached by the revision
        client.get("/api/releases/", {"page_size": size})
    with CaptureQueriesContext(connection) as small:
        client.get("/api/releases/", {"page_size": 2})
    with CaptureQueriesContext(connection) as large:
        client.get("/api/releases/", {"page_size": 100})
    assert len(large.captured_queries) == len(small.captured_queries) <= 8


@pytest.mark.parametrize(
    "query, verdict, reason",
    [
        ({"torch": "2.4.0", "python": "3.13"}, "unsupported", "not 3.13"),
        ({"torch": "2.5.1", "python": "3.13"}, "experimental", "experimental builds"),
        ({"torch": "2.3.1", "torchvision": "0.18.1"}, "supported", "pairs with torchvision"),
        ({"torch": "2.3.1", "torchvision": "0.17.0"}, "unsupported", "0.18.1"),
        ({"torch": "2.5", "cuda": "12.4"}, "supported", "stable builds for CUDA 12.4"),
        ({"torch": "0.9", "python": "3.8"}, "unknown", "no released torch"),
    ],
)
def test_check_gives_a_verdict_with_its_reason_and_source(
    full_catalog, client, query, verdict, reason
):
    answer = client.get("/api/check/", query).json()
    assert answer["verdict"] == verdict
    assert reason in " ".join(check["reason"] for check in answer["checks"])
    if verdict != "unknown":
        assert all(check["source"]["url"].startswith("https://") for check in answer["checks"])


def test_check_names_the_newest_torch_for_a_python(full_catalog, client):
    answer = client.get("/api/check/", {"python": "3.9"}).json()
    (alternative,) = answer["alternatives"]
    newest = max(
        (v for v, key in MATRIX["matrix"].items() if key["python_min"] == "3.9"),
        key=lambda v: tuple(map(int, v.split("."))),
    )
    assert alternative["newest"] == newest == "2.8"


@pytest.mark.parametrize(
    "query, parameter",
    [
        ({"torch": "two"}, "torch"),
        ({"python": "3.x"}, "python"),
        ({"torchvision": "1"}, "torchvision"),
        ({"torch": "2.5", "gpu": "a100"}, "gpu"),
    ],
)
def test_check_refuses_what_it_cannot_read_naming_the_parameter(
    full_catalog, client, query, parameter
):
    answer = client.get("/api/check/", query)
    assert answer.status_code == 400 and parameter in answer.json()


def test_the_lifecycle_has_endoflife_dates_release_cycle_fields(full_catalog, client):
    cycles = client.get("/api/lifecycle/pytorch.json").json()
    fields = {
        "cycle",
        "releaseDate",
        "latest",
        "latestReleaseDate",
        "eol",
        "support",
        "lts",
        "link",
    }
    assert all(set(cycle) == fields for cycle in cycles)
    by_cycle = {cycle["cycle"]: cycle for cycle in cycles}
    assert "2.16" not in by_cycle  # not out yet
    # 2.15 is out, its day not known yet: no cycle of its own, and 2.14's has ended.
    assert "2.15" not in by_cycle and by_cycle["2.14"]["eol"] is True
    assert by_cycle["2.14"]["latest"] == "2.14.1" and by_cycle["2.14"]["latestReleaseDate"] is None
    assert (
        by_cycle["2.7"]["latest"] == "2.7.1"
        and by_cycle["2.7"]["eol"] == by_cycle["2.8"]["releaseDate"]
    )
    for cycle in cycles:
        assert isinstance(cycle["lts"], bool) and len(cycle["releaseDate"]) == 10


# --- pages, calendar, feed, badge -------------------------------------------------------------


def test_the_calendar_is_icalendar_with_every_dated_event(full_catalog, client):
    from icalendar import Calendar

    response = client.get("/calendar.ics")
    assert response["Content-Type"].startswith("text/calendar")
    calendar = Calendar.from_ical(response.content)
    events = {str(event["uid"]): event for event in calendar.walk("VEVENT")}
    cut = events["schedule-2.16-branch_cut-0@pytorch-catalog"]
    assert cut.decoded("dtstart").isoformat() == "2026-11-30"
    assert str(cut["url"]).endswith("/releases/2.16/")
    assert events["patch-2.7.1@pytorch-catalog"].decoded("dtstart").isoformat() == str(
        PatchRelease.objects.get(version="2.7.1").release_date
    )
    assert "release-2.14@pytorch-catalog" in events
    assert len(events) == len(set(events))  # every uid once


def test_the_schedule_feed_lists_the_dates(full_catalog, client):
    response = client.get("/feeds/schedule/")
    assert (
        response.status_code == 200 and b"PyTorch 2.16: release on 2026-12-22" in response.content
    )


def test_the_python_badge_says_a_releases_range(full_catalog, client):
    badge = client.get("/badges/releases/2.7/python.json").json()
    assert badge["label"] == "python" and badge["message"] == "3.9–3.13"
    assert client.get("/badges/releases/9.9/python.svg").status_code == 404


def test_the_compatibility_page_shows_the_grid_and_the_checks_verdict(full_catalog, client):
    page = client.get("/compatibility/", {"torch": "2.4.0", "python": "3.13"})
    body = page.content.decode()
    assert page.status_code == 200 and "Unsupported" in body and "not 3.13" in body
    assert "Python 3.13 experimental" in body  # 2.5's cell, as a screen reader reads it
    assert client.get("/compatibility/", {"torch": "soon"}).status_code == 400


def test_a_release_page_says_what_it_runs_on_and_its_patches(full_catalog, client):
    body = client.get("/releases/2.7/").content.decode()
    assert "What it runs on and pairs with" in body and "2.7.1" in body and "cuDNN" in body
    planned = client.get("/releases/2.16/").content.decode()
    assert "Planned: not out yet" in planned and "2026-12-22" in planned


def test_the_home_page_names_the_next_planned_release(full_catalog, client):
    body = client.get("/").content.decode()
    assert "Next planned" in body and "/releases/2.15/" in body


def test_a_table_on_the_web_is_read_from_its_url(db, stand_in):
    """A stand-in server on 127.0.0.1: the rows record the URL they were read from."""
    stand_in.routes["/get-started/compatibility/"] = (200, {}, PAIRING_SAMPLE.encode())
    url = stand_in.url("/get-started/compatibility/")
    out = run(url)
    assert "1 new release(s)" in out
    release = Release.objects.get(version="9.1")
    assert not release.announced and str(release.release_date) == "2031-11-04"
    patch = PatchRelease.objects.get(version="9.1.1")
    assert patch.source_url == url and patch.source_line == 5 and patch.needs_review
    stand_in.routes["/gone/"] = (404, {}, b"")
    with pytest.raises(CommandError, match="404"):
        run(stand_in.url("/gone/"))


def test_check_with_nothing_to_check_says_so(full_catalog, client):
    answer = client.get("/api/check/").json()
    assert answer["verdict"] is None and answer["checks"] == [] and answer["alternatives"] == []


def test_a_planned_patch_is_tentative_only_until_it_ships_or_its_release_is_superseded(
    full_catalog, client
):
    def outcomes(version):
        item = client.get(f"/api/releases/{version}/").json()
        return {(e["event"], e["number"]): (e["tentative"], e["outcome"]) for e in item["schedule"]}

    # The table's "tentative" stays as it was written; the outcome says what became of it.
    assert outcomes("2.14")[("patch", 1)] == (True, "done")  # 2.14.1 is out
    assert outcomes("2.13")[("patch", 1)] == (True, "not_shipped")  # 2.14 came first
    assert outcomes("2.16")[("patch", 1)] == (True, "planned")
    assert outcomes("2.16")[("release", 0)] == (False, "planned")
    assert outcomes("2.13")[("release", 0)] == (False, "done")
    page = client.get("/releases/2.13/").content.decode()
    assert "it did not ship before the next release" in page
    assert "(tentative)" not in page
    assert "(tentative)" in client.get("/releases/2.16/").content.decode()


def test_the_1_8_long_term_support_line_is_in_the_lifecycle_and_its_page(full_catalog, client):
    cycles = {c["cycle"]: c for c in client.get("/api/lifecycle/pytorch.json").json()}
    assert cycles["1.8"]["lts"] is True and cycles["1.8"]["eol"] == "2022-11-10"
    assert cycles["1.8"]["support"] == cycles["1.9"]["releaseDate"]  # patched until 1.9
    assert cycles["1.8"]["latest"] == "1.8.2"
    assert [c for c, cycle in cycles.items() if cycle["lts"]] == ["1.8"]
    item = client.get("/api/releases/1.8/").json()
    assert item["lts"] is True and item["lts_ended_date"] == "2022-11-10"
    assert "whl/lts/1.8/" in item["lts_note"] and "no macOS and no ROCm" in item["lts_note"]
    assert (
        "Long-term support, ended 10 November 2022."
        in client.get("/releases/1.8/").content.decode()
    )


def test_a_byte_order_mark_is_read_as_nothing(db, sample):
    """Issue 42: a table saved with a BOM reads as the same table, not "no table found"."""
    sample.write_text("\ufeff" + sample.read_text(encoding="utf-8"), encoding="utf-8")
    out = run(sample, "--dry-run")
    assert "add 9.2: Python 3.16t (experimental)" in out


def test_a_repeated_row_is_read_once_and_a_huge_table_not_at_all():
    """Issue 42: a row repeated 26,000 times was 52,422 differences."""
    from releases.importing.tables import MAX_TABLE_ROWS, read

    lines = MATRIX_SAMPLE.splitlines()
    row = next(line for line in lines if line.startswith("| 9.0 |"))
    header_end = lines.index(row)
    repeated = "\n".join([*lines[: header_end + 1], *[row] * 5, *lines[header_end + 1 :]])
    found = read(repeated)
    assert [p.release for p in found.platforms].count("9.0") == 1
    assert sum("repeats the row on line" in message for _, message in found.problems) == 5
    huge = "\n".join([*lines[: header_end + 1], *[row] * (MAX_TABLE_ROWS + 1)])
    found = read(huge)
    assert "9.0" not in [p.release for p in found.platforms]
    assert any("which no table of releases holds" in message for _, message in found.problems)


def test_torch_alone_gives_its_pairings_python_range_and_accelerators(client, full_catalog):
    """Issue 43: torch 2.3.1 alone gave an empty answer; the release page knew torchvision
    0.18.1 pairs with it. The page and /api/check/ give the same answer, from check()."""
    answer = client.get("/api/check/", {"torch": "2.3.1"}).json()
    pairs = {p["library"]: (p["version"], p["torch"]) for p in answer["pairs_with"]}
    assert pairs["torchvision"] == ("0.18.1", "2.3.1")  # the patch's own, not 2.3.0's
    assert answer["runs_on"]["python"][0] == "3.8" and "11.8" in answer["runs_on"]["cuda"]
    minor = client.get("/api/check/", {"torch": "2.3"}).json()
    assert {p["library"]: p["version"] for p in minor["pairs_with"]}["torchvision"] == "0.18.0"
    page = client.get("/compatibility/", {"torch": "2.3.1"}).content.decode()
    assert "torch 2.3.1 pairs with" in page and "torchvision 0.18.1" in page
    assert "has builds for Python 3.8 to 3.12" in page


def test_python_with_cuda_gives_the_newest_torch_with_both(client, full_catalog):
    answer = client.get("/api/check/", {"python": "3.9", "cuda": "11.8"}).json()
    newest = {item["for"]: item["newest"] for item in answer["alternatives"]}
    assert newest == {"Python 3.9": "2.8", "CUDA 11.8": "2.7"}  # each apart, as before
    assert answer["together"]["newest"] == "2.7"
    assert answer["together"]["for"] == "Python 3.9 with CUDA 11.8"
    page = client.get("/compatibility/", {"python": "3.9", "cuda": "11.8"}).content.decode()
    assert "the newest torch with stable builds for both is <strong>2.7</strong>" in page
    assert client.get("/api/check/", {"python": "3.9"}).json()["together"] is None


def test_the_companion_table_lists_patch_pairings(client, full_catalog):
    page = client.get("/compatibility/").content.decode().split('id="companions"')[1]
    row = re.search(r'<a href="/releases/2\.3/">2\.3</a></th>(.*?)</tr>', page, re.S).group(1)
    assert "0.18.1" in row and "(torch 2.3.1)" in row


def test_a_build_without_torch_gives_the_torch_versions_published_for_it(client, full_catalog):
    """Issue 43: any subset answers what the catalog holds: an OS, a Python, a variant alone
    give the torch versions with a wheel recorded for them."""
    windows = client.get("/api/check/", {"os": "windows"}).json()["built_for"]
    assert windows["for"] == "windows" and windows["newest"] == windows["torch"][0]
    assert windows["torch"] == sorted(windows["torch"], key=Version.parse, reverse=True)
    narrower = client.get("/api/check/", {"os": "windows", "python": "3.8"}).json()["built_for"]
    assert set(narrower["torch"]) < set(windows["torch"])
    assert client.get("/api/check/", {"torch": "2.3.1"}).json()["built_for"] is None
    page = client.get("/compatibility/", {"os": "windows"}).content.decode()
    assert (
        f"Wheels for windows: the newest torch with one published is <strong>{windows['newest']}"
        in page
    )
