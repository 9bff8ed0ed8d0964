"""
Where a request's time goes, in-process: the whole WSGI stack (every middleware, the view,
the SQL) without the HTTP server, so that fixed costs of a fraction of a millisecond show.

    python -m bench.profile URL [URL ...] [--requests 2000] [--top 25]

For each URL: the median time per request (batches of requests, the URLs taking turns),
then cProfile's functions by their own time. Run it in the benchmark's environment
(bench.run's settings, DATABASE_URL, cache folder); the figures in bench/README.md come
from it.
"""

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import time
from urllib.parse import urlsplit

import django


def environ(url):
    parts = urlsplit(url)
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": parts.path,
        "QUERY_STRING": parts.query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def serve(application, url):
    statuses = []
    body = application(environ(url), lambda status, headers, *_: statuses.append(status))
    for _ in body:
        pass
    body.close()
    if not statuses[0].startswith(("200", "304")):
        raise SystemExit(f"{url} answered {statuses[0]}")


def timed(application, url, requests):
    started = time.perf_counter()
    for _ in range(requests):
        serve(application, url)
    return (time.perf_counter() - started) / requests * 1000


def median_time(application, urls, requests, batches=10):
    """Each URL's median ms a request over ``batches`` batches, the URLs taking turns."""
    times = {url: [] for url in urls}
    for _ in range(batches):
        for url in urls:
            times[url].append(timed(application, url, max(1, requests // batches)))
    return {url: statistics.median(values) for url, values in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("urls", nargs="+")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25, help="0: the times alone")
    parser.add_argument("--sort", default="tottime", help="cProfile's order (cumtime ...)")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    django.setup()
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
    for url in args.urls:
        timed(application, url, 50)  # warm up: connections, caches, imports
    medians = median_time(application, args.urls, args.requests)
    for url in args.urls:
        profiler = cProfile.Profile()
        profiler.enable()
        timed(application, url, args.requests)
        profiler.disable()
        print(f"\n{url}: {medians[url]:.3f} ms a request (median of 10 batches, unprofiled)")
        if args.top:
            stats = pstats.Stats(profiler, stream=sys.stdout)
            stats.sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
