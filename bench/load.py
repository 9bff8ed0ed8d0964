"""
Load a server with a mix of paths for a bounded time and report throughput and latency.

``measure``: wrk (Debian's package) when it is installed, with a Lua script that picks each
request's path from the mix; otherwise a small threaded Python client, good enough for the
benchmark's own smoke test but not for figures worth quoting. Both draw paths from the same
seeded sequence.

``alternate``: the comparisons. The sides take turns request by request on one connection
(Python's http.client), each drawing its paths from the same seeded sequence, and each
request is timed on its own; ``summary`` and ``verdict`` say what the rounds show.
"""

import contextlib
import http.client
import itertools
import json
import math
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import urlsplit

SEED = 20261123

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


def measure(url, seconds, connections=4, headers=None, use_wrk=None, paths=None, timeout=10):
    """
    Load ``url`` + each of ``paths`` (chosen at random, seeded), or ``url`` alone; a request
    unanswered after ``timeout`` seconds counts as an error.
    """
    use_wrk = wrk_available() if use_wrk is None else use_wrk
    paths = list(paths) if paths else [""]
    if use_wrk:
        return with_wrk(url, paths, seconds, connections, headers or {}, timeout)
    return with_python(url, paths, seconds, connections, headers or {}, timeout)


LUA = """
local paths = %s
math.randomseed(%d)
request = function()
  return wrk.format(nil, paths[math.random(#paths)])
end
"""


