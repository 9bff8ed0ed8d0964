"""
Alice and Bob in two browsers (two Playwright contexts, Debian's chromium) edit one feature:
Bob's save from his older page is refused with what Alice changed; his input stays, and saving
again applies it on top of Alice's.
"""

import pytest
from django.core.management import call_command

from releases.models import Feature
from tests.conftest import Browsing

PASSWORD = "a long enough passphrase 42"


@pytest.fixture
def editors(monkeypatch):
    monkeypatch.setenv("EDITOR_PASSWORD", PASSWORD)
    for name in ("alice", "bob"):
        call_command("create_editor", name, "--no-input", verbosity=0)


def sign_in(browsing, username):
    browsing.open("/admin/login/")
    browsing.page.fill("#id_username", username)
    browsing.page.fill("#id_password", PASSWORD)
    browsing.page.click("input[type=submit]")
    browsing.page.wait_for_selector("text=What needs doing")


def test_bobs_stale_save_is_refused_and_his_summary_applies_on_alices_title(
    live_catalog, browsing, browser, browser_context_args, editors
):
    bob_context = browser.new_context(**browser_context_args)
    alice, bob = browsing, Browsing(bob_context.new_page(), live_catalog, f"{browsing.name}-bob")
    sign_in(alice, "alice")
    sign_in(bob, "bob")
    feature = Feature.objects.get(release__version="1.8", slug="remote-module")
    url = f"/admin/releases/feature/{feature.pk}/change/"
    alice.open(url)
    bob.open(url)

    alice.page.fill("#id_title", "Remote Module, retitled by Alice")
    alice.page.click("input[name=_continue]")
    alice.page.wait_for_selector(".messagelist .success")
    alice.screenshot("alice-saved")

    bob.page.fill("#id_summary", "Bob's summary, typed on the older page.")
    bob.page.click("input[name=_continue]")
    bob.page.wait_for_selector(".errornote")
    refusal = bob.page.locator(".errorlist.nonfield").first.inner_text()
    assert "alice changed title at" in refusal
    assert bob.page.input_value("#id_summary") == "Bob's summary, typed on the older page."
    assert bob.page.input_value("#id_title") == "Remote Module, retitled by Alice"
    bob.screenshot("bob-refused")
    feature.refresh_from_db()
    assert feature.title == "Remote Module, retitled by Alice"
    assert feature.summary != "Bob's summary, typed on the older page."

    bob.page.click("input[name=_continue]")
    bob.page.wait_for_selector(".messagelist .success")
    bob.screenshot("bob-saved-again")
    feature.refresh_from_db()
    assert feature.title == "Remote Module, retitled by Alice"
    assert feature.summary == "Bob's summary, typed on the older page."
    assert not bob.errors, bob.errors
    bob_context.close()
