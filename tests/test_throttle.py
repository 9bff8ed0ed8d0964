"""The API's throttle: fixed windows, one operation on a shared store a request."""

import pytest
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured

from releases.web.throttle import CacheCounters, SQLiteCounters, Throttle, parse_rate


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        ("1200/m", (1200, 60)),
        ("100/10s", (100, 10)),
        ("5000/hour", (5000, 3600)),
        ("3/d", (3, 86400)),
    ],
)
def test_rates_are_requests_a_period(rate, expected):
    assert parse_rate(rate) == expected


@pytest.mark.parametrize("rate", ["fast", "10", "10/", "/m", "10/w", "-1/m", "1.5/m"])
def test_a_malformed_rate_is_refused_by_name(rate):
    with pytest.raises(ImproperlyConfigured, match="API_ANON_RATE"):
        parse_rate(rate)


@pytest.fixture(params=["sqlite", "cache"])
def store(request, tmp_path):
    """The counters without Redis (a SQLite file), and in a Django cache (the disk cache)."""
    if request.param == "sqlite":
        return SQLiteCounters(tmp_path / "throttle.sqlite3")
    caches["shared"].clear()
    return CacheCounters(caches["shared"])


def test_each_client_gets_its_limit_in_each_window(store):
    throttle = Throttle("3/m", store)
    start = 120 * 60.0  # the start of a window
    assert [throttle.wait("192.0.2.1", now=start + n) for n in range(3)] == [0, 0, 0]
    assert throttle.wait("192.0.2.1", now=start + 15) == 45  # until the next window
    assert throttle.wait("192.0.2.2", now=start + 15) == 0  # another client
    assert throttle.wait("192.0.2.1", now=start + 60) == 0  # the next window


def test_a_request_is_one_statement_on_the_counters_file(tmp_path):
    store = SQLiteCounters(tmp_path / "throttle.sqlite3")
    throttle = Throttle("10/m", store)
    throttle.wait("192.0.2.9", now=600.0)  # the window's first: the upsert, and a clean-up
    statements = []
    store.connection().set_trace_callback(statements.append)
    throttle.wait("192.0.2.9", now=601.0)
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO counters")


def test_past_windows_are_forgotten(tmp_path):
    store = SQLiteCounters(tmp_path / "throttle.sqlite3")
    throttle = Throttle("10/m", store)
    for client in ("192.0.2.1", "192.0.2.2"):
        throttle.wait(client, now=600.0)
    throttle.wait("192.0.2.1", now=700.0)  # a later window's first request cleans up
    rows = store.connection().execute("SELECT count(*) FROM counters").fetchone()[0]
    assert rows == 1


def test_in_a_cache_a_request_is_one_operation():
    shared = caches["shared"]
    shared.clear()
    calls = []

    class Counting:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(shared, name)

    throttle = Throttle("10/m", CacheCounters(Counting()))
    throttle.wait("192.0.2.9", now=600.0)  # the window's first: incr fails, add, incr
    calls.clear()
    throttle.wait("192.0.2.9", now=601.0)
    assert calls == ["incr"]
