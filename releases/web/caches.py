"""The shared cache without Redis: diskcache's Django backend, with its connections kept."""

from diskcache import DjangoCache


class DiskCache(DjangoCache):
    """
    Django closes every cache at the end of each request (for connections that must not
    outlive one); diskcache's close shuts its SQLite connections, so that each request would
    open and configure them again, which costs more than the request's cache operations
    themselves (bench/README.md). Its connections belong to one thread of one process, and
    it opens new ones after a fork, so they are kept.
    """

    def close(self, **kwargs):
        pass
