"""
Webhooks end to end: a receiver on loopback (tests/conftest.py's stand-in) gets signed POSTs
from `deliver_notifications --once`, which runs the real django-tasks database worker.
"""

import datetime as dt
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from releases.models import (
    Feature,
    PatchRelease,
    Release,
    Webhook,
    WebhookDelivery,
)
from releases.notifications import addresses, webhooks, worker

# The worker (django-tasks' db_worker) closes connections it finds inside a transaction, as
# a worker must: these tests commit for real (on PostgreSQL a test transaction would be closed).
pytestmark = pytest.mark.django_db(transaction=True)


SECRET = "a-test-secret-of-enough-length"  # what the receiver verifies every delivery with


def deliver():
    call_command("deliver_notifications", "--once", verbosity=0)


def received(receiver, path="/hook"):
    """The bodies the receiver got at ``path``, in order, each checked against its signature."""
    found = []
    for where, headers, body in receiver.posts:
        if where != path:
            continue
        document = json.loads(body)
        assert webhooks.verify(SECRET, headers["X-Catalog-Signature"], body)
        assert headers["X-Catalog-Delivery"] == document["id"]
        assert headers["X-Catalog-Event"] == document["event"]
        found.append((headers, document))
    return found


@pytest.fixture
def receiver(stand_in, settings):
    settings.WEBHOOK_RETRY_DELAYS = [0]
    return stand_in


def hook(receiver, *topics, path="/hook", secret=None):
    return webhooks.register(receiver.url(path), list(topics), secret=secret or SECRET)


def new_patch(version="1.9.5", release="1.9"):
    return PatchRelease.objects.create(
        release=Release.objects.get(version=release),
        version=version,
        release_date=dt.date(2021, 9, 1),
        source_url="https://pypi.org/simple/torch/",
    )


def test_a_published_patch_reaches_a_releases_webhook_once_signed(catalog, receiver):
    webhook = hook(receiver, "releases")
    new_patch()
    deliver()
    deliver()  # again: nothing new, nothing sent twice

    [(headers, document)] = received(receiver)
    assert document["event"] == "patch.created"
    assert document["key"] == ["1.9.5"] and document["object"]["version"] == "1.9.5"
    assert document["url"] == "https://catalog.example.org/releases/1.9/"
    body = receiver.posts[0][2]
    assert webhooks.verify(webhook.secret, headers["X-Catalog-Signature"], body)
    assert not webhooks.verify("another-secret-entirely", headers["X-Catalog-Signature"], body)
    assert not webhooks.verify(webhook.secret, headers["X-Catalog-Signature"], body + b" ")
    old = int(headers["X-Catalog-Signature"].split(",")[0][2:]) + 3600
    assert not webhooks.verify(webhook.secret, headers["X-Catalog-Signature"], body, now=old)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.DELIVERED and delivery.attempts == 1


def test_topics_choose_what_is_sent(catalog, receiver):
    hook(receiver, "releases:2.x", path="/two")
    hook(receiver, "releases:1.9", path="/minor")
    hook(receiver, "compatibility", path="/compat")
    hook(receiver, "all", path="/all")
    new_patch()
    deliver()
    assert not received(receiver, "/two") and not received(receiver, "/compat")
    assert [d["event"] for _, d in received(receiver, "/minor")] == ["patch.created"]
    assert [d["event"] for _, d in received(receiver, "/all")] == ["patch.created"]


def test_a_draft_edit_sends_nothing_and_its_publish_sends_once(catalog, receiver):
    hook(receiver, "all")
    draft = Release.objects.create(version="1.10", title="PyTorch 1.10")
    Feature.objects.create(
        release=draft,
        title="A feature of a draft",
        slug="a-feature-of-a-draft",
        area=Feature.objects.first().area,
    )
    draft.summary = "still a draft"
    draft.save()
    deliver()
    assert receiver.posts == []

    draft.release_date = dt.date(2021, 10, 21)
    draft.is_published = True
    draft.save()
    deliver()
    deliver()
    events = [document["event"] for _, document in received(receiver)]
    assert events.count("release.created") == 1 and "feature.created" in events
    assert len(events) == len({d["id"] for _, d in received(receiver)})


