"""
Fill the catalog from fixtures/ without ever undoing an editor's work.

    python manage.py load_catalog                     # what `make run` and `make serve` do
    python manage.py load_catalog --reset [--no-input]
    python manage.py load_catalog --release 1.8 --release 1.9   # only these releases

Into an empty catalog (one that has never held a release) it loads every fixture: areas.json,
tracks.json, then each pytorch-<version>.json. Later runs add only whole releases the database
has never held — a new pytorch-<version>.json — with the areas and tracks they need. Nothing
the database holds, or once held, is overwritten, reverted, re-created or duplicated: what an
editor changed stays changed, and what an editor deleted stays deleted.

``--reset`` replaces the catalog with the fixtures, after asking (``--no-input`` skips the
question). The history keeps everything it replaces. Every object loaded goes through the
catalog's write path, recorded as made by ``load_catalog`` and the fixture file.
"""

import json
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.management.base import CommandError
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, transaction

from releases import versions, writes
from releases.management.base import CatalogCommand
from releases.models import Area, Release, Track


def fixture_files(folder=None):
    folder = Path(folder or settings.BASE_DIR / "fixtures")
    first = [folder / "areas.json", folder / "tracks.json"]
    # Oldest release first: a release's rows may refer to an earlier one's (a removal to the
    # deprecation it completes).
    releases = sorted(folder.glob("pytorch-*.json"), key=fixture_order)
    return [path for path in first if path.exists()] + releases


def fixture_order(path):
    try:
        return (versions.Version.parse(path.stem.removeprefix("pytorch-")).key, path.name)
    except versions.InvalidVersion:
        return (-1, path.name)  # loading it names the fixture and the fault


