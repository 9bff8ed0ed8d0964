"""
The editors' "Broken links" queue: the links ``check_links`` found broken, unreachable or
permanently redirected, each with its suggested fixes (``releases.links.fixes``), applied with
one click, and every permanent redirect applied at once after a preview.

A fix is an editor's change like any other: ``link.url = …; link.save()`` through the write
path (``releases.writes``), under the editor's name with the reason "applied suggestion: …",
so the history shows it and a new URL starts unchecked. Each click carries the version of the
link it was shown at: a click on a link changed since is refused, and so is one whose
suggestion no longer applies (a later check moved the redirect).
"""

import re
from dataclasses import dataclass

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, OuterRef, Prefetch, Subquery
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import url_has_allowed_host_and_scheme

from releases import concurrency, writes
from releases.links import fixes
from releases.models import Link, LinkStatus
from releases.writes import acting_as

NEEDS_FIX = [LinkStatus.BROKEN, LinkStatus.UNREACHABLE, LinkStatus.REDIRECTED]
QUEUE_FILTER = ("health", "needs_fix")  # the changelist's query that shows the queue
URL_MAX_LENGTH = Link._meta.get_field("url").max_length
# Links one bulk apply takes: each is one field of the confirming form, well inside
# DATA_UPLOAD_MAX_NUMBER_FIELDS; the rest wait for the next preview.
BULK_LIMIT = 500
REDIRECTS_REASON = "applied suggestion: the redirect's target (all permanent redirects)"


def queue():
    """The links an editor needs to fix, newest release first, in post order."""
    return Link.objects.filter(status__in=NEEDS_FIX)


def queue_url():
    return reverse("admin:releases_link_changelist") + "?{}={}".format(*QUEUE_FILTER)


def taken_urls(feature_ids):
    """{feature id: {(link id, URL)}}: what each feature links to now, in one query."""
    taken = {}
    rows = Link.objects.filter(feature_id__in=set(feature_ids)).exclude(url="")
    for feature_id, pk, url in rows.values_list("feature_id", "pk", "url"):
        taken.setdefault(feature_id, set()).add((pk, url))
    return taken


def suggestions_for(link, siblings):
    """The link's suggestions; ``siblings``: (id, URL) of its feature's links (itself too)."""
    release = link.feature.release
    return fixes.suggestions(
        link.url,
        status=link.status,
        final_url=link.final_url,
        version=release.version,
        release_date=release.release_date,
        taken={url for pk, url in siblings if pk != link.pk},
        max_length=URL_MAX_LENGTH,
    )


class Refused(Exception):
    """A fix that was not applied, and why, in an editor's words."""


def apply_suggestion(link_id, read_version, url, user):
    """
    Apply one suggestion: the link ``link_id``, shown at ``read_version``, gets ``url`` if that
    is still one of its suggestions. Returns (link, suggestion, old URL); raises Refused.
    """
    link = Link.objects.select_related("feature__release").filter(pk=link_id).first()
    if link is None:
        raise Refused("Nothing applied: this link was deleted meanwhile.")
    if link.row_version != read_version:
        conflict = concurrency.conflict_since(Link, link.pk, read_version, link.row_version)
        raise Refused(f"{conflict.message()} Nothing applied: review its suggestions again.")
    siblings = taken_urls([link.feature_id]).get(link.feature_id, set())
    offered = {s.url: s for s in suggestions_for(link, siblings)}
    suggestion = offered.get(url)
    if suggestion is None:
        raise Refused(
            f"Nothing applied: {url} is no longer a suggestion for {link} (it was checked or "
            "fixed meanwhile). Review its suggestions again."
        )
    old_url, link.url = link.url, suggestion.url
    writes.expect_version(link, read_version)
    try:
        link.validate_constraints()
        with acting_as(f"applied suggestion: {suggestion.description}", user):
            with transaction.atomic():
                link.save()
    except writes.StaleEdit as stale:
        conflict = concurrency.conflict_since(Link, link.pk, read_version, stale.current_version)
        raise Refused(f"{conflict.message()} Nothing applied.") from stale
    except (ValidationError, IntegrityError) as error:
        raise Refused(f"Nothing applied: {link.feature} already links to {url}.") from error
    return link, suggestion, old_url


@dataclass
class Planned:
    link: Link
    target: str


@dataclass
class Skipped:
    link: Link
    target: str
    reason: str


