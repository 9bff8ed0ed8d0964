"""
One run at a time, on every host that shares the database: a row's lease, taken with a
conditional UPDATE (``lease_holder``, ``lease_expires_at``). ``watch_blog`` leases its feed's
row, ``sync_index`` its sync's. A run that dies keeps the lease until it lapses, so a crash
blocks nothing for long.
"""

import os
import secrets
import socket

from django.db.models import Q
from django.utils import timezone


def holder():
    """Who a run is: its host, its process, and a few random characters."""
    return f"{socket.gethostname()} pid {os.getpid()} {secrets.token_hex(3)}"


def free(now):
    """The rows whose lease nobody holds at ``now``."""
    return Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lte=now)


def take(model, holder, duration, create=True, **key):
    """
    The row of ``model`` with ``key``, leased to ``holder``; None if another run has it (or,
    with ``create`` off, if there is no such row).
    """
    if create:
        model.objects.get_or_create(**key)  # two runs making it at once: one does
    now = timezone.now()
    taken = model.objects.filter(free(now), **key).update(
        lease_holder=holder, lease_expires_at=now + duration
    )
    return model.objects.get(**key) if taken else None


def renew(row, holder, duration):
    """Hold the lease for another ``duration``; False if it lapsed and another run took it."""
    expires = timezone.now() + duration
    return bool(
        type(row).objects.filter(pk=row.pk, lease_holder=holder).update(lease_expires_at=expires)
    )


def let_go(row, holder):
    """Give the lease back, if ``holder`` still has it."""
    type(row).objects.filter(pk=row.pk, lease_holder=holder).update(
        lease_holder="", lease_expires_at=None
    )


def description(model, **key):
    """Who holds the lease of the row with ``key``, and until when."""
    row = model.objects.filter(**key).first()
    if row is None or not row.lease_holder:
        return "it has just finished"
    until = timezone.localtime(row.lease_expires_at).strftime("%Y-%m-%d %H:%M:%S %Z")
    return f"{row.lease_holder}, lease until {until}"
