"""The shared cache without Redis: diskcache's Django backend, with its connections kept."""

from diskcache import DjangoCache


class DiskCache(DjangoCache):
    """
    Django closes every cache at the end of each request (for connections that must not
    outlive one); diskcache's close shuts its SQLite connections, so that each request would
    open and configure them again, which costs more than the request's cache operations
    themselves (bench/README.md). Like Django's own local-memory and file caches, this one
    keeps what it holds open: diskcache gives each thread its own connections and opens new
    ones in a forked process (tests/test_adapters.py pins both, checked against diskcache
    5.6), so a kept connection is never shared.
    """

    def close(self, **kwargs):
        pass
