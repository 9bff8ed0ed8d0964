"""
The catalog's revision: a token that changes after every committed write to the catalog.

HTTP validators (ETag, Last-Modified) and the server-side page cache are keyed by it, so a
write invalidates every cached page at once, in every process and on every host that shares
the cache. The token lives in the "shared" cache (Redis when REDIS_URL is set, else a file
cache that all processes on one machine share), so checking it costs no SQL query.

The token is random rather than a counter: if the shared cache ever loses it, a new token is
drawn, which can only invalidate too much, never serve a stale page.

A revision also records when it started: the real time of the last change, which is what
Last-Modified says (so never later than the response's Date). HTTP dates count whole seconds,
and several revisions may start within one: the token tells them apart in the ETag, and the
revisions of each second are counted (``shares_second``), so that a client revalidating with
If-Modified-Since alone, holding another revision of the same second, is not told that
nothing changed (releases.web.middleware).
"""

import hashlib
import threading
import uuid
from typing import NamedTuple

from django.core.cache import caches
from django.db import transaction
from django.utils import timezone

# Versioned: a value of the earlier form, (token, claimed second), is not read as a Revision.
REVISION_KEY = "catalog-revision:2"
SECOND_KEY = "catalog-revision-second:{}"  # how many revisions started in that second
SECOND_SECONDS = 24 * 3600  # how long a second's count is kept


class Revision(NamedTuple):
    token: str
    changed_at: object  # an aware datetime: when the revision started
    shares_second: bool  # another revision started earlier within the same whole second


def _shared():
    return caches["shared"]


def current():
    """The catalog's Revision as committed now."""
    value = _shared().get(REVISION_KEY)
    if value is None:
        # Lost (or never drawn): a new token, as if the catalog had just changed.
        drawn = _new()
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


def _new():
    """
    A revision starting now, counted among the revisions of its whole second (atomically, on
    Redis and in the disk cache): the second one and later know at once that they share it.
    """
    now = timezone.now()
    key = SECOND_KEY.format(int(now.timestamp()))
    _shared().add(key, 0, timeout=SECOND_SECONDS)
    try:
        count = _shared().incr(key)
    except ValueError:  # expired between the two: counted as shared, which is always safe
        count = None
    return Revision(uuid.uuid4().hex, now, shares_second=count is None or count > 1)


def shares_second(revision):
    """
    Whether another revision started within ``revision``'s whole second, as known now: the
    first of a second learns of a later one here, whichever of them was stored last. Unknown
    (an expired count, a busy disk cache) counts as shared: the safe answer.
    """
    if revision.shares_second:
        return True
    count = _shared().get(SECOND_KEY.format(int(revision.changed_at.timestamp())))
    return count is None or count > 1


def bump():
    """Start a new revision now."""
    _shared().set(REVISION_KEY, _new(), timeout=None)


def catalog_changed(using="default"):
    """
    Call on every write to the catalog. The new revision starts once the transaction commits
    (before that, a reader could cache the old data under the new token), and a transaction
    starts one revision however many rows it writes.
    """
    # Every write asks for the bump, and the first to run at commit is the only one that
    # bumps: a savepoint that rolls back takes its own requests with it, and those of the
    # writes that remain still ask.
    transaction.on_commit(_pending_bump(using), using=using)


class Bump:
    """One transaction's revision: started once, by the first of its on_commit callbacks."""

    def __init__(self):
        self.done = False

    def __call__(self):
        if not self.done:
            self.done = True
            bump()


_bumps = threading.local()  # per thread and database: the bump the open transaction asks for


def _pending_bump(using):
    """The bump not yet started on ``using`` in this thread (a new one once it has run)."""
    pending = getattr(_bumps, using, None)
    if pending is None or pending.done:
        pending = Bump()
        setattr(_bumps, using, pending)
    return pending


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
