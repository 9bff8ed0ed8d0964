"""
`manage.py import_post` on the shapes of the posts from 2.8 on: a translation, an HTML article
of the new blog (a file or a URL), and the stage labels and kinds it stores and keeps."""

import gzip
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from releases.importing.download import DownloadError, download, user_agent
from releases.importing.parse import MAX_POST_BYTES
from releases.management.commands.load_catalog import fixture_files
from releases.models import Feature, FeatureKind, Release, Stability
from tests.conftest import SAMPLES_DIR

pytestmark = pytest.mark.django_db

TRANSLATION = SAMPLES_DIR / "translation.md"
ARTICLE = SAMPLES_DIR / "new-blog-article.html"


@pytest.fixture
def areas(db):
    call_command("loaddata", fixture_files()[0], verbosity=0)


def run(*args):
    out = StringIO()
    call_command("import_post", *map(str, args), stdout=out)
    return out.getvalue()


def stored(version):
    return [
        (feature.slug, feature.stability, feature.stage_label, feature.kind, feature.source_line)
        for feature in Feature.objects.filter(release__version=version).order_by("position")
    ]


def test_a_translation_imports_as_its_english_original(areas):
    output = run(TRANSLATION)
    release = Release.objects.get(version="3.7")
    assert release.title == "PyTorch 3.7 Release Blog"
    assert release.announcement_url == "https://example.org/blog/pytorch-3-7-release-blog/"
    assert (release.commit_count, release.contributor_count) == (1234, 210)
    assert stored("3.7") == [
        ("fewer-graph-splits", Stability.UNSTABLE, "API-UNSTABLE", FeatureKind.FEATURE, 19),
        ("shared-kernel-cache-across-machines", Stability.UNSTABLE, "API-UNSTABLE", "feature", 26),
        ("async-checkpoint-writer", Stability.UNSTABLE, "API-Unstable", "feature", 37),
        ("device-mesh-slicing", Stability.STABLE, "API-Stable", "feature", 42),
        ("gradient-compression-hooks", Stability.UNSTABLE, "API Unstable", "feature", 47),
        ("memory-report", Stability.UNSTABLE, "API-UNSTABLE", "feature", 57),
        ("faster-sort-kernels", Stability.UNSTABLE, "API-UNSTABLE", "feature", 62),
        ("legacy-exporter-is-now-deprecated", "", "", FeatureKind.DEPRECATION, 69),
        ("default-cuda-version", "", "", "notice", 74),
    ]
    feature = Feature.objects.get(slug="fewer-graph-splits")
    assert feature.source_url == "https://example.org/blog/pytorch-3-7-release-blog/"
    assert feature.source_post == "translation.md"
    assert "Features: 9 created" in output
    assert "Nothing to change" in run(TRANSLATION)


def test_an_html_article_imports_like_a_post(areas):
    run(ARTICLE)
    release = Release.objects.get(version="3.8")
    assert release.title == "PyTorch 3.8 Release Blog"
    assert release.release_date.isoformat() == "2033-04-20"
    assert release.announcement_url == "https://example.org/blog/pytorch-3-8-release-blog/"
    assert release.release_notes_url == "https://github.com/example/pytorch/releases/tag/v3.8.0"
    assert stored("3.8") == [
        ("ragged-attention", "unstable", "API-Unstable", "feature", 31),
        ("short-row-sort", "unstable", "API Unstable", "feature", 37),
        ("overlap-for-tensor-parallel-matmuls", "unstable", "API-UNSTABLE", "feature", 47),
        ("checkpoint-resharding", "stable", "API-Stable", "feature", 54),
        ("python-3-10-support-removed", "", "", "deprecation", 63),
        ("nightly-index-moves", "", "", "notice", 66),
    ]
    ragged = Feature.objects.get(slug="ragged-attention")
    assert [(link.kind, link.url, link.source_line) for link in ragged.links.all()] == [
        ("documentation", "https://example.org/docs/3.8/ragged_attention.html", 32),
        ("tutorial", "https://pytorch.org/tutorials/intermediate/ragged_attention.html", 32),
    ]
    assert "Nothing to change" in run(ARTICLE)


