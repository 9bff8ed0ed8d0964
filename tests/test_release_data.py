"""
The whole history, release by release: the fixtures hold what each release post announces
(its answer key in tests/answer_keys/), and every difference is an editor's decision, with its
reason, in fixtures/curation/. Tracks follow capabilities across releases.
"""

import json
import os
import re
import unicodedata
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path
from urllib.parse import urldefrag

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db.models import Count

from releases.importing.parse import slugify
from releases.models import Feature, Link, Release, StageClaim, StageSource, Track

KEYS = Path(__file__).parent / "answer_keys"
CURATION = settings.BASE_DIR / "fixtures" / "curation"
# Every minor release from 1.2 to 2.14 that PyTorch announced.
VERSIONS = [f"1.{n}" for n in range(2, 14)] + [f"2.{n}" for n in range(15)]
# Those announced on the new blog (pytorch.org/blog, HTML) or known from other sources than
# a post of the Jekyll blog: their keys name the source they were read from.
NEW_BLOG = [f"2.{n}" for n in range(8, 15)]


def release_keys():
    """
    {version: answer key} of the release posts (not the companion posts). Where a release is
    known from several documents (2.8 and 2.9: release notes and parts of the post), the key
    marked ``primary`` is the release's.
    """
    keys = {}
    for path in sorted(KEYS.glob("*.json")):
        key = json.loads(path.read_text(encoding="utf-8"))
        if (
            key.get("version") in VERSIONS
            and "library" not in path.name
            and "prototype" not in path.name
            and key.get("primary", True)
        ):
            assert key["version"] not in keys, f"two primary keys for {key['version']}"
            keys[key["version"]] = key
    return keys


KEYS_BY_VERSION = release_keys()


def release_dates():
    """{version: the release dates its documents give}: a key without one (release notes)
    leaves the date to another document of the same release."""
    dates = defaultdict(set)
    for path in KEYS.glob("*.json"):
        key = json.loads(path.read_text(encoding="utf-8"))
        if key.get("release_date"):
            dates[key.get("version")].add(key["release_date"])
    return dates


DATES = release_dates()


def decisions(version):
    path = CURATION / f"{version}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def same_url(url):
    """A URL as the catalog compares it: an empty fragment ('…#') is no fragment."""
    base, fragment = urldefrag(url)
    return url if fragment else base


def load(version):
    """One release of the fixtures, with the areas and tracks it needs."""
    call_command("load_catalog", "--release", version, verbosity=0)


def test_every_release_from_1_2_to_2_14_is_there_and_published(full_catalog):
    releases = {r.version: r for r in Release.objects.filter(announced=True, planned=False)}
    assert sorted(releases, key=VERSIONS.index) == VERSIONS
    # Beside them, only what the compatibility tables brought (issue 32): older releases
    # without an announcement, and the planned ones.
    others = set(Release.objects.values_list("version", flat=True)) - set(VERSIONS)
    assert others == {"0.1", "0.2", "0.3", "0.4", "1.0", "1.1", "2.15", "2.16"}
    for release in releases.values():
        assert release.is_published and release.release_date and release.summary
        assert release.announcement_url.startswith("https://pytorch.org/blog/")
        assert release.highlight_list
    assert set(KEYS_BY_VERSION) == set(VERSIONS)  # an answer key per release post


@pytest.mark.parametrize("version", VERSIONS)
def test_the_release_holds_what_its_post_announces(db, version):
    load(version)
    key, decided = KEYS_BY_VERSION[version], decisions(version)
    release = Release.objects.get(version=version)
    assert DATES[version] == {str(release.release_date)}
    features = {f.slug: f for f in Feature.objects.filter(release=release)}
    links = defaultdict(list)
    for link in Link.objects.filter(feature__release=release):
        links[link.feature.slug].append(link)
    explained = {
        entry.get("slug") or slugify(entry.get("title", "")): entry
        for entry in decided.get("features", [])
        if entry.get("reason")
    }
    unexplained = []
    for announced in key["features"]:
        slug = slugify(announced["title"])
        feature = features.get(slug)
        if feature is None:
            feature = next((f for f in features.values() if f.title == announced["title"]), None)
        if feature is None:
            if slug not in explained:
                unexplained.append(f"missing: {announced['title']}")
            continue
        if (feature.stability or None) != announced["stability"] and feature.slug not in explained:
            if feature.stage_source != StageSource.CLAIM:
                unexplained.append(f"stage of {feature.title}: {feature.stability}")
        label = announced.get("stage_label")
        if label is not None and feature.stage_label != label and feature.slug not in explained:
            unexplained.append(f"stage label of {feature.title}: {feature.stage_label!r}")
        if feature.kind != announced.get("kind", "feature") and feature.slug not in explained:
            unexplained.append(f"kind of {feature.title}: {feature.kind}")
        urls = {same_url(link.url) for link in links[feature.slug] if link.url}
        for url in announced["links"]:
            if same_url(url) not in urls and feature.slug not in explained:
                unexplained.append(f"link of {feature.title}: {url}")
        missing = [link for link in links[feature.slug] if not link.url]
        assert len(missing) == len(announced.get("missing", [])), feature.title
    # What the key does not list: an editor added it, with a reason, or an accepted claim did.
    titles = {slugify(f["title"]) for f in key["features"]} | {f["title"] for f in key["features"]}
    for feature in features.values():
        if feature.slug in titles or feature.title in titles:
            continue
        if feature.slug not in explained and feature.stage_source != StageSource.CLAIM:
            unexplained.append(f"not announced: {feature.title}")
    assert unexplained == []
    for feature in features.values():
        # A notice belongs to no track (issue 41); every feature and deprecation to one.
        tracked = feature.track_id or feature.is_notice
        assert feature.summary and tracked and feature.area_id, feature.title


