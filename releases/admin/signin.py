"""
Sign-in locks that protect an account without handing anyone a way to lock its owner out.

django-axes counts failed sign-ins per pair of username and address
(``AXES_LOCKOUT_PARAMETERS``): 5 failures for ``alice`` from one address lock ``alice`` from
that address for 15 minutes, and nobody else — ``bob`` signs in from the same address, and
``alice`` from any other.

A username attacked from many addresses is slowed down as well (``SignInHandler``): once it
has had ``SIGNIN_USERNAME_FAILURES`` failures within the cool-off, from any addresses, an
address that has itself failed for that username may try it again only once
``SIGNIN_USERNAME_PACE`` has passed since the username's latest failure. An address that has
not failed for it is never refused: the owner signing in from their usual place is never
locked out by someone else's guesses. Refused attempts are not counted as failures
(``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False``), so neither a lock nor the pace
can be prolonged by hammering.

``locked_out`` (``AXES_LOCKOUT_CALLABLE``) answers both with the admin's own page, giving the
time to wait in words.
"""

import datetime as dt
import math

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import admin
from django.db.models import Max, Sum
from django.shortcuts import render
from django.utils import timezone
from django.utils.timesince import timeuntil
from django.utils.translation import ngettext


class SignInHandler(AxesDatabaseHandler):
    """axes' database handler, which also paces a username that many addresses have failed."""

    def is_locked(self, request, credentials=None):
        if super().is_locked(request, credentials):
            request.signin_wait = pair_wait(request, credentials)
            return True
        wait = username_pace_wait(request, credentials)
        if wait:
            request.signin_wait, request.signin_paced = wait, True
            return True
        return False


def recent_failures(request, credentials):
    """The username's failure records (one per address) within the cool-off."""
    username = get_client_username(request, credentials)
    if not username:
        return AccessAttempt.objects.none()
    since = timezone.now() - get_cool_off(request)
    return AccessAttempt.objects.filter(username=username, attempt_time__gte=since)


def username_pace_wait(request, credentials):
    """
    How long this address must wait before trying this username again (a timedelta), or None:
    only when the username has failed often from everywhere, and this address is one of them.
    """
    failures = recent_failures(request, credentials)
    if not failures.filter(ip_address=request.axes_ip_address).exists():
        return None  # an address that has not failed is never refused
    totals = failures.aggregate(failed=Sum("failures_since_start"), latest=Max("attempt_time"))
    if (totals["failed"] or 0) < settings.SIGNIN_USERNAME_FAILURES:
        return None
    wait = totals["latest"] + settings.SIGNIN_USERNAME_PACE - timezone.now()
    return wait if wait > dt.timedelta(0) else None


def pair_wait(request, credentials):
    """How long the lock of this username from this address still lasts."""
    latest = (
        recent_failures(request, credentials)
        .filter(ip_address=request.axes_ip_address)
        .aggregate(latest=Max("attempt_time"))["latest"]
    )
    cool_off = get_cool_off(request)
    if latest is None:
        return cool_off
    return max(latest + cool_off - timezone.now(), dt.timedelta(seconds=1))


def in_words(delta):
    """
    A wait as people say it: "30 seconds", "15 minutes", "1 hour, 30 minutes" (rounded up; a
    no-break space between number and unit, as Django's ``timeuntil`` writes it).
    """
    seconds = max(1, math.ceil(delta.total_seconds()))
    if seconds < 60:
        return ngettext("%(n)d\xa0second", "%(n)d\xa0seconds", seconds) % {"n": seconds}
    now = timezone.now()
    return timeuntil(now + dt.timedelta(minutes=math.ceil(seconds / 60)), now)


def locked_out(request, original_response=None, credentials=None):
    """The lockout page (``AXES_LOCKOUT_CALLABLE``): the admin's design, the wait in words."""
    # The handler sets the wait; a lockout found elsewhere (after the 5th failure) has it all.
    wait = getattr(request, "signin_wait", None) or get_cool_off(request)
    response = render(
        request,
        settings.AXES_LOCKOUT_TEMPLATE,
        {
            **admin.site.each_context(request),  # the admin's header, as on its own pages
            "title": "Too many failed sign-ins",
            "failure_limit": settings.AXES_FAILURE_LIMIT,
            "cooloff": in_words(get_cool_off(request)),
            "wait": in_words(wait),
            "is_paced": getattr(request, "signin_paced", False),
            "pace": in_words(settings.SIGNIN_USERNAME_PACE),
            "username_failures": settings.SIGNIN_USERNAME_FAILURES,
        },
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )
    response["Retry-After"] = str(max(1, math.ceil(wait.total_seconds())))
    return response
