"""
Turn a release announcement into a draft release for editors.

    python manage.py import_post PATH [--version V] [--date YYYY-MM-DD] [--dry-run] [--publish]
    python manage.py import_post PATH --dry-run --compare
    python manage.py import_post FOLDER [--dry-run]
    python manage.py import_post https://pytorch.org/blog/SLUG/ [...]

A post is a Jekyll markdown post (or a translation of one, read through the English it quotes)
or an article of the new blog, an HTML page: a file, or a URL that is downloaded first
(``releases.importing.download``: a User-Agent naming the catalog, a timeout, at most 2 MiB).

Atomic (an error writes nothing) and idempotent (a second import changes nothing). Given a
folder (a checkout of the blog's ``_posts``), it imports every post that announces a release
the catalog has never held, in version order, as drafts — each in its own transaction — and
ends with a table: a row per post.
"""

import argparse
import datetime as dt
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from releases.importing.download import DownloadError, download, is_url
from releases.importing.folder import release_posts
from releases.importing.parse import PostError, parse_file, parse_post
from releases.importing.problems import located
from releases.importing.sync import ImportProblem, differences, find_release, import_post, preview
from releases.management.base import CatalogCommand


def iso_date(value):
    """--date's type: argparse names the option and exits with a usage error, no traceback."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a date in YYYY-MM-DD form") from None


class Command(CatalogCommand):
    help = (
        "Import a PyTorch release post (front matter + markdown, a translation of one, or an "
        "HTML article of the blog; a file or a URL) as a draft release."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        # Django gives every command --version (Django's own version); here --version names
        # the release, as this command's users were promised, so ours replaces Django's.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument(
            "path",
            help="The post: a markdown file with Jekyll front matter, or an HTML article of the "
            "blog (a file, or an http or https URL to download); or a folder of posts, whose "
            "release announcements are imported as drafts in version order.",
        )
        parser.add_argument(
            "--version", dest="release_version", help="Override the version read from the title."
        )
        parser.add_argument(
            "--date", type=iso_date, help="The release date, if the post lacks one."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Report what would change; write nothing."
        )
        parser.add_argument(
            "--publish",
            action="store_true",
            help="Publish the release (it needs a date), and with it the features this post "
            "adds to it (without --publish, new features of a published release await an "
            "editor's approval).",
        )
        parser.add_argument(
            "--compare",
            action="store_true",
            help="Print every difference between the post and the release in the catalog "
            "(exits with status 1 when there are any); writes nothing.",
        )

    def handle(self, *args, path, release_version, date, dry_run, publish, compare, **options):
        if not is_url(path) and Path(path).is_dir():
            if release_version or date or publish or compare:
                raise CommandError(
                    f"{path}: a folder is imported as drafts, each post with its own version "
                    "and date: --version, --date, --publish and --compare take one post"
                )
            return self.import_folder(path, dry_run)
        parsed = self.parse(path, release_version)
        if compare and dry_run:
            # What the import would do, then how the post and the catalog differ: the same
            # preview as the admin's import page.
            try:
                report, _ = preview(parsed, publish=publish, release_date=date)
            except ImportProblem as error:
                raise CommandError(error.where(path)) from None
            for line in report.lines():
                self.stdout.write(line)
            self.stdout.write(self.style.WARNING("Dry run: nothing was written."))
        if compare:
            return self.compare(path, parsed)
        try:
            report = import_post(
                parsed, publish=publish, release_date=date, dry_run=dry_run, source=path
            )
        except ImportProblem as error:
            raise CommandError(error.where(path)) from None
        for line in report.lines():
            self.stdout.write(line)
        if dry_run:
            self.stdout.write(self.style.WARNING("Dry run: nothing was written."))
        elif report.changed_anything:
            self.stdout.write(self.style.SUCCESS(f"Imported {path}."))
        else:
            self.stdout.write(self.style.SUCCESS(f"Nothing to change: {path} is already imported."))

    def parse(self, path, release_version):
        """The post at ``path``, a file or a URL; a CommandError of one line for what is not."""
        try:
            if is_url(path):
                text, url = download(path, catalog_url=settings.CATALOG_URL)
                return parse_post(text, filename=url, version=release_version, url=url)
            return parse_file(path, version=release_version)
        except DownloadError as error:
            raise CommandError(str(error)) from None
        except PostError as error:
            raise CommandError(error.where(path)) from None

    def compare(self, path, parsed):
        if not parsed.version:
            raise CommandError(
                located(path, 2, "cannot tell the version from the title; pass --version")
            )
        found = differences(parsed, find_release(parsed.version))
        for line in found:
            self.stdout.write(line)
        if found:
            raise CommandError(f"{path}: {len(found)} difference(s) from release {parsed.version}")
        links = sum(len(feature.links) for feature in parsed.features)
        self.stdout.write(
            self.style.SUCCESS(
                f"{path}: no difference from release {parsed.version} "
                f"({len(parsed.features)} features, {links} links)"
            )
        )

    def import_folder(self, folder, dry_run):
        """Every release post of ``folder`` the catalog never held, oldest version first."""
        from rich.console import Console
        from rich.progress import track
        from rich.table import Table

        from releases.models import Release

        # A terminal's width where there is one; a log or a pipe gets whole rows, uncut.
        width = None if self.stdout.isatty() else 240
        console = Console(file=self.stdout, highlight=False, width=width)
        posts = release_posts(folder)
        table = Table("post", "version", "features", "claims", "missing links", "warnings")
        imported = 0
        for post in track(posts, description="Importing", console=console):
            name = post.path.name
            if post.error:
                table.add_row(name, "", "", "", "", post.error)
                continue
            if post.skipped:
                continue  # not a release announcement: counted below, not listed
            version = post.parsed.version
            if (
                Release.objects.of_version(version).exists()
                or Release.history.filter(version=version).exists()
            ):
                table.add_row(name, version, "", "", "", "skipped: already in the catalog")
                continue
            try:
                report = import_post(post.parsed, dry_run=dry_run, source=str(post.path))
            except ImportProblem as error:
                table.add_row(name, version, "", "", "", error.where(post.path))
                continue
            imported += 1
            warnings = [f"link left out: {item}" for item in report.left_out]
            warnings += [f"new area: {area}" for area in report.new_areas]
            table.add_row(
                name,
                version,
                str(len(report.created) + len(report.updated) + len(report.unchanged)),
                str(report.claims),
                str(report.missing_links),
                "; ".join(warnings),
            )
        console.print(table)
        others = sum(1 for post in posts if post.skipped)
        verb = "would import" if dry_run else "imported"
        self.stdout.write(
            f"{folder}: {verb} {imported} release post(s) as drafts; "
            f"{others} post(s) announce no release."
        )
        if dry_run:
            self.stdout.write(self.style.WARNING("Dry run: nothing was written."))
