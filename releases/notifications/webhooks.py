"""
Webhooks: each change in an endpoint's topics is POSTed to it as JSON, signed with its secret.

The body: ``id`` (the delivery's, the same on every attempt), ``event`` (``release.created``),
``occurred_at``, ``object`` (as ``/api/changes/`` shows it; null for a deletion, whose
``tombstone`` says what went), ``url`` (the page that shows it), and the entry's ``type``,
``action``, ``key``, ``previous_key`` and ``change`` number. The headers: ``X-Catalog-Event``,
``X-Catalog-Delivery`` (the id) and ``X-Catalog-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
"<t>.<body>" with the secret>``; a receiver recomputes the HMAC, compares in constant time, and
refuses a ``t`` too far from its clock (a replay).

An endpoint's deliveries go out one at a time, in the order of the log, so a receiver applies
them in order. A non-2xx answer, a redirect or a timeout is a failure: the delivery waits
WEBHOOK_RETRY_DELAYS[n] seconds and is tried again, and the endpoint's later deliveries wait
behind it; after WEBHOOK_MAX_FAILURES failures in a row the endpoint is paused until an editor
resumes it (the desk lists it). Nothing is lost meanwhile: the worker keeps queueing.
"""

import functools
import hashlib
import hmac
import json
import secrets
import ssl
import time
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import certifi
import httpx
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from releases.importing import lease
from releases.models import Webhook, WebhookDelivery
from releases.notifications import addresses, changes
from releases.topics import parse_all

SIGNATURE_HEADER = "X-Catalog-Signature"
ANSWER_BYTES = 1024  # what is kept of an answer: enough to say why it failed
LEASE = timedelta(minutes=5)


def draw_secret():
    return secrets.token_urlsafe(32)


def signature(secret, timestamp, body):
    """The ``X-Catalog-Signature`` value of ``body`` (bytes) at ``timestamp`` (unix seconds)."""
    message = f"{timestamp}.".encode() + body
    digest = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(secret, header, body, now=None, tolerance=300):
    """
    Whether ``header`` signs ``body`` with ``secret`` within ``tolerance`` seconds of ``now``:
    what a receiver does (docs/notifications.md shows it in a few lines).
    """
    try:
        parts = dict(item.split("=", 1) for item in header.split(","))
        timestamp = int(parts["t"])
    except (ValueError, KeyError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = signature(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))


def register(url, topic_texts, secret=None, description=""):
    """
    A new webhook at ``url`` following ``topic_texts``, and its secret (drawn when none is
    given). It follows what changes from now on. Refused (addresses.Refused, topics.BadTopic)
    before anything is stored.
    """
    addresses.resolve(url)
    chosen = parse_all(topic_texts)
    if secret is not None and len(secret) < 16:
        raise addresses.Refused("a secret has at least 16 characters")
    webhook = Webhook(
        url=url,
        topics=chosen,
        secret=secret or draw_secret(),
        description=description,
        cursor=changes.head(),
    )
    webhook.full_clean(exclude=["secret"])
    webhook.save()
    return webhook


# --- from the log to deliveries ---------------------------------------------------------------


def body_of(delivery_uuid, change):
    """The JSON of one delivery, as bytes: what is signed and sent, the same every time."""
    item = change.as_item()
    document = {
        "id": str(delivery_uuid),
        "event": change.event,
        "occurred_at": item["time"],
        "object": item["object"],
        "url": absolute(change.path),
        **{k: item[k] for k in ("type", "action", "key", "previous_key", "tombstone", "change")},
    }
    return json.dumps(document, cls=DjangoJSONEncoder, sort_keys=True, separators=(",", ":"))


def absolute(path):
    return f"{settings.CATALOG_URL.rstrip('/')}{path}" if settings.CATALOG_URL else path


def queue(webhook, upto):
    """
    Turn what ``webhook`` has not read of the log (up to the entry ``upto``) into deliveries,
    and move its cursor past it, in one transaction: a worker that stops between two reads
    neither loses nor repeats one. How many deliveries were made.
    """
    made = 0
    while True:
        with transaction.atomic():
            current = Webhook.objects.select_for_update().get(pk=webhook.pk)
            if current.cursor >= upto:
                return made
            told, cursor = changes.unread(current, upto)
            rows = []
            for change in told:
                delivery = WebhookDelivery(webhook=current, change=change.entry, event=change.event)
                delivery.body = body_of(delivery.uuid, change)
                rows.append(delivery)
            WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
            Webhook.objects.filter(pk=current.pk).update(cursor=cursor)
            made += len(rows)


# --- sending ----------------------------------------------------------------------------------


def due(webhook):
    """The endpoint's deliveries waiting, oldest first."""
    return WebhookDelivery.objects.filter(
        webhook=webhook, status=WebhookDelivery.Status.PENDING
    ).order_by("change_id")


