"""`manage.py import_post`: a post becomes a draft release, atomically and idempotently."""

import os
import subprocess
import sys
import textwrap

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from releases.management.commands.load_catalog import fixture_files
from releases.models import Area, Feature, Link, Release, Stability

pytestmark = pytest.mark.django_db

POST = """\
---
title: 'PyTorch 4.2 released with quieter schedulers'
date: 2030-02-03
---

Made of 4,321 commits. The release notes are [here](https://example.org/notes/4.2).

# Front End APIs

## [Beta] Shape explainer

Explains shapes.

* Documentation | [Link](https://example.org/docs/explain)
* Usage examples | Link **Missing Link**

## [Prototype] Sparse views

Views on sparse tensors. The RFC is [here](https://example.org/rfc/9).

# Quantum Computing

## [Beta] Qubit tensors

A heading no area knows yet.
"""


@pytest.fixture
def areas(db):
    call_command("loaddata", fixture_files()[0], verbosity=0)


@pytest.fixture
def write_post(tmp_path):
    def write(text=POST, name="post.md"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


def run(*args):
    from io import StringIO

    out = StringIO()
    call_command("import_post", *map(str, args), stdout=out)
    return out.getvalue()


def snapshot():
    return (
        list(Release.objects.values_list("version", "is_published", "title")),
        list(
            Feature.objects.order_by("pk").values_list("slug", "stability", "area__slug", "summary")
        ),
        list(Link.objects.order_by("pk").values_list("label", "url")),
        list(Area.objects.order_by("pk").values_list("slug", "needs_review")),
    )


def test_import_creates_a_draft_release_with_features_and_links(areas, write_post):
    output = run(write_post())
    release = Release.objects.get(version="4.2")
    assert not release.is_published
    assert release.commit_count == 4321
    assert release.release_notes_url == "https://example.org/notes/4.2"
    assert [(f.slug, f.stability, f.area.slug) for f in release.features.order_by("position")] == [
        ("shape-explainer", Stability.BETA, "frontend-apis"),
        ("sparse-views", Stability.PROTOTYPE, "frontend-apis"),
        ("qubit-tensors", Stability.BETA, "quantum-computing"),
    ]
    explainer = release.features.get(slug="shape-explainer")
    assert [(link.kind, link.url) for link in explainer.links.order_by("position")] == [
        ("documentation", "https://example.org/docs/explain"),
        ("usage_examples", ""),
    ]
    assert "Release 4.2: created (draft)" in output
    assert "Features: 3 created, 0 updated, 0 unchanged" in output
    assert "Links: 3 in the post, 3 created, 1 missing (no URL yet)" in output
    assert "New areas for editors to review: Quantum Computing" in output
    assert Area.objects.get(slug="quantum-computing").needs_review


def test_importing_twice_changes_nothing(areas, write_post):
    path = write_post()
    run(path)
    before = snapshot()
    stamps = list(Feature.objects.values_list("updated_at", flat=True))
    output = run(path)
    assert snapshot() == before
    assert list(Feature.objects.values_list("updated_at", flat=True)) == stamps
    assert "Features: 0 created, 0 updated, 3 unchanged" in output
    assert "Nothing to change" in output


def test_dry_run_reports_and_writes_nothing(areas, write_post):
    before = snapshot()
    output = run(write_post(), "--dry-run")
    assert snapshot() == before
    assert "Features: 3 created" in output and "Dry run: nothing was written." in output


def test_publish_needs_a_date(areas, write_post):
    run(write_post(), "--publish")
    assert Release.objects.get(version="4.2").is_published
    undated = write_post(POST.replace("date: 2030-02-03\n", "").replace("4.2", "4.3"), "undated.md")
    with pytest.raises(
        CommandError, match=r"undated.md:1: cannot publish 4.3 without a release date"
    ):
        run(undated, "--publish")
    assert not Release.objects.filter(version="4.3").exists()
    run(undated, "--publish", "--date", "2030-03-01")
    assert Release.objects.get(version="4.3").is_published


def test_version_option_overrides_the_title(areas, write_post):
    run(write_post(POST.replace("PyTorch 4.2 released", "A release")), "--version", "4.2.1")
    assert Release.objects.get(version="4.2.1").features.count() == 3


def test_an_error_midway_writes_nothing_and_names_the_line(areas, write_post):
    bad = POST + "\n## [Beta] Broken\n\nSee [docs](https://-no-such-host-/docs).\n"
    path = write_post(bad)
    with pytest.raises(CommandError) as error:
        run(path)
    line = bad.splitlines().index("See [docs](https://-no-such-host-/docs).") + 1
    assert str(error.value).startswith(f"{path}:{line}: cannot store link")
    assert snapshot() == ([], [], [], snapshot()[3])
    assert not Area.objects.filter(slug="quantum-computing").exists()


@pytest.mark.parametrize(
    ("href", "says"),
    [
        ("https://example.org/" + "x" * 600, "its URL is 620 characters long; at most 500"),
        ("javascript:alert(1)", "its URL's scheme 'javascript:' is not http or https"),
        ("data:text/html,hello", "its URL's scheme 'data:' is not http or https"),
        ("file:///etc/passwd", "its URL's scheme 'file:' is not http or https"),
    ],
)
def test_a_link_the_catalog_cannot_keep_is_named_and_the_rest_imports(
    areas, write_post, href, says
):
    post = POST + f"\n## [Beta] Odd link\n\nSee [the docs]({href}).\n"
    output = run(write_post(post))
    line = post.splitlines().index(f"See [the docs]({href}).") + 1
    assert f"! line {line}: odd-link: 'the docs': {says}" in output
    odd = Feature.objects.get(slug="odd-link")
    assert not odd.links.exists() and Feature.objects.count() == 4


@pytest.mark.parametrize(
    ("front_matter_date", "says"),
    [
        ("2030-02-30", "'date: 2030-02-30' is not a date"),
        ("not-a-date", "'date: not-a-date' is not a date"),
        ("2030-13-01 10:00:00", "'date: 2030-13-01 10:00:00' is not a date"),
    ],
)
def test_a_bad_front_matter_date_names_file_and_line(areas, write_post, front_matter_date, says):
    path = write_post(POST.replace("date: 2030-02-03", f"date: {front_matter_date}"))
    with pytest.raises(CommandError, match=rf"^{path}:3: {says}"):
        run(path)
    assert not Release.objects.exists()


@pytest.mark.parametrize(
    ("name", "front_matter_date", "expected"),
    [
        ("2020-1-15-pytorch-4-2.md", "", "2020-01-15"),
        ("2022-3-10-pytorch-4-2.md", "", "2022-03-10"),
        ("post.md", "2031-05-06 09:30:00 -0700", "2031-05-06"),
        ("post.md", "2031-05-06T09:30:00Z", "2031-05-06"),
    ],
)
def test_dates_as_jekyll_reads_them(areas, write_post, name, front_matter_date, expected):
    text = POST.replace(
        "date: 2030-02-03", f"date: {front_matter_date}" if front_matter_date else ""
    )
    run(write_post(text, name=name), "--publish")
    assert Release.objects.get(version="4.2").release_date.isoformat() == expected


def test_what_is_not_a_post_file_is_refused_before_reading(areas, tmp_path):
    with pytest.raises(CommandError, match="not a regular file"):
        run("/dev/zero")
    big = tmp_path / "big.md"
    with open(big, "wb") as handle:
        handle.write(POST.encode())
        handle.write(b"x" * (2 * 1024 * 1024))
    with pytest.raises(CommandError, match=r"big.md: the file is larger than 2 MiB"):
        run(big)


def test_a_bad_date_option_is_a_usage_error_without_a_traceback(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "import_post",
            str(tmp_path / "x.md"),
            "--date",
            "2030-13-45",
        ],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_DEBUG": "1"},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "argument --date: '2030-13-45' is not a date in YYYY-MM-DD form" in result.stderr


@pytest.mark.django_db(transaction=True)
def test_positions_out_of_range_are_refused_by_every_database(areas):
    from django.db import DataError, IntegrityError

    from tests.factories import FeatureFactory

    # SQLite's check constraint, or PostgreSQL's smallint before it: refused either way.
    with pytest.raises((IntegrityError, DataError)):
        FeatureFactory(position=32768)
    assert not Feature.objects.filter(position=32768).exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"# No front matter\n", ":1: no front matter"),
        (
            b"---\ntitle: 'A post about nothing'\n---\n# A\n## [Beta] X\n",
            ":2: cannot tell the version",
        ),
        (b"", ":1: the file is empty"),
        (b"---\ntitle: PyTorch 4.2\n---\n\x00\x00", ":4: this is a binary file"),
        (b"---\ntitle: PyTorch 4.2\n---\n\nNothing announced here.\n", "announces no features"),
    ],
)
def test_bad_posts_give_one_clear_line(areas, tmp_path, content, says):
    path = tmp_path / "bad.md"
    path.write_bytes(content)
    with pytest.raises(CommandError) as error:
        run(path)
    assert str(error.value).startswith(str(path)) and says in str(error.value)
    assert "\n" not in str(error.value)
    assert not Release.objects.exists()


