"""
The importers against hostile answers (issue 42): what each download costs when the answer is
built to hurt, and whether an editor can save while a huge feed is read.

A stand-in server on loopback serves, for ``watch_blog`` (the feed), ``import_post URL`` and
``sync_index`` (the index's torch page):

- ``bomb``: a gzip answer of a few hundred kilobytes that inflates to 512 MiB of spaces;
- ``stacked``: the same, gzipped once more and sent as ``Content-Encoding: gzip, gzip``;
- ``oversized``: 64 MiB of plain bytes with no Content-Length, streamed.

Each command runs alone in its own process on a scratch SQLite catalog (production settings),
and the kernel's figure for its peak memory (``wait4``'s ``ru_maxrss``) and its time are
reported against the targets: under 200 MB, within the command's own deadline, refused with
one line.

Then ``watch_blog`` reads a feed of 72,000 release announcements (about 5 MB, under the
limit) while an editor's save goes through the write path every 50 ms in another process: the
longest a save took is reported against the target of one second (SQLite: one writer at a
time, the worst case).

    python -m bench.hostile [--out bench/results.json]
"""

import argparse
import gzip
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from bench import serve

KEY = "hostile_downloads"
TARGETS = {"peak_mb": 200, "editor_save_max_s": 1.0}
FEED_ENTRIES = 72_000
INFLATED = 512 * 1024 * 1024
OVERSIZED = 64 * 1024 * 1024
SAVER = "BENCH_HOSTILE_SAVER"
KINDS = ("bomb", "stacked", "oversized", "feed")


