"""
The desk's "Broken links" queue: what it suggests for each link (releases/links/fixes.py), one
suggestion applied through the write path and recorded, a stale click refused, every
permanent redirect applied at once after a preview, and editors only.
"""

import datetime as dt
import html
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from releases.admin import linkdesk
from releases.links import checking, fixes, health
from releases.links.fixes import ARCHIVED_COPY, REDIRECT_TARGET, VERSIONED_DOCS, Suggestion
from releases.models import Link, LinkStatus
from releases.writes import acting_as
from tests.factories import FeatureFactory, LinkFactory, ReleaseFactory

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
QUEUE = "/admin/releases/link/?health=needs_fix"
APPLY = "/admin/releases/link/apply-suggestion/"
REDIRECTS = "/admin/releases/link/apply-redirects/"


# --- the suggestions, as plain functions ------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "named"),
    [
        ("1.6", "1.6.0"),
        ("1.8", "1.8.0"),
        ("1.9.1", "1.9.1"),
        ("1.10", "1.10.0"),
        ("1.11", "1.11"),
        ("1.13", "1.13"),
        ("2.0", "2.0"),
        ("2.1.2", "2.1"),
        ("2.0.0rc1", None),
        ("not a version", None),
    ],
)
def test_docs_are_named_by_full_version_until_1_10_and_by_minor_version_after(version, named):
    assert fixes.docs_version(version) == named


def test_the_rule_names_every_versioned_docs_link_the_posts_themselves_use():
    """The posts link versioned docs (1.8.0, 1.10.0, 1.11, 2.1, …): the rule gives each name."""
    releases, used = set(), set()
    for path in FIXTURES.glob("pytorch-*.json"):
        text = path.read_text()
        for item in json.loads(text):
            if item["model"] == "releases.release":
                releases.add(item["fields"]["version"])
        used |= set(re.findall(r"https://pytorch\.org/docs/([0-9][0-9.]*)/", text))
    assert {"1.8.0", "1.10.0", "1.11", "2.1"} <= used
    assert used <= {fixes.docs_version(version) for version in releases}


@pytest.mark.parametrize(
    ("url", "version", "expected"),
    [
        (
            "https://pytorch.org/docs/stable/fft.html",
            "1.8",
            "https://pytorch.org/docs/1.8.0/fft.html",
        ),
        (
            "https://pytorch.org/docs/master/distributed.html#backends-that-come-with-pytorch",
            "1.7",
            "https://pytorch.org/docs/1.7.0/distributed.html#backends-that-come-with-pytorch",
        ),
        (
            "https://pytorch.org/docs/main/generated/torch.compile.html?highlight=compile",
            "2.4",
            "https://pytorch.org/docs/2.4/generated/torch.compile.html?highlight=compile",
        ),
        (
            "http://www.pytorch.org/docs/stable/amp.html",
            "1.6",
            "https://pytorch.org/docs/1.6.0/amp.html",
        ),
        ("https://pytorch.org/docs/stable", "1.11", "https://pytorch.org/docs/1.11/"),
        ("https://pytorch.org/docs/stable/", "2.0", "https://pytorch.org/docs/2.0/"),
        (
            "https://docs.pytorch.org/docs/stable/fx.html",
            "2.6",
            "https://docs.pytorch.org/docs/2.6/fx.html",
        ),
        # Already versioned, not documentation, not pytorch.org, no docs for a candidate:
        ("https://pytorch.org/docs/1.9.0/jit.html", "1.10", None),
        ("https://pytorch.org/tutorials/recipes/amp.html", "1.6", None),
        ("https://example.org/docs/stable/fft.html", "1.8", None),
        ("https://pytorch.org/docs/stable/fft.html", "2.0.0rc1", None),
        ("https://pytorch.org/docs/stablex/fft.html", "1.8", None),
    ],
)
def test_versioned_docs_are_the_same_page_under_the_releases_docs(url, version, expected):
    assert fixes.versioned_docs_url(url, version) == expected


