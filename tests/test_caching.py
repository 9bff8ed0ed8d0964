"""HTTP caching: validators, 304s, the page cache, and invalidation on every kind of write."""

import datetime as dt
import json
import time
import urllib.parse

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.http import http_date

from releases import revision
from releases.models import Feature, Link, Release, Stability
from tests.conftest import http


def get(server, path, **headers):
    return http(server, path, headers=headers)


def test_api_responses_carry_validators_and_a_short_public_cache_control(live_catalog):
    response = get(live_catalog, "/api/features/?release=1.8")
    assert response.status == 200
    assert response.headers["ETag"].startswith('"')
    assert response.headers["Last-Modified"].endswith("GMT")
    # A shared cache (a CDN) may keep it as long, and serve it while it revalidates (issue 42).
    directives = set(response.headers["Cache-Control"].split(", "))
    assert directives == {"public", "max-age=15", "s-maxage=15", "stale-while-revalidate=30"}
    assert "Accept" in response.headers["Vary"]


def test_a_matching_conditional_request_gets_a_304_without_a_body(live_catalog):
    # A revision alone in its second: a client holding that second is told "not modified"
    # (a load that made several revisions within the second gets the page, as it should).
    time.sleep(1.01 - time.time() % 1)
    revision.bump()
    first = get(live_catalog, "/api/releases/")
    again = get(live_catalog, "/api/releases/", **{"If-None-Match": first.headers["ETag"]})
    assert again.status == 304 and again.body == b""
    assert again.headers["ETag"] == first.headers["ETag"]
    since = get(
        live_catalog, "/api/releases/", **{"If-Modified-Since": first.headers["Last-Modified"]}
    )
    assert since.status == 304
    stale = get(live_catalog, "/api/releases/", **{"If-None-Match": '"something-else"'})
    assert stale.status == 200 and json.loads(stale.body)["count"] == 4


def test_pages_are_served_from_the_cache_until_the_catalog_changes(live_catalog):
    path = "/api/features/?release=1.9&stability=prototype"
    assert get(live_catalog, path).headers["X-Cache"] == "miss"
    cached = get(live_catalog, path)
    assert cached.headers["X-Cache"] == "hit"
    assert json.loads(cached.body)["count"] == 2

    feature = Feature.objects.get(release__version="1.9", slug="prepare-for-inference")
    feature.stability = Stability.BETA
    feature.save()

    fresh = get(live_catalog, path)
    assert fresh.headers["X-Cache"] == "miss"
    assert json.loads(fresh.body)["count"] == 1
    assert fresh.headers["ETag"] != cached.headers["ETag"]
    assert get(live_catalog, path, **{"If-None-Match": cached.headers["ETag"]}).status == 200


@pytest.mark.parametrize(
    "write",
    [
        lambda: Feature.objects.filter(slug="torch-package").update(title="Renamed"),
        lambda: Link.objects.filter(url="").delete(),
        lambda: Release.objects.get(version="1.6").delete(),
        lambda: fill_in(Link.objects.missing().first()),
    ],
    ids=["queryset-update", "queryset-delete", "cascade-delete", "save"],
)
def test_every_kind_of_write_invalidates(live_catalog, write):
    before = get(live_catalog, "/api/links/?is_missing=true")
    write()
    after = get(live_catalog, "/api/links/?is_missing=true")
    assert after.headers["ETag"] != before.headers["ETag"]


def fill_in(link):
    link.url = "https://example.org/filled-in"
    link.save()


def test_a_save_that_changes_nothing_keeps_the_revision(live_catalog):
    before = get(live_catalog, "/api/links/?is_missing=true")
    Link.objects.missing().first().save()
    Feature.objects.filter(slug="torch-package").update(title="Torch package")
    Feature.objects.filter(slug="torch-package").update(title="Torch package")
    renamed = get(live_catalog, "/api/links/?is_missing=true")
    assert renamed.headers["ETag"] != before.headers["ETag"]  # the first update changed a title
    Link.objects.missing().first().save()
    Feature.objects.filter(slug="torch-package").update(title="Torch package")
    assert (
        get(live_catalog, "/api/links/?is_missing=true").headers["ETag"] == renamed.headers["ETag"]
    )


def test_an_editors_save_in_the_admin_shows_at_once(live_catalog, client):
    path = "/api/features/?release=1.8&stability=prototype"
    assert json.loads(get(live_catalog, path).body)["count"] == 6
    call_command("create_editor", "eddie", "--no-input", verbosity=0)
    client.force_login(User.objects.get(username="eddie"))
    remote = Feature.objects.get(release__version="1.8", slug="remote-module")
    client.post(
        reverse("admin:releases_feature_changelist"),
        {"action": "mark_beta", "_selected_action": [remote.pk]},
    )
    assert json.loads(get(live_catalog, path).body)["count"] == 5


