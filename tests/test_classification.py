"""
PyTorch's classification as it evolved (issue 28): API-Unstable from 2.8, a relabel that is
neither a promotion nor a demotion, every feature's label as its post wrote it, deprecations as
entries of their own, successor tracks for new API generations, and /stages/.
"""

import re

import pytest

from releases.classification import Stability, StageChange, stage_change
from releases.models import Feature, FeatureKind, Release, Track

RELEASES_2_7_TO_2_14 = [f"2.{n}" for n in range(7, 15)]


@pytest.mark.parametrize(
    ("before", "after", "change"),
    [
        (Stability.BETA, Stability.UNSTABLE, StageChange.RELABELLED),
        (Stability.PROTOTYPE, Stability.UNSTABLE, StageChange.RELABELLED),
        (Stability.UNSTABLE, Stability.BETA, StageChange.RELABELLED),
        (Stability.UNSTABLE, Stability.STABLE, StageChange.PROMOTED),
        (Stability.STABLE, Stability.UNSTABLE, StageChange.DEMOTED),
        (Stability.PROTOTYPE, Stability.BETA, StageChange.PROMOTED),
        (Stability.BETA, Stability.PROTOTYPE, StageChange.DEMOTED),
        (Stability.UNSTABLE, Stability.UNSTABLE, StageChange.SAME),
        ("", Stability.UNSTABLE, None),
    ],
)
def test_a_move_into_api_unstable_is_a_relabel(before, after, change):
    assert stage_change(before, after) == change


def test_every_release_through_2_14_is_public_and_2_14_is_the_latest_announced(
    client, full_catalog
):
    published = Release.objects.published()
    assert set(RELEASES_2_7_TO_2_14) <= set(published.values_list("version", flat=True))
    # 2.15 is out (the package index lists it, issue 40), with no announcement yet; 2.16 is
    # planned. The home page leads with the newest announced and names the newer one.
    assert published.released().newest_first().first().version == "2.15"
    assert published.announcing().newest_first().first().version == "2.14"
    html = client.get("/").content.decode()
    assert 'Latest: <a href="/releases/2.14/">PyTorch 2.14</a>' in html
    assert 'no announcement read yet: <a href="/releases/2.15/">2.15</a>' in html
    assert "Latest patch of 2.14: <strong>2.14.1</strong>" in html


def test_the_api_unstable_features_are_listed_by_their_stage(client, full_catalog):
    body = client.get("/api/features/", {"stability": "unstable", "page_size": 100}).json()
    assert body["count"] == Feature.objects.filter(stability=Stability.UNSTABLE).count() > 50
    releases = {item["release"] for item in body["results"]}
    assert releases <= set(RELEASES_2_7_TO_2_14) and "2.14" in releases
    labels = {item["stage_label"] for item in body["results"]}
    assert {"API-UNSTABLE", "API Unstable"} <= labels  # as each post wrote it


def test_no_feature_was_api_unstable_before_the_scheme_began(full_catalog):
    early = Feature.objects.filter(
        stability=Stability.UNSTABLE,
        release__version_key__lt=(Release.objects.get(version="2.8").version_key),
    )
    assert not early.exists()


def test_deprecations_are_entries_on_the_deprecated_capabilitys_track(client, full_catalog):
    body = client.get("/api/features/", {"kind": "deprecation", "release": "2.10"}).json()
    assert [(item["title"], item["track"]) for item in body["results"]] == [
        ("Torchscript is now Deprecated", "torchscript")
    ]
    assert client.get("/api/features/", {"kind": "removal"}).status_code == 400
    page = client.get("/tracks/torchscript/").content.decode()
    assert 'data-release="2.10"' in page  # the deprecation is on its timeline
    release = client.get("/releases/2.10/").content.decode()
    assert 'class="badge kind-deprecation"' in release


def test_every_demotion_in_the_catalog_carries_the_editors_reason(full_catalog):
    unexplained = []
    for track in Track.objects.for_api():
        stage = None
        for appearance in track.appearances:
            if stage_change(stage, appearance.stability) == StageChange.DEMOTED:
                if not appearance.demotion_reason:
                    unexplained.append((track.slug, appearance.release.version))
            stage = appearance.stability or stage
    assert unexplained == []