def test_a_missing_file_is_named(areas, tmp_path):
    with pytest.raises(CommandError, match=r"absent.md: cannot read the file"):
        run(tmp_path / "absent.md")


def test_from_the_shell_an_error_is_one_line_on_stderr_and_a_non_zero_exit(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'shell.sqlite3'}",
        "DJANGO_SECRET_KEY": "insecure-key-for-the-test-suite-only",
    }
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True)
    (tmp_path / "bad.md").write_bytes(b"no front matter\n")
    result = subprocess.run(
        [*manage, "import_post", str(tmp_path / "bad.md")],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"CommandError: {tmp_path / 'bad.md'}:1: no front matter: "
        "a post starts with a '---' line and a title"
    ]


def test_reimport_keeps_what_editors_curated(areas, write_post):
    path = write_post()
    run(path)
    feature = Feature.objects.get(slug="sparse-views")
    feature.stability = Stability.BETA  # an editor promotes it
    feature.area = Area.objects.get(slug="performance-profiling")
    feature.summary = "Our own words."
    feature.save()
    missing = Link.objects.get(label="Usage examples")
    missing.url = "https://example.org/examples/explain"  # an editor fills in a missing link
    missing.save()
    Link.objects.create(
        feature=feature, label="Blog", url="https://example.org/blog", kind="blog_post", position=9
    )
    Release.objects.filter(version="4.2").update(is_published=True, title="Edited title")

    output = run(path)

    feature.refresh_from_db()
    assert (feature.stability, feature.area.slug, feature.summary) == (
        Stability.BETA,
        "performance-profiling",
        "Our own words.",
    )
    assert feature.links.filter(url="https://example.org/blog").exists()
    assert Link.objects.get(pk=missing.pk).url == "https://example.org/examples/explain"
    release = Release.objects.get(version="4.2")
    assert release.is_published and release.title == "Edited title"
    assert "sparse-views: stability 'beta' (the post says 'prototype')" in output
    assert "sparse-views: area 'performance-profiling' (the post says 'frontend-apis')" in output
    assert "link 'Usage examples' filled in by an editor" in output
    assert "release title: kept the catalog's value" in output