def gzip_of_spaces(size):
    """A gzip member of ``size`` spaces, made a mebibyte at a time (never ``size`` in memory)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1024 * 1024)
    parts = [packer.compress(chunk) for _ in range(size // len(chunk))]
    return b"".join(parts) + packer.flush()


def feed_of(entries):
    """RSS with ``entries`` release announcements, each its own version, in under 5 MiB."""
    items = "".join(
        f"<item><title>PyTorch {3 + n // 1000}.{n % 1000} Release</title><link>/p/{n}</link></item>"
        for n in range(entries)
    )
    feed = (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>t</title>'
        f"<link>http://127.0.0.1/</link><description>d</description>{items}</channel></rss>"
    ).encode()
    assert len(feed) < 5 * 1024 * 1024, "the feed must be under watch_blog's limit"
    return feed


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # no Content-Length needed: the end of the answer is the end

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        kind = next((part for part in parts if part in KINDS), "")
        bomb = self.server.bomb
        answers = {
            "bomb": ({"Content-Encoding": "gzip"}, [bomb]),
            "stacked": ({"Content-Encoding": "gzip, gzip"}, [self.server.stacked]),
            "oversized": ({}, (b"x" * (1024 * 1024) for _ in range(OVERSIZED // (1024 * 1024)))),
            "feed": ({"Content-Type": "application/rss+xml"}, [self.server.feed]),
        }
        headers, body = answers.get(kind, ({}, None))
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        content_type = "application/vnd.pypi.simple.v1+json" if "simple" in self.path else None
        self.send_header("Content-Type", headers.pop("Content-Type", content_type or "text/html"))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            for part in body:
                self.wfile.write(part)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused: the client stopped reading, as it should

    def log_message(self, *args):
        pass


def stand_in(inflated=INFLATED, entries=FEED_ENTRIES):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.bomb = gzip_of_spaces(inflated)
    server.stacked = gzip.compress(server.bomb)
    server.feed = feed_of(entries)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.url = f"http://127.0.0.1:{server.server_port}"
    return server


def run_measured(command, env):
    """(peak RSS in MB, seconds, exit status, the last line it wrote) of one command."""
    started = time.monotonic()
    child = subprocess.Popen(
        command,
        env=env,
        cwd=serve.ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = child.stdout.read().decode("utf-8", "replace")
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    lines = [line for line in output.splitlines() if line.strip()]
    return {
        "peak_mb": round(usage.ru_maxrss / 1024, 1),
        "seconds": round(time.monotonic() - started, 2),
        "exit": child.returncode,
        "said": lines[-1][:300] if lines else "",
        "lines": len(lines),
    }


def manage(*args):
    return [serve.PYTHON, str(serve.ROOT / "manage.py"), *args]


def downloads(server, env):
    """Each command against each hostile answer."""
    figures = {}
    for kind in ("bomb", "stacked", "oversized"):
        feed_env = {**env, "BLOG_FEED_URL": f"{server.url}/{kind}/feed/"}
        commands = {
            "watch_blog": (manage("watch_blog", "--attempts", "1"), feed_env),
            "import_post": (manage("import_post", f"{server.url}/{kind}/post/"), env),
            "sync_index": (
                manage(
                    "sync_index",
                    "--attempts",
                    "1",
                    "--variant-index",
                    "none",
                    "--package",
                    "torch",
                    "--index-url",
                    f"{server.url}/{kind}/simple/",
                ),
                env,
            ),  # fmt: skip
        }
        for name, (command, command_env) in commands.items():
            figures[f"{name}_{kind}"] = run_measured(command, command_env)
    return figures


def editor_saves(server, env):
    """The longest an editor's save took while watch_blog read the feed of FEED_ENTRIES."""
    feed_env = {**env, "BLOG_FEED_URL": f"{server.url}/feed/"}
    saver = subprocess.Popen(
        [serve.PYTHON, "-m", "bench.hostile", "--saves"],
        env={**env, SAVER: "1"},
        cwd=serve.ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert saver.stdout.readline().strip() == "ready"
    watched = run_measured(manage("watch_blog", "--attempts", "1", "--limit", "1"), feed_env)
    saver.stdin.write("stop\n")
    saver.stdin.flush()
    saves = json.loads(saver.stdout.readline())
    saver.wait()
    return {"watch_blog_huge_feed": watched, **saves}


def save_until_told(period=0.05):
    """In the catalog's environment: save a release every ``period`` seconds until stdin says
    stop; print the number of saves and the longest."""
    import django

    django.setup()
    from releases.models import Release

    release = Release.objects.create(version="99.1", title="An editor's draft")
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    longest, count, failed = 0.0, 0, []
    while not stop.is_set():
        started = time.monotonic()
        try:
            release.summary = f"Edited {count} times."
            release.save()
        except Exception as error:  # what the editor would see: counted, not fatal
            failed.append(f"{type(error).__name__}: {error}")
        longest = max(longest, time.monotonic() - started)
        count += 1
        stop.wait(period)
    print(json.dumps({"editor_saves": count, "editor_save_max_s": round(longest, 3),
                      "editor_save_failures": failed[:3]}), flush=True)  # fmt: skip


def measure_isolated(tiny=False):
    """Every figure, from a scratch catalog (``tiny``: a 64 MiB bomb, a feed of 2,000)."""
    inflated, entries = (64 * 1024 * 1024, 2_000) if tiny else (INFLATED, FEED_ENTRIES)
    with tempfile.TemporaryDirectory(prefix="catalog-bench-hostile-") as workdir:
        env = serve.production_env(workdir, DJANGO_SETTINGS_MODULE="config.settings")
        serve.prepare(env, load_fixtures=False)
        server = stand_in(inflated, entries)
        try:
            figures = {"inflated_mb": inflated // 2**20, "feed_entries": entries}
            figures["downloads"] = downloads(server, env)
            figures.update(editor_saves(server, env))
        finally:
            server.shutdown()
            server.server_close()
    runs = figures["downloads"].values()
    # The target is the hostile answers'; the huge feed's peak is reported beside it.
    figures["peak_mb"] = max(run["peak_mb"] for run in runs)
    figures["slowest_s"] = max(run["seconds"] for run in runs)
    figures["refusals_not_one_line"] = sum(run["lines"] != 1 or run["exit"] != 1 for run in runs)
    return figures


def verdicts(figures):
    """(key, value, target, met) for each target."""
    return [
        ("peak_mb", figures["peak_mb"], f"≤ {TARGETS['peak_mb']}",
         figures["peak_mb"] <= TARGETS["peak_mb"] and not figures["refusals_not_one_line"]),
        ("editor_save_max_s", figures["editor_save_max_s"], f"≤ {TARGETS['editor_save_max_s']}",
         figures["editor_save_max_s"] <= TARGETS["editor_save_max_s"]
         and not figures["editor_save_failures"]),
    ]  # fmt: skip


def report(figures):
    lines = [f"{'run':28} {'peak MB':>8} {'s':>7} {'exit':>4}  said"]
    runs = {**figures["downloads"], "watch_blog_huge_feed": figures["watch_blog_huge_feed"]}
    for name, run in runs.items():
        lines.append(
            f"{name:28} {run['peak_mb']:8.1f} {run['seconds']:7.2f} {run['exit']:4}  "
            f"{run['said'][:110]}"
        )
    lines.append(
        f"editor's saves while watch_blog read {figures['feed_entries']} entries: "
        f"{figures['editor_saves']}, the longest {figures['editor_save_max_s']} s"
    )
    for key, value, target, ok in verdicts(figures):
        lines.append(f"  {key:24} {value:<10} target {target}: {'met' if ok else 'MISSED'}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=None, help="a results file to write the figures into")
    parser.add_argument("--tiny", action="store_true", help="a 64 MiB bomb, a 2,000-entry feed")
    parser.add_argument("--saves", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.saves and os.environ.get(SAVER) == "1":
        save_until_told()
        return None
    figures = measure_isolated(args.tiny)
    print(report(figures), file=sys.stderr)
    return serve.write_figures(args.out, KEY, figures)


if __name__ == "__main__":
    main()