@pytest.mark.parametrize("version", VERSIONS)
def test_every_claim_of_the_post_is_decided(db, version):
    load(version)
    claims = StageClaim.objects.filter(release__version=version)
    assert not claims.pending().exists()
    for entry in decisions(version).get("claims", []):
        assert entry.get("reason") or entry["status"] == "accepted", entry


def saved_posts(seeds):
    """The posts to compare summaries with: the seeds, and a checkout of the blog's _posts
    named by POSTS (as for `make parser-report`), where there is one."""
    folders = [seeds]
    if os.environ.get("POSTS"):
        folders.append(Path(os.environ["POSTS"]))
    return {
        path.name: path for folder in folders if folder.is_dir() for path in folder.glob("*.md")
    }


def test_summaries_are_our_own_words(full_catalog, seeds):
    """No summary repeats a run of eight words of its post."""
    posts = saved_posts(seeds)
    words = re.compile(r"[a-z0-9]+")
    compared = 0
    for version, key in KEYS_BY_VERSION.items():
        post = posts.get(key["post"])
        if post is None:
            continue
        compared += 1
        text = words.findall(post.read_text(encoding="utf-8").lower())
        runs = {tuple(text[i : i + 8]) for i in range(len(text) - 7)}
        for feature in Feature.objects.filter(release__version=version):
            summary = words.findall(feature.summary.lower())
            copied = [tuple(summary[i : i + 8]) for i in range(len(summary) - 7)]
            copied = [run for run in copied if run in runs]
            assert not copied, (version, feature.title, copied[:1])
    assert compared >= 4  # the seeds at least


def test_tracks_follow_capabilities_across_releases(full_catalog):
    spans = Track.objects.annotate(releases=Count("features__release", distinct=True))
    assert spans.filter(releases__gte=2).count() >= 40
    assert all(track.description for track in Track.objects.all())
    # One appearance a release, and named for the capability, not a post's heading.
    assert not [t.name for t in Track.objects.all() if re.search(r"\d+\.\d+$", t.name)]


# Pairs an editor looked at and confirmed are different capabilities.
DISTINCT = {
    frozenset({"python-version-support", "python-version-support-for-torch-compile"}),
    frozenset({"distributed-optimizer-with-torchscript-support", "distributed-rpc"}),
}
GENERIC = {
    "support",
    "for",
    "the",
    "and",
    "in",
    "of",
    "a",
    "api",
    "apis",
    "new",
    "pytorch",
    "torch",
}


def capability_words(name):
    """A track's name as a bag of its meaningful words: case, Unicode and punctuation folded."""
    name = unicodedata.normalize("NFKC", name).casefold()
    return frozenset(re.findall(r"[a-z0-9]+", name)) - GENERIC


def likely_duplicates(tracks):
    """Pairs of tracks whose names say the same capability: for an editor to confirm."""
    pairs = []
    for one, other in combinations(tracks, 2):
        a, b = capability_words(one.name), capability_words(other.name)
        if not a or not b or frozenset({one.slug, other.slug}) in DISTINCT:
            continue
        if a == b or (len(a & b) / len(a | b) >= 0.75):
            pairs.append((one.name, other.name))
    return pairs


def test_no_two_tracks_are_likely_the_same_capability(full_catalog):
    assert likely_duplicates(list(Track.objects.all())) == []


def test_the_duplicate_check_flags_what_an_editor_should_look_at():
    class Named:
        def __init__(self, name):
            self.name, self.slug = name, slugify(name)

    flagged = likely_duplicates([Named("torch.fft"), Named("Torch FFT"), Named("torch.linalg")])
    assert flagged == [("torch.fft", "Torch FFT")]


def test_domain_libraries_are_filed_under_their_own_area_and_track(full_catalog):
    for library in ("torchvision", "torchaudio", "torchtext"):
        track = Track.objects.get(slug=library)
        appearances = Feature.objects.filter(track=track)
        assert appearances.count() >= 2
        assert set(appearances.values_list("area__slug", flat=True)) == {library}


def test_counts_by_release(full_catalog):
    counts = Counter(Feature.objects.values_list("release__version", flat=True))
    assert set(counts) == set(VERSIONS) and all(counts.values())
