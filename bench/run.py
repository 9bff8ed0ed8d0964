"""
The catalog's benchmark: `make bench` (bench/README.md).

    python -m bench.run [--features 100000] [--rounds 5] [--seconds 3] [--out FILE]
    DATABASE_URL=postgres://... python -m bench.run      # SQLite, then the same on PostgreSQL
    python -m bench.run --tiny --out FILE                # the machinery on a tiny catalog (tests)

On each database (SQLite always; PostgreSQL too when DATABASE_URL points at a server, in
scratch databases it creates there and drops):

1. Bulk-loads a synthetic catalog and times it; times `loaddata` on a natural-key fixture
   of a subset of it, per object.
2. Serves it with `make serve`'s stack (production settings, gunicorn with 2 threaded
   workers, whitenoise, throttling on) on loopback, and compares, in rounds where the two
   take turns request by request on one connection (the baseline, the product, the product,
   the baseline, ...), the hand-written baseline and the API on mixes of many pages and
   filters, with the page cache off: lists, filtered lists, deep pages.
3. Reads while `import_post` imports large posts back to back (a batch job, niced), against
   rounds of the same reads alone.
4. With the page cache on: cache hits against the ceiling (a zero-query view under the same
   stack), and conditional requests.
5. Does a filtered page on a catalog a tenth the size, for how latency scales; streams the
   whole list as CSV from one worker, for its memory; reads every worker's peak memory.

Prints a table per database and writes bench/results.json: the top-level keys are SQLite's,
and the same keys are under "sqlite" and (when measured) "postgres".
"""

import argparse
import concurrent.futures
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from bench import admin, concurrency, hostile, kept, load, post, serve
from bench import install as install_bench
from bench import pages as page_bench
from bench.generate import release_version

RESULTS = Path(__file__).resolve().parent / "results.json"
PAGE_SIZE = 50
TARGETS = {  # key: (at least or at most, target)
    "list_ratio": ("≥", 1.1),
    "filtered_ratio": ("≥", 0.9),
    "deep_page_ratio": ("≥", 0.5),
    "cached_ratio": ("≥", 3.0),
    # Issue 31: a page-cache hit costs little more than a request with nothing behind it.
    "ceiling_ratio": ("≥", 0.8),
    # Issue 31: the last page of the features list, read by cursor, against the first page.
    "cursor_deep_page_ratio": ("≤", 1.5),
    "p99_during_import_ratio": ("≤", 2.0),
    "import_read_errors": ("≤", 0),
    "worker_rss_mb": ("≤", 150),
    "csv_rss_growth_mb": ("≤", 20),
    # Issue 45: a worker read by 64 clients at once for a minute, then its RSS over a soak.
    "worker_rss_64_clients_mb": ("≤", 200),
    "soak_rss_growth_percent": ("≤", 5),
    # Issue 44: the notifications worker keeps nothing per delivery, over 10,000 of them.
    "notify_rss_growth_mb": ("≤", 10),
    # One more than before issue 29: the catalog's revision is a row read by every request.
    "queries_per_page": ("≤", 4),
    "queries_per_page_cached": ("≤", 3),
}
STABILITIES = ["stable", "beta", "prototype"]


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


def bench_env(workdir, database_url=None, **overrides):
    if database_url:
        overrides["DATABASE_URL"] = database_url
    return serve.production_env(
        workdir,
        DJANGO_SETTINGS_MODULE="bench.settings",
        API_ANON_RATE="1000000/minute",  # throttling stays on, at a rate wrk cannot reach
        **overrides,
    )


# --- databases -------------------------------------------------------------------------------


def is_postgres(url):
    return url.startswith(("postgres://", "postgresql://"))


def postgres_url():
    """DATABASE_URL, when it points at a PostgreSQL server."""
    url = os.environ.get("DATABASE_URL", "")
    return url if is_postgres(url) else None


