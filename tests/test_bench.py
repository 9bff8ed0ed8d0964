"""`make bench` is not part of the suite, but its machinery runs here once, on a tiny catalog."""

import contextlib
import http.server
import json
import statistics
import threading
import time
from urllib.parse import urlsplit

import pytest

from bench import kept, load, run, serve

pytestmark = pytest.mark.bench


@pytest.fixture
def own_databases(monkeypatch, worker_id):
    """
    On PostgreSQL, the benchmark's scratch databases take their names from DATABASE_URL's
    database (run.scratch_postgres): a name of this pytest-xdist worker's own, so two workers
    building catalogs at once never drop each other's.
    """
    server = run.postgres_url()
    if server:
        parts = urlsplit(server)
        own = parts._replace(path=f"{parts.path}_{worker_id}").geturl()
        monkeypatch.setenv("DATABASE_URL", own)


RATIOS = ["list_ratio", "filtered_ratio", "deep_page_ratio", "ceiling_ratio"]


def test_the_benchmark_runs_end_to_end_on_a_tiny_catalog(tmp_path, own_databases):
    out = tmp_path / "results.json"
    # Each database of the suite's run: SQLite's, or the PostgreSQL server DATABASE_URL names
    # (CI runs the suite once on each; the SQLite half has run SQLite's benchmark).
    databases = ["postgres"] if run.postgres_url() else ["sqlite"]
    # The imports run at the readers' priority: niced, they would wait behind whatever the
    # suite's other worker runs, and the test would take minutes instead of seconds.
    results = run.main(
        ["--tiny", "--python-load", "--quiet", "--import-nice", "0", f"--{databases[0]}-only"]
        + ["--out", str(out), "--workdir", str(tmp_path)]
    )
    written = json.loads(out.read_text())
    assert written == results
    assert [name for name in ("sqlite", "postgres") if name in written] == databases
    top = {key: written[key] for key in RATIOS}
    assert top == {key: written[databases[0]][key] for key in RATIOS}
    for database in databases:
        figures = written[database]
        for key in [*RATIOS, "p99_during_import_ratio", "cached_ratio", "loaddata_speedup"]:
            assert isinstance(figures[key], int | float) and figures[key] > 0, (database, key)
        for key in [*RATIOS, "p99_during_import_ratio"]:
            # The median of five rounds, and how far apart the rounds were.
            assert (
                len(figures["round_ratios"][key.removesuffix("_ratio").replace("_page", "")]) == 5
            )
            low, high = figures[f"{key}_interval"]
            assert low <= figures[key] <= high and figures[f"{key}_spread"] == round(high - low, 3)
        assert figures["median_confidence"] == 0.938  # five rounds, smallest to largest
        # The control: the filtered baseline against itself, in the same rounds, recorded as
        # every ratio is (it has no target: its interval is the machine's own spread).
        low, high = figures["noise_ratio_interval"]
        assert low <= figures["noise_ratio"] <= high and len(figures["round_ratios"]["noise"]) == 5
        assert figures["measurements"]["noise_a"]["requests"] > 0
        assert figures["import_features"] == 400 and figures["csv_rows"] == 400
        # Issue 31: the last page read by number and by cursor, beside the first page.
        for key in ["first_page_p50_ms", "deep_page_p50_ms", "cursor_deep_page_p50_ms"]:
            assert isinstance(figures[key], int | float) and figures[key] > 0, (database, key)
        # A page's cost, one request at a time, in turns (the p50s' ratio).
        assert figures["cursor_deep_page_ratio"] > 0 and figures["comparisons"] == "interleaved"
        assert len(figures["round_ratios"]["cursor_deep_page"]) == 5
        assert figures["cursor_deep_page_ratio_spread"] >= 0
        assert figures["queries_per_page"] <= 4 and figures["queries_per_page_cached"] <= 3
        # The revision, then a list's first request in a revision counts it (4 queries); then
        # 3, its pages too.
        assert figures["queries_per_page"] == 4
        assert all(q["count_cached"] == 3 for q in figures["queries"].values())
        assert figures["import_read_errors"] == 0
        # Every round's reads met at least one import, run from start to commit.
        assert figures["imports_during_reads"] >= 5
        assert 0 < figures["worker_rss_mb"] < 1000 and figures["csv_rss_growth_mb"] < 1000
        # Issue 44: the notifications worker, every delivery made and received once.
        assert figures["notify_deliveries"] == figures["notify_received"] == 200
        assert figures["notify_rss_growth_mb"] < 1000
        # Issue 45: a worker's peak under clients at once (8 in the tiny run), then a soak
        # whose RSS is sampled at its start and end.
        assert 0 < figures["worker_rss_64_clients_mb"] < 1000
        assert figures["concurrent_clients"] == 8 and figures["concurrent_requests"] > 8
        assert figures["concurrent_errors"] == 0 and figures["soak_errors"] == 0
        assert len(figures["soak_rss_mb"]) >= 2 and figures["soak_requests"] > 0
        assert abs(figures["soak_rss_growth_percent"]) < 100
        assert all(row["errors"] == 0 for row in figures["measurements"].values())
        assert figures["measurements"]["conditional"]["requests"] > 0
        assert min(figures["mixes"].values()) > 1  # many pages and filters, not one URL
        # Issue 40: /api/check/ and /api/install/ against their answers by hand, and their
        # page-cache hits against the ceiling, on the fixtures' catalog.
        install = written["install"][database]
        for key in ["check_ratio", "install_ratio", "check_ceiling_ratio", "install_ceiling_ratio"]:
            assert isinstance(install[key], int | float) and install[key] > 0, (database, key)
            assert install[f"{key}_spread"] >= 0 and len(install[f"{key}_interval"]) == 2
        assert install["questions"] > 100 and install["rounds"] == 5
    # Issue 42: each download against a bomb, stacked encodings and an endless answer: refused
    # in one line; an editor saved while watch_blog read a large feed.
    hostile = written["hostile_downloads"]
    assert len(hostile["downloads"]) == 9 and hostile["refusals_not_one_line"] == 0
    assert all(0 < run["peak_mb"] < 1000 for run in hostile["downloads"].values())
    assert hostile["editor_saves"] > 0 and not hostile["editor_save_failures"]


