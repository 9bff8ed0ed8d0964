"""
The catalog's revision: a token that changes with every committed write to the catalog.

HTTP validators (ETag, Last-Modified) and the server-side page cache are keyed by it, so a
write invalidates every cached page at once, in every process and on every host. The token
lives in the database (``models.CatalogRevision``, one row), rewritten in the transaction of
the write it announces: it commits with the change or not at all, so a save is seen whatever
happened to a cache (a Redis that stalled, a disk that failed), and a cache that lost everything
only costs time. Reading it is one query of one row.

Public requests read it through ``recent()``: a process reuses its last read for
``REVISION_REUSE_SECONDS`` (a twentieth of a second), so a page-cache hit under load asks the
database nothing, which on PostgreSQL is most of what a hit costs (bench/README.md). A write
forgets the process's read, so the process that saved shows the save on its next request; every
other process, on its first request after the reuse ends. Public answers already tell clients
they may reuse them for ``API_MAX_AGE_SECONDS`` (15).

A revision also records when it started: the real time of the last change, which is what
Last-Modified says (so never later than the response's Date). HTTP dates count whole seconds,
and several revisions may start within one: the token tells them apart in the ETag, and the
row counts the revisions of each second (``number`` and ``second_first``), so that a client
revalidating with If-Modified-Since alone, holding another revision of the same second, is not
told that nothing changed (releases.web.middleware).
"""

import datetime
import hashlib
import threading
import time
import uuid
from typing import NamedTuple

from django.conf import settings
from django.core.cache import caches
from django.db import IntegrityError, connections, transaction
from django.db.models import Case, F, When
from django.utils import timezone

from releases import declarations

ROW = 1  # the one row's primary key


class Revision(NamedTuple):
    token: str
    changed_at: object  # an aware datetime: when the revision started
    shares_second: bool  # another revision started earlier within the same whole second


def _shared():
    return caches["shared"]


def _model():
    return declarations.model("CatalogRevision")


def current(using="default"):
    """
    The catalog's Revision as committed now (as this transaction sees it): one query, spelled
    in SQL. Every public request runs it, page-cache hits included, and building it through the
    ORM cost ten times what running it does (0.6 ms against 0.06; bench/README.md).
    """
    connection = connections[using]
    name = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {name('token')}, {name('changed_at')}, {name('number')}, "
            f"{name('second_first')} FROM {name(_model()._meta.db_table)} WHERE {name('id')} = %s",
            [ROW],
        )
        row = cursor.fetchone()
    if row is None:
        first = _first(using)
        row = (first.token, first.changed_at, first.number, first.second_first)
    token, changed_at, number, second_first = row
    if timezone.is_naive(changed_at):  # SQLite keeps UTC without its zone
        changed_at = timezone.make_aware(changed_at, datetime.UTC)
    return Revision(token, changed_at, number != second_first)


class _Reads:
    """This process's last read of the revision, each database's, and until when it serves."""

    def __init__(self):
        self.kept = {}  # alias: (Revision, monotonic time it serves until)
        self.forgotten = 0  # how many times a write forgot them
        self.lock = threading.Lock()

    def get(self, using):
        kept = self.kept.get(using)
        if kept is not None and time.monotonic() < kept[1]:
            return kept[0]
        forgotten = self.forgotten
        value = current(using)
        seconds = settings.REVISION_REUSE_SECONDS
        with self.lock:
            # A write that forgot the reads while this one was under way may be newer than it.
            if seconds > 0 and forgotten == self.forgotten:
                self.kept[using] = (value, time.monotonic() + seconds)
        return value

    def forget(self, using=None):
        with self.lock:
            self.forgotten += 1
            if using is None:
                self.kept.clear()
            else:
                self.kept.pop(using, None)


_reads = _Reads()


def recent(using="default"):
    """
    The catalog's Revision as this process read it at most ``REVISION_REUSE_SECONDS`` ago, or
    as committed now: what public requests are keyed by (the module's docstring says why).
    """
    return _reads.get(using)


def forget(using=None):
    """Read the revision anew on the next ``recent()``: after a write, or a test's rollback."""
    _reads.forget(using)


def _first(using):
    """The row, for a database that lost it: a revision of its own, as if it had changed."""
    try:
        with transaction.atomic(using=using):
            return (
                _model()
                .objects.using(using)
                .create(pk=ROW, token=uuid.uuid4().hex, changed_at=timezone.now())
            )
    except IntegrityError:  # another process made it first
        return _model().objects.using(using).get(pk=ROW)


def shares_second(revision, using="default"):
    """
    Whether another revision started within ``revision``'s whole second, as known now: the
    first of a second learns here of a later one.
    """
    if revision.shares_second:
        return True
    now = current(using)
    same_second = int(now.changed_at.timestamp()) == int(revision.changed_at.timestamp())
    return now.token != revision.token and same_second


def bump(using="default"):
    """
    Start a new revision now, in the current transaction (one statement): it is seen by others
    when that transaction commits, and is undone if it rolls back. This process reads it anew,
    now (this transaction's own requests) and once it commits.
    """
    forget(using)
    transaction.on_commit(lambda: forget(using), using=using)
    now = timezone.now()
    second = now.replace(microsecond=0)
    updated = (
        _model()
        .objects.using(using)
        .filter(pk=ROW)
        .update(
            token=uuid.uuid4().hex,
            changed_at=now,
            number=F("number") + 1,
            # The first revision of this second keeps its number; a new second starts anew.
            second_first=Case(
                When(changed_at__gte=second, then=F("second_first")), default=F("number") + 1
            ),
        )
    )
    if not updated:
        _first(using)


def catalog_changed(using="default"):
    """
    Call on every write to the catalog, in its transaction: the revision changes with it. A
    transaction that writes many rows rewrites the row each time, and others see only the last
    (they see the row as committed).
    """
    bump(using)


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