def test_a_change_undone_before_delivery_sends_nothing(catalog, receiver):
    hook(receiver, "all")
    release = Release.objects.get(version="1.9")
    before = release.summary
    release.summary = "for a moment"
    release.save()
    release.summary = before
    release.save()
    patch = new_patch()
    patch.delete()
    deliver()
    assert receiver.posts == []


def test_a_500_is_retried_and_then_succeeds(catalog, receiver):
    hook(receiver, "releases")
    receiver.answers["/hook"] = [500, 502, 200]
    new_patch()
    deliver()
    statuses = [len(received(receiver))]
    delivery = WebhookDelivery.objects.get()
    assert statuses == [3] and delivery.attempts == 3
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert len({d["id"] for _, d in received(receiver)}) == 1  # one delivery, three tries
    assert Webhook.objects.get().consecutive_failures == 0


def test_growing_delays_wait_between_attempts(catalog, receiver, settings):
    settings.WEBHOOK_RETRY_DELAYS = [60, 600]
    hook(receiver, "releases")
    receiver.answers["/hook"] = [500]
    new_patch()
    deliver()
    deliver()  # not due yet: no second attempt
    delivery = WebhookDelivery.objects.get()
    assert delivery.attempts == 1 and delivery.error == "HTTP 500"
    assert 55 <= (delivery.next_attempt_at - delivery.last_attempt_at).total_seconds() <= 60
    WebhookDelivery.objects.update(next_attempt_at=delivery.last_attempt_at)
    deliver()
    delivery.refresh_from_db()
    assert delivery.attempts == 2
    assert (delivery.next_attempt_at - delivery.last_attempt_at).total_seconds() == 600


def test_five_failures_pause_the_endpoint_and_the_desk_says_so(catalog, receiver, editor_client):
    webhook = hook(receiver, "releases")
    receiver.answers["/hook"] = [503]
    new_patch()
    new_patch("1.9.6")
    deliver()
    webhook.refresh_from_db()
    assert webhook.is_paused and webhook.consecutive_failures == 5
    assert len(receiver.posts) == 5  # the first delivery, tried five times; the second waits
    assert WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING).count() == 2
    desk = editor_client.get("/admin/").content.decode()
    assert "Webhooks paused" in desk and "/admin/releases/webhook/?is_paused=yes" in desk
    history = webhook.history.order_by("history_date")
    assert history.last().paused_at is not None

    receiver.answers["/hook"] = [200]
    webhooks.resume(webhook)
    deliver()
    events = [d["key"] for _, d in received(receiver)]
    assert events[-2:] == [["1.9.5"], ["1.9.6"]]  # in the log's order, once each when it worked
    assert not WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING).exists()


def test_a_paused_endpoint_loses_nothing_meanwhile(catalog, receiver):
    webhook = hook(receiver, "releases")
    Webhook.objects.filter(pk=webhook.pk).update(is_active=False)
    new_patch()
    deliver()
    assert receiver.posts == [] and WebhookDelivery.objects.count() == 1
    Webhook.objects.filter(pk=webhook.pk).update(is_active=True)
    deliver()
    assert [d["event"] for _, d in received(receiver)] == ["patch.created"]


def test_a_delivery_can_be_resent_with_its_id(catalog, receiver, editor_client):
    hook(receiver, "releases")
    new_patch()
    deliver()
    delivery = WebhookDelivery.objects.get()
    answer = editor_client.post(
        "/admin/releases/webhookdelivery/",
        {"action": "resend", "_selected_action": [delivery.pk]},
    )
    assert answer.status_code == 302
    deliver()
    first, second = received(receiver)
    assert first[1] == second[1]  # the same body, the same id
    assert delivery.history.count() >= 2


def test_the_admin_registers_a_webhook_and_shows_its_secret_once(catalog, receiver, editor_client):
    answer = editor_client.post(
        "/admin/releases/webhook/add/",
        {"url": receiver.url("/hook"), "topics": "releases\ntrack:torch-fft", "is_active": "on"},
        follow=True,
    )
    webhook = Webhook.objects.get()
    assert webhook.topics == ["releases", "track:torch-fft"]
    assert webhook.secret in answer.content.decode()
    page = editor_client.get(f"/admin/releases/webhook/{webhook.pk}/change/").content.decode()
    assert webhook.secret not in page
    refused = editor_client.post(
        "/admin/releases/webhook/add/", {"url": receiver.url("/x"), "topics": "nonsense"}
    )
    assert refused.status_code == 200 and "is not a topic" in refused.content.decode()


