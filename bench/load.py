"""
Load one URL for a bounded time and report throughput and latency.

wrk (Debian's package) when it is installed; otherwise a small threaded Python client, good
enough for the benchmark's own smoke test but not for figures worth quoting.
"""

import re
import shutil
import statistics
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


@dataclass
class Measurement:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    tool: str


def wrk_available():
    return shutil.which("wrk") is not None


def measure(url, seconds, connections=4, headers=None, use_wrk=None):
    use_wrk = wrk_available() if use_wrk is None else use_wrk
    if use_wrk:
        return with_wrk(url, seconds, connections, headers or {})
    return with_python(url, seconds, connections, headers or {})


def with_wrk(url, seconds, connections, headers):
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return Measurement(
        requests_per_second=rate,
        p50_ms=_latency(output, "50%"),
        p99_ms=_latency(output, "99%"),
        requests=requests,
        errors=int(errors.group(1)) if errors else 0,
        tool="wrk",
    )


def _latency(output, percentile):
    value, unit = re.search(rf"{percentile}\s+([\d.]+)(us|ms|s)\b", output).groups()
    return float(value) * UNITS[unit]


def with_python(url, seconds, connections, headers):
    deadline = time.monotonic() + seconds
    latencies, errors, lock = [], [0], threading.Lock()

    def worker():
        while time.monotonic() < deadline:
            request = urllib.request.Request(url, headers=headers)
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    response.read()
            except urllib.error.HTTPError as error:
                if error.code != 304:
                    with lock:
                        errors[0] += 1
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                latencies.append(elapsed)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    ordered = sorted(latencies) or [0.0]
    return Measurement(
        requests_per_second=len(latencies) / elapsed,
        p50_ms=statistics.median(ordered),
        p99_ms=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        requests=len(latencies),
        errors=errors[0],
        tool="python",
    )