def test_an_import_shows_at_once(live_catalog, tmp_path):
    assert json.loads(get(live_catalog, "/api/releases/").body)["count"] == 4
    post = tmp_path / "post.md"
    post.write_text("---\ntitle: PyTorch 1.10 is out\ndate: 2021-10-21\n---\n# A\n## [Beta] X\n")
    call_command("import_post", str(post), "--publish", verbosity=0)
    assert json.loads(get(live_catalog, "/api/releases/").body)["count"] == 5


def test_errors_are_not_cached(live_catalog):
    assert get(live_catalog, "/api/features/?stability=nope").status == 400
    again = get(live_catalog, "/api/features/?stability=nope")
    assert again.status == 400 and "X-Cache" not in again.headers


def test_query_parameter_order_does_not_split_the_cache(live_catalog):
    get(live_catalog, "/api/features/?release=1.8&stability=beta")
    assert (
        get(live_catalog, "/api/features/?stability=beta&release=1.8").headers["X-Cache"] == "hit"
    )


def test_feeds_are_cached_and_validated_too(live_catalog):
    first = get(live_catalog, "/feeds/releases/")
    assert first.status == 200 and first.headers["ETag"]
    assert (
        get(live_catalog, "/feeds/releases/", **{"If-None-Match": first.headers["ETag"]}).status
        == 304
    )


# --- updated_since: syncing mirrors ----------------------------------------------------------


def test_updated_since_lists_only_what_changed(live_catalog):
    mark = dt.datetime.now(dt.UTC)
    since = urllib.parse.quote(mark.isoformat())
    assert json.loads(get(live_catalog, f"/api/features/?updated_since={since}").body)["count"] == 0
    link = Link.objects.missing().get(feature__slug="benchmark-utilities")
    link.url = "https://pytorch.org/docs/stable/benchmark_utils.html"
    link.save()
    changed = json.loads(get(live_catalog, f"/api/features/?updated_since={since}").body)
    assert [item["slug"] for item in changed["results"]] == ["benchmark-utilities"]
    links = json.loads(get(live_catalog, f"/api/links/?updated_since={since}").body)
    assert [item["url"] for item in links["results"]] == [link.url]
    releases = json.loads(get(live_catalog, f"/api/releases/?updated_since={since}").body)
    assert [item["version"] for item in releases["results"]] == ["1.7"]


def test_updated_since_must_be_a_timestamp(live_catalog):
    response = get(live_catalog, "/api/features/?updated_since=yesterday")
    assert response.status == 400 and "updated_since" in json.loads(response.body)


def test_last_modified_is_the_time_of_the_last_change(live_catalog):
    before = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(seconds=1)
    Release.objects.filter(version="1.9").update(summary="Changed.")
    response = get(live_catalog, "/api/releases/")
    modified = dt.datetime.strptime(response.headers["Last-Modified"], "%a, %d %b %Y %H:%M:%S GMT")
    assert modified.replace(tzinfo=dt.UTC) >= before
    old = http_date((before - dt.timedelta(days=1)).timestamp())
    assert get(live_catalog, "/api/releases/", **{"If-Modified-Since": old}).status == 200


def test_a_client_holding_the_previous_revision_never_gets_a_304(live_catalog):
    seen = []
    for summary in ("One.", "Two.", "Three."):  # three revisions, most often inside one second
        Release.objects.filter(version="1.9").update(summary=summary)
        response = get(live_catalog, "/api/releases/")
        seen.append(response.headers)
        if len(seen) > 1:
            for name, header in (("If-Modified-Since", "Last-Modified"), ("If-None-Match", "ETag")):
                stale = get(live_catalog, "/api/releases/", **{name: seen[-2][header]})
                assert stale.status == 200, f"a client holding the previous {header} got a 304"
    assert len({headers["ETag"] for headers in seen}) == 3


# --- every answer carries the same headers ---------------------------------------------------

COMPARED = [
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "Vary",
    "Allow",
]


@pytest.mark.parametrize("path", ["/api/docs/", "/api/features/?release=1.8", "/feeds/releases/"])
def test_hits_304s_and_429s_carry_the_headers_of_a_fresh_page(client, catalog, settings, path):
    settings.API_ANON_RATE = "3/m"  # read when the test client builds its middleware
    fresh = client.get(path)
    hit = client.get(path)
    not_modified = client.get(path, headers={"If-None-Match": fresh["ETag"]})
    throttled = client.get(path)
    assert (fresh["X-Cache"], hit["X-Cache"]) == ("miss", "hit")
    assert (not_modified.status_code, throttled.status_code) == (304, 429)
    expected = {name: fresh.get(name) for name in COMPARED}
    assert expected["Allow"] == "GET, HEAD, OPTIONS" and expected["X-Frame-Options"] == "DENY"
    for response in (hit, not_modified, throttled):
        assert {name: response.get(name) for name in COMPARED} == expected, response.status_code
    assert hit["Content-Type"] == fresh["Content-Type"]