def test_an_archived_copy_is_the_wayback_machines_address_for_the_release_date():
    url = "https://example.org/blog/post?id=3#part"
    assert fixes.archived_url(url, dt.date(2021, 3, 4)) == (
        "https://web.archive.org/web/20210304/https://example.org/blog/post?id=3#part"
    )
    assert fixes.archived_url(url, None) is None  # no date, no "near the release"
    archived = "https://web.archive.org/web/20210304/https://example.org/"
    assert fixes.archived_url(archived, dt.date(2021, 3, 4)) is None


def test_a_permanent_redirect_suggests_its_target_then_versioned_docs_then_an_archive():
    url = "https://pytorch.org/docs/stable/fft.html"
    found = fixes.suggestions(
        url,
        status="redirected",
        final_url="https://pytorch.org/docs/stable/generated/fft.html",
        version="1.8",
        release_date=dt.date(2021, 3, 4),
    )
    assert found == [
        Suggestion(REDIRECT_TARGET, "https://pytorch.org/docs/stable/generated/fft.html"),
        Suggestion(VERSIONED_DOCS, "https://pytorch.org/docs/1.8.0/fft.html"),
        Suggestion(ARCHIVED_COPY, f"https://web.archive.org/web/20210304/{url}"),
    ]
    assert [s.description for s in found] == [
        "the redirect's target",
        "the release's versioned docs",
        "an archived copy",
    ]


def test_a_broken_link_gets_no_redirect_and_a_healthy_one_nothing():
    url = "https://example.org/gone"
    broken = fixes.suggestions(
        url, status="broken", final_url="https://example.org/404", release_date=dt.date(2020, 1, 2)
    )
    assert broken == [Suggestion(ARCHIVED_COPY, f"https://web.archive.org/web/20200102/{url}")]
    for status in ("ok", "unchecked"):
        assert fixes.suggestions(url, status=status, release_date=dt.date(2020, 1, 2)) == []


def test_suggestions_that_could_not_be_applied_are_left_out():
    url = "https://pytorch.org/docs/stable/fft.html"
    kwargs = {"status": "unreachable", "version": "1.8", "release_date": dt.date(2021, 3, 4)}
    taken = {"https://pytorch.org/docs/1.8.0/fft.html"}  # the feature already links there
    assert [s.kind for s in fixes.suggestions(url, taken=taken, **kwargs)] == [ARCHIVED_COPY]
    too_long = fixes.suggestions(url, max_length=45, **kwargs)
    assert [s.url for s in too_long] == ["https://pytorch.org/docs/1.8.0/fft.html"]
    same = fixes.suggestions(url, status="redirected", final_url=url)
    assert same == []


def test_the_plain_module_agrees_with_the_models_statuses():
    assert set(fixes.NEEDS_FIX) == set(linkdesk.NEEDS_FIX)
    assert set(fixes.NEEDS_FIX) <= set(LinkStatus.values)


# --- the queue in the admin -------------------------------------------------------------------


def observe(link, outcome, http_status=None, final_url="", when=None):
    """What check_links records for ``link`` after a check that found ``outcome``."""
    link = Link.objects.get(pk=link.pk)
    probe = checking.Probe(link.url, outcome, http_status, final_url)
    health.record([link], {link.url: probe}, when or timezone.now())
    return Link.objects.get(pk=link.pk)


def broken(link, http_status=404):
    """Two failed checks a day apart: broken."""
    observe(link, checking.FAILED, http_status, when=timezone.now() - dt.timedelta(days=2))
    return observe(link, checking.FAILED, http_status)


@pytest.fixture
def release():
    return ReleaseFactory(version="2.4", release_date=dt.date(2024, 7, 24))


