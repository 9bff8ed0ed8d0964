"""
Load every fixture in fixtures/, in the order their natural keys need:
areas.json, tracks.json, then each pytorch-<version>.json.

    python manage.py load_catalog [--if-empty]

Idempotent: fixtures carry natural keys, so loading twice updates rather than duplicates.
With --if-empty nothing is loaded into a database that already holds releases, so that a
deployment never overwrites its editors' work.
"""

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from releases import revision
from releases.models import Feature, Release


def fixture_files(folder=None):
    folder = Path(folder or settings.BASE_DIR / "fixtures")
    first = [folder / "areas.json", folder / "tracks.json"]
    return [path for path in first if path.exists()] + sorted(folder.glob("pytorch-*.json"))


class Command(BaseCommand):
    help = "Load the catalog's fixtures in dependency order."

    def add_arguments(self, parser):
        parser.add_argument("--if-empty", action="store_true", help="Skip if releases exist.")

    def handle(self, *args, if_empty, **options):
        if if_empty and Release.objects.exists():
            self.stdout.write("The catalog already holds releases: fixtures not loaded.")
            return
        files = fixture_files()
        if not files:
            raise CommandError(f"no fixtures in {settings.BASE_DIR / 'fixtures'}")
        call_command("loaddata", *files, verbosity=options["verbosity"])
        # Fixtures are saved raw; make sure derived keys agree with what they derive from.
        Feature.objects.sync_release_keys()
        # loaddata saves raw, past the models' own hooks: start a new revision here.
        revision.bump()
