"""
`make fuzz`: schemathesis against the production stack, held to the API's own schema.

    python -m tests.fuzz [--examples 25] [--seconds 180] [--seed 20261122]

Serves the catalog as `make serve` does (production settings, gunicorn, 2 workers) on a free
loopback port, with throttling off, on the database DATABASE_URL names (else a new SQLite file),
migrated and filled from the fixtures. Then runs `st run` on /api/schema/ with every check
(schemathesis.toml names the three operations exempt from one of them, and why), a bounded number
of examples per operation, a fixed seed and a time limit. Fails if schemathesis finds anything,
or if the server's log holds a traceback.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import serve

SEED = 20261122


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--examples", type=int, default=25, help="examples per operation")
    parser.add_argument("--seconds", type=int, default=180, help="time limit of the run")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="catalog-fuzz-"))
    overrides = {"API_ANON_RATE": ""}
    if os.environ.get("DATABASE_URL"):
        overrides["DATABASE_URL"] = os.environ["DATABASE_URL"]
    env = serve.production_env(workdir, **overrides)
    print(f"Preparing the catalog ({env['DATABASE_URL'].split(':', 1)[0]}) in {workdir}")
    serve.prepare(env, collectstatic=True)

    port = serve.free_port()
    log_path = workdir / "server.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            serve.gunicorn_command(port, workers=2),
            env=env,
            cwd=serve.ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            serve.wait_until_up(url, server, timeout=30)
            command = [
                str(Path(sys.executable).with_name("st")), "run", f"{url}/api/schema/?format=json",
                "--max-examples", str(args.examples),
                "--seed", str(args.seed),
                "--max-time", str(args.seconds),
                "--workers", "2",
                "--generation-database", "none",
                "--no-color",
            ]  # fmt: skip
            print(" ".join(command), flush=True)
            result = subprocess.run(command, cwd=serve.ROOT, stdin=subprocess.DEVNULL)
            pages_failed = fuzz_pages(url, args.examples * 4, args.seed)
        finally:
            serve.stop(server)
    tracebacks = log_path.read_text(errors="replace").count("Traceback")
    print(f"Server log: {log_path} ({tracebacks} traceback(s))")
    if tracebacks:
        print(log_path.read_text(errors="replace")[-5000:])
    if result.returncode != 0 or tracebacks or pages_failed:
        print("fuzz: FAILED (schemathesis failures or server tracebacks)")
        return 1
    print("fuzz: 0 failures, 0 server tracebacks")
    return 0


# What a page's query is made of: the parameter names the pages read, and one no page knows;
# values that are versions, numbers (up to 5,000 digits), text with control characters.
PARAMETERS = ["from", "to", "api", "page", "page_size", "release", "q", "area", "kind",
              "stuck_for", "present_in", "torch", "python", "cuda", "os", "x"]  # fmt: skip


def fuzz_pages(url, examples, seed):
    """
    Every page the sitemap lists (releases/surfaces.py derives it), and /calendar.ics, asked
    ``examples`` generated queries each: a page answers 200, 301, 400 or 404 (414 past the
    server's request-line limit) within 5 s, never a 5xx.
    Returns the number of failures, printed with the query that caused each.
    """
    import random
    import re
    import time
    import urllib.error
    import urllib.parse
    import urllib.request

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    with urllib.request.urlopen(f"{url}/sitemap.xml", timeout=30) as answer:
        sitemap = answer.read().decode()
    paths = sorted(
        {urllib.parse.urlsplit(loc).path for loc in re.findall(r"<loc>([^<]+)</loc>", sitemap)}
    )
    # Each kind of page once: the top-level pages, and one page of each kind under them.
    top = [path for path in paths if path.count("/") <= 2]
    kinds = {path.split("/")[1]: path for path in paths if path.count("/") > 2}
    paths = top + sorted(kinds.values())
    paths.append("/calendar.ics")
    values = st.one_of(
        st.sampled_from(["2.5", "2.14", "1.9", "9.9", "2.5.1", " 2.5", "2.5rc1", "", "last"]),
        st.integers(min_value=0, max_value=10**30).map(str),
        st.integers(min_value=4000, max_value=5000).map(lambda n: "9" * n),
        st.text(max_size=20),
    )
    queries = st.lists(st.tuples(st.sampled_from(PARAMETERS), values), max_size=4)
    failures = []

    def asking(path):
        @settings(max_examples=examples, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), derandomize=True)  # fmt: skip
        @given(query=queries)
        def ask(query):
            target = f"{url}{path}?{urllib.parse.urlencode(query)}"
            started = time.monotonic()
            try:
                with urllib.request.urlopen(target, timeout=30) as answer:
                    status = answer.status
            except urllib.error.HTTPError as error:
                status = error.code
            except OSError as error:  # no answer in time: a failure too, named
                status = type(error).__name__
            took = time.monotonic() - started
            # 414: gunicorn's own limit on a request line (4,094 bytes), before Django.
            if status not in (200, 301, 400, 404, 414) or took > 5:
                failures.append(f"{status} in {took:.1f} s: {target[:300]}")

        return ask

    random.seed(seed)
    for path in paths:
        asking(path)()
    print(f"pages: {len(paths)} pages, {examples} queries each, {len(failures)} failures")
    for failure in failures[:20]:
        print(f"  {failure}")
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
