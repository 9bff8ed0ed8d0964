"""Feature lifecycle: tracks, stages as of a version, promotions, compare, feeds."""

import re
import xml.etree.ElementTree as ET

import feedparser
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases import tracks
from releases.models import Feature, Stability, Track
from tests.factories import FeatureFactory, ReleaseFactory

ATOM = "{http://www.w3.org/2005/Atom}"


def slugs(response):
    return [item["slug"] for item in response.json()["results"]]


# --- the model -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_seed_capability_announced_more_than_once_is_one_track(catalog):
    repeated = [track for track in Track.objects.all() if track.features.count() > 1]
    assert len(repeated) > 10
    assert not Feature.objects.filter(track__isnull=True).exists()
    assert Track.objects.orphaned().count() == 0


@pytest.mark.django_db
def test_a_new_feature_gets_a_track_of_its_own():
    feature = FeatureFactory(title="Brand new thing", slug="brand-new-thing")
    assert feature.track.name == "Brand new thing"
    assert feature.track.slug == "brand-new-thing"
    twin = FeatureFactory(slug="brand-new-thing", release__version="7.1")
    assert twin.track != feature.track and twin.track.slug == "brand-new-thing-7-1"


@pytest.mark.django_db
def test_stage_as_of_a_version_is_the_latest_appearance_at_or_before_it(catalog):
    def stage(slug, as_of=None):
        return Track.objects.with_stage(as_of).get(slug=slug).stage

    assert stage("module-freezing", "1.6") == Stability.PROTOTYPE
    assert stage("module-freezing", "1.8") == Stability.PROTOTYPE  # no appearance in 1.7, 1.8
    assert stage("module-freezing") == stage("module-freezing", "1.9") == Stability.STABLE
    assert not Track.objects.with_stage("1.7").filter(slug="torch-linalg").exists()


@pytest.mark.django_db
def test_stage_ignores_draft_releases(catalog):
    track = Track.objects.get(slug="torch-fft")
    FeatureFactory(
        track=track,
        release=ReleaseFactory(version="1.10", is_published=False),
        stability=Stability.PROTOTYPE,
    )
    assert Track.objects.with_stage().get(slug="torch-fft").stage == Stability.STABLE


@pytest.mark.django_db
def test_merge_then_split(catalog):
    set_det = Feature.objects.get(release__version="1.7", slug="torch-set-deterministic")
    use_det = Feature.objects.get(release__version="1.9", slug="torch-use-deterministic-algorithms")
    merged = use_det.track
    tracks.split([set_det])
    set_det.refresh_from_db()
    assert set_det.track != merged and set_det.track.name == set_det.title
    assert list(merged.features.all()) == [use_det]
    old = set_det.track
    assert tracks.merge([set_det], into=merged) == [old]  # the tracks it emptied, deleted
    assert merged.features.count() == 2
    assert not Track.objects.filter(pk=old.pk).exists()  # emptied tracks go


# --- the API ---------------------------------------------------------------------------------


def test_track_detail_lists_appearances_in_version_order(api):
    track = api("/api/tracks/torch-fft/").json()
    assert track["stability"] == "stable"
    assert (track["first_release"], track["latest_release"]) == ("1.7", "1.8")
    assert [(a["release"], a["stability"]) for a in track["appearances"]] == [
        ("1.7", "beta"),
        ("1.8", "stable"),
    ]
    assert set(track["appearances"][0]) == {
        "release",
        "kind",
        "stability",
        "stage_label",
        "stage_source",
        "feature",
        "title",
    }
    assert [a["stage_label"] for a in track["appearances"]] == ["Beta", "Stable"]
    assert [a["stage_source"] for a in track["appearances"]] == ["tag", "tag"]
    assert api("/api/tracks/no-such-track/").status == 404


def test_tracks_promoted_in_a_release(api):
    promoted = set(slugs(api("/api/tracks/", promoted_in="1.9", page_size=100)))
    assert {
        "torch-linalg",
        "zero-redundancy-optimizer",
        "cuda-rpc",
        "mobile-interpreter",
    } <= promoted
    assert "torchelastic" not in promoted  # it went from Stable to Beta
    # torch.fft by its tag; NCCL's error handling and RPC profiling by the prose's claims.
    assert set(slugs(api("/api/tracks/", promoted_in="1.8"))) == {
        "torch-fft",
        "nccl-reliability-async-error-timeout-handling",
        "rpc-profiling",
    }


