"""
The pages at full size (issue 21): the stage matrix and the track list, rendered uncached with
every release of the committed fixtures loaded.

In a scratch SQLite database under production settings (DEBUG off, static files collected,
the page cache off: API_PAGE_CACHE_SECONDS=0), `load_catalog` loads the fixtures; each page
is then fetched in-process with Django's test client (the whole request: middleware, view,
queries, template), once to warm up and ``--runs`` times more; the figures are the median,
the 90th percentile and the slowest of those, against the target of 150 ms. A list's count
stays cached per catalog revision, as in production. About ten seconds.

    python -m bench.pages [--runs 30] [--out bench/results.json]

writes its figures under the key "pages_full_size" of the results file (``make bench`` does
this as one of its last steps).
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench import serve

RESULTS = Path(__file__).resolve().parent / "results.json"
KEY = "pages_full_size"
INNER = "BENCH_PAGES_INNER"
PAGES = {"matrix": "/matrix/", "tracks": "/tracks/"}
TARGET_MS = 150


def measure_isolated(runs=30):
    """Load the fixtures into a scratch catalog and measure in a child process."""
    with tempfile.TemporaryDirectory(prefix="catalog-bench-pages-") as workdir:
        env = serve.production_env(
            workdir,
            DJANGO_SETTINGS_MODULE="bench.settings",
            API_PAGE_CACHE_SECONDS=0,
            **{INNER: 1},
        )
        serve.prepare(env, load_fixtures=True, collectstatic=True)
        return serve.measure_in_child("bench.pages", ["--runs", runs], env)


def measure(runs):
    """In the catalog named by DATABASE_URL: each page's render times, in milliseconds."""
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    from releases.models import Release, Track

    client = Client()
    figures = {
        "catalog_releases": Release.objects.published().count(),
        "catalog_tracks": Track.objects.published().count(),
        "runs": runs,
        "target_ms": TARGET_MS,
    }
    for name, path in PAGES.items():
        queries = []  # counted as the database sees them (DEBUG is off)

        def counted(execute, sql, params, many, context, queries=queries):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(counted):
            response = client.get(path)  # warms up: templates compiled, the count cached
        if response.status_code != 200:
            raise SystemExit(f"GET {path} answered {response.status_code}")
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            client.get(path)
            times.append((time.perf_counter() - started) * 1000)
        figures[name] = {
            "path": path,
            "median_ms": round(statistics.median(times), 1),
            "p90_ms": round(statistics.quantiles(times, n=10)[-1], 1),
            "max_ms": round(max(times), 1),
            "queries": len(queries),
            "page_kb": round(len(response.content) / 1024, 1),
        }
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--out", default=None, help="a results file to write the figures into")
    args = parser.parse_args(argv)
    if os.environ.get(INNER) == "1":
        print(json.dumps(measure(args.runs)))
        return None
    return serve.write_figures(args.out, KEY, measure_isolated(args.runs))


if __name__ == "__main__":
    main()