@contextlib.contextmanager
def scratch_postgres(server_url, names):
    """
    Empty databases ``names`` on the server of ``server_url``, dropped afterwards. They are
    named after the database ``server_url`` names (``catalog_bench_big``), which need not
    exist: they are created and dropped through the server's ``postgres`` database.
    """
    import psycopg
    from psycopg import sql

    prefix = urlsplit(server_url).path.lstrip("/") or "postgres"
    databases = {name: f"{prefix}_bench_{name}" for name in names}

    def each(statement):
        with psycopg.connect(kept.maintenance_url(server_url), autocommit=True) as connection:
            for database in databases.values():
                connection.execute(sql.SQL(statement).format(sql.Identifier(database)))

    each("DROP DATABASE IF EXISTS {} WITH (FORCE)")
    each("CREATE DATABASE {}")
    try:
        yield {
            name: urlsplit(server_url)._replace(path=f"/{database}").geturl()
            for name, database in databases.items()
        }
    finally:
        each("DROP DATABASE IF EXISTS {} WITH (FORCE)")


@contextlib.contextmanager
def databases(database, workdir):
    """{"big", "small", "loaddata"}: the database URL of each (None: SQLite in its folder)."""
    names = ["big", "small", "loaddata"]
    if database == "sqlite":
        yield dict.fromkeys(names)
    else:
        with scratch_postgres(postgres_url(), names) as urls:
            yield urls


# --- the catalog -----------------------------------------------------------------------------


def build_catalog(workdir, database_url, features, releases, reuse=True):
    """
    A generated catalog in ``workdir`` (SQLite) or at ``database_url``: loaded, or copied from
    one kept by an earlier run of the same code (bench/kept.py).
    """
    fresh(workdir)
    env = bench_env(workdir, database_url)
    key = kept.digest(features, releases)
    if reuse and (generated := kept.restore(key, workdir, database_url)):
        return env, {**generated, "catalog_reused": True}
    serve.prepare(env, load_fixtures=False)
    generated = module(env, "generate", "--features", features, "--releases", releases)
    vacuumed(database_url)
    if reuse:
        kept.keep(key, workdir, database_url, generated)
    return env, {**generated, "catalog_reused": False}


def fresh(folder):
    """An empty folder for a SQLite database and its cache, whatever a last run left."""
    shutil.rmtree(folder, ignore_errors=True)
    Path(folder).mkdir(parents=True)


def loaddata_comparison(big_env, workdir, database_url, subset_features):
    fixture = Path(workdir) / "subset.json"
    module(big_env, "fixtures", "export", "--features", subset_features, "--out", fixture)
    fresh(Path(workdir) / "loaddata")
    env = bench_env(Path(workdir) / "loaddata", database_url)
    serve.prepare(env, load_fixtures=False)
    return module(env, "fixtures", "load", fixture)


