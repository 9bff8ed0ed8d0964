"""
The background work of notifications, as Django's Tasks (the django-tasks backport; its
database backend, so any number of workers on any number of hosts share one queue, and a later
Django runs the same tasks on ``django.tasks``). Each task is safe to run twice: the rows it
works on (a webhook's queue, a subscriber's cursor) are leased and record what was done.
"""

from django.utils import timezone
from django_tasks import task

from releases.notifications import email, webhooks


@task()
def deliver_webhook(webhook_id):
    """Send the endpoint's due deliveries; queue this task again for what remains."""
    sent = webhooks.send_due(webhook_id)
    if sent is None:
        return 0  # another worker has the endpoint, and queues what remains when it is done
    # Asked after the lease is given back, so a delivery queued meanwhile is never stranded.
    then = webhooks.next_due(webhook_id)
    if then is not None:
        deliver_webhook.using(run_after=max(then, timezone.now())).enqueue(webhook_id)
    return sent


@task()
def send_digest(subscription_id):
    return email.send_digest(subscription_id)


@task()
def send_confirmation(subscription_id, token):
    email.send_confirmation(subscription_id, token)
