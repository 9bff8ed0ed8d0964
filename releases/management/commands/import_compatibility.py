"""
Read PyTorch's compatibility tables into the catalog, as changes for an editor to review.

    python manage.py import_compatibility FILE|URL [--source-url URL] [--dry-run]

FILE is Markdown (RELEASE.md's release compatibility matrix, CUDA architecture tables and
release cadence table) or HTML (the version-compatibility page's table of torch versions,
dates and companion libraries), or Markdown holding such HTML. What the import would add is
listed first; with ``--dry-run`` nothing more happens. A row it cannot read stops it with the
file and the line, before anything is written (releases.importing.compatibility).
"""

from django.core.management.base import CommandError

from releases.importing import tables
from releases.importing.compatibility import CompatibilityProblem, plan
from releases.management.base import CatalogCommand


class Command(CatalogCommand):
    help = (
        "Import compatibility tables (Markdown or HTML; a file or a URL): platforms, companion "
        "libraries, patch releases and the release schedule, for editors to review."
    )

    def add_arguments(self, parser):
        self.add_document_arguments(parser, "A Markdown or HTML file")

    def handle(self, *args, path, source_url, dry_run, **options):
        text, url = self.read_document(path)
        found = tables.read(text)
        try:
            planned = plan(found, source=path, source_url=source_url or url)
        except CompatibilityProblem as error:
            raise CommandError(error.where(path)) from None
        for line in planned.lines():
            self.stdout.write(f"  {line}")
        summary = (
            f"{path}: {len(planned.releases)} new release(s), {len(planned.creations)} row(s) "
            f"to review, {len(planned.differences)} difference(s) kept as the catalog has them"
        )
        if dry_run:
            self.stdout.write(f"{summary} (dry run: nothing written)")
            return
        planned.apply()
        self.stdout.write(self.style.SUCCESS(summary))
