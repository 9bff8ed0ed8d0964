"""
The admin's page of a large release (issue 20): a release of 5,000 features opens and saves.

In a scratch SQLite database under production settings (collected static files, DEBUG off),
one release gets 5,000 bulk-created features; the release's change page is then fetched
(GET, the median of three after a first one) and saved unchanged but for its summary (POST),
in-process with Django's test client, signed in as a superuser. About half a minute.

    python -m bench.admin [--features 5000] [--out bench/results.json]

writes its figures under the key "admin_large_release" of the results file (``make bench``
does this as its last step).
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench import serve

RESULTS = Path(__file__).resolve().parent / "results.json"
KEY = "admin_large_release"
INNER = "BENCH_ADMIN_INNER"


def measure_isolated(features=5000):
    """Build the scratch catalog and measure in a child process; return the figures."""
    with tempfile.TemporaryDirectory(prefix="catalog-bench-admin-") as workdir:
        env = serve.production_env(workdir, DJANGO_SETTINGS_MODULE="bench.settings", **{INNER: 1})
        serve.prepare(env, load_fixtures=False, collectstatic=True)
        return serve.measure_in_child("bench.admin", ["--features", features], env)


def measure(features):
    """In the scratch database named by DATABASE_URL: build, then time the page."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    from releases.models import Area, Feature, Release, Track

    area = Area.objects.create(name="Everything", slug="everything")
    release = Release.objects.create(version="9.0", title="PyTorch 9.0, a large release")
    tracks = Track.objects.bulk_create(
        Track(name=f"Capability {n}", slug=f"capability-{n}", area=area) for n in range(features)
    )
    Feature.objects.bulk_create(
        (
            Feature(
                release=release,
                title=f"Feature {n}",
                slug=f"feature-{n}",
                area=area,
                track=track,
                position=n % 30000 + 1,
            )
            for n, track in enumerate(tracks)
        ),
        batch_size=500,
    )
    user = User.objects.create_superuser("bench", password=None)
    client = Client()
    client.force_login(user)
    url = reverse("admin:releases_release_change", args=[release.pk])

    def timed(call):
        started = time.perf_counter()
        response = call()
        return time.perf_counter() - started, response

    first, response = timed(lambda: client.get(url))
    if response.status_code != 200:
        raise SystemExit(f"GET {url} answered {response.status_code}")
    page_kb = round(len(response.content) / 1024, 1)
    gets = [timed(lambda: client.get(url))[0] for _ in range(3)]
    release.refresh_from_db()
    data = {
        "version": release.version,
        "title": release.title,
        "release_date": "",
        "announcement_url": "",
        "release_notes_url": "",
        "summary": "Saved by the benchmark.",
        "highlights": "",
        "commit_count": "",
        "contributor_count": "",
        "read_version": release.row_version,
        "_continue": "Save and continue editing",
    }
    post_seconds, response = timed(lambda: client.post(url, data))
    if response.status_code != 302:
        raise SystemExit(f"POST {url} answered {response.status_code}: {response.content[:500]!r}")
    release.refresh_from_db()
    assert release.summary == "Saved by the benchmark."
    return {
        "features": Feature.objects.filter(release=release).count(),
        "get_first_seconds": round(first, 3),
        "get_seconds": round(statistics.median(gets), 3),
        "post_seconds": round(post_seconds, 3),
        "page_kb": page_kb,
        "target_seconds": 2.0,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", type=int, default=5000)
    parser.add_argument("--out", default=None, help="a results file to write the figures into")
    args = parser.parse_args(argv)
    if os.environ.get(INNER) == "1":
        print(json.dumps(measure(args.features)))
        return None
    return serve.write_figures(args.out, KEY, measure_isolated(args.features))


if __name__ == "__main__":
    main()