def test_spaced_pages_cover_a_range_evenly():
    assert run.spaced(1, 100, 5) == [1, 26, 50, 75, 100]
    assert run.spaced(1, 3, 10) == [1, 2, 3]
    assert run.spaced(7, 7, 4) == [7]


def test_a_comparison_reports_its_median_round_and_an_interval_of_it():
    def row(rate):
        return load.Measurement(rate, 1.0, 2.0, 10, 0, "python")

    rounds = load.Rounds({"a": [row(90), row(100), row(80)], "b": [row(100)] * 3})
    summary = load.summary(rounds.ratios("a", "b"))
    # Three rounds: the interval is all of them, and holds the median 75% of the time.
    assert (summary.median, summary.interval, summary.spread) == (0.9, [0.8, 1.0], 0.2)
    assert summary.confidence == 0.75
    assert rounds.merged("a").requests_per_second == 90 and rounds.merged("a").requests == 30


def test_the_interval_of_the_median_drops_the_outer_rounds_only_when_enough_are_left():
    # PostgreSQL's filtered rounds of run 1 (issue 45): one round met a vacuum.
    seven = [0.801, 1.016, 1.017, 1.043, 1.127, 1.133, 1.155]
    assert load.summary(seven).interval == [0.801, 1.155]  # 7 rounds: the 2nd to 6th cover 87.5%
    assert load.summary(seven).confidence == 0.984
    nine = [*seven, 1.05, 1.06]
    assert load.summary(nine).interval == [1.016, 1.133]  # 9 rounds: the 2nd to 8th, 96.1%
    assert load.summary(nine).confidence == 0.961
    assert load.summary([1.0] * 12).confidence == 0.961  # 12 rounds: the 3rd to the 10th
    assert load.coverage(12, 2) == 1 - 2 * (1 + 12 + 66) / 4096


