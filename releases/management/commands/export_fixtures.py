"""
Write the catalog to fixtures/: areas.json, tracks.json, and one pytorch-<version>.json per
release.

    python manage.py export_fixtures [--dir fixtures] [VERSION ...]

Natural keys throughout and no primary keys, so the files load into any database and
re-loading them never duplicates. Only what a copy of the catalog carries is written
(``carried_fields``): timestamps describe a database, derived fields follow from others.
"""

import json
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.management.base import CommandError

from releases.management.base import CatalogCommand
from releases.models import (
    Area,
    AreaAlias,
    Companion,
    Feature,
    Link,
    PatchRelease,
    Release,
    ScheduleDate,
    StageClaim,
    Support,
    Track,
    UpgradeAPI,
    UpgradeNote,
)


def serialize(objects):
    data = json.loads(
        serializers.serialize(
            "json", objects, use_natural_foreign_keys=True, use_natural_primary_keys=True
        )
    )
    for item in data:
        item.pop("pk", None)
        carried = apps.get_model(item["model"]).carried_fields()
        item["fields"] = {name: value for name, value in item["fields"].items() if name in carried}
    return data


def predecessors_first(tracks):
    """Tracks by slug, each after the track it succeeds, so that loading never looks ahead."""
    ordered, placed = [], set()

    def place(track):
        if track.pk in placed:
            return
        placed.add(track.pk)
        if track.succeeds is not None:
            place(track.succeeds)
        ordered.append(track)

    for track in tracks:
        place(track)
    return ordered


class Command(CatalogCommand):
    help = "Export areas and releases (with features and links) as natural-key fixtures."

    def add_arguments(self, parser):
        parser.add_argument("versions", nargs="*", help="Releases to export (default: all).")
        parser.add_argument("--dir", default=str(settings.BASE_DIR / "fixtures"))

    def handle(self, *args, versions, dir, **options):
        folder = Path(dir)
        folder.mkdir(parents=True, exist_ok=True)
        releases = Release.objects.newest_first()
        if versions:
            releases = releases.filter(version__in=versions)
            unknown = set(versions) - set(releases.values_list("version", flat=True))
            if unknown:
                raise CommandError(f"no such release: {', '.join(sorted(unknown))}")
        else:
            areas = [
                *Area.objects.order_by("name"),
                *AreaAlias.objects.order_by("area__name", "name"),
            ]
            self.write(folder / "areas.json", serialize(areas))
            tracks = Track.objects.select_related("area", "succeeds").order_by("slug")
            self.write(folder / "tracks.json", serialize(predecessors_first(tracks)))
        for release in releases:
            features = (
                Feature.objects.filter(release=release)
                .select_related("release", "area")
                .order_by("position", "pk")
            )
            links = (
                Link.objects.filter(feature__release=release)
                .select_related("feature__release")
                .order_by("feature__position", "position", "pk")
            )
            claims = (
                StageClaim.objects.filter(release=release)
                .select_related("release", "feature__release", "track")
                .order_by("line", "subject")
            )
            rows = [
                *Support.objects.filter(release=release).order_by("kind", "version_key", "version"),
                *PatchRelease.objects.filter(release=release).order_by("version_key"),
                *Companion.objects.filter(release=release).order_by("torch_version_key", "library"),
                *ScheduleDate.objects.filter(release=release).order_by("date", "kind", "number"),
                *UpgradeNote.objects.filter(release=release)
                .select_related("release", "track", "removes__release")
                .order_by("line_key", "slug"),
                *UpgradeAPI.objects.filter(note__release=release)
                .select_related("note__release")
                .order_by("note__line_key", "note__slug", "position"),
            ]
            self.write(
                folder / f"pytorch-{release.version}.json",
                serialize([release, *features, *links, *claims, *rows]),
            )

    def write(self, path, data):
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        self.stdout.write(f"Wrote {path} ({len(data)} objects)")
