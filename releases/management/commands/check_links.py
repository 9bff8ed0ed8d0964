"""
``manage.py check_links``: check the public catalog's links and record what was found.

HEAD first (GET where a server refuses HEAD), redirects followed, one request at a time per
host with a pause between them, a few hosts at a time, Retry-After respected; see
releases/links/checking.py. A link becomes broken (or unreachable) only after two failed checks at
least a day apart. ``--stale-after`` and ``--limit`` let a timer spread the work over runs:
the least recently checked links go first.
"""

from django.conf import settings
from django.core.management.base import CommandError

from releases import versions
from releases.links import checking, health
from releases.management.base import CatalogCommand
from releases.models import Release

# How politely to check: (option, metavar, default, help); handle() checks each value.
PACING = (
    ("--concurrency", "N", "8", "Requests at a time (8)."),
    ("--delay", "SECONDS", "1", "Pause between two requests to one host (1)."),
    ("--timeout", "SECONDS", "10", "To connect, and per read (10)."),
    (
        "--max-retry-wait",
        "SECONDS",
        "60",
        "The longest Retry-After waited for; beyond it the link is checked next run.",
    ),
)


class Command(CatalogCommand):
    help = (
        "Check the links of the public catalog (or of --release) and record each one's status: "
        "ok, redirected, broken, unreachable."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--release",
            action="append",
            default=[],
            metavar="VERSION",
            help="Only the links of this published release (repeat for several).",
        )
        parser.add_argument(
            "--stale-after",
            metavar="AGE",
            help="Only links not checked for this long: 90s, 30m, 12h, 7d.",
        )
        parser.add_argument(
            "--limit", metavar="N", help="At most N links, the least recently checked first."
        )
        for flag, metavar, default, text in PACING:
            parser.add_argument(flag, metavar=metavar, default=default, help=text)
        parser.add_argument(
            "--allow-private-addresses",
            action="store_true",
            help="Also request loopback and private addresses (for a local test server).",
        )

    def handle(self, *args, **options):
        if not settings.CATALOG_URL:
            raise CommandError(
                "Set CATALOG_URL to the catalog's public address: the User-Agent names it, so "
                "that sites know whose requests they are."
            )
        releases = [self.published_version(value) for value in options["release"]]
        stale_after = None
        if options["stale_after"] is not None:
            try:
                stale_after = health.parse_age(options["stale_after"])
            except ValueError as error:
                raise CommandError(f"--stale-after: {error}") from None
        limit = self.number("--limit", options["limit"]) if options["limit"] is not None else None
        policy = checking.Policy(
            user_agent=checking.user_agent(settings.CATALOG_URL),
            timeout=self.seconds("--timeout", options["timeout"], minimum=0.001),
            delay=self.seconds("--delay", options["delay"]),
            concurrency=self.number("--concurrency", options["concurrency"]),
            max_retry_wait=self.seconds("--max-retry-wait", options["max_retry_wait"]),
            allow_private=options["allow_private_addresses"],
        )
        links = health.links_to_check(releases=releases, stale_after=stale_after, limit=limit)
        if not links:
            self.stdout.write("No links to check.")
            return
        report = health.check(links, policy)
        self.summarize(report, options["verbosity"])

    def summarize(self, report, verbosity):
        from rich.console import Console
        from rich.table import Table

        console = Console(file=self.stdout, highlight=False, width=120)
        table = Table("status", "links", title=f"Checked {len(report.rows)} link(s)")
        for name, count in report.counts().items():
            table.add_row(name, str(count))
        console.print(table)
        rows = report.rows if verbosity >= 2 else report.changed()
        if rows:
            details = Table("url", "was", "now", "HTTP", "detail")
            for link, probe, before, after in rows:
                details.add_row(
                    link.url,
                    before.status,
                    after.status,
                    str(probe.http_status or ""),
                    probe.detail or probe.final_url,
                )
            console.print(details)

    @staticmethod
    def published_version(value):
        try:
            version = versions.normalize(value)
        except versions.InvalidVersion as error:
            raise CommandError(f"--release: {error}") from None
        if not Release.objects.published().of_version(version).exists():
            raise CommandError(f"--release: no published release {value}.")
        return version
