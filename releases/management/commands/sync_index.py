"""
``manage.py sync_index``: keep what shipped current from the package indexes. Reads torch's
project page on the main index (``PACKAGE_INDEX_URL``) and on PyTorch's per-variant wheel
indexes (``WHEEL_VARIANT_INDEXES``), and each companion library's on the main index
(``INDEX_PACKAGES``), and records new patch releases, releases that shipped, yanks, wheels and
companions' Requires-Python (releases/importing/indexes.py says what and how).

Made for cron or a systemd timer: conditional requests, polite retries, one run at a time,
one summary line. Exits 0 when it did its work (or found another run at it), 1 when an index
could not be read or was garbled; then the catalog is unchanged.
"""

import re
import urllib.parse

from django.conf import settings
from django.core.management.base import CommandError

from releases.importing import download, indexes, watch
from releases.management.base import CatalogCommand
from releases.models import Library
from releases.models.compat import VARIANT_PATTERN

PACKAGE_RE = re.compile(r"^[a-z0-9](?:[a-z0-9._-]{0,60}[a-z0-9])?$")


def http_url(option, url):
    if (
        urllib.parse.urlsplit(url).scheme not in ("http", "https")
        or not urllib.parse.urlsplit(url).hostname
    ):
        raise CommandError(f"{option}: must be an http or https address; got {url!r}.")
    return url


class Command(CatalogCommand):
    NUMBER_DIGITS = 4
    help = (
        "Read torch's and its companions' pages on the package indexes and record what shipped: "
        "patch releases, released minors, yanks, wheels."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--index-url",
            metavar="URL",
            help="The main index's Simple API root (PACKAGE_INDEX_URL).",
        )
        parser.add_argument(
            "--variant-index",
            metavar="NAME=URL",
            action="append",
            default=[],
            help="A variant's wheel index, e.g. cu124=https://…/whl/cu124/ (repeatable; replaces "
            "WHEEL_VARIANT_INDEXES). --variant-index none reads no variant index.",
        )
        parser.add_argument(
            "--package",
            metavar="NAME",
            action="append",
            default=[],
            help="A package to read (repeatable; replaces INDEX_PACKAGES).",
        )
        parser.add_argument(
            "--timeout", metavar="SECONDS", default="20", help="To connect, and per read (20)."
        )
        parser.add_argument(
            "--attempts",
            metavar="N",
            default="3",
            help="Requests for one page when it answers 5xx or not at all (3).",
        )
        parser.add_argument(
            "--backoff",
            metavar="SECONDS",
            default="2",
            help="Wait before the second attempt, doubled after (2).",
        )

    def handle(self, *args, **options):
        index_url = http_url("--index-url", options["index_url"] or settings.PACKAGE_INDEX_URL)
        variants = self.variants(options["variant_index"])
        packages = self.packages(options["package"])
        policy = watch.Policy(
            user_agent=download.user_agent(settings.CATALOG_URL, purpose="sync"),
            timeout=self.seconds("--timeout", options["timeout"], minimum=0.001),
            attempts=self.number("--attempts", options["attempts"]),
            backoff=self.seconds("--backoff", options["backoff"]),
        )
        verbosity = options["verbosity"]
        run = indexes.sync(index_url, variants, packages, policy)
        if verbosity >= 2:
            for line in run.changed():
                self.stdout.write(f"  {line}")
        if run.failed:
            raise CommandError(run.summary())
        self.stdout.write(run.summary())

    @staticmethod
    def variants(given):
        if given == ["none"]:
            return {}
        if not given:
            items = settings.WHEEL_VARIANT_INDEXES.items()
            where = "WHEEL_VARIANT_INDEXES"
        else:
            items, where = [], "--variant-index"
            for item in given:
                name, equals, url = item.partition("=")
                if not equals:
                    raise CommandError(f"--variant-index: expected NAME=URL; got {item!r}.")
                items.append((name, url))
        found = {}
        for name, url in items:
            if not re.fullmatch(VARIANT_PATTERN, name.strip()):
                raise CommandError(
                    f"{where}: {name!r} is not a variant name such as cpu, cu124 or rocm6.2."
                )
            found[name.strip()] = http_url(where, url.strip())
        return found

    @staticmethod
    def packages(given):
        names = given or settings.INDEX_PACKAGES or [indexes.TORCH, *Library.values]
        for name in names:
            if not PACKAGE_RE.fullmatch(name):
                raise CommandError(f"--package: {name!r} is not a package name.")
        return list(dict.fromkeys(names))
