"""
Apply editors' decisions kept as files (``releases.curation``) to the catalog.

    python manage.py curate [FOLDER] [--version V ...] [--no-publish]

FOLDER (default fixtures/curation) holds areas.json, tracks.json and one <version>.json per
release. Areas and tracks come first, then each release the catalog holds (or its file creates),
oldest first, each
in its own transaction; it is published unless --no-publish. Last, the tracks and proposed
areas nothing uses any more are deleted. An error names the file and the entry, and nothing of
that file is written.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.db import transaction

from releases import curation, versions, writes
from releases.management.base import CatalogCommand
from releases.models import Release


class Command(CatalogCommand):
    help = "Apply the editors' decisions in fixtures/curation/ to the catalog."

    def add_arguments(self, parser):
        parser.add_argument(
            "folder", nargs="?", default=str(settings.BASE_DIR / "fixtures" / "curation")
        )
        parser.add_argument(
            "--version",
            dest="release_versions",
            action="append",
            default=[],
            help="Only this release (repeatable).",
        )
        parser.add_argument("--no-publish", action="store_false", dest="publish")

    def create_parser(self, prog_name, subcommand, **kwargs):
        # --version names a release here, as in import_post, not Django's version.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def handle(self, *args, folder, release_versions, publish, **options):
        folder = Path(folder)
        if not folder.is_dir():
            raise CommandError(f"{folder}: no such folder")
        try:
            with transaction.atomic(), writes.acting_as("curate"):
                for name, apply in (
                    ("areas.json", curation.apply_areas),
                    ("tracks.json", curation.apply_tracks),
                ):
                    if (folder / name).exists():
                        apply(folder / name)
            held = set(Release.objects.values_list("version", flat=True))
            files = [
                path
                for path in folder.glob("*.json")
                if path.name not in ("areas.json", "tracks.json")
                and (path.stem in held or curation.is_created(path))
                and (not release_versions or path.stem in release_versions)
            ]
            files.sort(key=lambda path: versions.Version.parse(path.stem).key)
            for path in files:
                applied = curation.apply_release(path, publish=publish)
                self.stdout.write(
                    f"{applied.version}: {applied.summaries} summaries, "
                    f"{len(applied.corrections)} corrections, {len(applied.removed)} removed, "
                    f"{len(applied.added)} added, {applied.claims} claims decided"
                    + (", published" if applied.published else "")
                )
            with transaction.atomic(), writes.acting_as("curate"):
                tracks, areas = curation.tidy()
            self.stdout.write(f"Deleted {tracks} track(s) and {areas} area(s) left unused.")
        except curation.CurationError as error:
            raise CommandError(str(error)) from None
