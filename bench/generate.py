"""
Bulk-load a synthetic catalog: releases, areas, tracks, features and their links.

    DATABASE_URL=... python -m bench.generate --features 100000 --releases 400 --links 3

Prints one JSON line: what it created and how long it took. The catalog looks like the real
one: every capability (track) appears in four consecutive releases, growing more stable;
about one link in twenty is missing.
"""

import argparse
import datetime as dt
import json
import os
import random
import time

import django


def release_version(index):
    return f"{1 + index // 100}.{index % 100}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--releases", type=int, default=400)
    parser.add_argument("--links", type=int, default=3, help="links per feature")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    django.setup()
    print(json.dumps(generate(args.features, args.releases, args.links, args.seed)))


def generate(feature_count, release_count, links_per_feature, seed=0):
    from django.db import transaction

    from releases.models import Area, Feature, Link, LinkKind, Release, Stability, Track

    rng = random.Random(seed)
    started = time.perf_counter()
    per_release = max(1, feature_count // release_count)
    kinds = [LinkKind.DOCUMENTATION, LinkKind.TUTORIAL, LinkKind.RFC, LinkKind.USAGE_EXAMPLES]
    stages = [Stability.PROTOTYPE, Stability.BETA, Stability.STABLE, Stability.STABLE]
    with transaction.atomic():
        areas = Area.objects.bulk_create(
            Area(name=f"Synthetic area {n}", slug=f"synthetic-{n}") for n in range(12)
        )
        # bulk_create derives version keys and records history, as every write path does.
        releases = Release.objects.bulk_create(
            (
                Release(
                    version=release_version(index),
                    title=f"PyTorch {release_version(index)}",
                    release_date=dt.date(2020, 1, 1) + dt.timedelta(days=7 * index),
                    summary="A synthetic release for the benchmark.",
                    is_published=True,
                )
                for index in range(release_count)
            ),
            batch_size=500,
        )
        # A track per capability; each appears in four consecutive releases.
        track_count = max(1, feature_count // 4)
        tracks = Track.objects.bulk_create(
            (
                Track(name=f"Capability {n}", slug=f"capability-{n}", area=areas[n % len(areas)])
                for n in range(track_count)
            ),
            batch_size=5000,
        )
        features = []
        for number in range(feature_count):
            release = releases[min(number // per_release, release_count - 1)]
            track_number = (number // per_release // 4) * per_release + number % per_release
            track = tracks[track_number % track_count]
            # Each appearance of a capability tends to be more stable than the last.
            appearance = (number // per_release) % 4 + rng.choice((-1, 0, 0, 1))
            features.append(
                Feature(
                    release=release,
                    title=f"Synthetic feature {number}",
                    slug=f"synthetic-feature-{number}",
                    stability=stages[min(max(appearance, 0), 3)] if rng.random() > 0.05 else "",
                    area_id=track.area_id,
                    track=track,
                    summary=f"Feature {number} does a synthetic thing, well.",
                    position=number % per_release + 1,
                )
            )
        features = Feature.objects.bulk_create(features, batch_size=5000)
        links = [
            Link(
                feature=feature,
                kind=kinds[(number + offset) % len(kinds)],
                label=kinds[(number + offset) % len(kinds)].label,
                url="" if rng.random() < 0.05 else f"https://example.org/{number}/{offset}",
                position=offset + 1,
            )
            for number, feature in enumerate(features)
            for offset in range(links_per_feature)
        ]
        Link.objects.bulk_create(links, batch_size=5000)
    seconds = time.perf_counter() - started
    objects = len(areas) + len(releases) + len(tracks) + len(features) + len(links)
    return {
        "seconds": round(seconds, 3),
        "features": len(features),
        "links": len(links),
        "tracks": len(tracks),
        "releases": len(releases),
        "objects": objects,
        "middle_release": release_version(release_count // 2),
    }


if __name__ == "__main__":
    main()
