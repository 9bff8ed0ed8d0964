"""
The catalog's caches, and how they fail: a cache is an accelerator, never a requirement.

``DiskCache`` is the shared cache without Redis (diskcache's Django backend, its connections
kept). ``FailSafeRedisCache`` and ``DiskCache`` answer as an empty cache when their store fails
(Redis killed, frozen or refusing; the disk full or read-only): a read is a miss, a write is
not kept, an increment is a missing key. The first failure opens a circuit: for the next
``CACHE_RETRY_SECONDS`` (5) the process does not ask that store at all, so a frozen Redis costs
one short timeout (``CACHE_TIMEOUT_SECONDS``, 0.25) per window, not one per request, and the
log gets one warning per window, not a traceback per request. The answers then come from the
database; what decides whether they are fresh (the catalog's revision) lives there too
(``releases.revision``).
"""

import logging
import sqlite3
import threading
import time

import redis
from diskcache import DjangoCache
from diskcache.core import Timeout
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger("releases.caches")

# What a failing store raises: redis-py's errors (refused, reset, timed out), the operating
# system's (a read-only or full disk), SQLite's and diskcache's (a locked or broken file).
STORE_ERRORS = (redis.RedisError, OSError, sqlite3.Error, Timeout)


class Circuit:
    """
    Whether a store may be asked: closed until it fails, then open for ``retry`` seconds, in
    this process. Shared by everything that talks to one store (the caches on one Redis, and
    the throttle's counters there).
    """

    def __init__(self, name, retry=None):
        self.name = name
        self.retry = retry
        self.open_until = 0.0
        self.lock = threading.Lock()

    def seconds(self):
        return self.retry if self.retry is not None else settings.CACHE_RETRY_SECONDS

    def is_open(self):
        return time.monotonic() < self.open_until

    def failed(self, error):
        """Open the circuit; the first failure of a window is logged, as one line."""
        with self.lock:
            opening = not self.is_open()
            self.open_until = time.monotonic() + self.seconds()
        if opening:
            logger.warning(
                "%s is failing (%s: %s); answering without it for %g s",
                self.name,
                type(error).__name__,
                " ".join(str(error).split())[:200],
                self.seconds(),
            )

    def call(self, operation, fallback, *args, **kwargs):
        """``operation(*args, **kwargs)``, or ``fallback()`` while the store is failing."""
        if self.is_open():
            return fallback()
        try:
            return operation(*args, **kwargs)
        except STORE_ERRORS as error:
            self.failed(error)
            return fallback()


_circuits = {}
_circuits_lock = threading.Lock()


def circuit(name):
    """The one circuit of the store called ``name`` (its location), in this process."""
    with _circuits_lock:
        return _circuits.setdefault(name, Circuit(name))


def reset_circuits():
    """Close every circuit (the tests do, between faults)."""
    for each in list(_circuits.values()):
        each.open_until = 0.0


def missing_key(*args, **kwargs):
    raise ValueError("the cache is unavailable")  # what incr says of a missing key


class FailSafe:
    """A cache backend whose store may fail: every public operation goes through its circuit."""

    def store_name(self):
        raise NotImplementedError

    def _guarded(self, name, fallback, *args, **kwargs):
        operation = getattr(super(), name)
        return circuit(self.store_name()).call(operation, fallback, *args, **kwargs)

    def get(self, key, default=None, version=None):
        return self._guarded("get", lambda: default, key, default=default, version=version)

    def get_many(self, keys, version=None):
        return self._guarded("get_many", dict, keys, version=version)

    def has_key(self, key, version=None):
        return self._guarded("has_key", lambda: False, key, version=version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        return self._guarded("add", lambda: False, key, value, timeout, version, **kwargs)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        return self._guarded("set", lambda: False, key, value, timeout, version, **kwargs)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        return self._guarded("set_many", lambda: list(data), data, timeout, version, **kwargs)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("touch", lambda: False, key, timeout, version)

    def delete(self, key, version=None):
        return self._guarded("delete", lambda: False, key, version)

    def delete_many(self, keys, version=None):
        return self._guarded("delete_many", lambda: None, keys, version)

    def incr(self, key, delta=1, version=None):
        return self._guarded("incr", missing_key, key, delta, version)

    def decr(self, key, delta=1, version=None):
        return self._guarded("decr", missing_key, key, delta, version)

    def clear(self):
        return self._guarded("clear", lambda: None)


class FailSafeRedisCache(FailSafe, RedisCache):
    """Django's Redis cache, with short socket timeouts (settings) and its circuit."""

    def __init__(self, server, params):
        options = {
            "socket_connect_timeout": settings.CACHE_TIMEOUT_SECONDS,
            "socket_timeout": settings.CACHE_TIMEOUT_SECONDS,
            **params.get("OPTIONS", {}),
        }
        super().__init__(server, {**params, "OPTIONS": options})
        self.location = server

    def store_name(self):
        return f"Redis at {redis_location(self.location)}"


def redis_location(url):
    """The server's address without its password, for the log."""
    head, at, tail = url.rpartition("@")
    return f"{url.split('://', 1)[0]}://{tail}" if at else url


class DiskCache(FailSafe, DjangoCache):
    """
    Django closes every cache at the end of each request (for connections that must not
    outlive one); diskcache's close shuts its SQLite connections, so that each request would
    open and configure them again, which costs more than the request's cache operations
    themselves (bench/README.md). Like Django's own local-memory and file caches, this one
    keeps what it holds open: diskcache gives each thread its own connections and opens new
    ones in a forked process (tests/test_adapters.py pins both, checked against diskcache
    5.6), so a kept connection is never shared. A disk that fails (read-only, full) is a
    cache that misses, through its circuit.
    """

    def store_name(self):
        return f"the disk cache in {self.directory}"

    def close(self, **kwargs):
        pass