def redirects_to_apply(ids=None, limit=BULK_LIMIT):
    """
    The permanent redirects that can be applied at once: links redirected, whose URL is the
    one that was checked (the history's URL at ``checked_at`` is today's), newest release
    first. Returns (planned, skipped): what a bulk apply would do, and what it leaves to an
    editor (a target the feature already links to, or too long for a link).
    """
    url_at_check = (
        Link.history.filter(id=OuterRef("pk"), history_date__lte=OuterRef("checked_at"))
        .order_by("-history_date", "-history_id")
        .values("url")[:1]
    )
    links = (
        queue()
        .filter(status=LinkStatus.REDIRECTED)
        .exclude(final_url="")
        .exclude(final_url=F("url"))
        .annotate(url_at_check=Subquery(url_at_check))
        .filter(url=F("url_at_check"))
        .select_related("feature__release")
        .order_by("-feature__release_version_key", "feature__position", "position", "pk")
    )
    if ids is not None:
        links = links.filter(pk__in=ids)
    links = list(links[:limit])
    taken = taken_urls(link.feature_id for link in links)
    planned, skipped = [], []
    for link in links:
        target, urls = link.final_url, {url for _, url in taken.get(link.feature_id, ())}
        if len(target) > URL_MAX_LENGTH:
            skipped.append(Skipped(link, target, f"longer than the {URL_MAX_LENGTH} a URL may be"))
        elif target in urls:
            skipped.append(Skipped(link, target, "its feature already links there"))
        else:
            planned.append(Planned(link, target))
            taken.setdefault(link.feature_id, set()).add((link.pk, target))
    return planned, skipped


PLANNED_RE = re.compile(r"([0-9]{1,12}) ([0-9]{1,9}) (\S{1,2000})")


def read_planned(values):
    """
    The links a confirming form carries, each "id version target", as {id: (version,
    target)}. Raises ValueError naming what is wrong.
    """
    planned = {}
    for value in values:
        match = PLANNED_RE.fullmatch(value)
        if match is None:
            raise ValueError(f"Must be a link id, its version and its new URL; got {value!r}.")
        pk = int(match[1])
        if pk in planned:
            raise ValueError(f"Names link {pk} twice.")
        planned[pk] = (int(match[2]), match[3])
    if not planned:
        raise ValueError("Names no link.")
    return planned


def apply_redirects(confirmed, user):
    """
    Apply the redirects an editor confirmed ({id: (version, target)}, as the preview showed
    them), all in one transaction, or none: refused (Refused) if any link changed since the
    preview or is no longer to be redirected there. Returns the links changed.
    """
    with transaction.atomic():
        planned, _ = redirects_to_apply(ids=list(confirmed), limit=None)
        now = {item.link.pk: (item.link.row_version, item.target) for item in planned}
        moved = [pk for pk, shown in confirmed.items() if now.get(pk) != shown]
        if moved:
            raise Refused(
                f"Nothing applied: {len(moved)} of these links changed since the preview "
                "(edited, checked again or fixed). Review the new preview."
            )
        with acting_as(REDIRECTS_REASON, user):
            try:
                for item in planned:
                    version = item.link.row_version
                    item.link.url = item.target
                    writes.expect_version(item.link, version)
                    item.link.save()
            except writes.StaleEdit as stale:
                raise Refused(
                    f"Nothing applied: link {stale.pk} changed while applying. Review the "
                    "new preview."
                ) from stale
    return [item.link for item in planned]


# --- the admin ----------------------------------------------------------------------------------


class LinkHealthFilter(admin.SimpleListFilter):
    """What check_links found: the queue of links to fix, or one status."""

    title = "check"
    parameter_name = QUEUE_FILTER[0]

    def lookups(self, request, model_admin):
        return [(QUEUE_FILTER[1], "Needs fixing"), *LinkStatus.choices]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if value == QUEUE_FILTER[1]:
            return queryset.filter(status__in=NEEDS_FIX)
        if value in LinkStatus.values:
            return queryset.filter(status=LinkStatus(value))
        raise IncorrectLookupParameters(f"{self.parameter_name}: no such choice {value!r}")


def is_queue(request):
    return request.GET.get(QUEUE_FILTER[0]) == QUEUE_FILTER[1]