def test_tracks_as_of_a_version(api):
    body = api("/api/tracks/", as_of="1.8", search="freezing").json()
    (freezing,) = body["results"]
    assert freezing["stability"] == "prototype" and freezing["latest_release"] == "1.6"
    assert [a["release"] for a in freezing["appearances"]] == ["1.6"]
    stable_in_17 = set(slugs(api("/api/tracks/", as_of="1.7", stability="stable", page_size=100)))
    assert "torchelastic" in stable_in_17 and "torch-fft" not in stable_in_17
    assert "torch-fft" in slugs(api("/api/tracks/", as_of="1.8", stability="stable", page_size=100))


def test_track_filters_by_area_stability_and_search(api):
    mobile_beta = slugs(api("/api/tracks/", area="mobile", stability="beta", page_size=100))
    assert "mobile-interpreter" in mobile_beta and "torchvision-library" not in mobile_beta
    assert slugs(api("/api/tracks/", search="use_deterministic")) == ["deterministic-algorithms"]


def test_promoted_features(api):
    promoted = api("/api/features/", promoted="true", release="1.9", page_size=100).json()
    assert {item["slug"] for item in promoted["results"]} == {
        "torch-linalg",
        "torch-use-deterministic-algorithms",
        "mobile-interpreter",
        "cuda-support-is-available-in-rpc",
        "zeroredundancyoptimizer",
        "freezing-api",
    }
    everything = api("/api/features/", release="1.9").json()["count"]
    rest = api("/api/features/", release="1.9", promoted="false").json()["count"]
    assert rest == everything - promoted["count"]


def test_compare_what_an_upgrade_brings(api):
    body = api("/api/compare/", **{"from": "1.8", "to": "1.9"}).json()
    promoted = {item["track"]: item for item in body["promoted"]}
    assert {"torch-linalg", "zero-redundancy-optimizer", "cuda-rpc", "mobile-interpreter"} <= set(
        promoted
    )
    assert promoted["torch-linalg"] | {"name": None} == {
        "track": "torch-linalg",
        "name": None,
        "area": "frontend-apis",
        "before": "beta",
        "after": "stable",
        "changed_in": "1.9",
    }
    assert promoted["module-freezing"]["before"] == "prototype"  # as of 1.8, from 1.6
    assert [(d["track"], d["before"], d["after"]) for d in body["demoted"]] == [
        ("torchelastic", "stable", "beta")
    ]
    added = {item["track"] for item in body["added"]}
    assert "torch-package" in added and "torch-fft" not in added
    assert all(item["release"] == "1.9" for item in body["added"])
    assert body["unchanged"] + len(body["promoted"]) + len(body["demoted"]) + len(added) == len(
        slugs(api("/api/tracks/", as_of="1.9", page_size=100))
    )


def test_compare_over_several_releases(api):
    body = api("/api/compare/", **{"from": "1.6", "to": "1.9"}).json()
    promoted = {item["track"]: item for item in body["promoted"]}
    assert (promoted["module-freezing"]["before"], promoted["module-freezing"]["after"]) == (
        "prototype",
        "stable",
    )
    added = {item["track"]: item for item in body["added"]}
    # Each added track at its stage in 1.9, and where it was first seen.
    assert (added["torch-fft"]["stability"], added["torch-fft"]["first_release"]) == (
        "stable",
        "1.7",
    )
    elastic = [item for slug, item in added.items() if "elastic" in slug]
    assert elastic and all(item["stability"] == "beta" for item in elastic)
    stages = {
        item["slug"]: item["stability"]
        for item in api("/api/tracks/", as_of="1.9", page_size=100).json()["results"]
    }
    assert all(item["stability"] == stages[slug] for slug, item in added.items())