def test_reimport_applies_the_posts_changes_where_editors_did_not_touch(areas, write_post):
    run(write_post())
    changed = POST.replace("## [Prototype] Sparse views", "## [Stable] Sparse views")
    changed += "\n## [Beta] Brand new\n\nNew. [Docs](https://example.org/new)\n"
    output = run(write_post(changed))
    assert Feature.objects.get(slug="sparse-views").stability == Stability.STABLE
    assert Feature.objects.get(slug="brand-new").links.get().url == "https://example.org/new"
    assert "Features: 1 created, 1 updated, 2 unchanged" in output
    assert "~ sparse-views: stability" in output


def test_features_gone_from_the_post_are_reported_not_deleted(areas, write_post):
    run(write_post())
    shorter = POST.split("## [Prototype] Sparse views")[0]
    output = run(write_post(shorter))
    assert Feature.objects.filter(slug="sparse-views").exists()
    assert "? qubit-tensors" in output and "? sparse-views" in output


def test_compare_lists_every_difference(areas, write_post):
    path = write_post()
    run(path)
    assert "no difference from release 4.2" in run(path, "--compare")
    feature = Feature.objects.get(slug="shape-explainer")
    feature.stability = Stability.STABLE
    feature.save()
    feature.links.filter(url="").update(url="https://example.org/filled")
    Feature.objects.get(slug="qubit-tensors").delete()
    with pytest.raises(CommandError, match="4 difference"):
        run(path, "--compare")


def test_compare_against_a_release_not_in_the_catalog(areas, write_post):
    with pytest.raises(CommandError, match="1 difference"):
        run(write_post(), "--compare")