def next_due(webhook_id):
    """When the endpoint's next delivery is due; None when it waits for nothing (or is paused)."""
    webhook = Webhook.objects.filter(pk=webhook_id).first()
    if webhook is None or not is_sending(webhook):
        return None
    first = due(webhook).values_list("next_attempt_at", flat=True).first()
    return first


def is_sending(webhook):
    return webhook.is_active and webhook.paused_at is None


def send_due(webhook_id, client=None, limit=None):
    """
    Send ``webhook_id``'s deliveries that are due, in order, up to ``limit``
    (WEBHOOK_BATCH), stopping at the first failure. How many were delivered; None when
    another worker holds the endpoint (it sends them).
    """
    limit = limit or settings.WEBHOOK_BATCH
    holder = lease.holder()
    webhook = lease.take(Webhook, holder, LEASE, create=False, pk=webhook_id)
    if webhook is None:
        return None
    sent, renewed = 0, time.monotonic()
    try:
        with client or http_client() as session:
            while sent < limit and is_sending(webhook):
                delivery = due(webhook).first()
                if delivery is None or delivery.next_attempt_at > timezone.now():
                    break
                if not attempt(webhook, delivery, session):
                    break
                sent += 1
                if time.monotonic() - renewed > LEASE.total_seconds() / 4:
                    lease.renew(webhook, holder, LEASE)
                    renewed = time.monotonic()
    finally:
        lease.let_go(webhook, holder)
    return sent


def http_client():
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    return httpx.Client(
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
        verify=tls_context(),
    )


@functools.cache
def tls_context():
    """The certificates a target must present (certifi's, as httpx's default): loaded once."""
    return ssl.create_default_context(cafile=certifi.where())


def attempt(webhook, delivery, session):
    """POST ``delivery`` once; record what happened. Whether it was delivered."""
    now = timezone.now()
    delivery.attempts += 1
    delivery.last_attempt_at = now
    try:
        status = post(webhook, delivery, session)
    except (addresses.Refused, httpx.HTTPError) as error:
        status, failure = None, describe(error)
    else:
        failure = "" if 200 <= status < 300 else f"HTTP {status}"
    delivery.response_status = status
    delivery.error = failure[:500]
    if not failure:
        delivery.status = WebhookDelivery.Status.DELIVERED
        delivery.delivered_at = timezone.now()
        if webhook.consecutive_failures or webhook.last_error:
            with transaction.atomic():
                delivery.save()
                Webhook.objects.filter(pk=webhook.pk).update(consecutive_failures=0, last_error="")
            webhook.consecutive_failures, webhook.last_error = 0, ""
        else:
            delivery.save()  # the usual case: one UPDATE and its history row
        return True
    failures = webhook.consecutive_failures + 1
    delays = settings.WEBHOOK_RETRY_DELAYS or [60]
    delivery.next_attempt_at = now + timedelta(seconds=delays[min(failures, len(delays)) - 1])
    paused = failures >= settings.WEBHOOK_MAX_FAILURES
    with transaction.atomic():
        delivery.save()
        webhook.consecutive_failures, webhook.last_error = failures, failure[:500]
        if paused:
            webhook.paused_at = now
        webhook._change_reason = f"delivery failed: {failure}"[:100]
        webhook.save(update_fields=["consecutive_failures", "last_error", "paused_at"])
    return False


def describe(error):
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {settings.WEBHOOK_TIMEOUT_SECONDS:g} s"
    text = str(error) or type(error).__name__
    return text.splitlines()[0]


def post(webhook, delivery, session):
    """POST the delivery to the address its URL resolves to now; the answer's status."""
    address = addresses.resolve(webhook.url)
    parts = urlsplit(webhook.url)
    host = f"[{address}]" if ":" in address else address
    netloc = f"{host}:{parts.port}" if parts.port else host
    target = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    body = delivery.body.encode()
    timestamp = int(time.time())
    headers = {
        "Host": parts.netloc.rpartition("@")[2],
        "Content-Type": "application/json",
        "User-Agent": "PyTorch-Release-Catalog-Webhook/1",
        "X-Catalog-Event": delivery.event,
        "X-Catalog-Delivery": str(delivery.uuid),
        SIGNATURE_HEADER: signature(webhook.secret, timestamp, body),
    }
    extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    with session.stream(
        "POST", target, content=body, headers=headers, extensions=extensions
    ) as answer:
        for _ in answer.iter_raw(ANSWER_BYTES):
            break  # a receiver's answer is not read beyond its first kilobyte
        return answer.status_code


def resend(delivery):
    """Queue ``delivery`` again, due now, with the same id: an editor's resend."""
    delivery.status = WebhookDelivery.Status.PENDING
    delivery.next_attempt_at = timezone.now()
    delivery.save(update_fields=["status", "next_attempt_at"])


def resume(webhook):
    """An editor's resume of a paused endpoint: its waiting deliveries are due now."""
    with transaction.atomic():
        webhook.paused_at = None
        webhook.consecutive_failures = 0
        webhook.save()
        due(webhook).update(next_attempt_at=timezone.now())
