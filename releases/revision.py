"""
The catalog's revision: a token that changes after every committed write to the catalog.

HTTP validators (ETag, Last-Modified) and the server-side page cache are keyed by it, so a
write invalidates every cached page at once, in every process and on every host that shares
the cache. The token lives in the "shared" cache (Redis when REDIS_URL is set, else a file
cache that all processes on one machine share), so checking it costs no SQL query.

The token is random rather than a counter: if the shared cache ever loses it, a new token is
drawn, which can only invalidate too much, never serve a stale page.
"""

import uuid

from django.core.cache import caches
from django.db import transaction
from django.utils import timezone

REVISION_KEY = "catalog-revision"


def _shared():
    return caches["shared"]


def current():
    """(token, changed_at) of the catalog as committed now."""
    value = _shared().get(REVISION_KEY)
    if value is None:
        _shared().add(REVISION_KEY, (uuid.uuid4().hex, timezone.now()), timeout=None)
        value = _shared().get(REVISION_KEY)
    return value


def bump():
    """Start a new revision now."""
    _shared().set(REVISION_KEY, (uuid.uuid4().hex, timezone.now()), timeout=None)


def catalog_changed():
    """
    Call on every write to the catalog. The new revision starts once the transaction commits:
    before that, a reader could cache the old data under the new token.
    """
    transaction.on_commit(bump)
