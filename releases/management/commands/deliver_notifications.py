"""
Deliver notifications: webhooks and email digests of the public change log's entries.

    python manage.py deliver_notifications --once   # everything due now, then exit (cron, tests)
    python manage.py deliver_notifications          # the worker: run until stopped (systemd)

The worker plans every few seconds (``--interval``): it turns new change-log entries into
deliveries and queues the tasks that are due (releases.notifications.worker), and it runs the
queued tasks with django-tasks' database worker (``db_worker``), which a TERM signal stops
after the task under way. Any number of workers, on any number of hosts, share the work.
"""

import threading

from django.core.management import call_command
from django.db import close_old_connections

from releases import outage
from releases.management.base import CatalogCommand
from releases.notifications import worker


class Command(CatalogCommand):
    help = "Deliver webhooks and email digests of the catalog's public changes."

    def add_arguments(self, parser):
        parser.add_argument(
            "--once", action="store_true", help="Deliver everything due now, then exit."
        )
        parser.add_argument(
            "--interval",
            default="5",
            help="Seconds between two looks at the change log (default 5).",
        )

    def handle(self, *args, once, interval, **options):
        interval = self.seconds("--interval", interval, minimum=0.1)
        verbosity = options.get("verbosity", 1)
        if once:
            made, queued = worker.plan()
            call_command(
                "db_worker",
                batch=True,
                interval=0,
                startup_delay=False,
                reload=False,
                verbosity=max(0, verbosity - 1),
            )
            if verbosity:
                self.stdout.write(
                    f"{made} deliveries made, {queued} tasks queued; all due were run."
                )
            return
        stop = threading.Event()
        planner = threading.Thread(target=self.plan_every, args=(interval, stop), daemon=True)
        planner.start()
        try:
            call_command(
                "db_worker", interval=interval, reload=False, verbosity=max(0, verbosity - 1)
            )
        finally:
            stop.set()

    def plan_every(self, interval, stop):
        """The planner's thread: plan, wait, again, until the worker stops."""
        while not stop.is_set():
            try:
                worker.plan()
            except Exception as error:  # a database away: say so, try again at the next turn
                self.stderr.write(f"planning failed: {outage.one_line(error)}")
            finally:
                close_old_connections()
            stop.wait(interval)
