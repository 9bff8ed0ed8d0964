"""
A fixed number of threads run the catalog in each worker, whatever the number of connections.

gunicorn's threaded workers (``WEB_THREADS``, 64 in `make serve`) keep many threads so that a
client sending its request a byte at a time holds one of them, not the worker. But every
thread that ran a request kept what it built there: its own database connection (Django's are
per thread), SQLite's page cache and prepared statements, and the memory allocator's share of
what its last request made. Measured on the benchmark's catalog (bench/README.md), a worker
grew by 3 to 4 MB for each request running at once, to 303 MB under 64 clients, for no more
throughput than 4 (2 cores, one interpreter lock).

``AppThreads`` wraps the WSGI application: gunicorn's thread reads the request, then hands it
to one of ``threads`` application threads, which runs it and produces its body; the body goes
back to gunicorn's thread through a small queue, in pieces of ``PIECE`` bytes, so a slow
reader holds one piece at a time. Database connections and everything else a request builds
live in the application threads only, and a worker's memory is bounded by their number.

A file response (whitenoise's static files, through the server's ``wsgi.file_wrapper``) goes
back as it is, so that the server can still send it with ``sendfile``.
"""

import queue
import threading
from concurrent.futures import ThreadPoolExecutor

PIECE = 64 * 1024
PIECES_WAITING = 2
_PIECE, _END, _ERROR, _FILE = "piece", "end", "error", "file"


class ClientStalled(Exception):
    """The client read nothing of its response for ``stall_seconds``."""


class AppThreads:
    def __init__(self, application, threads, stall_seconds=60):
        self.application = application
        self.stall_seconds = stall_seconds
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="catalog")

    def __call__(self, environ, start_response):
        relay = Relay(self.stall_seconds)
        self.pool.submit(self.run, environ, start_response, relay)
        return relay.opened()

    def run(self, environ, start_response, relay):
        """In an application thread: the request, then its body handed over piece by piece."""
        try:
            result = self.application(environ, start_response)
        except BaseException as error:  # raised in the server's thread, as if it were its own
            relay.send(_ERROR, error)
            return
        file_wrapper = environ.get("wsgi.file_wrapper")
        if isinstance(file_wrapper, type) and isinstance(result, file_wrapper):
            relay.send(_FILE, result)
            return
        # The response is closed (Django's request_finished, the connections' cleanup) before
        # its last piece goes, so that what a client sees next comes after it.
        last, failed = b"", None
        try:
            pieces, size = [], 0
            for chunk in result:
                pieces.append(chunk)
                size += len(chunk)
                if size >= PIECE:
                    if not relay.send(_PIECE, b"".join(pieces)):
                        return
                    pieces, size = [], 0
            last = b"".join(pieces)
        except BaseException as error:
            failed = error
        finally:
            close = getattr(result, "close", None)
            try:
                if close is not None:
                    close()
            except BaseException as error:  # told to the server's thread, which waits
                failed = failed or error
        if failed is not None:
            relay.send(_ERROR, failed)
        elif not last or relay.send(_PIECE, last):
            relay.send(_END)


class Relay:
    """The pieces of one response, from its application thread to the server's thread."""

    def __init__(self, stall_seconds):
        self.pieces = queue.Queue(maxsize=PIECES_WAITING)
        self.closed = threading.Event()
        self.stall_seconds = stall_seconds
        self.first = None

    # --- the application thread's side ---

    def send(self, tag, value=None):
        """
        Wait for room, then hand (tag, value) over. False when nobody will take it: the server
        closed the response (the client went), or the client read nothing for
        ``stall_seconds``, which the server's thread then raises.
        """
        waited = 0.0
        while not self.closed.is_set():
            try:
                self.pieces.put((tag, value), timeout=0.5)
                return True
            except queue.Full:
                waited += 0.5
                if waited >= self.stall_seconds:
                    self.discard()
                    self.pieces.put((_ERROR, ClientStalled(f"no read for {waited:.0f} s")))
                    return False
        return False

    def discard(self):
        while True:
            try:
                self.pieces.get_nowait()
            except queue.Empty:
                return

    # --- the server's thread's side ---

    def opened(self):
        """The response's body, once the application has started it (or its error, raised)."""
        tag, value = self.take()
        if tag == _END:
            return []
        if tag == _FILE:
            return value
        self.first = value
        return self

    def take(self):
        tag, value = self.pieces.get()
        if tag == _ERROR:
            raise value
        return tag, value

    def __iter__(self):
        if self.first is not None:
            first, self.first = self.first, None
            yield first
        while True:
            tag, value = self.take()
            if tag == _END:
                return
            yield value

    def close(self):
        """The server is done with the response (sent, or the client went): stop producing it."""
        self.closed.set()
        self.discard()