def test_an_html_article_is_known_by_its_content_too(areas, tmp_path):
    saved = tmp_path / "pytorch-3-8-release-blog"  # saved from a browser, no extension
    shutil.copy(ARTICLE, saved)
    run(saved)
    assert Release.objects.get(version="3.8").features.count() == 6


def test_a_folder_imports_its_html_articles_too(areas, tmp_path):
    shutil.copy(ARTICLE, tmp_path / "2033-04-20-pytorch-3-8.html")
    shutil.copy(TRANSLATION, tmp_path / "2033-02-10-pytorch-3-7.md")
    output = run(tmp_path)
    assert set(Release.objects.values_list("version", flat=True)) == {"3.7", "3.8"}
    assert "imported 2 release post(s)" in output


# --- re-imports keep what editors chose --------------------------------------------------------


def test_a_reimport_keeps_an_editors_stage_label_and_kind(areas):
    run(TRANSLATION)
    feature = Feature.objects.get(slug="default-cuda-version")
    feature.stage_label, feature.kind = "Unstated", FeatureKind.DEPRECATION
    feature.save()
    output = run(TRANSLATION)
    feature.refresh_from_db()
    assert (feature.stage_label, feature.kind) == ("Unstated", FeatureKind.DEPRECATION)
    assert "default-cuda-version: stage_label 'Unstated' (the post says '')" in output
    assert "default-cuda-version: kind 'deprecation' (the post says 'notice')" in output


def test_a_reimport_follows_the_post_where_the_importer_wrote_the_value(areas, tmp_path):
    post = tmp_path / "post.md"
    text = TRANSLATION.read_text(encoding="utf-8")
    post.write_text(text, encoding="utf-8")
    run(post)
    changed = text.replace(
        "### API-불안정 기능 / API-UNSTABLE Features", "### 안정 / API-Stable Features"
    )
    assert changed != text
    post.write_text(changed.replace("Default CUDA version", "Default CUDA version removed"))
    output = run(post)
    memory = Feature.objects.get(slug="memory-report")
    assert (memory.stability, memory.stage_label) == (Stability.STABLE, "API-Stable")
    assert "memory-report: stability, stage_label" in output
    # A new title is a new slug: the old feature stays, the new one is a deprecation.
    assert Feature.objects.get(slug="default-cuda-version-removed").kind == FeatureKind.DEPRECATION


def test_a_feature_imported_before_labels_and_kinds_takes_them_from_the_post(areas):
    run(TRANSLATION)
    # As an import made before the importer read stage labels and kinds left them.
    for feature in Feature.objects.filter(release__version="3.7"):
        for name in ("stage_label", "kind"):
            feature.imported_values.pop(name)
        feature.stage_label, feature.kind = "", FeatureKind.FEATURE
        feature.save()
    output = run(TRANSLATION)
    assert "Kept editors' changes" not in output
    assert Feature.objects.get(slug="fewer-graph-splits").stage_label == "API-UNSTABLE"
    deprecated = Feature.objects.get(slug="legacy-exporter-is-now-deprecated")
    assert deprecated.kind == FeatureKind.DEPRECATION
    assert deprecated.imported_values["kind"] == FeatureKind.DEPRECATION


def test_compare_names_stage_label_and_kind_differences(areas):
    run(ARTICLE)
    Feature.objects.filter(slug="ragged-attention").update(stage_label="Beta")
    notice = Feature.objects.get(slug="nightly-index-moves")
    notice.kind = FeatureKind.DEPRECATION  # a deprecation is a feature: it gets a track
    notice.save()
    out = StringIO()
    with pytest.raises(CommandError, match="2 difference"):
        call_command("import_post", str(ARTICLE), "--compare", stdout=out)
    assert "ragged-attention: stage label 'Beta' in the catalog, 'API-Unstable' in the post" in (
        out.getvalue()
    )
    assert "nightly-index-moves: kind 'deprecation' in the catalog, 'notice' in the post" in (
        out.getvalue()
    )


# --- a URL ----------------------------------------------------------------------------------------


