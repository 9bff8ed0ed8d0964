"""
The "Broken links" queue in a real browser (Debian's chromium, driven by Playwright): an editor
opens it from the desk, applies one suggestion with one click, and finds the change in the
link's history under their name. Screenshots under test-artifacts/screenshots/; the pages pass
axe-core with no serious or critical violation.
"""

import datetime as dt

import pytest
from django.core.management import call_command

from releases.links import checking
from releases.models import Link, LinkStatus
from tests.factories import FeatureFactory, LinkFactory, ReleaseFactory
from tests.test_link_fixes import broken, observe

PASSWORD = "a long enough passphrase 42"


@pytest.fixture
def editor(monkeypatch):
    monkeypatch.setenv("EDITOR_PASSWORD", PASSWORD)
    call_command("create_editor", "eddie", "--no-input", verbosity=0)
    return "eddie"


@pytest.fixture
def queue_links(live_catalog):
    release = ReleaseFactory(version="2.4", release_date=dt.date(2024, 7, 24))
    feature = FeatureFactory(release=release, title="Python custom operators", slug="custom-ops")
    docs = LinkFactory(
        feature=feature, label="Documentation", url="https://pytorch.org/docs/main/library.html"
    )
    moved = LinkFactory(feature=feature, label="Tutorial", url="https://example.org/old-tutorial")
    observe(moved, checking.REDIRECTED, 200, "https://example.org/new-tutorial")
    return broken(docs)


def sign_in(browsing, username):
    browsing.open("/admin/")
    browsing.page.fill("#id_username", username)
    browsing.page.fill("#id_password", PASSWORD)
    browsing.page.click("input[type=submit]")
    browsing.page.wait_for_selector("text=What needs doing")


def assert_accessible(browsing):
    problems = browsing.serious_accessibility_problems()
    assert not problems, problems


def test_an_editor_applies_a_suggestion_from_the_queue_and_sees_it_in_the_history(
    browsing, editor, queue_links
):
    docs = queue_links
    sign_in(browsing, editor)
    page = browsing.page
    queue = page.locator(".queue", has_text="Broken links")
    assert queue.locator(".queue-count").inner_text() == "2"
    queue.locator("a").click()
    page.wait_for_selector("#result_list")
    assert page.locator("#result_list tbody tr").count() == 2
    browsing.screenshot("queue")
    assert browsing.widest() <= 1280
    assert_accessible(browsing)

    row = page.locator("#result_list tbody tr", has_text="Documentation")
    row.locator("li", has_text="versioned docs").locator("button").click()
    page.wait_for_selector(".messagelist")
    assert "Applied the release's versioned docs to Documentation" in page.inner_text(
        ".messagelist"
    )
    assert page.locator("#result_list tbody tr").count() == 1  # fixed: out of the queue
    browsing.screenshot("applied")
    docs = Link.objects.get(pk=docs.pk)
    assert docs.url == "https://pytorch.org/docs/2.4/library.html"
    assert docs.status == LinkStatus.UNCHECKED

    page.click(".messagelist a:has-text('Its history')")
    entry = page.locator("#change-history tbody tr").first
    entry.wait_for()
    assert "eddie" in entry.inner_text()
    assert "applied suggestion: the release's versioned docs" in entry.inner_text()
    browsing.screenshot("history")
    assert_accessible(browsing)


def test_an_editor_previews_every_permanent_redirect_then_applies_them(
    browsing, editor, queue_links
):
    sign_in(browsing, editor)
    page = browsing.page
    browsing.open("/admin/releases/link/?health=needs_fix")
    page.click("text=Apply all permanent redirects…")
    page.wait_for_selector("caption:has-text('Links to redirect (1)')")
    row = page.locator("table.redirects tbody tr").first
    assert "https://example.org/old-tutorial" in row.inner_text()
    assert "https://example.org/new-tutorial" in row.inner_text()
    browsing.screenshot("redirects-preview")
    assert_accessible(browsing)
    page.click("input[type=submit][value='Apply 1 redirect']")
    page.wait_for_selector("text=Applied 1 permanent redirect")
    moved = Link.objects.get(feature__slug="custom-ops", label="Tutorial")
    assert moved.url == "https://example.org/new-tutorial"
    assert moved.history.latest().history_user.username == "eddie"
    browsing.screenshot("redirects-applied")
