"""
gunicorn's settings for `make serve` (and the tests and benchmarks that run what it runs):
``gunicorn config.wsgi -c config/gunicorn.py``.

Threaded workers (``gthread``): a connection waits in the worker's poller until it has sent
something, and a request that trickles in (a slow or hostile client sending its headers a byte
a second) holds one thread, not a whole worker, so fifty of them leave the other threads
answering everyone else (tests/test_faults.py). A worker may be handed every slow client, so
each has more threads (64) than the slow clients a test throws at it (50). Behind a buffering
proxy (nginx), the proxy absorbs slow clients first. ``WEB_CONCURRENCY`` workers of
``WEB_THREADS`` threads each.
"""

import gc
import os

worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("WEB_THREADS", "64"))
# A connection kept alive between requests is closed after this many seconds of silence.
keepalive = 5
# The longest request line gunicorn takes: long queries get our 400, not its 414.
limit_request_line = 8190
# Whose X-Forwarded-Proto (and -For) to believe: the proxy's address alone. Loopback by default,
# for a proxy on the same machine; a client's own header from anywhere else changes nothing.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")


def post_worker_init(worker):
    """
    Once a worker has loaded the catalog (Django, its apps and models), put every object made
    so far out of the garbage collector's sight (Python's gc.freeze): they live as long as the
    worker, and each full collection would otherwise walk all of them again. Measured on the
    benchmark's filtered lists: a request's share of collecting fell from 140 to 47 µs
    (bench/README.md).
    """
    gc.freeze()
