"""
Email subscriptions end to end with Django's file email backend: sign up at /subscribe/, the
confirmation mail, a daily digest, and unsubscribing (by the page and by RFC 8058's one-click
POST). No mail reaches an address that has not confirmed.
"""

import datetime as dt
import email
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from releases.models import EmailDigest, EmailSubscription, PatchRelease, Release

# The worker (django-tasks' db_worker) closes connections it finds inside a transaction, as a
# worker must: these tests commit for real (on PostgreSQL a test transaction would be closed).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mailbox(settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.CATALOG_URL = "https://catalog.example.org"
    folder = Path(settings.EMAIL_FILE_PATH)

    def messages():
        found = []
        # One file a connection, named by the second and an object's id: ordered by writing.
        written = (
            sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime_ns)
            if folder.exists()
            else []
        )
        for path in written:
            for raw in path.read_text().split("-" * 79):
                if raw.strip():
                    found.append(email.message_from_string(raw.strip()))
        return found

    return messages


def text_of(message):
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode()
    raise AssertionError("no text part")


def deliver():
    call_command("deliver_notifications", "--once", verbosity=0)


def sign_up(client, address="reader@example.org", topics=("releases",), frequency="daily", **more):
    return client.post(
        "/subscribe/",
        {"email": address, "topics": list(topics), "frequency": frequency, **more},
    )


def link(text, path):
    return re.search(rf"https://catalog\.example\.org(/{path}/[^\s]+/)", text).group(1)


def new_patch(version="1.9.5"):
    return PatchRelease.objects.create(
        release=Release.objects.get(version="1.9"),
        version=version,
        release_date=dt.date(2021, 9, 1),
        source_url="https://pypi.org/simple/torch/",
    )


def test_sign_up_confirm_digest_and_unsubscribe(catalog, client, mailbox):
    page = client.get("/subscribe/?topic=track:torch-fft")
    assert page.status_code == 200 and "track:torch-fft" in page.content.decode()

    answer = sign_up(client, "Reader@Example.org", more="track:torch-fft")
    assert answer.status_code == 200 and "Check your inbox" in answer.content.decode()
    new_patch()  # before confirming: never told
    deliver()
    [confirmation] = mailbox()
    assert confirmation["To"] == "reader@example.org"
    assert "List-Unsubscribe" not in confirmation
    confirm_path = link(text_of(confirmation), "subscribe/confirm")

    assert client.get(confirm_path).status_code == 200  # a scanner's GET confirms nothing
    assert not EmailSubscription.objects.get().is_receiving
    deliver()
    assert len(mailbox()) == 1
    done = client.post(confirm_path)
    assert done.status_code == 200 and "You are subscribed" in done.content.decode()
    subscription = EmailSubscription.objects.get()
    assert subscription.topics == ["releases", "track:torch-fft"]
    deliver()
    assert len(mailbox()) == 1  # 1.9.5 came before the confirmation: not in any digest

    new_patch("1.9.6")
    deliver()
    digest = mailbox()[-1]
    body = text_of(digest)
    assert "patch 1.9.6: new" in body and "https://catalog.example.org/releases/1.9/" in body
    assert "1.9.5" not in body
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe_url = re.search(r"<([^>]+)>", digest["List-Unsubscribe"].replace("\n", "")).group(1)
    unsubscribe_url = "".join(unsubscribe_url.split())  # unfolded
    assert EmailDigest.objects.get().items == 1

    new_patch("1.9.7")
    deliver()
    assert len(mailbox()) == 2  # daily: the next digest waits for its day
    EmailSubscription.objects.update(
        last_digest_at=timezone.now() - dt.timedelta(days=1, minutes=1)
    )
    deliver()
    assert len(mailbox()) == 3 and "patch 1.9.7: new" in text_of(mailbox()[-1])

    # RFC 8058: the mail client POSTs "List-Unsubscribe=One-Click", without a session.
    path = unsubscribe_url.removeprefix("https://catalog.example.org")
    assert client.get(path).status_code == 200  # a GET shows a button, changes nothing
    assert EmailSubscription.objects.get().is_receiving
    one_click = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert one_click.status_code == 200
    assert not EmailSubscription.objects.get().is_receiving
    new_patch("1.9.8")
    EmailSubscription.objects.update(last_digest_at=None)
    deliver()
    assert len(mailbox()) == 3


def test_nothing_goes_to_an_address_that_never_confirms(catalog, client, mailbox):
    sign_up(client)
    for version in ("1.9.5", "1.9.6"):
        new_patch(version)
        deliver()
    assert len(mailbox()) == 1  # the confirmation alone


def test_repeated_sign_ups_are_throttled_per_address_and_per_client(
    catalog, client, mailbox, settings
):
    settings.SUBSCRIBE_RATE = "3/h"
    for _ in range(3):
        assert sign_up(client).status_code == 200
    deliver()
    assert len(mailbox()) == 1  # one confirmation an address an hour
    refused = sign_up(client, "someone-else@example.org")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0


def test_a_sign_up_for_a_subscribed_address_changes_nothing_until_confirmed(
    catalog, client, mailbox, settings
):
    settings.SUBSCRIBE_RESEND_SECONDS = 0
    sign_up(client)
    deliver()
    client.post(link(text_of(mailbox()[0]), "subscribe/confirm"))
    sign_up(client, topics=("all",), frequency="weekly")
    assert EmailSubscription.objects.get().topics == ["releases"]
    deliver()
    client.post(link(text_of(mailbox()[-1]), "subscribe/confirm"))
    subscription = EmailSubscription.objects.get()
    assert subscription.topics == ["all"] and subscription.frequency == "weekly"


@pytest.mark.parametrize(
    "fields, problem",
    [
        ({"email": "not an address"}, "Enter an email address"),
        ({"more": "track:"}, "a track topic names"),
        ({"topics": [], "more": ""}, "at least one topic"),
        ({"frequency": "hourly"}, "Select a valid choice"),
    ],
)
def test_a_bad_sign_up_is_a_400_naming_the_field(catalog, client, mailbox, fields, problem):
    data = {"email": "reader@example.org", "topics": ["releases"], "frequency": "daily", **fields}
    answer = client.post("/subscribe/", data)
    assert answer.status_code == 400 and problem in answer.content.decode()
    assert not EmailSubscription.objects.exists()


@pytest.mark.parametrize("path", ["/subscribe/confirm/forged/", "/unsubscribe/forged/"])
def test_a_forged_link_is_a_400_and_changes_nothing(catalog, client, path):
    assert client.get(path).status_code == 400
    assert client.post(path).status_code in (400, 403)


def test_subscriptions_have_history_in_the_admin(catalog, client, mailbox, editor_client):
    sign_up(client)
    deliver()
    client.post(link(text_of(mailbox()[0]), "subscribe/confirm"))
    subscription = EmailSubscription.objects.get()
    history = editor_client.get(f"/admin/releases/emailsubscription/{subscription.pk}/history/")
    assert history.status_code == 200 and "confirmed by its address" in history.content.decode()