@pytest.fixture
def queue_links(release):
    """A link redirected for good, a broken link to the moving docs, an unreachable one."""
    feature = FeatureFactory(release=release, title="Python custom operators", slug="custom-ops")
    moved = LinkFactory(feature=feature, label="Tutorial", url="https://example.org/old-tutorial")
    moved = observe(moved, checking.REDIRECTED, 200, "https://example.org/new-tutorial")
    docs = broken(
        LinkFactory(
            feature=feature, label="Documentation", url="https://pytorch.org/docs/main/library.html"
        )
    )
    gone = LinkFactory(feature=feature, label="RFC", url="https://rfcs.example.org/custom-ops")
    observe(gone, checking.UNREACHABLE, when=timezone.now() - dt.timedelta(days=2))
    gone = observe(gone, checking.UNREACHABLE)
    LinkFactory(feature=feature, label="Blog", url="https://example.org/fine")  # ok: not queued
    assert (moved.status, docs.status, gone.status) == ("redirected", "broken", "unreachable")
    return moved, docs, gone


def offered(page):
    """{link id: [(version, url), …]}: the suggestion buttons of a queue page."""
    found = {}
    content = page.content.decode()
    for value in re.findall(r'name="suggestion" value="([^"]+)"', content):
        pk, version, url = html.unescape(value).split(" ", 2)
        found.setdefault(int(pk), []).append((int(version), url))
    return found


def test_the_desk_counts_the_broken_links_and_its_list_shows_them(editor_client, queue_links):
    desk = editor_client.get(reverse("admin:index"))
    queue = next(q for q in desk.context["queues"] if q.title == "Broken links")
    assert queue.count == 3
    listed = editor_client.get(queue.url)
    assert listed.status_code == 200
    assert listed.context["cl"].result_count == 3
    assert {link.pk for link in listed.context["cl"].result_list} == {
        link.pk for link in queue_links
    }
    assert "Apply all permanent redirects" in listed.content.decode()


def test_the_queue_offers_each_kind_of_suggestion(editor_client, queue_links):
    moved, docs, gone = queue_links
    page = editor_client.get(QUEUE)
    assert offered(page) == {
        moved.pk: [
            (moved.row_version, "https://example.org/new-tutorial"),
            (
                moved.row_version,
                "https://web.archive.org/web/20240724/https://example.org/old-tutorial",
            ),
        ],
        docs.pk: [
            (docs.row_version, "https://pytorch.org/docs/2.4/library.html"),
            (
                docs.row_version,
                "https://web.archive.org/web/20240724/https://pytorch.org/docs/main/library.html",
            ),
        ],
        gone.pk: [
            (
                gone.row_version,
                "https://web.archive.org/web/20240724/https://rfcs.example.org/custom-ops",
            ),
        ],
    }
    content = page.content.decode()
    assert "Broken (404)" in content and "Permanently redirected (200)" in content
    assert 'id="apply-suggestion"' in content and "csrfmiddlewaretoken" in content


def test_the_queue_costs_the_same_queries_for_more_links(editor_client, queue_links, release):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert editor_client.get(QUEUE).status_code == 200
        return len(queries)

    before = count()
    for n in range(5):
        feature = FeatureFactory(release=release)
        broken(LinkFactory(feature=feature, url=f"https://example.org/more/{n}"))
    assert count() == before


def test_an_editor_applies_one_suggestion_and_the_history_says_who(editor_client, queue_links):
    _, docs, _ = queue_links
    (version, url), _ = offered(editor_client.get(QUEUE))[docs.pk]
    answer = editor_client.post(
        APPLY, {"suggestion": f"{docs.pk} {version} {url}", "next": QUEUE}, follow=True
    )
    assert answer.redirect_chain[-1][0] == QUEUE
    docs.refresh_from_db()
    assert docs.url == "https://pytorch.org/docs/2.4/library.html"
    assert docs.status == LinkStatus.UNCHECKED  # a new URL: checked again next run
    record = docs.history.latest()
    assert record.history_user.username == "eddie"
    assert record.history_change_reason == "applied suggestion: the release's versioned docs"
    assert record.prev_record.url == "https://pytorch.org/docs/main/library.html"
    text = answer.content.decode()
    assert "Applied the release&#x27;s versioned docs to Documentation" in text
    assert reverse("admin:releases_link_history", args=[docs.pk]) in text
    assert docs.pk not in offered(answer)  # fixed: out of the queue
    history = editor_client.get(reverse("admin:releases_link_history", args=[docs.pk]))
    assert "applied suggestion: the release&#x27;s versioned docs" in history.content.decode()