def test_add_webhook_draws_a_secret_and_refuses_bad_input(catalog, receiver, capsys):
    call_command(
        "add_webhook", receiver.url("/hook"), "--topic", "releases", "--topic", "api:torch.jit"
    )
    out = capsys.readouterr().out
    webhook = Webhook.objects.get()
    assert webhook.topics == ["releases", "api:torch.jit"] and webhook.secret in out
    with pytest.raises(CommandError, match="is not a topic"):
        call_command("add_webhook", receiver.url("/hook"), "--topic", "everything")
    with pytest.raises(CommandError, match="track:flexattention"):
        call_command("add_webhook", receiver.url("/hook"), "--topic", "track:")
    with pytest.raises(CommandError, match="at least 16"):
        call_command("add_webhook", receiver.url("/hook"), "--topic", "all", "--secret", "short")
    assert Webhook.objects.count() == 1


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/hook",
        "https://10.0.0.7/hook",
        "https://192.168.1.20/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::1]/hook",
        "https://localhost/hook",
    ],
)
def test_private_targets_are_refused_at_registration(catalog, settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(addresses.Refused, match="loopback, private or reserved"):
        webhooks.register(url, ["all"])
    assert not Webhook.objects.exists()


def test_plain_http_is_refused_unless_private_addresses_are_allowed(catalog, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(addresses.Refused, match="must be https"):
        webhooks.register("http://hooks.example.org/x", ["all"])
    with pytest.raises(addresses.Refused, match="no user name or password"):
        webhooks.register("https://user:pw@hooks.example.org/x", ["all"])


def test_the_address_is_checked_again_when_it_is_called(catalog, receiver, settings):
    hook(receiver, "releases")
    settings.WEBHOOK_ALLOW_PRIVATE = False  # as if the name now resolved to a private address
    new_patch()
    deliver()
    assert receiver.posts == []  # nothing reached the private address
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert "must be https" in delivery.error or "loopback" in delivery.error


def test_a_receiver_slower_than_the_timeout_is_a_failure(catalog, settings):
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held = []
    threading.Thread(target=lambda: held.append(listener.accept()), daemon=True).start()
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    settings.WEBHOOK_RETRY_DELAYS = [600]
    webhooks.register(f"http://127.0.0.1:{listener.getsockname()[1]}/slow", ["releases"])
    new_patch()
    deliver()
    delivery = WebhookDelivery.objects.get()
    assert delivery.error == "no answer within 0.5 s" and delivery.attempts == 1
    listener.close()


def test_a_worker_stopped_mid_queue_and_started_again_delivers_each_change_once(
    catalog, receiver, settings
):
    settings.WEBHOOK_BATCH = 1  # one delivery a task: the queue is many tasks long
    hook(receiver, "all")
    release = Release.objects.get(version="1.9")
    for number in range(6):
        release.summary = f"summary {number}"
        release.save()
        if number % 2:
            worker.plan()  # read between edits: six entries, three reads, three deliveries
    assert WebhookDelivery.objects.count() == 3
    # The real worker, stopped after two tasks (its own --max-tasks), then after one more.
    call_command(
        "db_worker", batch=True, max_tasks=2, startup_delay=False, reload=False, verbosity=0
    )
    assert len(receiver.posts) == 2
    call_command(
        "db_worker", batch=True, max_tasks=1, startup_delay=False, reload=False, verbosity=0
    )
    new_patch()
    deliver()  # started again: plans what is new, sends what waits
    deliver()
    ids = [document["id"] for _, document in received(receiver)]
    assert len(ids) == len(set(ids)) == WebhookDelivery.objects.count() == 4
    summaries = [d["object"].get("summary") for _, d in received(receiver)][:3]
    assert summaries == ["summary 1", "summary 3", "summary 5"]
