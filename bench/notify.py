"""
The notifications worker's memory over many deliveries: a webhook following ``all`` is set to
read the last N entries of the catalog's change log (one delivery an object), and
``deliver_notifications --once`` sends them all to a receiver on loopback, in this process,
while a thread samples its resident memory against the deliveries made.

    python -m bench.notify [N]     # prints {"notify_deliveries": ..., "notify_rss_growth_mb": ...}

The growth is the resident memory after every delivery is made, less what it was once a tenth
of them were: flat means the worker keeps nothing per delivery.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import django


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with self.server.lock:
            self.server.count += 1

        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    wanted = int(args[0]) if args else 10_000
    os.environ["WEBHOOK_ALLOW_PRIVATE"] = "1"  # the receiver is on loopback
    os.environ.setdefault("CATALOG_URL", "http://127.0.0.1:8000")
    django.setup()
    from django.core.management import call_command

    from releases.models import PublicChange, WebhookDelivery
    from releases.notifications import webhooks, worker

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.daemon_threads, server.count, server.lock = True, 0, threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()

    # The newest ``wanted`` entries, one an object (the log's first entries, from loading).
    ids = PublicChange.objects.order_by("-pk").values_list("pk", flat=True)
    start = (list(ids[wanted : wanted + 1]) or [0])[0]
    webhook = webhooks.register(
        f"http://127.0.0.1:{server.server_port}/hook", ["all"], secret="bench-secret-0123456789"
    )
    type(webhook).objects.filter(pk=webhook.pk).update(cursor=start)
    planned = time.monotonic()
    made, _ = worker.plan()
    planning = time.monotonic() - planned

    samples, done = [], threading.Event()

    def sample():
        while not done.is_set():
            samples.append((server.count, rss_mb()))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    call_command("deliver_notifications", "--once", verbosity=0)
    seconds = time.monotonic() - started
    done.set()
    sampler.join()
    samples.append((server.count, rss_mb()))
    delivered = WebhookDelivery.objects.filter(
        webhook=webhook, status=WebhookDelivery.Status.DELIVERED
    ).count()
    tenth = next((rss for count, rss in samples if count >= made / 10), samples[0][1])
    result = {
        "notify_deliveries": delivered,
        "notify_received": server.count,
        "notify_plan_seconds": round(planning, 1),
        "notify_seconds": round(seconds, 1),
        "notify_per_second": round(delivered / seconds, 1) if seconds else None,
        "notify_rss_at_tenth_mb": round(tenth, 1),
        "notify_rss_end_mb": round(samples[-1][1], 1),
        "notify_rss_growth_mb": round(samples[-1][1] - tenth, 1),
        "notify_rss_peak_mb": round(max(rss for _, rss in samples), 1),
    }
    server.shutdown()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