def test_a_stale_click_is_refused_and_says_who_changed_the_link(editor_client, queue_links, editor):
    moved, _, _ = queue_links
    (version, url), _ = offered(editor_client.get(QUEUE))[moved.pk]
    colleague = User.objects.create_user("colleague", is_staff=True)
    with acting_as("a colleague's edit", colleague):
        link = Link.objects.get(pk=moved.pk)
        link.label = "Tutorial (renamed)"
        link.save()
    answer = editor_client.post(APPLY, {"suggestion": f"{moved.pk} {version} {url}"}, follow=True)
    moved.refresh_from_db()
    assert moved.url == "https://example.org/old-tutorial"
    assert moved.history.latest().history_user == colleague
    text = answer.content.decode()
    assert "Not saved: this link changed while you were editing it. colleague changed label" in text
    assert "Nothing applied" in text


def test_a_suggestion_a_new_check_withdrew_is_refused(editor_client, queue_links):
    moved, _, _ = queue_links
    (version, url), _ = offered(editor_client.get(QUEUE))[moved.pk]
    # Checked again meanwhile: it now redirects elsewhere (a check does not change the version).
    observe(moved, checking.REDIRECTED, 200, "https://example.org/newest-tutorial")
    answer = editor_client.post(APPLY, {"suggestion": f"{moved.pk} {version} {url}"}, follow=True)
    moved.refresh_from_db()
    assert moved.url == "https://example.org/old-tutorial"
    assert "is no longer a suggestion" in answer.content.decode()
    # Nor can a click apply a URL that was never suggested.
    editor_client.post(APPLY, {"suggestion": f"{moved.pk} {version} https://evil.example/"})
    moved.refresh_from_db()
    assert moved.url == "https://example.org/old-tutorial"


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"suggestion": "12"},
        {"suggestion": "x 1 https://example.org/"},
        {"suggestion": "1 ² https://example.org/"},
        {"suggestion": ["1 1 https://example.org/a", "2 1 https://example.org/b"]},
    ],
)
def test_a_malformed_click_is_a_400_naming_the_field(editor_client, data):
    answer = editor_client.post(APPLY, data)
    assert answer.status_code == 400
    assert "<strong>suggestion</strong>" in answer.content.decode()


def test_applying_is_a_post(editor_client):
    assert editor_client.get(APPLY).status_code == 405


# --- every permanent redirect at once ---------------------------------------------------------


@pytest.fixture
def redirected(release):
    """Three links redirected for good: two can move, one would duplicate its feature's link."""
    feature = FeatureFactory(release=release)
    links = []
    for n in range(2):
        link = LinkFactory(feature=feature, label=f"Page {n}", url=f"https://example.org/old/{n}")
        links.append(observe(link, checking.REDIRECTED, 200, f"https://example.org/new/{n}"))
    LinkFactory(feature=feature, label="Already", url="https://example.org/new/already")
    clash = LinkFactory(feature=feature, label="Clash", url="https://example.org/old/already")
    clash = observe(clash, checking.REDIRECTED, 200, "https://example.org/new/already")
    return links, clash


def planned_values(page):
    return [
        html.unescape(v) for v in re.findall(r'name="link" value="([^"]+)"', page.content.decode())
    ]


