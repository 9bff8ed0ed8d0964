"""
``manage.py watch_blog``: keep the catalog current with the blog. Reads the blog's feed
(``BLOG_FEED_URL``), notes every post that announces a release, and imports each release the
catalog never held as a draft, through ``import_post``, for the editors' desk.

Made for cron or a systemd timer (releases/importing/watch.py says how): a conditional request
(an unchanged feed is a 304), polite retries, one run at a time, one summary line per run.
Exits 0 when it did its work (or found another run at it), 1 when the feed or a post could not
be had: unreachable after its retries, or not a feed. Then the catalog is unchanged.
"""

import urllib.parse

from django.conf import settings
from django.core.management.base import CommandError

from releases.importing import watch
from releases.management.base import CatalogCommand


class Command(CatalogCommand):
    NUMBER_DIGITS = 4
    help = (
        "Read the blog's feed (BLOG_FEED_URL) and import, as drafts, the releases it announces "
        "that the catalog does not hold."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--timeout", metavar="SECONDS", default="10", help="To connect, and per read (10)."
        )
        parser.add_argument(
            "--attempts",
            metavar="N",
            default="3",
            help="Requests for one URL when it answers 5xx or not at all (3); 4xx: one.",
        )
        parser.add_argument(
            "--backoff",
            metavar="SECONDS",
            default="2",
            help="Wait before the second attempt, doubled before each next one (2).",
        )
        parser.add_argument(
            "--limit",
            metavar="N",
            default="10",
            help="Posts to download in one run (10); the rest wait for the next run.",
        )

    def handle(self, *args, **options):
        feed_url = settings.BLOG_FEED_URL
        if urllib.parse.urlsplit(feed_url).scheme not in ("http", "https"):
            raise CommandError(f"BLOG_FEED_URL must be an http or https address; got {feed_url!r}.")
        policy = watch.Policy(
            user_agent=watch.user_agent(settings.CATALOG_URL),
            timeout=self.seconds("--timeout", options["timeout"], minimum=0.001),
            attempts=self.number("--attempts", options["attempts"]),
            backoff=self.seconds("--backoff", options["backoff"]),
            limit=self.number("--limit", options["limit"]),
        )
        verbosity = options["verbosity"]
        run = watch.watch(feed_url, policy)
        if verbosity >= 2:
            for version, report in run.reports:
                self.stdout.write(f"--- import_post, {version}:\n{report.rstrip()}")
        if run.failed:
            raise CommandError(run.summary())
        self.stdout.write(run.summary())
