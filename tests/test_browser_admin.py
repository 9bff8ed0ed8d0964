"""
The editors' day in a real browser (Debian's chromium, driven by Playwright): sign in, work the
queues, import a post and publish it, revert an edit. Each step's full-page screenshot is saved
under test-artifacts/screenshots/; any console error fails the test; the pages this project
adds pass axe-core with no serious or critical violation.
"""

import re

import pytest
from django.core.management import call_command

from releases.models import Feature, Link, Release

PASSWORD = "a long enough passphrase 42"


@pytest.fixture
def editor(monkeypatch):
    """An editor made the README's way without a terminal: `create_editor NAME --no-input`."""
    monkeypatch.setenv("EDITOR_PASSWORD", PASSWORD)
    call_command("create_editor", "eddie", "--no-input", verbosity=0)
    return "eddie"


def sign_in(browsing, username):
    browsing.open("/admin/")
    assert "/admin/login/" in browsing.page.url  # only editors reach the admin
    browsing.page.fill("#id_username", username)
    browsing.page.fill("#id_password", PASSWORD)
    browsing.page.click("input[type=submit]")
    browsing.page.wait_for_selector("text=What needs doing")


def assert_accessible(browsing):
    problems = browsing.serious_accessibility_problems()
    assert not problems, problems


def test_an_editor_signs_in_and_the_desk_says_what_needs_doing(live_catalog, browsing, editor):
    sign_in(browsing, editor)
    page = browsing.page
    assert page.title().startswith("Editors' desk")
    missing = page.locator(".queue", has_text="Links missing")
    assert missing.locator(".queue-count").inner_text() == str(Link.objects.missing().count())
    assert page.locator(".queue", has_text="Stage claims awaiting review").count() == 1
    browsing.screenshot("desk")
    assert browsing.widest() <= 1280
    assert_accessible(browsing)


def test_an_editor_fills_a_missing_link_from_the_desks_queue(live_catalog, browsing, editor):
    sign_in(browsing, editor)
    page = browsing.page
    page.click(".queue a:has-text('Links missing')")
    page.wait_for_selector("#result_list")
    browsing.screenshot("missing-links")
    first = page.locator("#result_list tbody tr").first
    label = first.locator("th a").inner_text()
    first.locator("td.field-url input").fill("https://example.org/docs/filled-in.html")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    browsing.screenshot("saved")
    link = Link.objects.get(url="https://example.org/docs/filled-in.html")
    assert link.label == label
    assert link.history.latest().history_user.username == "eddie"
    assert_accessible(browsing)


def test_an_editor_imports_a_post_and_publishes_it_without_a_shell(
    transactional_db, browsing, editor, seeds
):
    """A fresh catalog: import the 1.7 post from the admin, date it, fill a link, publish."""
    sign_in(browsing, editor)
    page = browsing.page
    page.click("text=Import a release post…")
    browsing.screenshot("import-form")
    assert_accessible(browsing)
    page.set_input_files("#id_post_file", str(seeds / "pytorch-1.7-release-post.md"))
    page.click("input[name=preview]")
    page.wait_for_selector("text=What importing pytorch-1.7-release-post.md would do")
    assert page.locator("caption", has_text="Features to create (21)").count() == 1
    browsing.screenshot("import-preview")
    assert_accessible(browsing)
    assert not Release.objects.exists()  # a preview writes nothing

    page.click("input[name=apply]")
    page.wait_for_selector("text=Imported pytorch-1.7-release-post.md")
    release = Release.objects.get(version="1.7")
    assert not release.is_published and release.features.count() == 21
    browsing.screenshot("imported-draft")

    # The checklist refuses only what must be refused: the post gives no date.
    page.click("text=Publish…")
    page.wait_for_selector("text=Blocks publishing:")
    assert page.locator("input[type=submit][value^='Publish']").count() == 0
    browsing.screenshot("checklist-without-date")
    assert_accessible(browsing)
    page.click(".check-refused a")
    page.fill("#id_release_date", "2020-10-27")
    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist")

    # A missing link, from the desk's queue.
    browsing.open("/admin/")
    page.click(".queue a:has-text('Links missing')")
    row = page.locator("#result_list tbody tr").first
    row.locator("td.field-url input").fill("https://example.org/docs/benchmark-utils.html")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    assert Link.objects.filter(url="https://example.org/docs/benchmark-utils.html").exists()

    browsing.open(f"/admin/releases/release/{release.pk}/publish/")
    assert page.locator(".check-done", has_text="A release date").count() == 1
    browsing.screenshot("checklist-ready")
    page.click("input[type=submit][value='Publish PyTorch 1.7']")
    page.wait_for_selector("text=Published 1.7.")
    release.refresh_from_db()
    assert release.is_published
    browsing.screenshot("published")
    record = release.history.latest()
    assert (record.history_user.username, record.history_change_reason) == (
        "eddie",
        "published in the admin",
    )


