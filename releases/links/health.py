"""
The links' health: which links ``check_links`` checks, and the one place what it observed is
written (``record``). How a URL is checked, and the rule from checks to a status, live in
``releases.links.checking``.

What a check observes (``Link.check_fields``) is not editors' data: it goes into neither the
history, the fixtures nor the public change log, and does not change the row's version, so
no editor's form goes stale because a link was checked. Writing it starts a new catalog
revision, so that cached API pages and their ETags show the new status; a link whose status
or final URL changed also gets a new ``updated_at``, so ``/api/links/?updated_since=`` finds
it, while a check that only confirms what was known stamps nothing. The features and
releases that show the link keep their ``updated_at``: a nightly check is not an edit.
"""

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from releases import revision, versions
from releases.links import checking
from releases.models import Link, LinkStatus

# Probe outcomes as the summary names them, and the statuses it counts.
AWAITING = "failed, to confirm"
DEFERRED = "deferred"


def links_to_check(*, releases=(), stale_after=None, limit=None, now=None):
    """
    The public catalog's links to check, least recently checked first (never checked first):
    those of ``releases`` (versions) if given, not checked within ``stale_after`` (a
    timedelta) if given — or failed and not checked for a day, so that a failure is confirmed
    or cleared the next day — at most ``limit``. Links still missing have nothing to check.
    """
    links = Link.objects.published().present()
    if releases:
        keys = [versions.Version.parse(version).key for version in releases]
        links = links.filter(feature__release__version_key__in=keys)
    if stale_after is not None:
        now = now or timezone.now()
        # A failure still to confirm is checked again a day later, however stale_after is set.
        links = links.filter(
            Q(checked_at__isnull=True)
            | Q(checked_at__lt=now - stale_after)
            | Q(consecutive_failures__gt=0, checked_at__lte=now - checking.CONFIRMATION)
        )
    links = links.order_by(F("checked_at").asc(nulls_first=True), "pk").only(
        "pk", "url", *Link.check_fields
    )
    return list(links[:limit] if limit else links)


def health_of(link):
    return checking.Health(**{name: getattr(link, name) for name in Link.check_fields})


@dataclass
class Report:
    """What a run found: each link's probe and the status recorded."""

    rows: list = field(default_factory=list)  # (link, probe, health before, health after)

    def counts(self):
        """{line of the summary: links}: statuses in LinkStatus order, then the rest."""
        counted = Counter()
        confirmed = {LinkStatus.BROKEN, LinkStatus.UNREACHABLE}
        for _, probe, _, after in self.rows:
            if probe.outcome == checking.DEFERRED:
                counted[DEFERRED] += 1
            elif after.consecutive_failures and after.status not in confirmed:
                counted[AWAITING] += 1  # counted, not yet a status: checked again tomorrow
            else:
                counted[after.status] += 1
        order = [*LinkStatus.values, AWAITING, DEFERRED]
        return {name: counted[name] for name in order if counted[name]}

    def changed(self):
        """The rows whose status changed."""
        return [row for row in self.rows if row[2].status != row[3].status]


def check(links, policy, *, now=None, transport=None):
    """Check ``links`` under ``policy`` (a checking.Policy) and record what was found."""
    probes = checking.check_urls([link.url for link in links], policy, transport)
    return record(links, probes, now or timezone.now())


def record(links, probes, now):
    """
    The one write of what checks observed: each link's new Health (``checking.judge``),
    written where the link still has the URL that was checked (an editor may have changed it
    meanwhile: the new URL is unchecked), in one transaction that starts one new revision.
    """
    report = Report()
    with transaction.atomic():
        written = 0
        for link in links:
            probe = probes[link.url]
            before = health_of(link)
            after = checking.judge(before, probe, now)
            report.rows.append((link, probe, before, after))
            if after == before:
                continue
            values = {name: getattr(after, name) for name in Link.check_fields}
            values["status"] = LinkStatus(after.status)
            if len(values["final_url"]) > Link._meta.get_field("final_url").max_length:
                values["final_url"] = ""
            if (after.status, after.final_url) != (before.status, before.final_url):
                values["updated_at"] = now  # the API item changed: updated_since finds it
            # The base manager: a plain UPDATE, outside the editors' write path (releases.writes).
            rows = Link._base_manager.filter(pk=link.pk, url=link.url)
            written += rows.update(**values)
            for name, value in values.items():
                setattr(link, name, value)
        if written:
            revision.catalog_changed()
    return report


AGE_RE = re.compile(r"([0-9]{1,6})([smhd])")
AGE_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_age(text):
    """A duration such as 90s, 30m, 12h or 7d (ASCII digits and one unit) as a timedelta."""
    match = AGE_RE.fullmatch(text or "")
    if match is None:
        raise ValueError(
            f"Must be a whole number and a unit (s, m, h or d), e.g. 7d; got {text!r}."
        )
    return dt.timedelta(**{AGE_UNITS[match[2]]: int(match[1])})
