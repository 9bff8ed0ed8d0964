"""
Read a release's notes into the catalog as draft upgrade notes, for editors to curate.

    python manage.py import_release_notes FILE|URL --release 2.10 [--source-url URL] [--dry-run]

FILE is the release notes' Markdown (``<version>.0/final.md`` of meta-pytorch/torch-release-
notes). Its "Backwards Incompatible Changes" and "Deprecations" sections become upgrade notes of
the release, waiting for an editor's summary (releases.importing.upgrades); what the import
would add is listed first, then what it read with doubt (file:line), then a summary table.
With ``--dry-run`` nothing is written. A file it cannot use stops it with the file and the line,
before anything is written. A second import of the same file changes nothing.
"""

from django.core.management.base import CommandError

from releases import versions
from releases.importing.notes import parse_release_notes
from releases.importing.upgrades import NotesProblem, plan
from releases.management.base import CatalogCommand
from releases.models import Release


class Command(CatalogCommand):
    help = (
        "Import a release's notes (Markdown; a file or a URL): its backwards-incompatible "
        "changes, removals and deprecations, as upgrade notes for editors to curate."
    )

    def add_arguments(self, parser):
        self.add_document_arguments(parser, "The release notes' Markdown")
        parser.add_argument(
            "--release", required=True, metavar="VERSION", help="The release the notes are of."
        )

    def handle(self, *args, path, release, source_url, dry_run, **options):
        found = self.release(release)
        text, url = self.read_document(path)
        notes = parse_release_notes(text)
        try:
            planned = plan(notes, found, source=path, source_url=source_url or url)
        except NotesProblem as error:
            raise CommandError(error.where(path)) from None
        for line in planned.lines():
            self.stdout.write(f"  {line}")
        for line, message in planned.warnings:
            self.stderr.write(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        for line in planned.table():
            self.stdout.write(line)
        summary = (
            f"{path}: {len(planned.creations)} upgrade note(s) to curate for {found.version}, "
            f"{len(planned.differences)} difference(s) kept as the catalog has them"
        )
        if dry_run:
            self.stdout.write(f"{summary} (dry run: nothing written)")
            return
        planned.apply()
        self.stdout.write(self.style.SUCCESS(summary))

    @staticmethod
    def release(version):
        try:
            versions.Version.parse(version)
        except versions.InvalidVersion:
            raise CommandError(f"--release: not a version such as 2.10; got {version!r}") from None
        found = Release.objects.of_version(version).first()
        if found is None:
            raise CommandError(f"--release: no release {version} in the catalog")
        return found
