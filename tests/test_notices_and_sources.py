"""
Issue 41: what a post's "Non-Feature Updates" section lists are notices, shown with their
release and counted nowhere a feature is; /sources/ names every source the catalog reads, pinned
or dated, what it gave and the disagreements still open.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases.models import (
    Companion,
    Feature,
    FeatureKind,
    PatchRelease,
    Release,
    ScheduleDate,
    Support,
    Track,
    UpgradeNote,
    Wheel,
)
from releases.queries.sources import describe

NOTICES = {
    ("2.10", "2026-release-cadence"),
    ("2.10", "tlparse-torch-trace-can-be-used-to-submit-clearer-bug-reports-on-compiler-issues"),
    ("2.11", "2026-release-cadence"),
    ("2.11", "cuda-version"),
    ("2.13", "triton"),
    ("2.13", "onednn"),
}


def test_the_non_feature_updates_are_notices_with_no_track(full_catalog, client):
    stored = set(Feature.objects.notices().values_list("release__version", "slug"))
    assert stored == NOTICES
    assert not Feature.objects.notices().exclude(track=None).exists()
    listed = client.get("/api/features/?kind=notice&page_size=50").json()
    assert {(item["release"], item["slug"]) for item in listed["results"]} == NOTICES
    assert {item["track"] for item in listed["results"]} == {None}


def test_a_notice_is_counted_nowhere_a_feature_is(full_catalog, client):
    release = client.get("/api/releases/2.13/").json()
    slugs = [item["slug"] for item in release["features"]]
    assert "triton" not in slugs and "onednn" not in slugs
    assert [item["slug"] for item in release["notices"]] == ["triton", "onednn"]
    counted = Feature.objects.published().counted().filter(release__version="2.13").count()
    assert release["feature_count"] == counted == len(slugs)
    listed = client.get("/api/features/?release=2.13&page_size=100").json()
    assert listed["count"] == counted
    assert {item["kind"] for item in listed["results"]} <= {"feature", "deprecation"}
    both = client.get("/api/features/?release=2.13&kind=feature,notice&page_size=100").json()
    assert both["count"] == 2 + sum(item["kind"] == "feature" for item in listed["results"])
    stats = client.get("/api/stats/releases/?page_size=100").json()["results"]
    stats = {row["version"]: row for row in stats}
    assert stats["2.13"]["feature_count"] == counted
    facets = client.get("/api/features/?release=2.13&facets=stability").json()["facets"]
    assert sum(facets["stability"].values()) == counted
    compare = client.get("/api/compare/?from=2.12&to=2.13").json()
    assert "triton" not in str(compare) and "onednn" not in str(compare)


def test_the_release_page_shows_its_notices_apart(full_catalog, client):
    body = client.get("/releases/2.11/").content.decode()
    notices = body[body.index('id="notices"') :]
    assert "CUDA version" in notices and "2026 Release Cadence" in notices
    assert "kind-notice" in notices
    # Not among the features by what changed, nor a track's appearance.
    news = body[body.index('id="by-change"') :]
    assert "2026 Release Cadence" not in news


def test_a_notice_cannot_hold_a_track_and_a_feature_always_has_one(full_catalog):
    notice = Feature.objects.notices().first()
    track = Track.objects.first()
    notice.track = track
    notice.save()  # the write path files a notice under no track
    notice.refresh_from_db()
    assert notice.track_id is None
    feature = Feature.objects.filter(kind=FeatureKind.FEATURE).first()
    feature.kind = FeatureKind.NOTICE
    feature.save()
    feature.refresh_from_db()
    assert feature.track_id is None and feature.is_notice


# --- /sources/ ---------------------------------------------------------------------------


def test_a_source_url_is_read_for_its_repository_and_commit():
    pinned = describe(
        "https://github.com/meta-pytorch/torch-release-notes/blob/"
        "97edf388b987c2c02335ca6014a7053603816423/2.13.0/final.md"
    )
    assert (pinned.repository, pinned.path, pinned.pinned) == (
        "meta-pytorch/torch-release-notes",
        "2.13.0/final.md",
        True,
    )
    branch = describe("https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-cadence")
    assert (branch.branch, branch.pinned) == ("main", False)
    page = describe("https://pytorch.org/blog/pytorch-2-13-release-blog/")
    assert (page.repository, page.pinned) == ("", False)


def test_the_sources_page_names_every_source_with_its_commit_or_day(full_catalog, client):
    body = client.get("/sources/").content.decode()
    for version, commit in (("2.13", "97edf388b9"), ("2.8", "2a52fad1a5")):
        assert f"{version}.0/final.md" in body and commit in body
    assert "pytorch/vision: README.md" in body and "0a12c07088" in body
    assert "https://pypi.org/simple/torch/" in body and "read 28 November 2026" in body
    assert "branch main, not pinned" in body  # RELEASE.md, read from a copy with no commit
    disputes = body[body.index('id="disputes"') :]
    assert "Maxwell and Pascal" in disputes  # 2.8's CUDA entry: the file and the page differ
    assert disputes.count("<li>") == sum(
        model.objects.published().exclude(disputed="").count()
        for model in (Support, Companion, PatchRelease, ScheduleDate, UpgradeNote, Wheel)
    )


@pytest.mark.usefixtures("uncached")
def test_the_sources_page_costs_the_same_queries_whatever_the_catalog(catalog, client):
    with CaptureQueriesContext(connection) as small:
        assert client.get("/sources/").status_code == 200
    Release.objects.filter(version="1.8").update(is_published=True)
    for number in range(30):
        Support.objects.create(
            release=Release.objects.get(version="1.8"),
            kind="python",
            version=f"3.{number + 20}",
            source_url=f"https://github.com/example/tables/blob/{number:040x}/t.md",
            disputed="another table says otherwise" if number % 2 else "",
        )
    with CaptureQueriesContext(connection) as large:
        body = client.get("/sources/").content.decode()
    assert len(large.captured_queries) == len(small.captured_queries)
    assert body.count("example/tables: t.md") == 30


def test_a_draft_source_never_reaches_the_sources_page(catalog, client):
    draft = Release.objects.create(version="9.9", title="Draft", is_published=False)
    Support.objects.create(
        release=draft,
        kind="python",
        version="3.99",
        source_url="https://github.com/example/secret/blob/main/draft.md",
        disputed="a draft's dispute",
    )
    body = client.get("/sources/").content.decode()
    assert "example/secret" not in body and "a draft&#x27;s dispute" not in body


def test_the_sources_page_takes_no_query(catalog, client):
    assert client.get("/sources/?x=1").status_code == 400


def test_the_version_facts_of_notices_are_compatibility_rows(full_catalog, client):
    """2.13's notices pin Triton 3.7.1 and update oneDNN to 3.12: rows of what it builds with,
    sourced to the notice's line of the post."""
    platforms = client.get("/api/releases/2.13/").json()["platforms"]
    assert [row["version"] for row in platforms["triton"]] == ["3.7.1"]
    assert [row["version"] for row in platforms["onednn"]] == ["3.12"]
    triton = Support.objects.get(release__version="2.13", kind="triton")
    notice = Feature.objects.notices().get(release__version="2.13", slug="triton")
    assert (triton.source_url, triton.source_line) == (notice.source_url, notice.source_line)
    body = client.get("/releases/2.13/").content.decode()
    runs_on = body[body.index('id="runs-on"') :]
    assert "Triton" in runs_on and "3.7.1" in runs_on