def test_fsdp2_is_fsdps_successor_not_its_demotion(client, full_catalog):
    fsdp = client.get("/api/tracks/fsdp/").json()
    assert fsdp["succeeded_by"] == "fsdp2" and fsdp["succeeds"] is None
    assert [a["stability"] for a in fsdp["appearances"]].count("prototype") == 0
    fsdp2 = client.get("/api/tracks/fsdp2/").json()
    assert (fsdp2["succeeds"], fsdp2["first_release"]) == ("fsdp", "2.4")
    page = client.get("/tracks/fsdp/").content.decode()
    assert 'href="/tracks/fsdp2/"' in page
    compare = client.get("/api/compare/", {"from": "1.13", "to": "2.4"}).json()
    assert "fsdp" not in {item["track"] for item in compare["demoted"]}
    added = {item["track"]: item for item in compare["added"]}
    assert added["fsdp2"]["succeeds"] == "fsdp"
    for old, new in (("pipeline-parallelism", "torch-distributed-pipelining"),
                     ("torch-distributed-checkpoint", "asynchronous-checkpointing")):  # fmt: skip
        assert client.get(f"/api/tracks/{new}/").json()["succeeds"] == old


def test_compare_lists_relabels_apart(client, full_catalog):
    body = client.get("/api/compare/", {"from": "2.6", "to": "2.14"}).json()
    relabelled = {item["track"]: (item["before"], item["after"]) for item in body["relabelled"]}
    assert relabelled["flexattention"] == ("prototype", "unstable")
    moved = {item["track"] for item in body["promoted"] + body["demoted"]}
    assert not moved & set(relabelled)
    page = client.get("/compare/", {"from": "2.6", "to": "2.14"}).content.decode()
    assert '<h2 id="relabelled">Relabelled (' in page


def test_a_relabel_is_drawn_as_one_on_the_matrix_and_the_timeline(client, full_catalog):
    matrix = client.get("/matrix/", {"area": "frontend-apis"}).content.decode()
    row = re.search(r'href="/tracks/flexattention/".*?</tr>', matrix, re.S).group(0)
    assert "relabelled" in row and "promoted" not in row
    # The matrix marks where PyTorch's scheme changed: 1.6 and 2.8.
    assert re.findall(r'class="scheme-start"[^>]*><a href="/releases/([0-9.]+)/"', matrix) == [
        "1.6",
        "2.8",
    ]
    timeline = client.get("/tracks/flexattention/").content.decode()
    assert 'class="step relabelled"' in timeline


def test_the_stages_page_explains_both_schemes_with_their_sources(client, full_catalog):
    response = client.get("/stages/")
    assert response.status_code == 200
    html = response.content.decode()
    for words in ("API-Unstable", "Prototype", "https://github.com/pytorch/pytorch/issues/152134",
                  "https://pytorch.org/blog/pytorch-feature-classification-changes/"):  # fmt: skip
        assert words in html
    assert client.get("/stages/", {"x": "1"}).status_code == 400


def test_a_release_known_from_its_notes_says_what_its_sources_leave_open(client, full_catalog):
    html = client.get("/releases/2.8/").content.decode()
    assert "What the sources leave open." in html
    assert client.get("/api/releases/2.8/").json()["sources_note"]
    assert client.get("/api/releases/2.6/").json()["sources_note"] is None


def test_badges_and_state_know_api_unstable(client, full_catalog):
    track = Feature.objects.filter(release__version="2.14", stability=Stability.UNSTABLE).first()
    slug = track.track.slug
    badge = client.get(f"/badges/tracks/{slug}.json").json()
    assert badge["message"].startswith("unstable since")
    state = client.get("/api/state/", {"version": "2.14", "stability": "unstable"}).json()
    assert state["count"] > 0 and {i["stability"] for i in state["results"]} == {"unstable"}
    assert FeatureKind.DEPRECATION in Feature.objects.values_list("kind", flat=True)


def test_compare_starts_with_its_summary(client, full_catalog):
    """Issue 43: compare put its promotions after 72 new tracks."""
    page = client.get("/compare/", {"from": "2.6", "to": "2.14"}).content.decode()
    summary, promoted, new = (page.index(h) for h in ('id="summary"', 'id="promoted"', 'id="new"'))
    assert summary < promoted < new
    counts = page[summary:promoted]
    for anchor in ("#promoted", "#demoted", "#relabelled", "#new"):
        assert f'href="{anchor}"' in counts


def test_the_matrix_hides_the_releases_before_a_chosen_one(client, full_catalog):
    """Issue 43: the matrix can start at a release (seen_since), as /api/tracks/ can."""
    matrix = client.get("/matrix/", {"seen_since": "2.8"}).content.decode()
    columns = re.findall(r'<th scope="col"[^>]*><a href="/releases/([^/]+)/">', matrix)
    assert columns[0] == "2.8" and columns[-1] == "2.14"
    listed = client.get("/api/tracks/", {"seen_since": "2.8", "page_size": 100}).json()
    shown = set(re.findall(r'<th scope="row"><a href="/tracks/([^/]+)/">', matrix))
    assert shown == {track["slug"] for track in listed["results"]}
    every = client.get("/api/tracks/", {"page_size": 100}).json()["count"]
    assert 0 < listed["count"] < every
    refused = client.get("/matrix/", {"seen_since": "2.x"})
    assert refused.status_code == 400 and b"seen_since" in refused.content
