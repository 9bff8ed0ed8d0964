"""
What shipped and how to install it (issue 40): /api/check/ and /api/install/ against the same
answers by hand (bench/views.py: the same query functions through a plain view), and their
page-cache hits against the ceiling, on the committed fixtures' catalog, as `make serve`
serves it, on SQLite and, where DATABASE_URL names a PostgreSQL server, on PostgreSQL too.

Each comparison spreads its requests over a mix of questions (every release's minor and
newest patch, with a Python, an OS, an architecture or a variant), checks first that the
product and the baseline answer each sampled question alike, then runs rounds in which the
two take turns request by request (bench/README.md says how); a ratio is the median of the
rounds', with its spread. About four minutes a database.

    python -m bench.install [--rounds 9] [--seconds 3] [--out bench/results.json]

writes its figures under the key "install" of the results file (``make bench`` runs it).
"""

import argparse
import json
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from bench import load, serve

RESULTS = Path(__file__).resolve().parent / "results.json"
KEY = "install"
TARGETS = {"check_ratio": ("≥", 0.9), "install_ratio": ("≥", 0.9)}
CEILING_TARGETS = {"check_ceiling_ratio": ("≥", 0.8), "install_ceiling_ratio": ("≥", 0.8)}
MINORS = ["1.8", "1.13", "2.0", "2.3", "2.5", "2.7", "2.9", "2.11", "2.13", "2.14", "2.15"]
PATCHES = ["1.13.1", "2.0.1", "2.3.1", "2.5.1", "2.7.1", "2.12.1", "2.14.1"]
BUILDS = [
    "python=3.12",
    "python=3.10&os=linux",
    "os=macos&arch=arm64",
    "os=macos&arch=x86_64",
    "variant=cpu",
    "variant=cu124&os=linux",
    "python=3.13&os=windows&arch=amd64",
]


def mix():
    """The questions: each torch version with each build (the same for both endpoints)."""
    return [f"torch={torch}&{build}" for torch in MINORS + PATCHES for build in BUILDS]


def same_answers(url, questions):
    """The product and the baseline answer alike, or their ratio means nothing."""
    for endpoint in ("check", "install"):
        for question in questions[:: max(1, len(questions) // 8)]:
            got = []
            for path in (f"/api/{endpoint}/?{question}", f"/bench/baseline/{endpoint}/?{question}"):
                try:
                    with urllib.request.urlopen(url + path) as answer:
                        got.append(json.load(answer))
                except urllib.error.HTTPError as error:
                    got.append(json.load(error))
            if got[0] != got[1]:
                raise SystemExit(f"{endpoint}?{question}: the product and the baseline differ")


def measure_database(database_url, rounds, seconds, say):
    with tempfile.TemporaryDirectory(prefix="catalog-bench-install-") as workdir:
        from bench.run import bench_env  # throttling on, at a rate wrk cannot reach

        env = bench_env(workdir, database_url)
        serve.prepare(env, collectstatic=True)
        questions = mix()
        figures = {}
        options = {"rounds": rounds, "seconds": seconds}
        with serve.server({**env, "API_PAGE_CACHE_SECONDS": "0"}) as server:
            same_answers(server.url, questions)
            for endpoint in ("check", "install"):
                result = load.alternate(
                    server.url,
                    {
                        "baseline": [f"/bench/baseline/{endpoint}/?{q}" for q in questions],
                        "product": [f"/api/{endpoint}/?{q}" for q in questions],
                    },
                    warm_up=min(1, seconds),
                    **options,
                )
                ratios = result.ratios("product", "baseline")
                ratio = load.summary(ratios)
                figures |= load.recorded(f"{endpoint}_ratio", ratio)
                figures.setdefault("round_ratios", {})[endpoint] = [round(r, 3) for r in ratios]
                figures.setdefault("errors", {})[endpoint] = {
                    side: result.merged(side).errors for side in ("baseline", "product")
                }
                figures[f"{endpoint}_p50_ms"] = round(result.merged("product").p50_ms, 2)
                figures[f"{endpoint}_baseline_p50_ms"] = round(result.merged("baseline").p50_ms, 2)
                say(f"    {endpoint}: {len(questions)} questions; {ratio.median}x the baseline "
                    f"({ratio.low} to {ratio.high})")  # fmt: skip
        with serve.server(env) as server:
            for endpoint in ("check", "install"):
                path = f"/api/{endpoint}/?torch=2.5.1&variant=cu124"
                for _ in range(2):  # a miss, then the hits
                    urllib.request.urlopen(server.url + path).read()
                result = load.alternate(
                    server.url,
                    {"ceiling": ["/bench/ceiling/"], "cached": [path]},
                    warm_up=min(1, seconds),
                    **options,
                )
                ratio = load.summary(result.ratios("cached", "ceiling"))
                figures |= load.recorded(f"{endpoint}_ceiling_ratio", ratio)
                say(f"    {endpoint}, page-cache hit: {ratio.median}x the ceiling "
                    f"({ratio.low} to {ratio.high})")  # fmt: skip
        figures["questions"], figures["rounds"], figures["seconds_per_round"] = (
            len(questions),
            rounds,
            seconds,
        )
        return figures


def measure_isolated(databases=None, rounds=9, seconds=3.0, say=print):
    """
    Each database's figures (``databases``: "sqlite", "postgres"; by default SQLite, and
    PostgreSQL where DATABASE_URL names a server), the PostgreSQL one in a scratch database.
    """
    from bench.run import postgres_url, scratch_postgres

    databases = databases or ["sqlite"] + (["postgres"] if postgres_url() else [])
    results = {}
    for database in databases:
        say(f"[{database}] /api/check/ and /api/install/ on the fixtures' catalog")
        if database == "sqlite":
            results[database] = measure_database(None, rounds, seconds, say)
            continue
        with scratch_postgres(postgres_url(), ["install"]) as urls:
            results[database] = measure_database(urls["install"], rounds, seconds, say)
    return results


def verdicts(results):
    """Each database's figure against each target, a line each, as ``load.judged`` says it."""
    for database, figures in results.items():
        if not isinstance(figures, dict) or "check_ratio" not in figures:
            continue
        for key, (relation, target) in {**TARGETS, **CEILING_TARGETS}.items():
            shown, said = load.judged(figures, key, relation, target)
            yield f"  {database:9} {key:24} {shown:24} target {relation} {target}: {said}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--out", default=None, help="a results file to write the figures into")
    args = parser.parse_args(argv)
    results = measure_isolated(rounds=args.rounds, seconds=args.seconds)
    for line in verdicts(results):
        print(line)
    return serve.write_figures(args.out, KEY, results)


if __name__ == "__main__":
    main()