def test_bulk_previews_each_old_and_new_url_then_applies_them_all(editor_client, redirected):
    (first, second), clash = redirected
    preview = editor_client.get(REDIRECTS)
    assert preview.status_code == 200
    assert [(i.link.pk, i.target) for i in preview.context["planned"]] == [
        (first.pk, "https://example.org/new/0"),
        (second.pk, "https://example.org/new/1"),
    ]
    assert [(i.link.pk, i.reason) for i in preview.context["skipped"]] == [
        (clash.pk, "its feature already links there")
    ]
    text = preview.content.decode()
    assert "https://example.org/old/0" in text and "https://example.org/new/0" in text
    assert (
        Link.objects.filter(url__startswith="https://example.org/new/").count() == 1
    )  # a preview writes nothing

    answer = editor_client.post(REDIRECTS, {"link": planned_values(preview)}, follow=True)
    assert "Applied 2 permanent redirects" in answer.content.decode()
    for link, new in ((first, "https://example.org/new/0"), (second, "https://example.org/new/1")):
        link.refresh_from_db()
        assert link.url == new
        record = link.history.latest()
        assert record.history_user.username == "eddie"
        assert record.history_change_reason == linkdesk.REDIRECTS_REASON
    clash.refresh_from_db()
    assert clash.url == "https://example.org/old/already"


def test_a_link_whose_url_changed_since_the_check_is_not_redirected_in_bulk(editor, redirected):
    (first, second), _ = redirected
    # A bulk update keeps what was observed of the old URL: the history tells them apart.
    with acting_as("a bulk fix", editor):
        Link.objects.filter(pk=first.pk).update(url="https://example.org/edited")
    planned, _ = linkdesk.redirects_to_apply()
    assert [item.link.pk for item in planned] == [second.pk]


def test_a_bulk_confirm_after_a_colleagues_edit_applies_nothing(editor_client, redirected):
    (first, second), _ = redirected
    preview = editor_client.get(REDIRECTS)
    link = Link.objects.get(pk=second.pk)
    link.label = "Page one, renamed"
    link.save()
    answer = editor_client.post(REDIRECTS, {"link": planned_values(preview)}, follow=True)
    assert "Nothing applied: 1 of these links changed since the preview" in answer.content.decode()
    assert answer.redirect_chain[-1][0] == REDIRECTS  # back to a new preview
    assert set(Link.objects.filter(pk__in=[first.pk, second.pk]).values_list("url", flat=True)) == {
        "https://example.org/old/0",
        "https://example.org/old/1",
    }


@pytest.mark.parametrize(
    "values", [[], ["1 1"], ["1 1 https://example.org/a", "1 1 https://example.org/b"]]
)
def test_a_malformed_bulk_confirm_is_a_400_naming_the_field(editor_client, values):
    answer = editor_client.post(REDIRECTS, {"link": values})
    assert answer.status_code == 400
    assert "<strong>link</strong>" in answer.content.decode()


# --- editors only ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("url", [QUEUE, REDIRECTS, APPLY])
def test_the_anonymous_are_sent_to_sign_in(client, url):
    answer = client.post(url) if url == APPLY else client.get(url)
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("admin:login"))


@pytest.mark.django_db
def test_staff_without_the_permission_are_refused(client, queue_links):
    moved, _, _ = queue_links
    client.force_login(User.objects.create_user("visitor", is_staff=True))
    assert client.get(QUEUE).status_code == 403
    assert client.get(REDIRECTS).status_code == 403
    assert (
        client.post(REDIRECTS, {"link": [f"{moved.pk} {moved.row_version} x"]}).status_code == 403
    )
    value = f"{moved.pk} {moved.row_version} https://example.org/new-tutorial"
    assert client.post(APPLY, {"suggestion": value}).status_code == 403
    moved.refresh_from_db()
    assert moved.url == "https://example.org/old-tutorial"


def test_an_unknown_check_filter_is_refused_as_the_admin_refuses_lookups(editor_client):
    answer = editor_client.get("/admin/releases/link/?health=sideways")
    assert answer.status_code == 302 and answer["Location"].endswith("?e=1")
