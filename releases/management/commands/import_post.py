"""
Turn a release announcement into a draft release for editors.

    python manage.py import_post PATH [--version V] [--date YYYY-MM-DD] [--dry-run] [--publish]
    python manage.py import_post PATH --dry-run --compare

Atomic (an error writes nothing) and idempotent (a second import changes nothing).
"""

import argparse
import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from releases.importing.parse import PostError, parse_file
from releases.importing.sync import ImportProblem, compare, find_release, import_post, preview


def iso_date(value):
    """--date's type: argparse names the option and exits with a usage error, no traceback."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a date in YYYY-MM-DD form") from None


class Command(BaseCommand):
    help = "Import a PyTorch release post (front matter + markdown) as a draft release."

    def create_parser(self, prog_name, subcommand, **kwargs):
        # Django gives every command --version (Django's own version); here --version names
        # the release, as this command's users were promised, so ours replaces Django's.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("path", help="The post: a markdown file with Jekyll front matter.")
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
        try:
            parsed = parse_file(path, version=release_version)
        except PostError as error:
            raise CommandError(self.where(path, error.line, error.message)) from None
        if compare and dry_run:
            # What the import would do, then how the post and the catalog differ: the same
            # preview as the admin's import page.
            try:
                report, _ = preview(parsed, publish=publish, release_date=date)
            except ImportProblem as error:
                raise CommandError(self.where(path, error.line, error.message)) from None
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
            raise CommandError(self.where(path, error.line, error.message)) from None
        for line in report.lines():
            self.stdout.write(line)
        if dry_run:
            self.stdout.write(self.style.WARNING("Dry run: nothing was written."))
        elif report.changed_anything:
            self.stdout.write(self.style.SUCCESS(f"Imported {path}."))
        else:
            self.stdout.write(self.style.SUCCESS(f"Nothing to change: {path} is already imported."))

    def compare(self, path, parsed):
        if not parsed.version:
            raise CommandError(
                self.where(path, 2, "cannot tell the version from the title; pass --version")
            )
        differences = compare(parsed, find_release(parsed.version))
        for line in differences:
            self.stdout.write(line)
        if differences:
            raise CommandError(
                f"{path}: {len(differences)} difference(s) from release {parsed.version}"
            )
        links = sum(len(feature.links) for feature in parsed.features)
        self.stdout.write(
            self.style.SUCCESS(
                f"{path}: no difference from release {parsed.version} "
                f"({len(parsed.features)} features, {links} links)"
            )
        )

    @staticmethod
    def where(path, line, message):
        return f"{path}:{line}: {message}" if line else f"{path}: {message}"
