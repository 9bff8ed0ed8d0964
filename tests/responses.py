"""
Every answer of a recorded set of URLs, by hash: a refactoring that must change no byte of what
the API and the pages answer records them before and compares after.

    python -m tests.responses record FILE    # DATABASE_URL: a catalog loaded once, kept
    python -m tests.responses compare FILE   # the same database: every hash must match

Each answer is its status, its Content-Type and the SHA-256 of its body. The one difference
allowed is the cursor a list may add (``next_cursor``): it is removed from JSON before hashing,
and from the ``Link`` header's relations too. Run both against the same database file, so that
timestamps are the same rows.
"""

import hashlib
import json
import os
import re
import sys

ADDED_KEYS = {"next_cursor"}

URLS = [
    # Pages
    "/", "/releases/", "/releases/1.8/", "/releases/2.0/", "/releases/2.14/", "/releases/2.8/",
    "/releases/1.8/state/", "/releases/2.14/state/?area=compiler",
    "/releases/2.0/state/?stability=beta", "/releases/1.9/state/?search=fft",
    "/tracks/", "/tracks/?search=compile", "/tracks/?page=2", "/tracks/fsdp/",
    "/tracks/torch-fft/", "/tracks/flexattention/", "/matrix/",
    "/matrix/?area=compiler&stability=beta&first_release=2.0", "/compare/?from=1.7&to=1.9",
    "/compare/?from=2.6&to=2.14", "/features/", "/features/?stability=beta",
    "/features/?search=deprecated", "/features/?area=compiler&release=2.0&page=1",
    "/features/?page=3", "/graduation/", "/graduation/?stuck_for=2", "/stages/",
    "/sitemap.xml",
    # Pages refusing
    "/releases/7.7/", "/releases/1.8/state/?version=1.8", "/features/?stability=gold",
    "/features/?page=999", "/compare/?from=1.7", "/compare/?from=99.0&to=100.0",
    "/matrix/?unknown=1", "/tracks/no-such-track/", "/releases/2.6.0/", "/releases/v2.6/",
    # API lists and details
    "/api/", "/api/releases/", "/api/releases/?min_version=2.0", "/api/releases/?search=compile",
    "/api/releases/2.0/", "/api/releases/1.8/", "/api/releases/v2.6/",
    "/api/features/", "/api/features/?page=2", "/api/features/?page=last",
    "/api/features/?release=1.8&stability=beta&area=distributed-training",
    "/api/features/?stability=stable&min_version=1.8", "/api/features/?has_missing_links=true",
    "/api/features/?has_missing_links=false&page_size=5", "/api/features/?promoted=true",
    "/api/features/?kind=deprecation", "/api/features/?track=fsdp",
    "/api/features/?search=profiler", "/api/features/?search=deprecated&facets=stability",
    "/api/features/?facets=stability,area,release", "/api/features/?ordering=-title",
    "/api/features/?ordering=area&page_size=50", "/api/features/?max_version=1.9&ordering=release",
    "/api/features/?updated_since=2000-01-01T00:00:00Z", "/api/features/?format=csv",
    "/api/features/?format=csv&release=2.0", "/api/links/", "/api/links/?is_missing=true",
    "/api/links/?kind=rfc", "/api/links/?link_status=unchecked&page_size=10",
    "/api/links/?format=csv", "/api/areas/", "/api/areas/?search=dist", "/api/areas/compiler/",
    "/api/tracks/", "/api/tracks/?search=profil", "/api/tracks/?area=compiler",
    "/api/tracks/?stability=stable", "/api/tracks/?promoted_in=1.8",
    "/api/tracks/?as_of=1.9&stability=beta", "/api/tracks/?first_release=2.0",
    "/api/tracks/fsdp/", "/api/tracks/torch-fft/", "/api/state/?version=1.8",
    "/api/state/?version=2.14&area=compiler", "/api/state/?version=1.9&search=fft",
    "/api/state/?version=1.9&track=torch-fft", "/api/state/?version=2.0&page=2",
    "/api/compare/?from=1.7&to=1.9", "/api/compare/?from=2.6&to=2.14",
    "/api/stats/releases/", "/api/stats/releases/?page_size=100", "/api/stats/areas/",
    "/api/changes/", "/api/changes/?page_size=5",
    # API refusing
    "/api/features/?stability=gold", "/api/features/?page=0", "/api/features/?page=999",
    "/api/features/?unknown=1", "/api/features/?release=9.9", "/api/features/?search=",
    "/api/features/?page_size=1000", "/api/state/", "/api/state/?version=99.0",
    "/api/compare/?from=99.0&to=100.0", "/api/compare/?from=1.7", "/api/releases/9.9/",
    "/api/tracks/?as_of=x", "/api/links/?is_missing=maybe", "/api/changes/?since=yesterday",
    "/sitemap.xml?section=x",
    # Feeds and badges
    "/feeds/releases/", "/feeds/tracks/fsdp/", "/feeds/releases/?x=1",
    "/badges/tracks/fsdp.svg", "/badges/tracks/no-such-track.svg", "/badges/tracks/fsdp.json",
    "/api/schema/",
    # Upgrade notes (issue 33), their lists and their refusals
    "/upgrade/?from=2.8&to=2.14", "/upgrade/?api=torch.load", "/deprecations/",
    "/deprecations/?present_in=2.12&area=onnx", "/api/upgrade/?from=2.5&to=2.14",
    "/api/upgrade/?api=torch.onnx&kind=deprecation", "/api/upgrade/?format=csv&release=2.10",
    "/api/upgrade/?from=2.14&to=2.5", "/api/upgrade/?kind=gold", "/feeds/releases/2.10/upgrade/",
]  # fmt: skip


def answer(client, url):
    response = client.get(url)
    body = b"".join(response) if response.streaming else response.content
    kind = response.get("Content-Type", "")
    if kind.startswith("application/json") and body:
        for key in ADDED_KEYS:  # as the answer would be without it, byte for byte
            body = re.sub(rb',"%s":(null|"[^"]*")' % key.encode(), b"", body, count=1)
    return f"{response.status_code} {kind} {hashlib.sha256(body).hexdigest()}"


def answers():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    return {url: answer(client, url) for url in URLS}


def main(argv):
    if len(argv) != 3 or argv[1] not in {"record", "compare"}:
        sys.exit(__doc__)
    _, what, path = argv
    found = answers()
    if what == "record":
        with open(path, "w") as out:
            json.dump(found, out, indent=1)
        print(f"{len(found)} answers recorded in {path}")
        return
    with open(path) as recorded_file:
        recorded = json.load(recorded_file)
    differ = [url for url in recorded if found.get(url) != recorded[url]]
    for url in differ:
        print(f"differs: {url}\n  was {recorded[url]}\n  now {found.get(url)}")
    print(f"{len(recorded) - len(differ)} of {len(recorded)} answers byte-identical")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main(sys.argv)
