"""
Email: a sign-up (``/subscribe/``) mails a signed confirmation link, and nothing else is ever
sent to an address before that link is followed; a confirmed subscriber gets a digest, daily or
weekly, of the net changes in their topics (releases.notifications.changes), with links to the
pages. Every mail carries a signed unsubscribe link, and the ``List-Unsubscribe`` and
``List-Unsubscribe-Post`` headers (RFC 8058), so a mail client's one-click unsubscribe works.

Links are signed (django.core.signing) and carry what they do: a confirmation link the address,
topics and frequency asked for (so a sign-up for an address already subscribed changes nothing
until it is confirmed), an unsubscribe link the subscription.
"""

from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from releases.importing import lease
from releases.models import EmailDigest, EmailSubscription
from releases.notifications import changes
from releases.notifications.webhooks import absolute
from releases.topics import parse_all

CONFIRM_SALT = "releases.notifications.confirm"
UNSUBSCRIBE_SALT = "releases.notifications.unsubscribe"
PERIODS = {
    EmailSubscription.Frequency.DAILY: timedelta(days=1),
    EmailSubscription.Frequency.WEEKLY: timedelta(days=7),
}
DIGEST_MOST = 200  # changes told in one digest; the rest are counted and linked
LEASE = timedelta(minutes=5)


class BadLink(ValueError):
    """A confirmation or unsubscribe link this catalog did not sign, or one that expired."""


def normal_address(text):
    address = (text or "").strip().lower()
    try:
        validate_email(address)
    except ValidationError:
        raise ValidationError("Enter an email address such as you@example.org.") from None
    return address


# --- signing up -------------------------------------------------------------------------------


def confirmation_token(address, chosen, frequency):
    """The signed confirmation of a sign-up: what it asks, checked again when it is used."""
    return signing.dumps(
        {"e": address, "t": chosen, "f": frequency}, salt=CONFIRM_SALT, compress=True
    )


def sign_up(address, topic_texts, frequency):
    """
    Ask to subscribe ``address``: its confirmation link's token, or None when a confirmation
    went to it within SUBSCRIBE_RESEND_SECONDS (the page says the same either way, so a
    stranger cannot tell who subscribes). The caller queues the mail
    (releases.notifications.worker.sign_up).
    """
    address = normal_address(address)
    chosen = parse_all(topic_texts)
    if frequency not in PERIODS:
        raise ValidationError(f"frequency is daily or weekly, not {frequency!r}")
    now = timezone.now()
    subscription, _ = EmailSubscription.objects.get_or_create(email=address)
    subscription = EmailSubscription.objects.select_for_update().get(pk=subscription.pk)
    recent = now - timedelta(seconds=settings.SUBSCRIBE_RESEND_SECONDS)
    if subscription.confirmation_sent_at and subscription.confirmation_sent_at > recent:
        return None
    subscription.confirmation_sent_at = now
    subscription._change_reason = "sign-up: confirmation sent"
    subscription.save()
    return subscription, confirmation_token(address, chosen, frequency)


def read_confirmation(token):
    """(address, topics, frequency) a confirmation link carries; BadLink if it is not ours."""
    try:
        asked = signing.loads(
            token, salt=CONFIRM_SALT, max_age=timedelta(days=settings.SUBSCRIBE_CONFIRM_DAYS)
        )
        return asked["e"], parse_all(asked["t"]), asked["f"]
    except signing.SignatureExpired:
        raise BadLink("This confirmation link has expired: sign up again.") from None
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise BadLink("This is not a confirmation link the catalog sent.") from None


def confirm(token):
    """Confirm what ``token`` asks: the subscription, with its topics, from now on."""
    address, chosen, frequency = read_confirmation(token)
    with transaction.atomic():
        subscription = EmailSubscription.objects.select_for_update().filter(email=address).first()
        if subscription is None:
            raise BadLink("This sign-up was withdrawn: sign up again.")
        if not subscription.is_receiving:
            subscription.cursor = changes.head()  # what changes from now on
            subscription.last_digest_at = None
        subscription.topics, subscription.frequency = chosen, frequency
        subscription.confirmed_at = timezone.now()
        subscription.unsubscribed_at = None
        subscription._change_reason = "confirmed by its address"
        subscription.save()
    return subscription


def unsubscribe_token(subscription):
    return signing.dumps({"s": subscription.pk, "e": subscription.email}, salt=UNSUBSCRIBE_SALT)