def test_an_editor_reverts_an_edit_from_the_history(live_catalog, browsing, editor):
    sign_in(browsing, editor)
    page = browsing.page
    feature = Feature.objects.get(release__version="1.8", slug="remote-module")
    browsing.open(f"/admin/releases/feature/{feature.pk}/change/")
    page.fill("#id_title", "Remote Module (a mistaken title)")
    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist")
    feature.refresh_from_db()
    assert feature.title == "Remote Module (a mistaken title)"

    page.click("a.historylink")
    page.wait_for_selector("#change-history")
    browsing.screenshot("history")
    # The version before the edit: the second row of the history, newest first.
    page.locator("#change-history tbody tr").nth(1).locator("a").first.click()
    page.wait_for_selector("text=Revert")
    browsing.screenshot("old-version")
    page.click("input[type=submit][value^='Revert']")
    page.wait_for_selector(".messagelist")
    feature.refresh_from_db()
    assert feature.title == "Remote Module"
    browsing.screenshot("reverted")


CHANGELISTS = [
    "feature",
    "link",
    "release",
    "track",
    "area",
    "areaalias",
    "stageclaim",
    "blogfeed",
    "blogannouncement",
]


@pytest.mark.parametrize("model", CHANGELISTS)
def test_no_changelist_scrolls_sideways_at_1280_pixels(live_catalog, browsing, editor, model):
    sign_in(browsing, editor)
    browsing.open(f"/admin/releases/{model}/")
    browsing.page.wait_for_selector("#changelist")
    browsing.screenshot(model)
    assert browsing.widest() <= 1280


@pytest.mark.parametrize("path", [*(f"/admin/releases/{m}/" for m in CHANGELISTS), "/admin/"])
def test_no_admin_page_scrolls_sideways_on_a_phone(live_catalog, browsing, editor, path):
    """At 390 px a list's table may scroll inside its own box (Django's admin does so); the
    page itself never does."""
    sign_in(browsing, editor)
    browsing.page.set_viewport_size({"width": 390, "height": 844})
    browsing.open(path)
    browsing.screenshot("phone-" + (path.strip("/").rsplit("/", 1)[-1] or "admin"))
    assert browsing.page.evaluate("document.documentElement.scrollWidth") <= 390, path


def test_merging_picks_the_track_by_typing(live_catalog, browsing, editor):
    sign_in(browsing, editor)
    page = browsing.page
    feature = Feature.objects.get(release__version="1.7", slug="torch-set-deterministic")
    browsing.open("/admin/releases/feature/?q=set_deterministic")
    page.check(f"input[name=_selected_action][value='{feature.pk}']")
    page.select_option("select[name=action]", "merge_into_track")
    page.click("button[name=index]")
    page.wait_for_selector("text=Move these 1 feature")
    page.click(".select2-selection")
    page.keyboard.type("determin")
    page.wait_for_selector(".select2-results__option:has-text('Deterministic')")
    browsing.screenshot("track-search")
    page.click(".select2-results__option:has-text('Deterministic')")
    assert_accessible(browsing)
    page.click("input[type=submit][value=Merge]")
    page.wait_for_selector(".messagelist")
    feature.refresh_from_db()
    assert re.match("deterministic", feature.track.slug)
