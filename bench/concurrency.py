"""
A worker's memory under many clients, then over a soak (issue 45).

`make serve`'s stack (two workers, the page cache off so that every request reaches the
database) is read by ``clients`` connections at once for ``seconds``: pages of the features
list, filtered lists, filtered lists as CSV, and now and then the whole list as CSV.
``worker_rss_64_clients_mb`` is the largest peak RSS (VmHWM) of either worker after that
minute. The same load then goes on for ``soak_seconds`` while each worker's RSS is sampled;
``soak_rss_growth_percent`` is the larger worker's RSS at the end against its RSS when the
soak began, in percent: memory that stays flat under the same work keeps nothing per request.
"""

import time

from bench import load, serve
from bench.generate import release_version

SAMPLE_SECONDS = 30
SLOW_REQUEST_SECONDS = 120  # the whole list as CSV, queued behind others, is not an error


def paths(generated, spread):
    """The mix: list pages, filtered lists and their CSVs, one whole-list CSV in 40."""
    releases = [release_version(n) for n in range(0, generated["releases"], max(1, spread // 4))]
    last = max(1, generated["features"] // 50)  # pages of the whole list, 50 a page
    mix = [f"/api/features/?page={page}" for page in range(1, min(5 * spread, last), 5)]
    mix += [f"/api/features/?release={version}&stability=beta" for version in releases]
    mix += [f"/api/features/?release={version}&format=csv" for version in releases]
    whole = max(1, len(mix) // 39)
    return mix + ["/api/features/?format=csv"] * whole


def measure(env, generated, *, clients, seconds, soak_seconds, spread, use_wrk=None):
    mix = paths(generated, spread)
    with serve.server({**env, "API_PAGE_CACHE_SECONDS": "0"}) as server:
        pids = server.worker_pids()

        def loaded(for_seconds):
            return load.measure(
                server.url, for_seconds, connections=clients, paths=mix, use_wrk=use_wrk,
                timeout=SLOW_REQUEST_SECONDS,
            )  # fmt: skip

        busy = loaded(seconds)
        peak = max(serve.memory_mb(pid) for pid in pids)
        samples = [[serve.memory_mb(pid, "VmRSS") for pid in pids]]
        soaked = []
        started = time.monotonic()
        while (left := soak_seconds - (time.monotonic() - started)) > 0.5:
            soaked.append(loaded(min(SAMPLE_SECONDS, left)))
            samples.append([serve.memory_mb(pid, "VmRSS") for pid in pids])
    growth = max(
        (end - begin) / begin * 100 for begin, end in zip(samples[0], samples[-1], strict=True)
    )
    return {
        "worker_rss_64_clients_mb": round(peak, 1),
        "concurrent_clients": clients,
        "concurrent_seconds": seconds,
        "concurrent_requests": busy.requests,
        "concurrent_errors": busy.errors,
        "concurrent_p99_ms": round(busy.p99_ms, 1),
        "soak_rss_growth_percent": round(growth, 2),
        "soak_seconds": soak_seconds,
        "soak_requests": sum(row.requests for row in soaked),
        "soak_errors": sum(row.errors for row in soaked),
        "soak_rss_mb": [[round(mb, 1) for mb in sample] for sample in samples],
        "concurrent_mix": len(mix),
    }
