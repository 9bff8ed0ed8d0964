"""`make bench` is not part of the suite, but its machinery runs here once, on a tiny catalog."""

import json

from bench import run


def test_the_benchmark_runs_end_to_end_on_a_tiny_catalog(tmp_path):
    out = tmp_path / "results.json"
    results = run.main(
        ["--tiny", "--python-load", "--quiet", "--out", str(out), "--workdir", str(tmp_path)]
    )
    written = json.loads(out.read_text())
    assert written == results
    for key in [
        "list_ratio",
        "filtered_ratio",
        "deep_page_ratio",
        "cached_ratio",
        "queries_per_page",
        "import_seconds",
        "import_features",
        "loaddata_speedup",
    ]:
        assert isinstance(written[key], int | float) and written[key] > 0, key
    assert written["import_features"] == 400
    assert written["queries_per_page"] <= 3
    assert all(row["errors"] == 0 for row in written["measurements"].values())
    assert written["measurements"]["conditional"]["requests"] > 0