def read(path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{path}: cannot read the fixture: {error}") from None


def release_version(items, path):
    for item in items:
        if item.get("model") == "releases.release":
            return item["fields"]["version"]
    raise CommandError(f"{path}: no release in this fixture")


def held(version):
    """Whether the database holds, or once held, the release ``version``."""
    return (
        Release.objects.filter(version=version).exists()
        or Release.history.filter(version=version).exists()
    )


def never_held_row(item, stdout=None):
    """
    Whether ``item`` is a row curated after its release (``curated_after_release``: what a
    release runs on and pairs with, its upgrade notes) that the catalog has never held: such
    rows of a release the catalog already holds are added; one an editor deleted stays deleted,
    and so does one whose note or track an editor deleted (said on ``stdout``).
    """
    try:
        model = apps.get_model(str(item.get("model", "")))
    except (LookupError, ValueError):
        return False
    if not getattr(model, "curated_after_release", False):
        return False
    try:
        (deserialized,) = serializers.deserialize("python", [item])
    except DeserializationError as error:
        # Django raises it while handling the lookup that found nothing.
        if isinstance(error.__cause__ or error.__context__, ObjectDoesNotExist):
            if stdout is not None:
                stdout.write(f"{model.__name__} {item['fields']}: what it refers to is gone")
            return False
        return True  # loading it names the fixture and the fault
    except (ValidationError, KeyError):
        return True  # loading it names the fixture and the fault
    key = list(deserialized.object.natural_key())
    return deserialized.object.pk is None and not model.history.filter(history_key=key).exists()


def without_missing_links(items, stdout):
    """
    ``items`` with each optional reference (a model's ``optional_references``, to a row named by
    its release and slug) that names a row neither the catalog nor ``items`` holds left out, and
    said: a release loaded without the earlier release whose deprecations its removals complete.
    """
    keys = {
        (item.get("model"), tuple(item["fields"].get("release") or ()), item["fields"].get("slug"))
        for item in items
    }
    kept = []
    for item in items:
        try:
            model = apps.get_model(str(item.get("model", "")))
        except (LookupError, ValueError):
            kept.append(item)
            continue
        fields = dict(item.get("fields", {}))
        for name in getattr(model, "optional_references", ()):
            key = fields.get(name)
            if not isinstance(key, list) or len(key) != 2:
                continue
            target = model._meta.get_field(name).related_model
            if (item["model"], (key[0],), key[1]) in keys:
                continue
            try:
                target._default_manager.get_by_natural_key(*key)
            except target.DoesNotExist:
                slug = fields.get("slug")
                stdout.write(f"{model.__name__} {slug}: {name} {key} is not held: left out")
                fields[name] = None
        kept.append({**item, "fields": fields})
    return kept


def references(items, model_label, field):
    """The natural keys ``field`` of the ``model_label`` objects in ``items`` refer to."""
    return {
        tuple(item["fields"][field])
        for item in items
        if item.get("model") == model_label and item["fields"].get(field)
    }


def with_predecessors(tracks, track_items):
    """The natural keys ``tracks`` and those of the tracks they succeed, through every step."""
    succeeds = {
        (item["fields"]["slug"],): tuple(item["fields"]["succeeds"])
        for item in track_items
        if item["fields"].get("succeeds")
    }
    found, todo = set(tracks), list(tracks)
    while todo:
        predecessor = succeeds.get(todo.pop())
        if predecessor and predecessor not in found:
            found.add(predecessor)
            todo.append(predecessor)
    return found


def refers_to(item, pending):
    """
    Whether a fixture item refers, by natural key, to one of the objects ``pending`` (of one
    model, not stored yet): a track to the track it succeeds, say. Only the fields that point
    to that model are compared, so the pending objects' keys (which may read their foreign
    keys from the database) are worked out only where an item could name one of them.
    """
    if not pending:
        return False
    target = type(pending[0])
    fields = apps.get_model(item["model"])._meta.get_fields()
    values = [
        tuple(item["fields"][field.name])
        for field in fields
        if field.is_relation
        and field.related_model is target
        and isinstance(item["fields"].get(field.name), list)
    ]
    return bool(values) and not {tuple(obj.natural_key()) for obj in pending}.isdisjoint(values)


class Command(CatalogCommand):
    help = "Fill an empty catalog from fixtures/, then add only releases it never held."

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset",
            action="store_true",
            help="Replace the catalog with the fixtures (asks first; the history keeps all).",
        )
        parser.add_argument(
            "--no-input", action="store_false", dest="interactive", help="Do not ask."
        )
        parser.add_argument(
            "--release",
            dest="releases",
            action="append",
            default=[],
            metavar="VERSION",
            help="Load only this release (repeatable), with the areas and tracks it needs.",
        )
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Kept for old scripts: loading never overwrites, so this changes nothing.",
        )

    def handle(self, *args, reset, interactive, if_empty, releases, **options):
        files = fixture_files()
        if not files:
            raise CommandError(f"no fixtures in {settings.BASE_DIR / 'fixtures'}")
        if releases:
            wanted = {f"pytorch-{version}.json" for version in releases}
            unknown = wanted - {path.name for path in files}
            if unknown:
                raise CommandError(f"no such fixture: {', '.join(sorted(unknown))}")
            files = [p for p in files if not p.name.startswith("pytorch-") or p.name in wanted]
        if reset and interactive and not self.confirm():
            raise CommandError("reset cancelled: nothing was changed")
        reason = "load_catalog --reset" if reset else "load_catalog"
        with writes.acting_as(reason), transaction.atomic():
            if reset:
                self.clear()
            fresh = not releases and (
                reset or not (Release.objects.exists() or Release.history.exists())
            )
            loaded = self.load_all(files) if fresh else self.load_new(files)
        if loaded:
            self.stdout.write(f"Loaded {loaded} object(s) from {settings.BASE_DIR / 'fixtures'}.")
        else:
            self.stdout.write("The catalog already holds every release in fixtures/: kept as is.")

    def confirm(self):
        self.stdout.write(
            "This replaces the catalog with the fixtures: every change editors made since is "
            "undone (the history keeps it, and each object can be restored from there)."
        )
        try:
            answer = input("Type 'yes' to reset the catalog: ")
        except EOFError:
            return False
        return answer.strip().lower() == "yes"

    def clear(self):
        Release.objects.all().delete()
        Track.objects.all().delete()
        Area.objects.all().delete()

    def load_all(self, files):
        return sum(self.load(path, read(path)) for path in files)

    def load_new(self, files):
        """Releases never held, with only the areas and tracks they need that are missing."""
        by_name = {path.name: path for path in files}
        count = 0
        for path in files:
            if not path.name.startswith("pytorch-"):
                continue
            items = read(path)
            version = release_version(items, path)
            if held(version):
                rows = without_missing_links(items, self.stdout)
                count += self.load(path, [row for row in rows if never_held_row(row, self.stdout)])
                continue
            areas = references(items, "releases.feature", "area")
            tracks = references(items, "releases.feature", "track")
            tracks |= references(items, "releases.stageclaim", "track")
            tracks |= references(items, "releases.upgradenote", "track")
            if "tracks.json" in by_name:
                track_items = read(by_name["tracks.json"])
                tracks = with_predecessors(tracks, track_items)
                wanted = [i for i in track_items if (i["fields"]["slug"],) in tracks]
                areas |= references(wanted, "releases.track", "area")
            else:
                wanted = []
            if "areas.json" in by_name:
                area_items = read(by_name["areas.json"])
                # The areas it needs, with their aliases (which name them in posts' headings).
                needed = [
                    item
                    for item in area_items
                    if (item["model"] == "releases.area" and (item["fields"]["slug"],) in areas)
                    or (
                        item["model"] == "releases.areaalias"
                        and tuple(item["fields"]["area"]) in areas
                    )
                ]
                count += self.load(by_name["areas.json"], needed)
            count += self.load(by_name.get("tracks.json", path), wanted)
            count += self.load(path, without_missing_links(items, self.stdout))
            self.stdout.write(f"Added release {version} from {path.name}.")
        return count

    def load(self, path, items):
        """
        Create the objects of ``items`` the catalog lacks, in bulk, model by model in the
        file's order (a file lists what others refer to first); skip every one it has.
        """
        created, pending, label = 0, [], None

        def flush():
            nonlocal created
            if pending:
                type(pending[0]).objects.bulk_create(pending)
                created += len(pending)
                pending.clear()

        try:
            with writes.acting_as(f"load_catalog {path.name}"):
                for item in items:
                    # What follows may refer to these (another model, or a track to the one it
                    # succeeds): store them first.
                    if item.get("model") != label or refers_to(item, pending):
                        flush()
                        label = item.get("model")
                    (deserialized,) = serializers.deserialize("python", [item])
                    if deserialized.object.pk is None:  # never overwrite what the catalog has
                        pending.append(deserialized.object)
                flush()
        except (DeserializationError, ValidationError, DatabaseError, KeyError) as error:
            raise CommandError(f"{path}: cannot load the fixture: {error}") from None
        return created