def test_a_url_is_downloaded_and_imported(areas, stand_in):
    stand_in.routes["/blog/pytorch-3-8/"] = (301, {"Location": "/blog/pytorch-3-8-final/"}, b"")
    stand_in.routes["/blog/pytorch-3-8-final/"] = (200, {}, ARTICLE.read_bytes())
    output = run(stand_in.url("/blog/pytorch-3-8/"))
    release = Release.objects.get(version="3.8")
    assert release.features.count() == 6
    # The page's canonical URL is where it is published; the file is the URL it came from.
    assert release.announcement_url == "https://example.org/blog/pytorch-3-8-release-blog/"
    assert Feature.objects.get(slug="ragged-attention").source_post == "pytorch-3-8-final"
    assert stand_in.requests[0]["User-Agent"] == user_agent("https://catalog.example.org/")
    assert "PyTorch Release Catalog" in stand_in.requests[0]["User-Agent"]
    assert "Imported http://127.0.0.1" in output


def test_a_downloaded_markdown_post_is_read_as_markdown(areas, stand_in):
    stand_in.routes["/_posts/2033-02-10-pytorch-3-7.md"] = (
        200,
        {"Content-Type": "text/markdown; charset=utf-8"},
        TRANSLATION.read_bytes(),
    )
    run(stand_in.url("/_posts/2033-02-10-pytorch-3-7.md"))
    assert Release.objects.get(version="3.7").features.count() == 9


BOMB = gzip.compress(b"<p>" + b" " * (64 * 1024 * 1024))


@pytest.mark.parametrize(
    "path, route, message",
    [
        ("/missing/", None, r"^http://127\.0\.0\.1:\d+/missing/: HTTP 404 Not Found$"),
        ("/huge/", (200, {"Content-Length": str(MAX_POST_BYTES + 1)}, b"<html>"),
         r"/huge/: the answer is larger than 2 MiB, the most a post may be$"),
        ("/streamed/", (200, {"Content-Length": str(MAX_POST_BYTES + 10)},
                        b"<p>" + b"x" * (MAX_POST_BYTES + 7)),
         r"/streamed/: the answer is larger than 2 MiB"),
        ("/empty/", (200, {}, b"  \n"), r"/empty/: the answer is empty$"),
        ("/binary/", (200, {}, b"<html>\x00\x01"), r"/binary/: the answer is not text"),
        ("/loop/", (302, {"Location": "/loop/"}, b""), r"/loop/: more than 5 redirects$"),
        # 64 MiB of spaces, a few kilobytes on the wire: refused as it inflates, not after.
        ("/bomb/", (200, {"Content-Encoding": "gzip"}, BOMB),
         r"/bomb/: the answer is larger than 2 MiB, the most a post may be$"),
        ("/twice/", (200, {"Content-Encoding": "gzip, gzip"}, gzip.compress(BOMB)),
         r"/twice/: the answer is encoded 2 times over \(gzip, gzip\); one encoding at most"),
        ("/brotli/", (200, {"Content-Encoding": "br"}, b"\x0b\x02\x80"),
         r"/brotli/: the answer is encoded as 'br', which is not understood$"),
    ],
)  # fmt: skip
def test_a_url_that_gives_no_post_is_a_one_line_error(areas, stand_in, path, route, message):
    if route is not None:
        stand_in.routes[path] = route
    with pytest.raises(CommandError, match=message) as error:
        run(stand_in.url(path))
    assert "\n" not in str(error.value)
    assert not Release.objects.exists()


def test_only_http_and_https_urls_are_downloaded(areas):
    for url in ("ftp://example.org/post.html", "file:///etc/passwd"):
        with pytest.raises(CommandError, match="only http and https URLs can be downloaded"):
            run(url)


def test_an_unreachable_url_is_a_one_line_error(areas, stand_in):
    url = stand_in.url("/")
    stand_in.shutdown()
    stand_in.server_close()
    with pytest.raises(DownloadError, match=r"cannot download it: ") as error:
        download(url, timeout=2)
    assert "\n" not in str(error.value)


def test_a_page_that_does_not_parse_names_the_url_and_line(areas, stand_in):
    page = (
        b'<html><head><meta property="article:published_time" content="soon">\n'
        b"<title>PyTorch 3.9 Release Blog</title></head></html>"
    )
    stand_in.routes["/bad/"] = (200, {}, page)
    with pytest.raises(CommandError, match=r"/bad/:1: 'soon' is not a date"):
        run(stand_in.url("/bad/"))