# --- the revision, reused by a process for REVISION_REUSE_SECONDS ---------------------------


def test_a_hit_within_the_revision_reuse_asks_the_database_nothing(client, catalog, settings):
    path = "/api/features/?release=1.9"
    settings.REVISION_REUSE_SECONDS = 60
    assert client.get(path)["X-Cache"] == "miss"
    with CaptureQueriesContext(connection) as queries:
        hit = client.get(path)
    assert hit["X-Cache"] == "hit" and len(queries) == 0
    settings.REVISION_REUSE_SECONDS = 0  # read on every request
    revision.forget()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path)["X-Cache"] == "hit"
    assert len(queries) == 1


def test_a_save_shows_at_once_in_the_process_that_made_it(client, catalog, settings):
    settings.REVISION_REUSE_SECONDS = 60
    path = "/api/features/?release=1.9&search=prepare"
    before = client.get(path)
    assert client.get(path)["X-Cache"] == "hit"
    feature = Feature.objects.get(release__version="1.9", slug="prepare-for-inference")
    feature.title = "Prepare for inference, retitled"
    feature.save()
    after = client.get(path)
    assert after["X-Cache"] == "miss" and after["ETag"] != before["ETag"]
    assert after.json()["results"][0]["title"] == "Prepare for inference, retitled"


def test_a_revision_committed_elsewhere_shows_once_the_reuse_ends(client, catalog, settings):
    settings.REVISION_REUSE_SECONDS = 1
    path = "/api/releases/"
    first = client.get(path)
    read_at = time.monotonic()
    # What another process's save commits: the row's new token, with no word to this one.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE releases_catalogrevision SET token = 'elsewhere' WHERE id = 1")
    reused = client.get(path)
    assert time.monotonic() - read_at < 1, "too slow to test the reuse"
    assert reused["ETag"] == first["ETag"] and reused["X-Cache"] == "hit"
    time.sleep(1.05 - (time.monotonic() - read_at))
    fresh = client.get(path)
    assert fresh["ETag"].startswith('"elsewhere-') and fresh["X-Cache"] == "miss"


# --- counts: exact, once per filter and revision ---------------------------------------------


def count_of(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.content
    counts = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT COUNT")]
    return response.json()["count"], len(counts)


def test_a_lists_count_is_counted_once_for_every_page_and_spelling_of_its_filter(
    client, catalog, uncached
):
    exact = Feature.objects.for_api().filter(release__version__in=["1.8", "1.9"]).count()
    urls = [
        "/api/features/?release=1.8,1.9",
        "/api/features/?release=1.8,1.9&page=2&page_size=5",
        "/api/features/?page_size=3&release=1.8&release=1.9",  # repeated, not comma-separated
        "/api/features/?release=1.8,1.9&ordering=-title&facets=area",
        "/api/features/?release=1.8,1.9&format=json",
    ]
    seen = [count_of(client, url) for url in urls]
    assert seen == [(exact, 1)] + [(exact, 0)] * 4
    # Another filter is another count.
    assert count_of(client, "/api/features/?release=1.8") == (
        Feature.objects.for_api().filter(release__version="1.8").count(),
        1,
    )


def test_a_write_starts_new_counts(transactional_db, client, catalog, uncached):
    url = "/api/features/?release=1.9&stability=prototype"
    before, counted = count_of(client, url)
    assert counted == 1 and count_of(client, url) == (before, 0)
    feature = Feature.objects.get(release__version="1.9", slug="prepare-for-inference")
    feature.stability = Stability.BETA
    feature.save()  # committed: a new revision starts
    assert count_of(client, url) == (before - 1, 1)


def test_counts_are_kept_in_the_shared_cache_under_the_revision(client, catalog, uncached):
    """Every process reads the same entry: what one counted, the others need not."""
    from django.core.cache import caches

    from releases import revision

    assert count_of(client, "/api/links/?is_missing=true")[1] == 1
    token = revision.current()[0]
    shared = caches["shared"]
    name = "/api/links/?[('is_missing', 'true')]"
    revision._known_counts.clear()  # as another process, which has not seen it
    assert revision.cached_count(name, lambda: pytest.fail("counted again"), token) == (
        Link.objects.for_api().missing().count()
    )
    assert shared.get(revision.COUNT_KEY.format(token, revision.count_digest(name))) is not None
