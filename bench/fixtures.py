"""
The fixture-loading side of the import comparison.

    python -m bench.fixtures export --features 5000 --out subset.json   # from a generated DB
    python -m bench.fixtures load subset.json                           # into an empty DB

`export` writes the first N features with their links, tracks, releases and areas as a
natural-key fixture (as fixtures/ holds them); `load` times loading it as `load_catalog`
loads fixtures/ (through the write path, history recorded). Each prints
one JSON line.
"""

import argparse
import json
import os
import time

import django


def main(argv=None):
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export")
    export.add_argument("--features", type=int, required=True)
    export.add_argument("--out", required=True)
    load = commands.add_parser("load")
    load.add_argument("path")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    django.setup()
    result = (
        export_subset(args.features, args.out)
        if args.command == "export"
        else timed_load(args.path)
    )
    print(json.dumps(result))


def export_subset(feature_count, out):
    from releases.management.commands.export_fixtures import serialize
    from releases.models import Area, Feature, Link, Release, Track

    features = list(
        Feature.objects.order_by("pk").select_related("release", "area", "track")[:feature_count]
    )
    ids = [feature.pk for feature in features]
    links = Link.objects.filter(feature_id__in=ids).select_related("feature__release")
    releases = Release.objects.filter(features__in=ids).distinct()
    tracks = Track.objects.filter(features__in=ids).distinct().select_related("area")
    areas = Area.objects.all()
    data = serialize([*areas, *tracks, *releases, *features, *links])
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return {"objects": len(data), "features": len(features)}


def timed_load(path):
    """Load the fixture as load_catalog loads fixtures/ (history recorded, derived fields set)."""
    from pathlib import Path

    from django.db import transaction

    from releases.management.commands.load_catalog import Command

    with open(path, encoding="utf-8") as handle:
        items = json.load(handle)
    started = time.perf_counter()
    with transaction.atomic():
        Command().load(Path(path), items)
    return {"seconds": round(time.perf_counter() - started, 3), "objects": len(items)}


if __name__ == "__main__":
    main()
