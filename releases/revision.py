"""
The catalog's revision: a token that changes after every committed write to the catalog.

HTTP validators (ETag, Last-Modified) and the server-side page cache are keyed by it, so a
write invalidates every cached page at once, in every process and on every host that shares
the cache. The token lives in the "shared" cache (Redis when REDIS_URL is set, else a file
cache that all processes on one machine share), so checking it costs no SQL query.

The token is random rather than a counter: if the shared cache ever loses it, a new token is
drawn, which can only invalidate too much, never serve a stale page. Each revision also claims
a second of its own for Last-Modified, later than the last revision's, so that a client
revalidating with If-Modified-Since never mistakes a new revision for the one it holds.
"""

import datetime as dt
import hashlib
import uuid

from django.core.cache import caches
from django.db import transaction
from django.utils import timezone

REVISION_KEY = "catalog-revision"
SECOND_KEY = "catalog-revision-second:{}"


def _shared():
    return caches["shared"]


def current():
    """(token, changed_at) of the catalog as committed now."""
    value = _shared().get(REVISION_KEY)
    if value is None:
        drawn = (uuid.uuid4().hex, _claim_second(None))
        if _shared().add(REVISION_KEY, drawn, timeout=None):
            return drawn
        # Another process drew one first. A read of the disk cache that finds its database
        # busy answers "missing" rather than wait, so read again; a token no other process
        # has can only invalidate too much, never serve a stale page.
        for _ in range(100):
            value = _shared().get(REVISION_KEY)
            if value is not None:
                return value
        return drawn
    return value


def _claim_second(previous):
    """
    A whole second, no earlier than now and later than ``previous``, that no other revision
    has: ``add`` claims it (atomically on Redis), so two processes never share one.
    """
    second = timezone.now().replace(microsecond=0)
    if previous is not None and second <= previous:
        second = previous + dt.timedelta(seconds=1)
    while not _shared().add(SECOND_KEY.format(int(second.timestamp())), 1, timeout=86400):
        second += dt.timedelta(seconds=1)
    return second


def bump():
    """Start a new revision now."""
    value = _shared().get(REVISION_KEY)
    previous = value[1] if value else None
    _shared().set(REVISION_KEY, (uuid.uuid4().hex, _claim_second(previous)), timeout=None)


def catalog_changed(using="default"):
    """
    Call on every write to the catalog. The new revision starts once the transaction commits
    (before that, a reader could cache the old data under the new token), and a transaction
    starts one revision however many rows it writes.
    """
    connection = transaction.get_connection(using)
    # Django keeps the callbacks of the open transaction in run_on_commit, and drops those of
    # a savepoint that rolls back: if ours is still there, this transaction will bump.
    # tests/test_changes.py pins this reading of Django's internals.
    if connection.in_atomic_block and any(
        callback is bump for _, callback, *_ in connection.run_on_commit
    ):
        return
    transaction.on_commit(bump, using=using)


COUNT_KEY = "count:{}:{}"
COUNT_SECONDS = 24 * 3600  # a revision that lasts a day keeps its counts a day


def cached_count(name, count, token=None):
    """
    The count called ``name`` (say, a list's path and filters) in the catalog as of revision
    ``token`` (the current one if not given): ``count()`` the first time, then from the
    shared cache, for every process. A write starts a new revision, and with it new counts.
    """
    token = token or current()[0]
    key = COUNT_KEY.format(token, count_digest(name))
    value = _known_counts.get(key)  # this process's copy: the key names the revision
    if value is None:
        value = _shared().get(key)
        if value is None:
            value = count()
            _shared().set(key, value, timeout=COUNT_SECONDS)
        if len(_known_counts) >= KNOWN_COUNTS:
            _known_counts.clear()
        _known_counts[key] = value
    return value


KNOWN_COUNTS = 4096
_known_counts = {}


def count_digest(name):
    return hashlib.blake2b(name.encode(), digest_size=16).hexdigest()
