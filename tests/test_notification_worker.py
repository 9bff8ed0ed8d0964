"""
The notifications worker as systemd runs it: `manage.py deliver_notifications` in a process of
its own, on a catalog file of its own (tests/conftest.py's production_catalog), delivering to a
receiver on loopback; stopped with TERM and started again, it loses and repeats nothing.
"""

import json
import signal
import subprocess
import sys
import time

import pytest

from bench import serve
from releases.notifications import webhooks

pytestmark = pytest.mark.live_server


def manage(env, *args, timeout=60):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        env=env,
        cwd=serve.ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def add_patch(env, version):
    code = (
        "import datetime as dt\n"
        "from releases.models import PatchRelease, Release\n"
        "PatchRelease.objects.create(release=Release.objects.get(version='2.13'), "
        f"version='{version}', release_date=dt.date(2026, 8, 1), "
        "source_url='https://pypi.org/simple/torch/')\n"
    )
    result = manage(env, "shell", "-c", code)
    assert result.returncode == 0, result.stderr


def wait_for(condition, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_the_worker_delivers_stops_on_term_and_catches_up(production_catalog, stand_in, tmp_path):
    env = production_catalog(tmp_path, WEBHOOK_ALLOW_PRIVATE="1", CATALOG_URL="https://c.example")
    added = manage(env, "add_webhook", stand_in.url("/hook"), "--topic", "releases:2.13")
    assert added.returncode == 0 and "Secret (shown once" in added.stdout, added.stderr
    secret = added.stdout.rsplit(": ", 1)[1].strip()

    worker = subprocess.Popen(
        [sys.executable, "manage.py", "deliver_notifications", "--interval", "0.2"],
        env=env,
        cwd=serve.ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        add_patch(env, "2.13.7")
        assert wait_for(lambda: len(stand_in.posts) == 1), worker.stderr
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0

    add_patch(env, "2.13.8")  # while no worker runs
    add_patch(env, "2.13.9")
    time.sleep(0.5)
    assert len(stand_in.posts) == 1
    done = manage(env, "deliver_notifications", "--once")
    assert done.returncode == 0, done.stderr
    keys = [json.loads(body)["key"] for _, _, body in stand_in.posts]
    assert keys == [["2.13.7"], ["2.13.8"], ["2.13.9"]]
    ids = [headers["X-Catalog-Delivery"] for _, headers, _ in stand_in.posts]
    assert len(set(ids)) == 3
    for _, headers, body in stand_in.posts:
        assert webhooks.verify(secret, headers["X-Catalog-Signature"], body)