@pytest.mark.django_db
def test_a_track_appears_once_per_release(catalog):
    from django.db import IntegrityError, transaction

    linalg = Feature.objects.get(release__version="1.9", slug="torch-linalg")
    package = Feature.objects.get(release__version="1.9", slug="torch-package")
    with pytest.raises(tracks.CannotMerge, match=r"would appear twice in one release \(1.9: "):
        tracks.merge([package], into=linalg.track)
    assert package.track.slug == "torch-package"
    with pytest.raises(IntegrityError), transaction.atomic():
        Feature.objects.filter(pk=package.pk).update(track=linalg.track)


@pytest.mark.parametrize(
    ("params", "parameter", "says"),
    [
        ({"from": "1.9", "to": "1.8"}, "to", "later version"),
        ({"from": "1.8", "to": "1.8"}, "to", "later version"),
        ({"from": "1.8"}, "to", "required"),
        ({"from": "one", "to": "1.9"}, "from", "not a version"),
        ({"from": "1.7", "to": "1.9", "since": "x"}, "since", "Unknown query parameter"),
    ],
)
def test_compare_refuses_bad_versions(api, params, parameter, says):
    response = api("/api/compare/", **params)
    assert response.status == 400
    assert says in response.json()[parameter][0]


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"as_of": "soon"}, "as_of"),
        ({"promoted_in": "1"}, "promoted_in"),
        ({"stability": "alpha"}, "stability"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_track_list_refuses_bad_queries(api, params, parameter):
    response = api("/api/tracks/", **params)
    assert response.status == 400 and list(response.json()) == [parameter]


# --- feeds -----------------------------------------------------------------------------------


def test_release_feed_is_valid_atom_with_the_newest_release_first(api):
    response = api("/feeds/releases/")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.body)
    assert not feed.bozo, feed.bozo_exception
    assert feed.version == "atom10"
    assert [entry.title.split(":")[0] for entry in feed.entries] == [
        "PyTorch 1.9",
        "PyTorch 1.8",
        "PyTorch 1.7",
        "PyTorch 1.6",
    ]
    assert "TorchElastic" in feed.entries[0].summary
    assert feed.entries[0].published.startswith("2021-06-15")


def test_track_feed_has_one_entry_per_stage_change(api):
    response = api("/feeds/tracks/module-freezing/")
    feed = feedparser.parse(response.body)
    assert not feed.bozo, feed.bozo_exception
    assert [entry.title for entry in feed.entries] == [
        "Module freezing: Prototype → Stable in 1.9",
        "Module freezing: Prototype in 1.6",
    ]
    ids = [element.text for element in ET.fromstring(response.body).iter(f"{ATOM}id")]
    assert len(ids) == 3 and len(set(ids)) == 3  # the feed and its two entries
    assert api("/feeds/tracks/no-such-track/").status == 404


# --- query counts ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/api/tracks/?",
        "/api/tracks/?as_of=1.8&stability=beta,stable&",
        "/api/tracks/?promoted_in=1.9&search=torch&",
        "/api/features/?promoted=true&",
    ],
)
def test_track_lists_use_constant_queries(client, catalog, uncached, url):
    counts = []
    for size in (1, 10, 100):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"{url}page_size={size}").status_code == 200
        counts.append(len(queries))
    # The first page counts the list; the others read that count from the cache.
    assert counts[0] <= 4 and counts[1:] == [counts[0] - 1] * 2  # with the revision


@pytest.mark.django_db
def test_compare_uses_constant_queries(client, catalog, uncached):
    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/compare/?from=1.6&to=1.9").status_code == 200
        return len(queries)

    before = count()
    FeatureFactory.create_batch(20, release=ReleaseFactory(version="1.8.1"))
    # The revision, from and to checked published, the tracks, their appearances.
    assert count() == before == 5


def test_feeds_link_to_the_pages_people_read(api):
    track = feedparser.parse(api("/feeds/tracks/module-freezing/").body)
    assert track.feed.link.endswith("/tracks/module-freezing/")
    paths = [entry.link.split("/", 3)[3] for entry in track.entries]
    assert [path.split("#")[0] for path in paths] == ["releases/1.9/", "releases/1.6/"]
    assert all(re.fullmatch(r"releases/[0-9.]+/#[a-z0-9-]+", path) for path in paths)
    releases = feedparser.parse(api("/feeds/releases/").body)
    assert releases.feed.link.endswith("/releases/")
    assert all("/api/" not in entry.link for entry in releases.entries)
