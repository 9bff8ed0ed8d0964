"""
Throttling of the public API by client address: fixed windows, counted where every process
(and, with Redis, every host) counts together.

A request costs one operation on that shared store: the increment of its client's counter
for the current window.

- With Redis (REDIS_URL), the counters are in the shared cache, and an increment is one
  round trip: a pipeline that creates the counter with its expiry if it is missing, then
  increments it. (Django's own ``incr`` asks whether the key exists first, and counting with
  ``add`` then ``incr``, as django-ratelimit does, takes three.) Django's cache does not lend
  its Redis client, so the pipeline goes through a client of redis-py's own, to the server
  the cache writes to, under the cache's keys (``make_and_validate_key``).
- Without Redis, the counters are a table in a SQLite file in the private cache folder, and
  an increment is one statement: an upsert that returns the new count. The disk cache's
  ``incr`` is four (begin, select, update, commit), and with every worker counting the same
  busy client, the time the lock is held is what the others wait for (bench/README.md).

The store is an accelerator too (``releases.web.caches``): when it fails (Redis killed or
frozen, the disk read-only), each process counts on its own (``LocalCounters``) until the
store's circuit lets it be asked again: a client may then make the limit's requests to each
process, and no request fails for want of a counter.
"""

import functools
import hashlib
import math
import os
import re
import sqlite3
import threading
import time
from pathlib import Path

import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured

from releases.web.caches import circuit

RATE = re.compile(r"^([0-9]+)/([0-9]*)([smhd])[a-z]*$")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate):
    """'1200/m', '100/10s', '5000/hour' -> (requests, seconds)."""
    match = RATE.match(rate.strip())
    if not match:
        raise ImproperlyConfigured(
            f"API_ANON_RATE must be requests/period, such as 1200/m or 100/10s; got {rate!r}."
        )
    count, multiple, unit = match.groups()
    return int(count), int(multiple or 1) * UNIT_SECONDS[unit]


class Throttle:
    def __init__(self, rate, counters):
        self.limit, self.period = parse_rate(rate)
        self.counters = counters
        self.local = LocalCounters()
        self.circuit = circuit(counters.store_name())

    def wait(self, client, now=None):
        """Count a request of ``client``: 0 if it may go on, else the seconds until it may."""
        now = time.time() if now is None else now
        window = int(now // self.period)
        expires = (window + 1) * self.period
        key = f"{client_key(client)}:{window}"
        count = self.circuit.call(
            self.counters.increment,
            lambda: self.local.increment(key, expires, now),
            key,
            expires,
            now,
        )
        if count <= self.limit:
            return 0
        return max(1, math.ceil(expires - now))


@functools.lru_cache(maxsize=4096)
def client_key(client):
    # Hashed: an address from a proxy's header is not trusted to make a valid key.
    return "throttle:" + hashlib.blake2b(client.encode(), digest_size=12).hexdigest()


class Unavailable(redis.ConnectionError):
    """The cache that keeps the counters answered as if it were empty: it is failing."""


class LocalCounters:
    """This process's own counters: what the throttle counts with while its store fails."""

    def __init__(self):
        self.counts = {}
        self.lock = threading.Lock()

    def increment(self, key, expires, now):
        with self.lock:
            if len(self.counts) > 10_000:  # forget the windows past
                self.counts = {k: v for k, v in self.counts.items() if v[1] > now}
            count, _ = self.counts.get(key, (0, expires))
            self.counts[key] = (count + 1, expires)
            return count + 1


class CacheCounters:
    """Counters in a Django cache: Redis's in one round trip, any other's with incr."""

    def __init__(self, cache):
        self.cache = cache
        self.redis = redis_writer(cache) if isinstance(cache, RedisCache) else None

    def store_name(self):
        store_name = getattr(self.cache, "store_name", None)
        return store_name() if store_name else f"the {type(self.cache).__name__}"

    def clear(self):
        self.cache.clear()

    def increment(self, key, expires, now):
        timeout = max(1, math.ceil(expires - now))
        cache = self.cache
        if self.redis is not None:
            # Django's cache stores integers as they are, so INCR works on what it reads.
            name = cache.make_and_validate_key(key)
            pipeline = self.redis.pipeline(transaction=False)
            pipeline.set(name, 0, ex=timeout, nx=True)
            pipeline.incr(name)
            return pipeline.execute()[1]
        try:
            return cache.incr(key)
        except ValueError:  # the window's first request
            cache.add(key, 0, timeout)
            try:
                return cache.incr(key)
            except ValueError:  # a fail-safe cache that fails answers as an empty one
                raise Unavailable(f"{self.store_name()} keeps no counter") from None


def redis_writer(cache):
    """
    A redis-py client of the server that the Redis ``cache`` writes to: the first of the
    servers its LOCATION setting names, as Django's Redis cache writes to the first.
    """
    for alias, config in settings.CACHES.items():
        if caches[alias] is cache:
            location = config["LOCATION"]
            servers = re.split("[;,]", location) if isinstance(location, str) else location
            return redis.Redis.from_url(
                servers[0],
                socket_connect_timeout=settings.CACHE_TIMEOUT_SECONDS,
                socket_timeout=settings.CACHE_TIMEOUT_SECONDS,
            )
    raise ImproperlyConfigured("The throttle counts in a Redis cache named in CACHES.")


class SQLiteCounters:
    """
    Counters in a SQLite file that the processes of one machine share (write-ahead log, one
    connection a thread). A busy database is retried at once rather than after SQLite's
    first sleep of a millisecond: the other process holds the lock for one statement.
    """

    UPSERT = (
        "INSERT INTO counters (key, count, expires) VALUES (?, 1, ?) "
        "ON CONFLICT (key) DO UPDATE SET count = count + 1 RETURNING count"
    )
    PATIENCE = 5.0  # seconds a busy database is retried before the error is raised

    def __init__(self, path):
        self.path = Path(path)
        self.local = threading.local()

    def store_name(self):
        return f"the throttle's counters in {self.path}"

    def connection(self):
        connection = getattr(self.local, "connection", None)
        if connection is None or self.local.pid != os.getpid():  # none yet, or forked
            connection = sqlite3.connect(self.path, timeout=0, isolation_level=None)
            self.retrying(connection.execute, "PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            self.retrying(
                connection.execute,
                "CREATE TABLE IF NOT EXISTS counters "
                "(key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires REAL NOT NULL) "
                "WITHOUT ROWID",
            )
            self.local.connection, self.local.pid = connection, os.getpid()
        return connection

    def clear(self):
        self.retrying(self.connection().execute, "DELETE FROM counters")

    def increment(self, key, expires, now):
        connection = self.connection()
        (count,) = self.retrying(connection.execute, self.UPSERT, (key, expires)).fetchone()
        if count == 1:  # a client's first request in a window: forget the windows past
            self.retrying(connection.execute, "DELETE FROM counters WHERE expires <= ?", (now,))
        return count

    def retrying(self, operation, *args):
        deadline = None
        while True:
            try:
                return operation(*args)
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) and "busy" not in str(error):
                    raise
                deadline = deadline or time.monotonic() + self.PATIENCE
                if time.monotonic() > deadline:
                    raise
                time.sleep(0)  # let the holder of the lock run


def counters(cache, folder):
    """Redis's shared cache when there is one, else a SQLite file in the cache ``folder``."""
    if isinstance(cache, RedisCache) or folder is None:
        return CacheCounters(cache)
    return SQLiteCounters(Path(folder) / "throttle.sqlite3")
