"""
What queues the task workers' work. ``plan`` reads what each subscription
has not read, turns it into webhook deliveries (``webhooks.queue``), and queues the tasks that
are due: an endpoint's deliveries, a subscriber's digest. It is safe to run anywhere, any time,
as often as wanted: what it makes is made once (a delivery per webhook and entry; a cursor moved
in the transaction that made them), and a task queued twice finds its work done or leased.
``sign_up`` records a sign-up and queues its confirmation mail.
"""

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from releases.importing import lease
from releases.models import EmailSubscription, Webhook, WebhookDelivery
from releases.notifications import changes, email, tasks, webhooks


def plan(now=None):
    """Queue what is new and what is due: (deliveries made, tasks queued)."""
    upto = changes.head()
    made = 0
    for webhook in Webhook.objects.filter(cursor__lt=upto).order_by("pk"):
        made += webhooks.queue(webhook, upto)
    now = now or timezone.now()  # after the queueing: what it made is due
    waiting = WebhookDelivery.objects.filter(
        webhook=OuterRef("pk"),
        status=WebhookDelivery.Status.PENDING,
        next_attempt_at__lte=now,
    )
    sending = Webhook.objects.filter(
        Exists(waiting), lease.free(now), is_active=True, paused_at__isnull=True
    )
    queued = 0
    for webhook_id in sending.order_by("pk").values_list("pk", flat=True):
        tasks.deliver_webhook.enqueue(webhook_id)
        queued += 1
    behind = EmailSubscription.objects.filter(cursor__lt=upto)
    for subscription_id in email.due_subscriptions(now, behind):
        tasks.send_digest.enqueue(subscription_id)
        queued += 1
    return made, queued


def sign_up(address, topic_texts, frequency):
    """
    A sign-up (releases.notifications.email.sign_up) and its confirmation mail queued, in one
    transaction: whether a mail was queued.
    """
    with transaction.atomic():
        asked = email.sign_up(address, topic_texts, frequency)
        if asked is not None:
            subscription, token = asked
            tasks.send_confirmation.enqueue(subscription.pk, token)
    return asked is not None