def with_wrk(url, paths, seconds, connections, headers, timeout):
    duration = f"-d{max(1, round(seconds))}s"  # wrk counts whole seconds
    command = ["wrk", "-t1", f"-c{connections}", duration, "--latency", "--timeout", f"{timeout}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        if paths != [""]:
            # A Lua table of strings: JSON's string syntax is Lua's for these ASCII paths.
            script.write(LUA % ("{" + ", ".join(json.dumps(path) for path in paths) + "}", SEED))
            script.flush()
            command += ["-s", script.name]
        output = subprocess.run(
            command + [url + paths[0]], capture_output=True, text=True, check=True
        ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    return Measurement(
        requests_per_second=rate,
        p50_ms=_latency(output, "50%"),
        p99_ms=_latency(output, "99%"),
        requests=requests,
        errors=(int(errors.group(1)) if errors else 0)
        + (sum(map(int, socket_errors.groups())) if socket_errors else 0),
        tool="wrk",
    )


def _latency(output, percentile):
    value, unit = re.search(rf"{percentile}\s+([\d.]+)(us|ms|s)\b", output).groups()
    return float(value) * UNITS[unit]


def with_python(url, paths, seconds, connections, headers, timeout):
    deadline = time.monotonic() + seconds
    latencies, errors, lock = [], [0], threading.Lock()
    chooser = random.Random(SEED)

    def worker():
        while time.monotonic() < deadline:
            with lock:
                path = chooser.choice(paths)
            request = urllib.request.Request(url + path, headers=headers)
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    response.read()
            except urllib.error.HTTPError as error:
                if error.code != 304:
                    with lock:
                        errors[0] += 1
            except OSError:
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
    return _measured(latencies, errors[0], "python", time.monotonic() - started)


@dataclass
class Rounds:
    """The rounds of the sides of a comparison (``alternate``): each side's Measurement a round."""

    sides: dict  # name -> [Measurement, one a round]

    def ratios(self, numerator, denominator, value=lambda row: row.requests_per_second):
        pairs = zip(self.sides[numerator], self.sides[denominator], strict=True)
        return [value(top) / value(bottom) for top, bottom in pairs]

    def merged(self, name):
        """One Measurement for a side: medians of its rounds, totals of requests and errors."""
        rows = self.sides[name]
        return Measurement(
            requests_per_second=statistics.median(row.requests_per_second for row in rows),
            p50_ms=statistics.median(row.p50_ms for row in rows),
            p99_ms=statistics.median(row.p99_ms for row in rows),
            requests=sum(row.requests for row in rows),
            errors=sum(row.errors for row in rows),
            tool=rows[0].tool,
        )


def alternate(url, sides, rounds, seconds, warm_up=1.0, headers=None, timeout=10):
    """
    ``sides``: name -> paths. Each round interleaves the sides request by request on one
    keep-alive connection (``interleaved``) for ``seconds`` a side, so that whatever else the
    machine does, at any time scale longer than one request, falls on every side alike. A
    round gives each side a Measurement of its own requests: its rate is its requests over
    the time they took.
    """
    with contextlib.closing(http.client.HTTPConnection(*_host(url), timeout=timeout)) as link:
        if warm_up > 0:
            interleaved(link, sides, warm_up, headers or {})
        results = {name: [] for name in sides}
        for _ in range(rounds):
            for name, measurement in interleaved(link, sides, seconds, headers or {}).items():
                if not measurement.requests:
                    raise RuntimeError(
                        f"{url}: {name} had no answer in {seconds} s ({measurement.errors} errors)"
                    )
                results[name].append(measurement)
    return Rounds(results)


def interleaved(link, sides, seconds, headers):
    """
    One round: turns of one request a side, the turns going through every order of the sides
    in turn (so each side comes first, and after each other side, equally often), each side
    taking its paths from the same seeded sequence; until the sides together have answered
    for ``seconds`` each. Every side gets as many requests as the others, a slow one more of
    the round's time. A request that gets no answer (a socket error, a timeout) is an error
    and no latency, as wrk counts it; its time still ends the round.
    """
    names = list(sides)
    orders = itertools.cycle(itertools.permutations(names))
    choosers = {name: random.Random(SEED) for name in names}
    latencies = {name: [] for name in names}
    errors = dict.fromkeys(names, 0)
    spent, wanted = 0, seconds * len(names) * 1e9  # ns
    while spent < wanted:
        for name in next(orders):
            path = choosers[name].choice(sides[name])
            started = time.perf_counter_ns()
            try:
                link.request("GET", path, headers=headers)
                with link.getresponse() as response:
                    response.read()
                    failed = response.status >= 400
                answered = True
            except (OSError, http.client.HTTPException):
                link.close()  # http.client opens a new connection for the next request
                answered, failed = False, True  # no answer is an error too
            elapsed = time.perf_counter_ns() - started
            spent += elapsed
            if answered:
                latencies[name].append(elapsed / 1e6)
            errors[name] += failed
    return {name: _measured(latencies[name], errors[name], "interleaved") for name in names}


def _host(url):
    parts = urlsplit(url)
    return parts.hostname, parts.port


def _measured(latencies, errors, tool, seconds=None):
    """
    A Measurement from requests' latencies (ms), over ``seconds`` of wall time, or else one
    after another (the time they took).
    """
    ordered = sorted(latencies) or [0.0]  # nothing answered: no rate, no latency
    seconds = sum(ordered) / 1000 if seconds is None else seconds
    return Measurement(
        requests_per_second=len(latencies) / seconds if seconds else 0.0,
        p50_ms=statistics.median(ordered),
        p99_ms=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        requests=len(latencies),
        errors=errors,
        tool=tool,
    )


MET, WITHIN, MISSED = "met", "within its spread", "MISSED"
CONFIDENCE = 0.95


class Summary(NamedTuple):
    """
    The rounds of one comparison: their median, and a confidence interval of that median.

    The interval is distribution-free: the k-th smallest and the k-th largest round, for the
    largest k whose pair still covers the true median with ``CONFIDENCE`` (a binomial count:
    each round falls below the median with probability one half). With 9 rounds that drops the
    smallest and the largest (96.1%); with fewer than 9 it is every round, smallest to largest.
    So one round that met a vacuum or a burst of page faults widens nothing, and more rounds
    narrow it, where the largest minus the smallest only grows with them.
    """

    median: float
    low: float
    high: float
    rounds: int
    confidence: float

    @property
    def spread(self):
        return round(self.high - self.low, 3)

    @property
    def interval(self):
        return [self.low, self.high]


def coverage(rounds, k):
    """How often the (k+1)-th smallest to the (k+1)-th largest of ``rounds`` holds the median."""
    below = sum(math.comb(rounds, i) for i in range(k + 1))
    return 1 - 2 * below / 2**rounds


def summary(ratios):
    """The rounds' ``ratios`` as a Summary: their median and its confidence interval."""
    ordered = sorted(ratios)
    n = len(ordered)
    k = 0
    while n - 2 * (k + 1) >= 1 and coverage(n, k + 1) >= CONFIDENCE:
        k += 1
    return Summary(
        median=round(statistics.median(ordered), 3),
        low=round(ordered[k], 3),
        high=round(ordered[n - 1 - k], 3),
        rounds=n,
        confidence=round(coverage(n, k), 3),
    )


def verdict(relation, target, value, interval=None):
    """
    ``value`` (the median of the rounds) against ``target``: "met" only when the whole
    confidence interval of the median (``interval``, [low, high]) meets it, so that another
    run's median meets it too; "within its spread" when the median meets it but the interval
    reaches past the target; "MISSED" when the median does not. A figure of one measurement
    (no interval) is met when it meets the target.
    """
    holds = (lambda x: x >= target) if relation == "≥" else (lambda x: x <= target)
    if not holds(value):
        return MISSED
    if interval is None:
        return MET
    low, high = interval
    return MET if holds(low if relation == "≥" else high) else WITHIN


def recorded(key, summary):
    """What results.json keeps of a comparison: its median, interval and interval's width."""
    return {
        key: summary.median,
        f"{key}_spread": summary.spread,
        f"{key}_interval": summary.interval,
    }


def shown(figures, key):
    """``key`` of ``figures`` as the reports show it: the value, and its interval if it has one."""
    value, interval = figures[key], figures.get(f"{key}_interval")
    return f"{value}" + (f" ({interval[0]} to {interval[1]})" if interval else "")


def judged(figures, key, relation, target):
    """(the figure as shown, its verdict) for ``key`` of ``figures`` against ``target``."""
    value, interval = figures[key], figures.get(f"{key}_interval")
    return shown(figures, key), verdict(relation, target, value, interval)
