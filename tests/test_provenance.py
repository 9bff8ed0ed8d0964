"""Provenance: every feature, link and stage claim says where in which post it was read."""

import html
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from releases import writes
from releases.api.serializers import FeatureSerializer, feature_items, feature_values
from releases.importing import parse, sync
from releases.models import Feature, Link, StageClaim, StageSource

from .conftest import SAMPLES_DIR, SEED_RELEASES

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


def fixture(version):
    return json.loads((FIXTURES / f"pytorch-{version}.json").read_text(encoding="utf-8"))


def objects(items, model):
    return [item["fields"] for item in items if item["model"] == f"releases.{model}"]


def plain(text):
    """Text as a reader sees it: no markdown or HTML markup, quotes and spaces made plain."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    text = re.sub(r"\]\([^)]*\)", " ", text)  # a link's target, keeping its text
    text = re.sub(r"[`*_\[\]#>]", " ", text)
    text = text.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"')
    text = text.replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip().lower()


def all_fixture_versions():
    """The releases whose fixtures hold an announcement's features (not the tables' alone)."""
    return sorted(
        path.stem.removeprefix("pytorch-")
        for path in FIXTURES.glob("pytorch-*.json")
        if '"model": "releases.feature"' in path.read_text(encoding="utf-8")
    )


# --- the fixtures ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", all_fixture_versions())
def test_every_fixture_feature_has_a_source(version):
    items = fixture(version)
    release = objects(items, "release")[0]
    features = objects(items, "feature")
    assert features
    for feature in features:
        where = f"{version} {feature['slug']}"
        assert feature["source_post"].endswith(".md"), where
        assert isinstance(feature["source_line"], int) and feature["source_line"] >= 1, where
        # The post's URL: the release's announcement (no companion post adds any), or, for a
        # release known from its notes (2.8, 2.9), its release notes.
        assert feature["source_url"] in (
            release["announcement_url"],
            release["release_notes_url"],
        ), where
    # A feature with no section comes before any heading or is a top-level heading itself:
    # checked against the posts below, for the seeds.
    for claim in objects(items, "stageclaim"):
        assert claim["source_post"].endswith(".md"), claim["subject"]
    for link in objects(items, "link"):
        assert link["source_line"] is None or link["source_line"] >= 1


def seed_post(seeds, name):
    return (seeds / name).read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("version", SEED_RELEASES)
def test_each_seed_feature_line_names_the_feature(version, seeds):
    items = fixture(version)
    features = objects(items, "feature")
    claims = objects(items, "stageclaim")
    lines = seed_post(seeds, features[0]["source_post"])
    headings = [number for number, line in enumerate(lines, start=1) if line.startswith("#")]
    for feature in features:
        line = plain(lines[feature["source_line"] - 1])
        where = f"{version} {feature['slug']} line {feature['source_line']}: {line!r}"
        if feature["imported_values"]:
            # The title as the importer read it is the heading's or the bold line's text.
            assert plain(feature["imported_values"]["title"]) in line, where
        else:
            # Added by accepting a claim: its line is the claim's sentence, naming it.
            assert feature["stage_source"] == StageSource.CLAIM, where
            subjects = [
                plain(claim["subject"])
                for claim in claims
                if claim["feature"] == [version, feature["slug"]]
                and claim["line"] == feature["source_line"]
            ]
            assert subjects and any(subject in line for subject in subjects), where
        if not feature["source_section"]:
            # Outside any section: before the first heading, or a top-level heading itself.
            top = min(len(lines[n - 1]) - len(lines[n - 1].lstrip("#")) for n in headings)
            own = lines[feature["source_line"] - 1]
            assert feature["source_line"] < headings[0] or (
                len(own) - len(own.lstrip("#")) == top
            ), where
        else:
            assert any(
                plain(feature["source_section"]) in plain(lines[n - 1])
                for n in headings
                if n < feature["source_line"]
            ) or plain(feature["source_section"]) in plain(
                "\n".join(lines[: feature["source_line"] - 1])
            ), where


@pytest.mark.parametrize("version", SEED_RELEASES)
def test_each_seed_link_and_claim_line_holds_it(version, seeds):
    items = fixture(version)
    lines = seed_post(seeds, objects(items, "feature")[0]["source_post"])
    for link in objects(items, "link"):
        if link["source_line"] is None or not link["url"]:
            continue
        line = lines[link["source_line"] - 1]
        # The post may write a URL relative to the site, or with {{ site.url }}.
        path = re.sub(r"^https?://[^/]+", "", link["url"])
        assert link["url"] in line or path in line, (version, link["url"], line)
    for claim in objects(items, "stageclaim"):
        line = plain(lines[claim["line"] - 1])
        assert plain(claim["phrase"]) in line, (version, claim["phrase"], line)


# --- the importer ----------------------------------------------------------------------------


def import_sample(name="seed-shapes.md"):
    parsed = parse.parse_file(SAMPLES_DIR / name)
    sync.import_post(parsed, source=str(SAMPLES_DIR / name))
    return parsed


@pytest.mark.django_db
def test_a_fresh_import_records_where_everything_was_read():
    parsed = import_sample()
    lines = (SAMPLES_DIR / "seed-shapes.md").read_text(encoding="utf-8").splitlines()
    features = list(Feature.objects.filter(release__version=parsed.version).order_by("position"))
    assert len(features) == len(parsed.features) > 3
    for feature in features:
        assert feature.source_post == "seed-shapes.md"
        assert plain(feature.title) in plain(lines[feature.source_line - 1]), feature.title
    explain = next(f for f in features if "torch.explain" in f.title)
    assert explain.source_section == "Frontend APIs"
    assert explain.source_line == 16  # "## [Stable] Shape-aware `torch.explain`"
    links = Link.objects.filter(feature__release__version=parsed.version, url__startswith="http")
    assert links
    for link in links:
        assert link.url in lines[link.source_line - 1], link.url
    for claim in StageClaim.objects.filter(release__version=parsed.version):
        assert claim.source_post == "seed-shapes.md"
        assert plain(claim.phrase) in plain(lines[claim.line - 1])


@pytest.mark.django_db
def test_a_dated_post_without_a_permalink_gets_the_url_the_blog_gives_its_file(tmp_path):
    post = tmp_path / "2030-2-3-pytorch-9-1-released.md"
    post.write_text((SAMPLES_DIR / "seed-shapes.md").read_text(encoding="utf-8"))
    parsed = parse.parse_file(post)
    assert parsed.announcement_url == ""  # what the release stores is left as it was
    sync.import_post(parsed, source=str(post))
    feature = Feature.objects.filter(release__version=parsed.version).first()
    assert feature.source_post == post.name
    assert feature.source_url == "https://pytorch.org/blog/pytorch-9-1-released/"


@pytest.mark.django_db
def test_a_re_import_refreshes_provenance_and_keeps_an_editors_title():
    parsed = import_sample()
    feature = Feature.objects.get(release__version=parsed.version, title__contains="torch.explain")
    Feature.objects.filter(pk=feature.pk).update(source_line=None, source_section="")
    feature = Feature.objects.get(pk=feature.pk)
    feature.title = "Shape explanations"
    feature.save()
    import_sample()
    feature.refresh_from_db()
    assert feature.title == "Shape explanations"  # the editor's
    assert (feature.source_line, feature.source_section) == (16, "Frontend APIs")
    record = Feature.history.filter(id=feature.pk).latest("history_id")
    assert record.source_line == 16  # the history carries provenance too
    report = sync.import_post(parse.parse_file(SAMPLES_DIR / "seed-shapes.md"), dry_run=True)
    assert not report.changed_anything  # a third import has nothing left to record


# --- the API ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_says_where_a_feature_was_read(catalog, client):
    response = client.get("/api/features/", {"release": "1.8", "search": "torch.fft"})
    item = response.json()["results"][0]
    assert item["source"] == {
        "post": "pytorch-1.8-release-post.md",
        "url": "https://pytorch.org/blog/pytorch-1.8-released/",
        "section": "New and Updated APIs",  # "### [Stable] Torch.fft ..." is right under it
        "line": 18,
    }
    detail = client.get("/api/releases/1.8/").json()
    assert {f["slug"]: f["source"] for f in detail["features"]}[item["slug"]] == item["source"]


@pytest.mark.django_db
def test_a_feature_an_editor_added_has_no_source_in_both_shapes(catalog):
    feature = Feature.objects.get(release__version="1.8", position=1)
    added = Feature.objects.create(
        release=feature.release, title="Added by hand", slug="added-by-hand", area=feature.area
    )
    rows = list(feature_values(Feature.objects.filter(pk__in=[feature.pk, added.pk])))
    fast = {item["slug"]: item for item in feature_items(rows)}
    features = Feature.objects.for_release_page().filter(pk__in=[feature.pk, added.pk])
    documented = {item["slug"]: item for item in FeatureSerializer(features, many=True).data}
    assert json.dumps(fast["added-by-hand"]) == json.dumps(documented["added-by-hand"])
    assert json.dumps(fast[feature.slug]) == json.dumps(documented[feature.slug])
    assert fast["added-by-hand"]["source"] is None
    assert fast[feature.slug]["source"]["post"] == "pytorch-1.8-release-post.md"


@pytest.mark.django_db
def test_the_schema_documents_the_source(catalog, client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    components = schema["components"]["schemas"]
    source = components["FeatureSource"]
    assert set(source["properties"]) == {"post", "url", "section", "line"}
    assert source["properties"]["line"]["nullable"] is True
    assert "source" in components["Feature"]["properties"]


# --- the pages -------------------------------------------------------------------------------


def page_text(response):
    assert response.status_code == 200
    return plain(response.content.decode())


@pytest.mark.django_db
def test_the_release_page_says_where_each_feature_was_read(catalog, client):
    response = client.get(reverse("page-release", kwargs={"version": "1.8"}))
    text = page_text(response)
    assert "from the 1.8 announcement, section new and updated apis" in text
    assert (
        text.count("from the 1.8 announcement")
        == Feature.objects.filter(release__version="1.8").count()
    )
    assert 'href="https://pytorch.org/blog/pytorch-1.8-released/">from the 1.8' in (
        response.content.decode()
    )


@pytest.mark.django_db
def test_the_track_page_says_where_each_appearance_was_read(catalog, client):
    response = client.get(reverse("page-track", kwargs={"slug": "torch-fft"}))
    text = page_text(response)
    assert "from the 1.7 announcement, section" in text
    assert "from the 1.8 announcement, section new and updated apis" in text


@pytest.mark.django_db
def test_an_editors_correction_shows_who_made_it_and_when(
    catalog, client, uncached, django_assert_max_num_queries
):
    alice = User.objects.create_user("alice")
    url = reverse("page-release", kwargs={"version": "1.8"})
    client.get(url)  # warm up what a first request loads once
    with django_assert_max_num_queries(100) as unedited:
        page_text(client.get(url))
    first, second = Feature.objects.filter(release__version="1.8").order_by("position")[:2]
    imported_title = first.title
    with writes.acting_as("fixed a typo", user=alice):
        first.title = "Torch.fft: NumPy-style FFTs"
        first.save()
        second.stability, second.stage_source = "prototype", StageSource.EDITOR
        second.save()
    when = Feature.history.filter(id=first.pk).latest("history_id").history_date.date()
    with django_assert_max_num_queries(len(unedited) + 1):  # one query for every edit
        text = page_text(client.get(url))
    assert f"title edited by alice on {when.isoformat()} (the post: {plain(imported_title)})" in (
        text
    )
    assert f"stability edited by alice on {when.isoformat()} (the post: beta)" in text
    # The post's word is still where it was read.
    assert "from the 1.8 announcement, section new and updated apis" in text

    track = client.get(reverse("page-track", kwargs={"slug": first.track.slug}))
    assert f"title edited by alice on {when.isoformat()}" in page_text(track)


@pytest.mark.django_db
def test_a_feature_an_accepted_claim_adds_is_sourced_at_the_claims_sentence(catalog):
    from releases import stages

    claim = StageClaim.objects.get(release__version="1.7", feature__slug="memory-profiler")
    claim = stages.reject(claim)  # takes back the appearance the claim added
    assert not Feature.objects.filter(release__version="1.7", slug="memory-profiler").exists()
    feature = stages.accept(claim).feature
    assert (feature.source_post, feature.source_line) == ("pytorch-1.7-release-post.md", claim.line)
    assert feature.source_url == "https://pytorch.org/blog/pytorch-1.7-released/"
