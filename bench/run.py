"""
The catalog's benchmark: `make bench`.

    python -m bench.run [--features 100000] [--small-features 10000] [--seconds 8] [--out FILE]
    python -m bench.run --tiny --out FILE       # the machinery on a tiny catalog (the tests)

1. Bulk-loads a synthetic catalog (features over a few hundred releases, 3 links each) and
   times it; times `loaddata` on a natural-key fixture of a subset of it, per object.
2. Serves it with `make serve`'s stack (production settings, gunicorn with 2 sync workers,
   whitenoise) on loopback, and loads each URL with wrk for a bounded time: a hand-written
   .values() + JsonResponse baseline of the same page, the features list, a filtered list, a
   deep page, then the page-cache hit and the conditional (304) path.
3. Does the filtered page again on a catalog a tenth the size, for how latency scales.
4. Prints a table and writes the figures to bench/results.json.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench import load, serve

RESULTS = Path(__file__).resolve().parent / "results.json"
BASELINES = {"list": "baseline", "filtered": "baseline_filtered", "deep": "baseline_deep"}
TARGETS = {
    "list_ratio": 0.75,
    "filtered_ratio": 0.75,
    "deep_page_ratio": 0.5,
    "cached_ratio": 3.0,
}


def module(env, name, *args):
    """Run ``python -m bench.NAME`` in the catalog's environment; its last line is JSON."""
    result = subprocess.run(
        [serve.PYTHON, "-m", f"bench.{name}", *map(str, args)],
        env=env,
        cwd=serve.ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        raise SystemExit(f"bench.{name} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def bench_env(workdir, **overrides):
    return serve.production_env(
        workdir,
        DJANGO_SETTINGS_MODULE="bench.settings",
        API_ANON_RATE="1000000/minute",  # throttling stays on, at a rate wrk cannot reach
        **overrides,
    )


def build_catalog(workdir, features, releases):
    env = bench_env(workdir)
    serve.prepare(env, load_fixtures=False)
    return env, module(env, "generate", "--features", features, "--releases", releases)


def loaddata_comparison(big_env, workdir, subset_features):
    fixture = Path(workdir) / "subset.json"
    module(big_env, "fixtures", "export", "--features", subset_features, "--out", fixture)
    env = bench_env(Path(workdir) / "loaddata")
    Path(workdir, "loaddata").mkdir(exist_ok=True)
    serve.prepare(env, load_fixtures=False)
    return module(env, "fixtures", "load", fixture)


def etag_of(url):
    with urllib.request.urlopen(url) as response:
        return response.headers["ETag"]


def same_page(url, product, baseline):
    """The product and the baseline must serve the same items, or the ratio means nothing."""
    pages = []
    for path in (product, baseline):
        with urllib.request.urlopen(url + path) as response:
            pages.append(json.load(response))
    if pages[0]["count"] != pages[1]["count"] or pages[0]["results"] != pages[1]["results"]:
        raise SystemExit(f"{product} and {baseline} do not serve the same page")
    return len(pages[0]["results"])


def run(args):
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="catalog-bench-"))
    big_dir, small_dir = workdir / "big", workdir / "small"
    big_dir.mkdir(parents=True, exist_ok=True)
    small_dir.mkdir(parents=True, exist_ok=True)
    say = print if not args.quiet else (lambda *a, **k: None)

    say(f"Generating {args.features} features over {args.releases} releases ...")
    big_env, generated = build_catalog(big_dir, args.features, args.releases)
    say(f"  bulk load: {generated['objects']} objects in {generated['seconds']} s")
    subset = max(1, args.features // 20)
    say(f"loaddata of a {subset}-feature subset ...")
    loaded = loaddata_comparison(big_env, workdir, subset)
    say(f"  loaddata: {loaded['objects']} objects in {loaded['seconds']} s")
    small_releases = max(4, args.releases // 10)
    _, small = build_catalog(small_dir, args.small_features, small_releases)

    release = generated["middle_release"]
    last_page = max(1, generated["features"] // 50 - 1)
    urls = {
        "baseline": "/bench/baseline/features/?page=1",
        "list": "/api/features/?page=1",
        "baseline_filtered": f"/bench/baseline/features/?release={release}&stability=beta",
        "filtered": f"/api/features/?release={release}&stability=beta",
        "baseline_deep": f"/bench/baseline/features/?page={last_page}",
        "deep": f"/api/features/?page={last_page}",
    }
    queries = module(
        big_env,
        "queries",
        urls["list"],
        urls["filtered"],
        urls["deep"],
        f"{urls['list']}&page_size=100",
    )
    rows = {}

    def measure(url, **options):
        return load.measure(url, args.seconds, use_wrk=args.wrk, **options)

    say("Serving the uncached stack (page cache off) ...")
    with serve.running({**big_env, "API_PAGE_CACHE_SECONDS": "0"}) as url:
        for name, baseline_name in BASELINES.items():
            items = same_page(url, urls[name], urls[baseline_name])
            say(f"  {name}: the product and the baseline serve the same {items} items")
        for name in ["baseline", "list", "baseline_filtered", "filtered", "baseline_deep", "deep"]:
            load.measure(url + urls[name], min(1, args.seconds), use_wrk=args.wrk)  # warm up
            rows[name] = measure(url + urls[name])
            say(f"  {name}: {rows[name].requests_per_second:.0f} requests/s")
    say("Serving with the page cache on ...")
    with serve.running(big_env) as url:
        page = url + urls["list"]
        etag = etag_of(page)
        etag_of(page)
        rows["cached"] = measure(page)
        rows["conditional"] = measure(page, headers={"If-None-Match": etag})
    say("Serving the small catalog ...")
    small_release = small["middle_release"]
    with serve.running({**bench_env(small_dir), "API_PAGE_CACHE_SECONDS": "0"}) as url:
        small_filtered = url + f"/api/features/?release={small_release}&stability=beta"
        load.measure(small_filtered, min(1, args.seconds), use_wrk=args.wrk)
        rows["filtered_small"] = measure(small_filtered)

    baseline = rows["baseline"].requests_per_second

    def ratio(name, base="baseline"):
        return rows[name].requests_per_second / rows[base].requests_per_second

    bulk_rate = generated["objects"] / generated["seconds"]
    loaddata_rate = loaded["objects"] / loaded["seconds"]
    results = {
        "list_ratio": round(ratio("list"), 3),
        "filtered_ratio": round(ratio("filtered", "baseline_filtered"), 3),
        "deep_page_ratio": round(ratio("deep", "baseline_deep"), 3),
        "cached_ratio": round(ratio("cached"), 3),
        "conditional_ratio": round(ratio("conditional"), 3),
        "queries_per_page": max(queries.values()),
        "queries": queries,
        "import_seconds": generated["seconds"],
        "import_features": generated["features"],
        "import_objects": generated["objects"],
        "loaddata_seconds": loaded["seconds"],
        "loaddata_objects": loaded["objects"],
        "loaddata_speedup": round(bulk_rate / loaddata_rate, 2),
        "filtered_latency_scaling": round(
            rows["filtered"].p50_ms / rows["filtered_small"].p50_ms, 3
        ),
        "small_catalog_features": small["features"],
        "baseline_requests_per_second": round(baseline, 1),
        "load_generator": rows["list"].tool,
        "seconds_per_run": args.seconds,
        "measurements": {
            name: {
                "requests_per_second": round(row.requests_per_second, 1),
                "p50_ms": round(row.p50_ms, 3),
                "p99_ms": round(row.p99_ms, 3),
                "requests": row.requests,
                "errors": row.errors,
            }
            for name, row in rows.items()
        },
    }
    return results, rows, urls


def table(results, rows):
    queries = results["queries"]
    query_for = {
        "list": queries.get(next(k for k in queries if k.endswith("page=1")), ""),
        "filtered": next((v for k, v in queries.items() if "stability" in k), ""),
        "deep": next((v for k, v in queries.items() if "page=" in k and not k.endswith("=1")), ""),
        "cached": 0,
        "conditional": 0,
    }
    bases = {"list": "baseline", "filtered": "baseline_filtered", "deep": "baseline_deep",
             "cached": "baseline", "conditional": "baseline", "filtered_small": None}  # fmt: skip
    lines = [f"{'run':18} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'queries':>8} {'ratio':>7}"]
    for name, row in rows.items():
        base = bases.get(name)
        ratio = f"{row.requests_per_second / rows[base].requests_per_second:.2f}x" if base else ""
        lines.append(
            f"{name:18} {row.requests_per_second:9.0f} {row.p50_ms:8.2f} {row.p99_ms:8.2f} "
            f"{query_for.get(name, ''):>8} {ratio:>7}"
        )
    lines.append("")
    lines.append(
        f"bulk import: {results['import_features']} features ({results['import_objects']} objects) "
        f"in {results['import_seconds']} s; loaddata {results['loaddata_objects']} objects in "
        f"{results['loaddata_seconds']} s: bulk is {results['loaddata_speedup']}x faster per object"
    )
    lines.append(
        f"filtered page p50 at {results['import_features']} features / at "
        f"{results['small_catalog_features']}: {results['filtered_latency_scaling']}x; "
        f"SQL queries per list page: at most {results['queries_per_page']}"
    )
    verdicts = [
        f"{key} {results[key]} (target {'≥' if key != 'queries_per_page' else '≤'} {target})"
        for key, target in {**TARGETS, "queries_per_page": 3}.items()
    ]
    lines.append("targets: " + "; ".join(verdicts))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description="The catalog's benchmark.")
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--releases", type=int, default=400)
    parser.add_argument("--small-features", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=8, help="per measured URL")
    parser.add_argument("--workdir", help="where the databases go (default: a temporary folder)")
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--tiny", action="store_true", help="a tiny catalog, short runs")
    parser.add_argument(
        "--python-load",
        dest="wrk",
        action="store_false",
        default=None,
        help="use the Python load generator even where wrk is installed",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.tiny:
        args.features, args.releases, args.small_features, args.seconds = 400, 8, 100, 0.5
    if args.wrk is None and not load.wrk_available():
        print("wrk is not installed (apt-get install wrk): using the Python load generator, "
              "whose figures are not worth quoting.", file=sys.stderr)  # fmt: skip
    started = time.monotonic()
    results, rows, _ = run(args)
    results["bench_seconds"] = round(time.monotonic() - started, 1)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if not args.quiet:
        print()
        print(table(results, rows))
        print(f"\nWrote {args.out}")
    return results


if __name__ == "__main__":
    main()