class Timed(http.server.BaseHTTPRequestHandler):
    """A keep-alive server whose /fast answers after 2 ms and /slow after 4; /gone is a 404."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # the headers and the body are two writes
    asked = []

    def do_GET(self):
        self.asked.append(self.path)
        time.sleep({"/fast": 0.002, "/slow": 0.004}.get(self.path, 0))
        body = b"{}"
        self.send_response(404 if self.path == "/gone" else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def timed_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Timed)
    Timed.asked = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_comparison_takes_turns_request_by_request_and_times_each_side_alone(timed_server):
    # The warm-up's 0.2 s hold about 40 turns, so the first 8 requests are its own even on a
    # loaded machine (its cycle of orders starts afresh in each round).
    result = load.alternate(
        timed_server, {"slow": ["/slow"], "fast": ["/fast", "/gone"]}, 3, 0.1, warm_up=0.1
    )
    # The turns go through both orders in turn: neither side always follows the other.
    sides = ["slow" if path == "/slow" else "fast" for path in Timed.asked[:8]]
    assert sides == ["slow", "fast", "fast", "slow", "slow", "fast", "fast", "slow"]
    slow, fast = result.merged("slow"), result.merged("fast")
    assert len(result.sides["slow"]) == len(result.sides["fast"]) == 3
    for slow_row, fast_row in zip(result.sides["slow"], result.sides["fast"], strict=True):
        # Each side as many requests as the other, and each rate over that side's own time:
        # together, the round's 0.2 s (over the round's time, each would be 0.2 s).
        assert slow_row.requests == fast_row.requests
        own = [row.requests / row.requests_per_second for row in (slow_row, fast_row)]
        assert 0.2 <= sum(own) < 0.25 and own[0] > own[1]
    # /fast (half of its requests the 404's no wait) is far faster than /slow (4 ms each);
    # a rate over the round's time would make them equal.
    assert statistics.median(result.ratios("fast", "slow")) > 1.5
    assert slow.p50_ms >= 4 and slow.errors == 0 and 0 < fast.errors < fast.requests
    assert slow.tool == "interleaved"


def test_three_sides_take_every_order_in_turn(timed_server):
    # A round lasts as long as its requests take: 0.6 s holds the 18 requests of six turns
    # even where each takes 30 ms (0.01 s once held only four turns on a busy CI machine).
    load.alternate(timed_server, {"a": ["/a"], "b": ["/b"], "c": ["/c"]}, 1, 0.2, warm_up=0)
    turns = ["".join(path[1] for path in Timed.asked[i : i + 3]) for i in range(0, 18, 3)]
    assert sorted(turns) == ["abc", "acb", "bac", "bca", "cab", "cba"]


def test_a_side_with_no_answer_stops_the_comparison():
    nobody = f"http://127.0.0.1:{serve.free_port()}"  # refused: no server listens there
    with pytest.raises(RuntimeError, match="a had no answer"):
        load.alternate(nobody, {"a": ["/a"]}, 1, 0.01, warm_up=0)


def test_a_target_is_met_only_when_the_whole_interval_meets_it():
    # Issue 45: 0.916 met 0.9 once, and the next run gave 0.888.
    assert load.verdict("≥", 0.9, 0.916, [0.888, 0.95]) == load.WITHIN
    assert load.verdict("≥", 0.9, 0.888, [0.86, 0.92]) == load.MISSED
    assert load.verdict("≥", 0.9, 0.96, [0.91, 1.0]) == load.MET
    assert load.verdict("≤", 2.0, 0.96, [0.8, 1.2]) == load.MET
    assert load.verdict("≤", 2.0, 1.9, [1.7, 2.1]) == load.WITHIN
    assert load.verdict("≤", 150, 126.0) == load.MET  # a figure of one measurement: no interval
    figures = load.recorded("filtered_ratio", load.summary([0.93, 0.92, 0.95, 0.91, 0.94]))
    assert figures["filtered_ratio_interval"] == [0.91, 0.95]
    assert load.judged(figures, "filtered_ratio", "≥", 0.9) == ("0.93 (0.91 to 0.95)", load.MET)


def test_a_generated_catalog_is_kept_for_the_next_run_of_the_same_code(
    tmp_path, monkeypatch, own_databases
):
    """
    The second build of the same catalog by the same code copies the one the first kept
    (bench/kept.py), on the suite's database: a SQLite file, or a template on the PostgreSQL
    server; the copy holds what the load made.
    """
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "kept"))
    server = run.postgres_url()
    with run.databases("postgres" if server else "sqlite", tmp_path) as urls:
        try:
            built = {
                name: run.build_catalog(tmp_path / name, urls[name], 60, 4)
                for name in ("big", "small")
            }
            counts = {name: features_in(env["DATABASE_URL"]) for name, (env, _) in built.items()}
        finally:
            kept.forget(kept.digest(60, 4), urls["big"])
    first, second = built["big"][1], built["small"][1]
    assert first.pop("catalog_reused") is False and second.pop("catalog_reused") is True
    assert first == second and first["features"] == 60
    assert counts == {"big": 60, "small": 60}


def features_in(database_url):
    if database_url.startswith("sqlite:///"):
        import sqlite3

        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as db:
            return db.execute("SELECT count(*) FROM releases_feature").fetchone()[0]
    import psycopg

    with psycopg.connect(database_url) as db:
        return db.execute("SELECT count(*) FROM releases_feature").fetchone()[0]
