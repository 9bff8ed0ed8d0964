"""
Count the SQL queries each benchmarked URL makes, in-process, with the page cache off: the
first request in a new catalog revision (which counts its list) and the second (which reads
that count from the cache).

    python -m bench.queries URL [URL ...]    # prints {"URL": [first, second], ...}
"""

import json
import os
import sys

import django


def main(argv=None):
    urls = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    os.environ["API_PAGE_CACHE_SECONDS"] = "0"
    os.environ["REVISION_REUSE_SECONDS"] = "0"  # every query a request can make, that one too
    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from releases import revision

    revision.bump()  # a new revision: the first request of each list counts it again
    client = Client()
    counts = {}
    for url in urls:
        counts[url] = []
        for _ in range(2):
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            if response.status_code != 200:
                raise SystemExit(
                    f"{url} answered {response.status_code}: {response.content[:300]!r}"
                )
            counts[url].append(len(queries))
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
