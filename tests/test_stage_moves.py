"""
Issue 43: when a track changed stage is one rule (classification.stage_moves), shown the same
on the track page, the matrix, compare, the feeds and the API. FlexAttention (prototype in
2.7, unstable in 2.11, no stage in 2.12, unstable in 2.13) was relabelled in 2.11 on its track
page and in 2.13 on /compare/; its 2.12 appearance was drawn below Prototype.
"""

import re

import pytest

from releases.classification import StageChange, stage_moves
from releases.models import Track

pytestmark = pytest.mark.django_db

MOVED = (StageChange.PROMOTED, StageChange.DEMOTED, StageChange.RELABELLED)


def test_an_appearance_with_no_stage_moves_nothing():
    stages = ["prototype", "prototype", "unstable", "", "unstable", "stable"]
    assert stage_moves(stages) == [
        None,
        StageChange.SAME,
        StageChange.RELABELLED,
        None,
        StageChange.SAME,
        StageChange.PROMOTED,
    ]
    assert stage_moves(["", "beta", "", "prototype"]) == [None, None, None, StageChange.DEMOTED]


def test_flexattention_was_relabelled_in_2_11_on_every_surface(client, full_catalog):
    compared = client.get("/api/compare/", {"from": "2.7", "to": "2.14"}).json()
    [item] = [i for i in compared["relabelled"] if i["track"] == "flexattention"]
    assert item["changed_in"] == "2.11"

    page = client.get("/compare/", {"from": "2.7", "to": "2.14"}).content.decode()
    item = re.search(r'flexattention/">FlexAttention</a>:((?:(?!</li>).)*)</li>', page, re.S)
    assert item is not None and item.group(1).rstrip().endswith("in 2.11</span>")

    track = client.get("/tracks/flexattention/").content.decode()
    described = re.search(r'<desc id="timeline-desc">(.*?)</desc>', track, re.S).group(1)
    assert "2.11: Unstable (relabelled, not promoted)" in described
    assert "2.13: Unstable." in described and "2.13: Unstable (relabelled" not in described

    feed = client.get("/feeds/tracks/flexattention/").content.decode()
    titles = re.findall(r"<title>FlexAttention: (.*?)</title>", feed)[1:]  # the feed's own first
    assert titles == ["Prototype → Unstable in 2.11", "Prototype in 2.5"]

    matrix = client.get("/matrix/", {"search": "flexattention"}).content.decode()
    row = re.search(r'<a href="/tracks/flexattention/">FlexAttention</a></th>(.*?)</tr>', matrix)
    cells = re.findall(r"<td.*?</td>", row.group(1))
    headers = re.findall(r'<th scope="col"[^>]*><a href="/releases/([^/]+)/">', matrix)
    marked = [version for version, cell in zip(headers, cells, strict=True) if "relabelled" in cell]
    assert marked == ["2.11"]


def test_the_2_12_mark_is_neutral_at_the_stage_held(client, full_catalog):
    track = client.get("/tracks/flexattention/").content.decode()
    heights = dict(re.findall(r'data-release="([^"]+)"[^>]*>\s*<circle[^>]*cy="([0-9.]+)"', track))
    assert heights["2.12"] == heights["2.11"] == heights["2.13"]
    assert 'data-release="2.12" data-stability="none"' in track


def test_compare_and_the_track_api_agree_for_every_track(client, full_catalog):
    """The invariant: for every track, /api/compare/ from its first release to the newest
    names the release where its stage last moved, as stage_moves reads its appearances."""
    compared = client.get("/api/compare/", {"from": "1.2", "to": "2.14"}).json()
    said = {
        item["track"]: item["changed_in"]
        for kind in ("promoted", "demoted", "relabelled")
        for item in compared[kind]
    }
    for track in Track.objects.for_api():
        stages = [a.stability for a in track.appearances]
        moves = stage_moves(stages)
        first_stated = next((s for s in stages if s), None)
        last_stated = next((s for s in reversed(stages) if s), None)
        if track.appearances[0].release.version == "1.2" or first_stated == last_stated:
            continue  # compare starts after 1.2: a track first seen then is "added" there
        moved = [
            a.release.version for a, m in zip(track.appearances, moves, strict=True) if m in MOVED
        ]
        if track.slug in said:
            assert said[track.slug] == moved[-1], track.slug


def test_the_stage_held_since_is_read_by_the_same_rule(client, full_catalog):
    """FlexAttention is unstable since 2.11 on its badge and the state page,
    not since 2.13 (2.12's item with no stage breaks nothing)."""
    badge = client.get("/badges/tracks/flexattention.json").json()
    assert "since 2.11" in badge["message"]
    state = client.get("/releases/2.14/state/").content.decode()
    row = re.search(r'href="/tracks/flexattention/">[^<]*</a></th>(.*?)</tr>', state, re.S)
    assert '<td class="since">2.11</td>' in row.group(1)