class LinkFixesAdminMixin:
    """LinkAdmin's part of the queue: its columns, the apply view and the bulk apply view."""

    change_list_template = "admin/releases/link/change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "apply-suggestion/",
                view(self.apply_suggestion_view),
                name="releases_link_apply_suggestion",
            ),
            path(
                "apply-redirects/",
                view(self.apply_redirects_view),
                name="releases_link_apply_redirects",
            ),
            *super().get_urls(),
        ]

    def get_list_display(self, request):
        shown = super().get_list_display(request)
        if is_queue(request) and self.has_change_permission(request):
            # Every link of the queue has a URL and a kind that matters less than its fixes.
            kept = [name for name in shown if name not in {"kind", "is_missing"}]
            return [*kept, "suggested_fixes"]
        return shown

    def get_queryset(self, request):
        links = super().get_queryset(request)
        if is_queue(request):
            # The suggestions leave out what the feature already links to: one query a page.
            siblings = Link.objects.only("pk", "feature_id", "url")
            links = links.prefetch_related(Prefetch("feature__links", queryset=siblings))
        return links

    def changelist_view(self, request, extra_context=None):
        extra = {
            "is_link_queue": is_queue(request),
            "queue_url": queue_url(),
            "can_fix_links": self.has_change_permission(request),
        }
        if extra["is_link_queue"]:
            extra["title"] = "Broken links"
        return super().changelist_view(request, {**extra, **(extra_context or {})})

    @admin.display(description="check", ordering="status")
    def health(self, link):
        if link.status == LinkStatus.UNCHECKED:
            return link.get_status_display()
        code = f" ({link.http_status})" if link.http_status else ""
        return format_html(
            '<span class="link-status link-status-{}">{}{}</span>',
            link.status,
            link.get_status_display(),
            code,
        )

    @admin.display(description="suggested fixes")
    def suggested_fixes(self, link):
        siblings = {(other.pk, other.url) for other in link.feature.links.all()}
        offered = suggestions_for(link, siblings)
        if not offered:
            return format_html('<span class="quiet">{}</span>', "None: edit the URL.")
        rows = format_html_join(
            "",
            '<li><button type="submit" class="button" form="apply-suggestion" name="suggestion"'
            ' value="{} {} {}">Apply<span class="visually-hidden"> {} to link {}</span></button>'
            ' <span class="fix-kind">{}</span> <a class="fix-url" href="{}" rel="noopener">{}</a>'
            "</li>",
            (
                (
                    link.pk,
                    link.row_version,
                    s.url,
                    s.description,
                    link.pk,
                    s.description.capitalize(),
                    s.url,
                    s.url,
                )
                for s in offered
            ),
        )
        return format_html('<ul class="link-fixes">{}</ul>', rows)

    def next_url(self, request):
        wanted = request.POST.get("next", "")
        if wanted and url_has_allowed_host_and_scheme(
            wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return wanted
        return queue_url()

    def apply_suggestion_view(self, request):
        """One suggestion applied (a POST from a queue row's button)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        values = request.POST.getlist("suggestion")
        match = PLANNED_RE.fullmatch(values[0]) if len(values) == 1 else None
        if match is None:
            problem = "Must be one link id, the version it was shown at and the URL to apply."
            return render(request, "400.html", {"problems": {"suggestion": [problem]}}, status=400)
        try:
            link, suggestion, old_url = apply_suggestion(
                int(match[1]), int(match[2]), match[3], request.user
            )
        except Refused as refusal:
            self.message_user(request, str(refusal), messages.ERROR)
        else:
            history = reverse("admin:releases_link_history", args=[link.pk])
            self.message_user(
                request,
                format_html(
                    'Applied {} to {} ({}): {} → {}. <a href="{}">Its history</a>.',
                    suggestion.description,
                    link.label,
                    link.feature,
                    old_url,
                    link.url,
                    history,
                ),
                messages.SUCCESS,
            )
        return HttpResponseRedirect(self.next_url(request))

    def apply_redirects_view(self, request):
        """Every permanent redirect on an unchanged link: a preview, then one confirm."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            try:
                confirmed = read_planned(request.POST.getlist("link"))
            except ValueError as error:
                return render(request, "400.html", {"problems": {"link": [str(error)]}}, status=400)
            try:
                applied = apply_redirects(confirmed, request.user)
            except Refused as refusal:
                self.message_user(request, str(refusal), messages.ERROR)
                return HttpResponseRedirect(request.path)
            count = len(applied)
            self.message_user(
                request,
                f"Applied {count} permanent redirect{'' if count == 1 else 's'}: each link now "
                "points where it moved, and its history says so.",
                messages.SUCCESS,
            )
            return HttpResponseRedirect(queue_url())
        planned, skipped = redirects_to_apply()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Apply all permanent redirects",
            "planned": planned,
            "skipped": skipped,
            "limit": BULK_LIMIT,
            "queue_url": queue_url(),
        }
        return TemplateResponse(request, "admin/releases/link/apply_redirects.html", context)