def read_unsubscribe(token):
    """The subscription an unsubscribe link names; BadLink if the catalog did not sign it."""
    try:
        named = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        return EmailSubscription.objects.get(pk=named["s"], email=named["e"])
    except (signing.BadSignature, KeyError, TypeError, ValueError, EmailSubscription.DoesNotExist):
        raise BadLink("This is not an unsubscribe link the catalog sent.") from None


def unsubscribe(token):
    """Stop every mail to the subscription ``token`` names; the subscription."""
    subscription = read_unsubscribe(token)
    if subscription.unsubscribed_at is None:
        subscription.unsubscribed_at = timezone.now()
        subscription._change_reason = "unsubscribed by its address"
        subscription.save()
    return subscription


# --- mails ------------------------------------------------------------------------------------


def message(subscription, subject, template, context, unsubscribe=True):
    """A mail to ``subscription`` from ``template`` (.txt and .html), with its unsubscribe link."""
    context = {"subscription": subscription, "site": absolute(reverse("page-home")), **context}
    headers = {}
    if unsubscribe:
        link = absolute(reverse("unsubscribe", args=[unsubscribe_token(subscription)]))
        context["unsubscribe_url"] = link
        headers = {
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        }
    mail = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string(f"notifications/{template}.txt", context),
        to=[subscription.email],
        headers=headers,
    )
    mail.attach_alternative(
        render_to_string(f"notifications/{template}_mail.html", context), "text/html"
    )
    return mail


def send_confirmation(subscription_id, token):
    subscription = EmailSubscription.objects.get(pk=subscription_id)
    link = absolute(reverse("subscribe-confirm", args=[token]))
    _, chosen, frequency = read_confirmation(token)
    mail = message(
        subscription,
        "Confirm your PyTorch Release Catalog subscription",
        "confirm",
        {"confirm_url": link, "topics": chosen, "frequency": frequency},
        unsubscribe=False,  # nothing to leave yet
    )
    mail.send()


def due_subscriptions(now=None, among=None):
    """The ids of the confirmed subscriptions (``among`` these) whose next digest is due."""
    now = now or timezone.now()
    receiving = (among if among is not None else EmailSubscription.objects).filter(
        confirmed_at__isnull=False, unsubscribed_at__isnull=True
    )
    for frequency, period in PERIODS.items():
        waited = Q(last_digest_at__isnull=True) | Q(last_digest_at__lte=now - period)
        yield from (
            receiving.filter(lease.free(now), waited, frequency=frequency)
            .order_by("pk")
            .values_list("pk", flat=True)
        )


def send_digest(subscription_id):
    """
    Mail ``subscription_id`` its digest, if it is due and anything changed in its topics; move
    its cursor past what was read. Whether a mail was sent.
    """
    holder = lease.holder()
    subscription = lease.take(EmailSubscription, holder, LEASE, create=False, pk=subscription_id)
    if subscription is None:
        return False
    try:
        if not subscription.is_receiving:
            return False
        upto = changes.head()
        start = subscription.cursor
        told, more = [], 0
        while subscription.cursor < upto:
            batch, subscription.cursor = changes.unread(subscription, upto)
            room = DIGEST_MOST - len(told)
            told.extend(batch[:room])
            more += max(0, len(batch) - room)
        if not told:
            EmailSubscription.objects.filter(pk=subscription.pk).update(cursor=subscription.cursor)
            return False
        items = [describe(change) for change in told]
        count = len(told) + more
        mail = message(
            subscription,
            f"PyTorch Release Catalog: {count} change{'s' if count != 1 else ''}",
            "digest",
            {
                "items": items,
                "more": more,
                "changes_url": absolute(reverse("releases:changes")),
                "frequency": subscription.get_frequency_display(),
            },
        )
        mail.send()
        with transaction.atomic():
            EmailDigest.objects.create(
                subscription=subscription,
                first_change=start + 1,
                last_change=subscription.cursor,
                items=len(told) + more,
            )
            subscription.last_digest_at = timezone.now()
            subscription._change_reason = f"digest of {len(told) + more} changes"
            subscription.save(update_fields=["cursor", "last_digest_at"])
        return True
    finally:
        lease.let_go(subscription, holder)


def describe(change):
    """What a digest says of one net change: its words, its title and its page."""
    what, title = change.describe()
    return {"what": what, "title": title, "url": absolute(change.path)}
