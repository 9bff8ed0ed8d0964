"""
Throttling of the public API by client address: fixed windows counted in the shared cache,
so every process and host counts together.

A request costs one operation on the shared cache: the increment of its client's counter
for the current window. On the machine-local cache (diskcache) that is one SQLite
transaction; on Redis, one round trip (a pipeline that creates the counter with its expiry
if it is missing, then increments it). Counting with ``add`` then ``incr``, as
django-ratelimit does, costs two, and three on Django's Redis client (its ``incr`` asks
whether the key exists first).
"""

import functools
import hashlib
import math
import re
import time

from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured

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
    def __init__(self, rate, cache):
        self.limit, self.period = parse_rate(rate)
        self.cache = cache

    def wait(self, client, now=None):
        """Count a request of ``client``: 0 if it may go on, else the seconds until it may."""
        now = time.time() if now is None else now
        window = int(now // self.period)
        count = increment(self.cache, f"{client_key(client)}:{window}", self.period + 1)
        if count <= self.limit:
            return 0
        return max(1, math.ceil((window + 1) * self.period - now))


@functools.lru_cache(maxsize=4096)
def client_key(client):
    # Hashed: an address from a proxy's header is not trusted to make a valid key.
    return "throttle:" + hashlib.blake2b(client.encode(), digest_size=12).hexdigest()


def increment(cache, key, timeout):
    """The counter ``key`` plus one, created (expiring after ``timeout`` s) if missing."""
    if isinstance(cache, RedisCache):
        # Django's client stores integers as they are, so INCR works on what it reads.
        name = cache.make_and_validate_key(key)
        pipeline = cache._cache.get_client(name, write=True).pipeline(transaction=False)
        pipeline.set(name, 0, ex=timeout, nx=True)
        pipeline.incr(name)
        return pipeline.execute()[1]
    try:
        return cache.incr(key)
    except ValueError:  # the window's first request
        cache.add(key, 0, timeout)
        return cache.incr(key)
