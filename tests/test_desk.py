"""The editors' desk: queues with counts, drafts with their checklists, imports from the admin."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from releases.admin import desk as desk_module
from releases.models import BlogFeed, Feature, Link, Release, StageClaim
from tests.factories import FeatureFactory, ReleaseFactory

pytestmark = pytest.mark.django_db

POST = """\
---
title: 'PyTorch 7.2 released'
---

# Frontend APIs

## [Beta] Shape explainer

Explains shapes. Its [documentation](https://example.org/docs/explain) says more.

* Usage examples | Link **Missing Link**

## [Prototype] Sparse views

Views on sparse tensors.
"""


def queues(client):
    page = client.get(reverse("admin:index"))
    assert page.status_code == 200
    return {queue.title: queue for queue in page.context["queues"]}, page


def test_the_desk_counts_each_queue_and_links_the_list_that_works_it(editor_client):
    # Editors decided every claim of the seed posts; two new sentences await a decision.
    assert not StageClaim.objects.pending().exists()
    release = Release.objects.get(version="1.8")
    for line, subject in ((3, "shape explainer"), (9, "frobnicator")):
        StageClaim.objects.create(
            release=release, subject=subject, stability="beta", phrase="is now beta", line=line
        )
    StageClaim.objects.create(
        release=release,
        subject="decided",
        stability="stable",
        phrase="is now stable",
        line=12,
        status="rejected",
    )
    found, page = queues(editor_client)
    # The seed posts promise ten links they never give: 1.7's nine and one of 1.6.
    assert found["Links missing"].count == Link.objects.missing().count() == 10
    assert found["Stage claims awaiting review"].count == 2
    assert found["Draft releases"].count == 0
    assert "Editors&#x27; desk" in page.content.decode()
    for queue in found.values():
        listed = editor_client.get(queue.url)
        assert listed.status_code == 200, queue.url
        # The list it links shows exactly the queue's items.
        assert listed.context["cl"].result_count == queue.count, queue.title


def test_the_desk_costs_the_same_few_queries_whatever_the_catalog_holds(editor_client):
    def count():
        with CaptureQueriesContext(connection) as queries:
            editor_client.get(reverse("admin:index"))
        return len(queries)

    before = count()
    release = ReleaseFactory(version="9.1", is_published=False)
    FeatureFactory.create_batch(20, release=release, summary="")
    assert count() == before


def test_the_desk_shows_a_bounded_part_of_each_list_and_links_the_rest(editor_client, settings):
    """Issue 42: with 72,000 announcements stored the desk weighed 23.6 MB. It shows SHOWN rows
    of each list, says how many there are, and links the admin list of them all."""
    feed = BlogFeed.objects.create(url=settings.BLOG_FEED_URL)

    def add(first, last):
        for minor in range(first, last):
            ReleaseFactory(version=f"9.{minor}", is_published=False)
            feed.announcements.create(
                url=f"https://blog.example/{minor}/",
                title=f"PyTorch 10.{minor}",
                version=f"10.{minor}",
            )

    def desk():
        with CaptureQueriesContext(connection) as queries:
            page = editor_client.get(reverse("admin:index"))
        return page, len(queries)

    add(0, desk_module.SHOWN + 1)
    page, queries = desk()
    add(desk_module.SHOWN + 1, 3 * desk_module.SHOWN)
    page, more_queries = desk()
    assert more_queries == queries

    total = 3 * desk_module.SHOWN
    for listed in (page.context["drafts"], page.context["currency"].announced):
        assert len(listed.rows) == desk_module.SHOWN and listed.total == total
        assert f'<a href="{escape(listed.url)}">See all {total}</a>' in page.content.decode()
        assert editor_client.get(listed.url).context["cl"].result_count == total
    newest = page.context["currency"].announced.rows[0]
    assert newest.version == f"10.{total - 1}"


def test_a_draft_shows_what_blocks_publishing_it(editor_client):
    ReleaseFactory(version="9.2", is_published=False, release_date=None, summary="")
    _, page = queues(editor_client)
    html = page.content.decode()
    assert "PyTorch 9.2" in html
    assert "Blocks publishing:</span>" in html and "A release date" in html


def test_recent_changes_say_who_did_what(editor_client):
    feature = Feature.objects.get(release__version="1.8", slug="remote-module")
    editor_client.post(
        reverse("admin:releases_feature_changelist"),
        {"action": "mark_beta", "_selected_action": [feature.pk]},
    )
    _, page = queues(editor_client)
    newest = page.context["recent_changes"][0]
    assert (newest.who, newest.action, newest.why) == (
        "eddie",
        "updated",
        "marked Beta in the admin",
    )
    assert "Remote Module" in newest.what


def preview(client, **data):
    return client.post(reverse("admin:releases_release_import"), {"preview": "1", **data})


def test_importing_from_the_admin_previews_then_applies_as_a_draft(editor_client):
    upload = SimpleUploadedFile("2031-2-3-pytorch-7-2.md", POST.encode())
    page = preview(editor_client, post_file=upload)
    html = page.content.decode()
    assert page.status_code == 200
    assert "What importing 2031-2-3-pytorch-7-2.md would do" in html
    assert "shape-explainer [beta]" in html and "sparse-views [prototype]" in html
    assert not Release.objects.filter(version="7.2").exists()  # a preview writes nothing

    applied = editor_client.post(
        reverse("admin:releases_release_import"),
        {
            "apply": "1",
            "post_text": page.context["post_text"],
            "file_name": "2031-2-3-pytorch-7-2.md",
        },
        follow=True,
    )
    release = Release.objects.get(version="7.2")
    assert applied.redirect_chain[-1][0] == reverse(
        "admin:releases_release_change", args=[release.pk]
    )
    assert not release.is_published and str(release.release_date) == "2031-02-03"
    assert list(release.features.values_list("slug", flat=True)) == [
        "shape-explainer",
        "sparse-views",
    ]
    record = release.history.latest()
    assert record.history_user.username == "eddie"
    assert record.history_change_reason == "import_post 2031-2-3-pytorch-7-2.md (in the admin)"


def test_the_admin_and_the_command_preview_the_same_import(editor_client, seeds):
    """One code path: the page shows the lines `import_post --dry-run --compare` prints."""
    from io import StringIO

    from django.core.management import call_command

    seed = seeds / "pytorch-1.8-release-post.md"
    page = preview(editor_client, post_text=seed.read_text(), file_name=seed.name)
    report = page.context["preview"][0]
    out = StringIO()
    call_command("import_post", str(seed), "--dry-run", "--compare", stdout=out)
    for line in report.lines():
        assert line in out.getvalue()
    assert "None: the catalog holds the post as it is." in page.content.decode()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({}, "Choose a post file or paste a post."),
        ({"post_text": "---\ntitle: x\n---\n\nNo features."}, "pasted post"),
        ({"post_text": "---\ntitle: [broken\n---\n"}, "line"),
    ],
)
def test_a_bad_post_is_an_error_on_the_page_naming_where(editor_client, data, says):
    claims = StageClaim.objects.count()
    assert claims  # the seed catalog holds its posts' claims
    page = preview(editor_client, **data)
    assert page.status_code == 200
    errors = " ".join(page.context["form"].non_field_errors())
    assert says in errors
    assert StageClaim.objects.count() == claims  # nothing written


def test_missing_queues_filter_features(editor_client):
    url = reverse("admin:releases_feature_changelist")
    lacking = editor_client.get(url + "?missing=stage").context["cl"].result_list
    assert {feature.stability for feature in lacking} == {""}
