"""
Bringing in a checkout of the blog (``import_post FOLDER``), and a deployment that already holds
1.6–1.9 getting the whole history without a change to what it holds.
"""

import io
import shutil
import textwrap
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from releases.models import Feature, Link, Release, Track

pytestmark = pytest.mark.django_db

DEPLOYED = Path(__file__).parent / "data" / "deployed-1.6-1.9"

# Posts in our own words, shaped like the blog's: two release announcements out of version
# order, a feature post, and a library-update companion.
POSTS = {
    "2031-05-01-pytorch-3.10-released.md": ("PyTorch 3.10 Release, with a faster widget", "Widget"),
    "2031-02-01-pytorch-3-9.md": ("PyTorch 3.9: gadgets for everyone", "Gadget"),
    "2031-03-01-pytorch-3.9-now-includes-doodads.md": (
        "PyTorch 3.9 now includes doodads",
        "Doodad",
    ),
    "2031-02-01-new-library-updates-in-pytorch-3.9.md": (
        "New Library Updates in PyTorch 3.9",
        "Lib",
    ),
}


def post(title, thing):
    return textwrap.dedent(f"""\
        ---
        title: '{title}'
        ---

        # Frontend APIs

        ## [Beta] A {thing} that helps

        It helps. [Documentation](https://example.org/{thing.lower()})
        """)


@pytest.fixture
def blog(tmp_path, catalog):
    folder = tmp_path / "_posts"
    folder.mkdir()
    for name, (title, thing) in POSTS.items():
        (folder / name).write_text(post(title, thing), encoding="utf-8")
    shutil.copy(settings.BASE_DIR / "tests" / "samples" / "structure.md", folder / "notes.txt")
    return folder


def run(*args):
    out = io.StringIO()
    call_command("import_post", *args, stdout=out)
    return out.getvalue()


def test_a_folder_of_posts_imports_its_release_announcements_in_version_order_as_drafts(blog):
    out = run(str(blog))
    drafts = Release.objects.drafts().oldest_first()
    assert [r.version for r in drafts] == ["3.9", "3.10"]
    assert [r.history.earliest("history_id").history_date for r in drafts] == sorted(
        r.history.earliest("history_id").history_date for r in drafts
    )  # 3.9 first, though its file sorts after 3.10's
    assert Feature.objects.filter(release__version="3.9").count() == 1
    # The table: a row per release post, then what was left out.
    assert "3.9" in out and "3.10" in out and "imported 2 release post(s)" in out
    assert "2 post(s) announce no release" in out  # the feature post and the companion
    assert "doodad" not in out.lower() and not Release.objects.filter(version="3.9.0").exists()


def test_a_second_run_skips_what_the_catalog_holds(blog):
    run(str(blog))
    counts = (Release.objects.count(), Feature.objects.count(), Link.objects.count())
    out = run(str(blog))
    assert (Release.objects.count(), Feature.objects.count(), Link.objects.count()) == counts
    assert out.count("skipped: already in the catalog") == 2
    assert "imported 0 release post(s)" in out


def test_a_dry_run_writes_nothing(blog):
    releases = Release.objects.count()
    out = run(str(blog), "--dry-run")
    assert Release.objects.count() == releases and "would import 2" in out


def test_a_post_that_cannot_be_read_is_a_row_naming_file_and_line(blog):
    (blog / "2031-06-01-pytorch-3-11.md").write_text(
        "---\ntitle: [unclosed\n---\n", encoding="utf-8"
    )
    out = run(str(blog))
    assert "2031-06-01-pytorch-3-11.md:2: the front matter is not valid YAML" in out
    assert Release.objects.filter(version__in=["3.9", "3.10"]).count() == 2


def test_a_deployment_holding_1_6_to_1_9_gets_the_new_releases_and_keeps_its_work(
    tmp_path, settings, db
):
    # The fixtures an existing deployment loaded: 1.6 to 1.9, as they were.
    deployed = tmp_path / "deployed"
    shutil.copytree(DEPLOYED, deployed / "fixtures")
    base_dir, settings.BASE_DIR = settings.BASE_DIR, deployed
    call_command("load_catalog", verbosity=0)
    settings.BASE_DIR = base_dir
    assert sorted(Release.objects.values_list("version", flat=True)) == ["1.6", "1.7", "1.8", "1.9"]
    # An editor's work there: a summary, a deleted link, a renamed track.
    fft = Feature.objects.get(release__version="1.8", slug__startswith="torch-fft")
    fft.summary = "Our editor's words."
    fft.save()
    gone = Link.objects.filter(feature__release__version="1.9").first()
    gone_key = gone.natural_key()
    gone.delete()
    track = Track.objects.get(slug="torch-fft")
    track.name = "FFTs, as our editors call them"
    track.save()
    held = {
        (f.release.version, f.slug): (f.title, f.stability, f.summary, f.track.slug)
        for f in Feature.objects.select_related("release", "track")
    }

    call_command("load_catalog", verbosity=0)  # make run, with today's fixtures

    versions = set(Release.objects.values_list("version", flat=True))
    announced = {f"1.{n}" for n in range(2, 14)} | {f"2.{n}" for n in range(15)}
    # And what the compatibility tables brought (issue 32): older releases, planned ones.
    assert versions == announced | {"0.1", "0.2", "0.3", "0.4", "1.0", "1.1", "2.15", "2.16"}
    after = {
        (f.release.version, f.slug): (f.title, f.stability, f.summary, f.track.slug)
        for f in Feature.objects.filter(
            release__version__in=["1.6", "1.7", "1.8", "1.9"]
        ).select_related("release", "track")
    }
    assert after == held  # nothing it held was changed, added to or re-created
    assert Track.objects.get(slug="torch-fft").name == "FFTs, as our editors call them"
    assert not Link.objects.filter(
        feature__release__version=gone_key[0], feature__slug=gone_key[1], url=gone_key[3]
    ).exists()
    # The new releases join the tracks the deployment holds: torch.fft's later appearances.
    assert Feature.objects.filter(track__slug="torch-fft").count() >= 2