class Mixes:
    """
    The pages each comparison spreads its requests over (the same for the product and the
    baseline), chosen from the lists' real sizes, which the server is asked for.
    """

    def __init__(self, url, generated, spread):
        releases = [release_version(n) for n in spaced(0, generated["releases"] - 1, spread)]
        lists = ["", *(f"stability={stability}" for stability in STABILITIES)]
        last = {filters: pages(count_of(url, filters)) for filters in lists}
        # Lists: pages from the first half of each list; deep: the last pages of each.
        self.list = [
            query(filters, f"page={page}")
            for filters in lists
            for page in spaced(1, max(1, last[filters] // 2), spread)
        ]
        self.deep = [
            query(filters, f"page={page}")
            for filters in lists
            for page in spaced(max(1, last[filters] - 9), last[filters], 10)
        ]
        self.filtered = []
        for release in releases:
            for stability in STABILITIES:
                filters = f"release={release}&stability={stability}"
                total = count_of(url, filters)
                if total:
                    self.filtered += [
                        query(filters, f"page={page}")
                        for page in range(1, min(2, pages(total)) + 1)
                    ]
        self.import_reads = self.filtered

    @staticmethod
    def product(queries):
        return [f"/api/features/?{q}" for q in queries]

    @staticmethod
    def baseline(queries):
        return [f"/bench/baseline/features/?{q}" for q in queries]


def count_of(url, filters):
    with urllib.request.urlopen(f"{url}/api/features/?{query(filters, 'page_size=1')}") as answer:
        return json.load(answer)["count"]


def first_deep_cursor(url):
    """The features list's first page, its last by number, and its last by cursor (the
    next_cursor of the page before the last): the same rows two ways."""
    last = pages(count_of(url, ""))
    with urllib.request.urlopen(f"{url}/api/features/?page={max(1, last - 1)}") as answer:
        following = urlsplit(json.load(answer)["next_cursor"])
    return {
        "first_page": "/api/features/",
        "deep_page": f"/api/features/?page={last}",
        "cursor_deep_page": f"{following.path}?{following.query}",
    }


def pages(count):
    return max(1, -(-count // PAGE_SIZE))


def spaced(first, last, count):
    """Up to ``count`` whole numbers spread evenly from ``first`` to ``last``."""
    if last <= first or count <= 1:
        return [first]
    step = (last - first) / (count - 1)
    return sorted({round(first + step * n) for n in range(count)})


def query(*parts):
    return "&".join(part for part in parts if part)


def same_pages(url, mix):
    """The product and the baseline serve the same items, or the ratios mean nothing."""
    checked = 0
    for q in mix[:: max(1, len(mix) // 5)]:
        got = []
        for path in (f"/api/features/?{q}", f"/bench/baseline/features/?{q}"):
            with urllib.request.urlopen(url + path) as response:
                got.append(json.load(response))
        if got[0]["count"] != got[1]["count"] or got[0]["results"] != got[1]["results"]:
            raise SystemExit(f"?{q}: the product and the baseline do not serve the same page")
        checked += 1
    return checked


# --- the measurements ------------------------------------------------------------------------


def alternate(url, args, sides, **options):
    """Rounds of ``sides`` (name -> paths) taking turns, as every comparison runs them."""
    return load.alternate(
        url, sides, rounds=args.rounds, seconds=args.seconds, warm_up=min(1, args.seconds),
        **options,
    )  # fmt: skip


def measure(url, args, seconds=None, **options):
    """``url`` alone for ``seconds`` (a round's, by default), with wrk's ``--connections``."""
    seconds = args.seconds if seconds is None else seconds
    return load.measure(url, seconds, use_wrk=args.wrk, connections=args.connections, **options)


def compare(url, args, mix, product="product", baseline="baseline"):
    """Rounds of the baseline and the product taking turns over ``mix``."""
    return alternate(url, args, {baseline: Mixes.baseline(mix), product: Mixes.product(mix)})


def reads_during_imports(server, env, workdir, args, mix):
    """
    Rounds of the same uncached reads alone, then while `import_post` imports large posts
    one after another for as long as the reads last (each a new draft release), so that
    every read of the second side meets an import: starting, parsing, writing, committing,
    and the recounts each commit brings. Each round starts with a second of reads, so that
    the reads alone never meet the last import's recounts.
    """
    paths = Mixes.product(mix)
    posts = itertools.count()

    def imported():
        path = post.write(Path(workdir) / "post.md", f"90.{next(posts)}", args.import_features)
        process = subprocess.Popen(
            ["nice", "-n", str(args.import_nice), serve.PYTHON, str(serve.ROOT / "manage.py"),
             "import_post", str(path), "--date", "2026-01-01"],
            env=env, cwd=serve.ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        batch_priority(process.pid, args.import_nice)
        _, errors = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"import_post failed:\n{errors.decode()[-2000:]}")

    def reads(seconds):
        return load.measure(
            server.url, seconds, connections=args.import_connections, use_wrk=args.wrk, paths=paths
        )

    side = args.import_seconds  # long enough that each side meets every phase of an import

    started = time.monotonic()
    imported()  # the first import, alone: how long one takes
    seconds = time.monotonic() - started
    sides, imports = {"reads": [], "reads_during_import": []}, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as reader:
        for _ in range(args.rounds):
            settled(env["DATABASE_URL"])
            reads(min(1, side))
            sides["reads"].append(reads(side))
            during = reader.submit(reads, side)
            while not during.done():
                imported()
                imports += 1
            sides["reads_during_import"].append(during.result())
    return load.Rounds(sides), seconds, imports


def vacuumed(database_url):
    """
    On PostgreSQL, a bulk-loaded catalog vacuumed and analysed before anything reads it, as a
    served database is: otherwise the server's autovacuum works through 425,000 new rows while
    the first comparisons run, and the first read of each new page writes its hint bits.
    """
    if not database_url:
        return
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute("VACUUM (ANALYZE)")


def settled(database_url, longest=30):
    """
    Wait (at most ``longest`` seconds) until PostgreSQL's autovacuum is done with what the last
    imports wrote, so that the reads alone are the idle figure: the benchmark's server vacuums
    at full speed (.ci/postgres.sh), and its vacuums follow the last import by a second or two.
    On SQLite, nothing runs after a commit.
    """
    if not is_postgres(database_url):
        return
    import psycopg

    started = time.monotonic()
    with psycopg.connect(database_url, autocommit=True) as connection:
        while time.monotonic() - started < longest:
            time.sleep(1)  # a vacuum starts within autovacuum_naptime (1 s) of the commit
            busy = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"
                " AND datname = current_database()"
            ).fetchone()[0]
            if not busy:
                return


def batch_priority(pid, niceness):
    """
    A batch job's share of the CPU for the process ``pid``, which leads a session of its own.
    Where Linux groups processes by session for scheduling (autogroup), a process's nice
    value only ranks it within its session, so the session's group is niced too: as a
    service manager would run a batch job beside a web server (systemd's Nice=, CPUWeight=).
    """
    try:
        Path(f"/proc/{pid}/autogroup").write_text(str(niceness))
    except OSError:  # no autogroup here: nice alone ranks it
        pass


def csv_memory(env, url_path):
    """The RSS growth of one worker streaming the whole list as CSV, and the rows it sent."""
    with serve.server(env, workers=1) as server:
        for warm in (f"{url_path}&release=1.0", "/api/features/"):
            with urllib.request.urlopen(server.url + warm) as response:
                response.read()
        (pid,) = server.worker_pids()
        serve.reset_peak_memory(pid)
        before = serve.memory_mb(pid, "VmRSS")
        started, lines = time.monotonic(), 0
        with urllib.request.urlopen(server.url + url_path, timeout=600) as response:
            while chunk := response.read(1 << 16):
                lines += chunk.count(b"\n")
        seconds = time.monotonic() - started
        peak = serve.memory_mb(pid, "VmHWM")
        return {
            "csv_rss_growth_mb": round(peak - before, 1),
            "csv_rows": lines - 1,
            "csv_seconds": round(seconds, 1),
            "worker_rss_mb": max(server.worker_memory_mb()),
        }


# --- one database ----------------------------------------------------------------------------


def run_database(args, database, workdir, say):
    workdir.mkdir(parents=True, exist_ok=True)
    big_dir, small_dir = workdir / "big", workdir / "small"
    with databases(database, workdir) as urls:
        say(f"[{database}] generating {args.features} features over {args.releases} releases ...")
        big_env, generated = build_catalog(
            big_dir, urls["big"], args.features, args.releases, reuse=args.keep_catalogs
        )
        kept_note = (
            " (kept from an earlier run of this code)" if generated["catalog_reused"] else ""
        )
        say(f"  bulk load: {generated['objects']} objects in {generated['seconds']} s{kept_note}")
        subset = max(1, args.features // 20)
        loaded = loaddata_comparison(big_env, workdir, urls["loaddata"], subset)
        say(f"  loaddata of a {subset}-feature subset: {loaded['objects']} objects in "
            f"{loaded['seconds']} s")  # fmt: skip
        small_releases = max(4, args.releases // 10)
        small_env, small = build_catalog(
            small_dir, urls["small"], args.small_features, small_releases, reuse=args.keep_catalogs
        )
        return measure_catalog(args, workdir, big_env, small_env, generated, loaded, small, say)


def measure_catalog(args, workdir, big_env, small_env, generated, loaded, small, say):
    uncached_env = {**big_env, "API_PAGE_CACHE_SECONDS": "0"}
    rows, spreads, ratios, peaks = {}, {}, {}, []

    def record(name, result, product, baseline):
        rows[baseline], rows[product] = result.merged(baseline), result.merged(product)
        ratios[name] = result.ratios(product, baseline)
        spreads[name] = load.summary(ratios[name])

    settled(big_env["DATABASE_URL"])  # the loads' autovacuums, if any, done
    say("  uncached (page cache off): rounds of turns over mixes of pages and filters")
    with serve.server(uncached_env) as server:
        mixes = Mixes(server.url, generated, args.spread)
        sample = {
            "list": f"/api/features/?{mixes.list[0]}",
            "filtered": f"/api/features/?{mixes.filtered[0]}",
            "deep": f"/api/features/?{mixes.deep[-1]}",
            "large page": "/api/features/?page=1&page_size=100",
        }
        queries = module(big_env, "queries", *sample.values())
        for name in ("list", "filtered", "deep"):
            mix = getattr(mixes, name)
            checked = same_pages(server.url, mix)
            record(name, compare(server.url, args, mix, name, f"baseline_{name}"),
                   name, f"baseline_{name}")  # fmt: skip
            ratio = spreads[name]
            say(f"    {name}: {len(mix)} pages ({checked} checked equal); median ratio "
                f"{ratio.median} ({ratio.low} to {ratio.high})")  # fmt: skip
        # The control: the baseline against itself, whose true ratio is 1. Its interval is the
        # spread this machine gives any comparison of these rounds, whatever the product does.
        baseline = Mixes.baseline(mixes.filtered)
        record("noise", alternate(server.url, args, {"noise_a": baseline, "noise_b": baseline}),
               "noise_b", "noise_a")  # fmt: skip
        say(f"    the control, the filtered baseline against itself: {spreads['noise'].median} "
            f"({spreads['noise'].low} to {spreads['noise'].high})")  # fmt: skip
        say("  the first page, the last page by number and the last page by cursor")
        paths = first_deep_cursor(server.url)
        one_by_one = alternate(server.url, args, {name: [path] for name, path in paths.items()})
        for name, path in paths.items():
            rows[name] = one_by_one.merged(name)
            say(f"    {name}: p50 {rows[name].p50_ms:.1f} ms ({path[:60]})")
        cursor_ratios = one_by_one.ratios(
            "cursor_deep_page", "first_page", value=lambda row: row.p50_ms
        )
        spreads["cursor"] = load.summary(cursor_ratios)
        say(f"  reads while import_post imports a {args.import_features}-feature post ...")
        during, import_seconds, imports = reads_during_imports(
            server, big_env, workdir, args, mixes.import_reads
        )
        rows["reads"], rows["reads_during_import"] = (
            during.merged("reads"),
            during.merged("reads_during_import"),
        )
        p99 = during.ratios("reads_during_import", "reads", value=lambda row: row.p99_ms)
        spreads["p99_during_import"] = load.summary(p99)
        say(f"    p99 {rows['reads'].p99_ms:.1f} ms alone, {rows['reads_during_import'].p99_ms:.1f}"
            f" ms during {imports} imports (one alone: {import_seconds:.1f} s)")  # fmt: skip
        peaks += server.worker_memory_mb()

    settled(big_env["DATABASE_URL"])  # the imports' autovacuums done
    say("  with the page cache: hits against the ceiling, and 304s")
    page = sample["list"]
    with serve.server(big_env) as server:
        for _ in range(2):
            etag = etag_of(server.url + page)
        ceiling = alternate(server.url, args, {"ceiling": ["/bench/ceiling/"], "cached": [page]})
        record("ceiling", ceiling, "cached", "ceiling")
        # Timed as the comparisons are, for conditional_ratio (against baseline_list).
        conditional = alternate(
            server.url, args, {"conditional": [page]}, headers={"If-None-Match": etag}
        )
        rows["conditional"] = conditional.merged("conditional")
        peaks += server.worker_memory_mb()

    say("  the small catalog, and the whole list as CSV")
    small_path = f"/api/features/?release={small['middle_release']}&stability=beta"
    with serve.server({**small_env, "API_PAGE_CACHE_SECONDS": "0"}) as server:
        measure(server.url + small_path, args, min(1, args.seconds))  # a warm-up
        rows["filtered_small"] = measure(server.url + small_path, args)
    large_path = f"/api/features/?release={generated['middle_release']}&stability=beta"
    with serve.server(uncached_env) as server:
        measure(server.url + large_path, args, min(1, args.seconds))  # a warm-up
        rows["filtered_one_url"] = measure(server.url + large_path, args)
    memory = csv_memory(uncached_env, "/api/features/?format=csv")
    if memory["csv_rows"] != generated["features"]:
        raise SystemExit(f"the CSV held {memory['csv_rows']} rows, not {generated['features']}")
    peaks.append(memory["worker_rss_mb"])
    say(f"  {args.clients} clients at once for {args.clients_seconds} s, then a soak of "
        f"{args.soak_seconds} s")  # fmt: skip
    crowd = concurrency.measure(
        big_env, generated, clients=args.clients, seconds=args.clients_seconds,
        soak_seconds=args.soak_seconds, spread=args.spread, use_wrk=args.wrk,
    )  # fmt: skip
    say(f"    peak RSS {crowd['worker_rss_64_clients_mb']} MB ({crowd['concurrent_requests']} "
        f"requests, {crowd['concurrent_errors']} errors); soak: RSS "
        f"{crowd['soak_rss_mb'][0]} -> {crowd['soak_rss_mb'][-1]} MB, "
        f"{crowd['soak_rss_growth_percent']}%")  # fmt: skip
    say(f"  the notifications worker: {args.deliveries} webhook deliveries to a receiver")
    notify = module(big_env, "notify", args.deliveries)
    say(f"    {notify['notify_deliveries']} in {notify['notify_seconds']} s; RSS "
        f"{notify['notify_rss_at_tenth_mb']} MB at a tenth, {notify['notify_rss_end_mb']} MB "
        f"at the end")  # fmt: skip

    bulk_rate = generated["objects"] / generated["seconds"]
    loaddata_rate = loaded["objects"] / loaded["seconds"]
    results = {
        **load.recorded("list_ratio", spreads["list"]),
        **load.recorded("filtered_ratio", spreads["filtered"]),
        **load.recorded("deep_page_ratio", spreads["deep"]),
        "first_page_p50_ms": round(rows["first_page"].p50_ms, 2),
        "deep_page_p50_ms": round(rows["deep_page"].p50_ms, 2),
        "cursor_deep_page_p50_ms": round(rows["cursor_deep_page"].p50_ms, 2),
        **load.recorded("cursor_deep_page_ratio", spreads["cursor"]),
        "cached_ratio": rate_ratio(rows["cached"], rows["baseline_list"]),
        "conditional_ratio": rate_ratio(rows["conditional"], rows["baseline_list"]),
        **load.recorded("ceiling_ratio", spreads["ceiling"]),
        **load.recorded("p99_during_import_ratio", spreads["p99_during_import"]),
        # The control (baseline against baseline): how far this run's rounds stray from 1.
        **load.recorded("noise_ratio", spreads["noise"]),
        # How sure each interval is that it holds the median of the rounds' ratios.
        "median_confidence": spreads["list"].confidence,
        "import_read_errors": rows["reads_during_import"].errors,
        "import_post_seconds": round(import_seconds, 1),
        "import_post_features": args.import_features,
        "imports_during_reads": imports,
        "seconds_per_import_round": args.import_seconds,
        **memory,
        **crowd,
        **notify,
        "worker_rss_mb": round(max(peaks), 1),
        "queries_per_page": max(first for first, _ in queries.values()),
        "queries_per_page_cached": max(second for _, second in queries.values()),
        "queries": {
            url: {"first": first, "count_cached": second}
            for url, (first, second) in queries.items()
        },
        "import_seconds": generated["seconds"],
        "import_features": generated["features"],
        "import_objects": generated["objects"],
        "catalog_reused": generated["catalog_reused"],
        "loaddata_seconds": loaded["seconds"],
        "loaddata_objects": loaded["objects"],
        "loaddata_speedup": round(bulk_rate / loaddata_rate, 2),
        "filtered_latency_scaling": round(
            rows["filtered_one_url"].p50_ms / rows["filtered_small"].p50_ms, 3
        ),
        "small_catalog_features": small["features"],
        "mixes": {name: len(getattr(mixes, name)) for name in ("list", "filtered", "deep")},
        "rounds": args.rounds,
        "connections": args.connections,
        "seconds_per_round": args.seconds,
        "load_generator": rows["reads"].tool,
        "comparisons": rows["list"].tool,
        "round_ratios": {
            name: [round(r, 3) for r in values]
            for name, values in {
                **ratios, "p99_during_import": p99, "cursor_deep_page": cursor_ratios
            }.items()
        },
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
    }  # fmt: skip
    return results


def rate_ratio(row, base):
    return round(row.requests_per_second / base.requests_per_second, 3)


def etag_of(url):
    with urllib.request.urlopen(url) as response:
        response.read()
        return response.headers["ETag"]


# --- the report ------------------------------------------------------------------------------


def table(results, database):
    measurements = results["measurements"]
    ratio_of = {
        "list": results["list_ratio"],
        "filtered": results["filtered_ratio"],
        "deep": results["deep_page_ratio"],
        "cached": results["ceiling_ratio"],
        "reads_during_import": results["p99_during_import_ratio"],
    }
    lines = [f"{database}:", f"{'run':22} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>7}"]
    for name, row in measurements.items():
        ratio = f"{ratio_of[name]:.2f}x" if name in ratio_of else ""
        lines.append(
            f"{name:22} {row['requests_per_second']:9.0f} {row['p50_ms']:8.2f} "
            f"{row['p99_ms']:8.2f} {ratio:>7}"
        )
    lines.append(
        f"bulk import: {results['import_features']} features ({results['import_objects']} "
        f"objects) in {results['import_seconds']} s; loaddata {results['loaddata_objects']} "
        f"objects in {results['loaddata_seconds']} s: {results['loaddata_speedup']}x per object"
    )
    lines.append(
        f"CSV of {results['csv_rows']} rows in {results['csv_seconds']} s; SQL a page: "
        f"{results['queries_per_page']} ({results['queries_per_page_cached']} once counted)"
    )
    for key, (relation, target) in TARGETS.items():
        shown, said = load.judged(results, key, relation, target)
        lines.append(f"  {key:26} {shown:24} target {relation} {target}: {said}")
    if "noise_ratio" in results:
        low, high = results["noise_ratio_interval"]
        holds = "holds 1" if low <= 1 <= high else "MISSES 1: the rounds' interval is too narrow"
        shown = load.shown(results, "noise_ratio")
        lines.append(f"  {'noise_ratio (control)':26} {shown:24} {holds}")
    return "\n".join(lines)


def run(args):
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="catalog-bench-"))
    say = print if not args.quiet else (lambda *a, **k: None)
    chosen = ["sqlite"] + (["postgres"] if postgres_url() and not args.sqlite_only else [])
    if args.postgres_only:
        if not postgres_url():
            raise SystemExit("--postgres-only: DATABASE_URL names no PostgreSQL server.")
        chosen = ["postgres"]
    per_database = {}
    for database in chosen:
        per_database[database] = run_database(args, database, workdir / database, say)
    # The top level holds the first database's figures (SQLite's, where it ran).
    return {**per_database[chosen[0]], **per_database}


def main(argv=None):
    parser = argparse.ArgumentParser(description="The catalog's benchmark.")
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--releases", type=int, default=400)
    parser.add_argument("--small-features", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9, help="of each compared pair (≥ 5)")
    parser.add_argument("--seconds", type=float, default=3, help="of each side of a round")
    parser.add_argument(
        "--connections",
        type=int,
        default=1,
        help="wrk's connections for single measurements (each comparison takes one connection)",
    )
    parser.add_argument("--spread", type=int, default=40, help="pages or filters a list's mix")
    parser.add_argument("--import-features", type=int, default=1000, help="of the large post")
    parser.add_argument(
        "--import-nice", type=int, default=19, help="the import's CPU niceness, as a batch job's"
    )
    parser.add_argument(
        "--import-seconds",
        type=float,
        default=10,
        help="of each side of a round of reads during imports (two imports or more)",
    )
    parser.add_argument(
        "--import-connections",
        type=int,
        default=16,
        help="wrk's connections for the reads during imports (spread over both workers)",
    )
    parser.add_argument("--clients", type=int, default=64, help="at once, for memory")
    parser.add_argument("--clients-seconds", type=float, default=60)
    parser.add_argument("--soak-seconds", type=float, default=600)
    parser.add_argument("--workdir", help="where the databases go (default: a temporary folder)")
    parser.add_argument("--out", default=str(RESULTS))
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--sqlite-only", action="store_true", help="even if DATABASE_URL is set")
    only.add_argument("--postgres-only", action="store_true", help="DATABASE_URL's server alone")
    parser.add_argument("--tiny", action="store_true", help="a tiny catalog, short runs")
    parser.add_argument(
        "--fresh-catalogs",
        dest="keep_catalogs",
        action="store_false",
        help="load the generated catalogs even where a run of this code kept them",
    )
    parser.add_argument(
        "--deliveries", type=int, default=10_000, help="webhook deliveries the worker sends"
    )
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
        args.features, args.releases, args.small_features = 400, 8, 100
        args.seconds, args.spread, args.import_features, args.rounds = 0.3, 4, 40, 5
        args.deliveries = 200
        args.import_seconds, args.clients, args.clients_seconds, args.soak_seconds = 0.3, 8, 1, 2
    if args.wrk is None and not load.wrk_available():
        print("wrk is not installed (apt-get install wrk): the loads that are no comparison "
              "(reads during imports, many clients) use the Python load generator, whose "
              "figures are not worth quoting.", file=sys.stderr)  # fmt: skip
    started = time.monotonic()
    results = run(args)
    results[admin.KEY] = admin.measure_isolated(200 if args.tiny else 5000)  # bench/admin.py
    results[page_bench.KEY] = page_bench.measure_isolated(3 if args.tiny else 30)
    results[install_bench.KEY] = install_bench.measure_isolated(  # bench/install.py
        [name for name in ("sqlite", "postgres") if name in results],
        rounds=args.rounds,
        seconds=args.seconds,
        say=print if not args.quiet else (lambda *a, **k: None),
    )
    results[hostile.KEY] = hostile.measure_isolated(args.tiny)  # bench/hostile.py
    results["bench_seconds"] = round(time.monotonic() - started, 1)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if not args.quiet:
        for database in ("sqlite", "postgres"):
            if database in results:
                print()
                print(table(results[database], database))
        print()
        for line in install_bench.verdicts(results[install_bench.KEY]):
            print(line)
        for key, value, target, ok in hostile.verdicts(results[hostile.KEY]):
            print(f"  hostile   {key:24} {value} target {target}: {'met' if ok else 'MISSED'}")
        print(f"\nWrote {args.out}")
    return results


if __name__ == "__main__":
    main()
