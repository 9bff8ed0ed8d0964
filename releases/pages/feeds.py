"""
Atom feeds: new releases, a track's stage changes ("tell me when X goes Stable"), the release
schedule, and a release's upgrade notes.
"""

import datetime as dt

from django.contrib.syndication.views import Feed
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import format_html, format_html_join

from releases import canonical, topics
from releases.classification import StageChange, stage_moves
from releases.managers import previous_release
from releases.models import Release, ScheduleDate, Stability, StageSource, Track, UpgradeNote
from releases.notifications import changes
from releases.versions import InvalidVersion
from releases.writes import is_web_url


def day_start(date):
    """The start of ``date`` in UTC; None for no date (a release out, its day not known yet)."""
    return dt.datetime.combine(date, dt.time.min, tzinfo=dt.UTC) if date else None


def stage_label(stability):
    return Stability(stability).label if stability else "no stability"


class StrictFeed(Feed):
    """A feed takes no query parameters: one given is a 400 naming it, as on the API."""

    def __call__(self, request, *args, **kwargs):
        if request.GET:
            message = "Unknown query parameter: feeds take none."
            return JsonResponse({name: [message] for name in request.GET}, status=400)
        return super().__call__(request, *args, **kwargs)


class ReleaseFeed(StrictFeed):
    feed_type = Atom1Feed
    title = "PyTorch releases"
    subtitle = "New PyTorch releases with their highlights, from the PyTorch Release Catalog."
    author_name = "PyTorch Release Catalog"

    def link(self):
        return reverse("page-releases")  # a feed reader opens pages for people

    def items(self):
        return Release.objects.for_api().filter(planned=False)[:20]

    def item_title(self, release):
        return f"PyTorch {release.version}: {release.title}"

    def item_description(self, release):
        highlights = format_html_join(
            "", "<li>{}</li>", ((line,) for line in release.highlight_list)
        )
        return format_html("<p>{}</p><ul>{}</ul>", release.summary, highlights)

    def item_link(self, release):
        return release.get_absolute_url()

    def item_pubdate(self, release):
        return day_start(release.release_date)

    def item_updateddate(self, release):
        return release.updated_at


class TrackFeed(StrictFeed):
    """One entry per change of stage: first appearance, then every promotion or demotion."""

    feed_type = Atom1Feed
    author_name = "PyTorch Release Catalog"

    def get_object(self, request, slug):
        # Each appearance's links too, with what the last check found: one more query.
        tracks = Track.objects.for_api().prefetch_related("appearances__links")
        return get_object_or_404(tracks, slug=slug)

    def title(self, track):
        return f"{track.name}: stability across PyTorch releases"

    def subtitle(self, track):
        return f"Each time {track.name} changes stage: Prototype, Beta, Stable."

    def link(self, track):
        return track.get_absolute_url()

    def items(self, track):
        """Its first appearance, then each appearance that moved its stage (stage_moves: one
        with no stage moves nothing), newest first."""
        appearances = track.appearances
        moves = stage_moves([a.stability for a in appearances])
        changes, stated = [], None
        for index, (appearance, move) in enumerate(zip(appearances, moves, strict=True)):
            first_stated = appearance.stability and stated is None
            if index == 0 or first_stated or move not in (None, StageChange.SAME):
                changes.append((track, stated if index else None, appearance))
            stated = appearance if appearance.stability else stated
        return list(reversed(changes))

    def item_title(self, item):
        track, previous, appearance = item
        version = appearance.release.version
        if previous is None:
            return f"{track.name}: {stage_label(appearance.stability)} in {version}"
        before, after = stage_label(previous.stability), stage_label(appearance.stability)
        return f"{track.name}: {before} → {after} in {version}"

    def item_description(self, item):
        _, _, appearance = item
        source = ""
        if appearance.stage_source == StageSource.CLAIM:
            source = "The post states this stage in its prose (a claim an editor accepted)."
        links = format_html_join(
            "",
            '<li><a href="{}">{}</a> ({})</li>',
            (
                (link.url, link.label, link.get_status_display().lower())
                for link in appearance.links.all()
                if is_web_url(link.url)
            ),
        )
        return format_html(
            "<p><strong>{}</strong></p><p>{}</p>{}{}",
            appearance.title,
            appearance.summary,
            format_html("<p>{}</p>", source) if source else "",
            format_html("<ul>{}</ul>", links) if links else "",
        )

    def item_link(self, item):
        # The appearance on its release's page: the feature, where the release shows it.
        _, _, appearance = item
        url = reverse("page-release", kwargs={"version": appearance.release.version})
        return f"{url}#{appearance.slug}"

    def item_pubdate(self, item):
        return day_start(item[2].release.release_date)

    def item_updateddate(self, item):
        return item[2].updated_at


class ScheduleFeed(StrictFeed):
    """The release schedule's dates, the latest changed first: a new plan, a date that moved."""

    feed_type = Atom1Feed
    title = "PyTorch release schedule"
    subtitle = "Branch cuts, releases and patch releases as PyTorch plans them, as they change."
    author_name = "PyTorch Release Catalog"

    def link(self):
        return reverse("page-compatibility")

    def items(self):
        dates = ScheduleDate.objects.published().select_related("release")
        return dates.order_by("-updated_at", "-pk")[:50]

    def item_title(self, date):
        tentative = " (tentative)" if date.tentative else ""
        return f"PyTorch {date.release.version}: {date.label()} on {date.shown_date()}{tentative}"

    def item_description(self, date):
        return format_html("<p>{}</p>", date.disputed) if date.disputed else ""

    def item_link(self, date):
        return f"{date.release.get_absolute_url()}#runs-on"

    def item_guid(self, date):
        return f"schedule-{date.release.version}-{date.kind}-{date.number}-{date.row_version}"

    def item_pubdate(self, date):
        return date.updated_at

    def item_updateddate(self, date):
        return date.updated_at


class UpgradeFeed(StrictFeed):
    """A release's upgrade notes: what may need a change in user code when moving to it."""

    feed_type = Atom1Feed
    author_name = "PyTorch Release Catalog"

    def __call__(self, request, *args, **kwargs):
        """Another spelling of the release's version is a 301 to its own, as pages answer."""
        releases = Release.objects.published().annotate(previous_version=previous_release())
        try:
            release = releases.of_version(kwargs["version"]).first()
        except InvalidVersion:
            release = None
        if release is None:
            raise Http404(f"No release {kwargs['version']}.")
        moved = canonical.redirect_to_canonical(request, release, kwargs["version"], "feed-upgrade")
        if moved:
            return moved
        request.upgrade_release = release  # found once: get_object hands it to the feed
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request, version):
        return request.upgrade_release

    def title(self, release):
        return f"Upgrading to PyTorch {release.version}: breaking changes and deprecations"

    def subtitle(self, release):
        return (
            f"What the {release.version} release notes say may need a change in your code, "
            "each with its APIs and pull requests."
        )

    def link(self, release):
        start = release.previous_version
        query = f"?from={start}&to={release.version}" if start else f"?to={release.version}"
        return reverse("page-upgrade") + query

    def items(self, release):
        notes = list(UpgradeNote.objects.for_api().filter(release=release))
        for note in notes:  # each links into its release's checklist
            note.checklist = self.link(release)
        return notes

    def item_title(self, note):
        return f"{note.get_kind_display()}, {note.area_shown}: {note.summary}"

    def item_description(self, note):
        apis = format_html_join(", ", "<code>{}</code>", ((api.name,) for api in note.apis.all()))
        prs = format_html_join(
            ", ", '<a href="{}">#{}</a>', ((url, n) for n, url in note.pull_request_urls())
        )
        instead = format_html("<p>Instead: <code>{}</code></p>", note.replacement)
        return format_html(
            "<p>{}</p>{}{}<p>Pull requests: {}</p>",
            note.summary,
            format_html("<p>APIs: {}</p>", apis) if note.apis.all() else "",
            instead if note.replacement else "",
            prs or "none cited",
        )

    def item_link(self, note):
        return f"{note.checklist}#{note.release.version}-{note.slug}"

    def item_guid(self, note):
        return f"upgrade:{note.release.version}:{note.slug}"

    def item_guid_is_permalink(self, note):
        return False

    def item_pubdate(self, note):
        return note.created_at

    def item_updateddate(self, note):
        return note.updated_at


class ChangeFeed(StrictFeed):
    """
    The public change log's newest entries in one topic (releases.topics): the feed of what a
    webhook or a digest of that topic tells, for people who prefer a reader.
    """

    feed_type = Atom1Feed
    author_name = "PyTorch Release Catalog"

    def __call__(self, request, *args, **kwargs):
        try:
            topics.parse(kwargs.get("topic", ""))
        except topics.BadTopic as error:
            return JsonResponse({"topic": [str(error)]}, status=400)
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request, topic):
        return topics.parse(topic)

    def title(self, topic):
        return f"PyTorch Release Catalog: changes in {topic}"

    def subtitle(self, topic):
        return "What the public catalog changed in this topic, newest first."

    def link(self, topic):
        return f"{reverse('subscribe')}?topic={topic}"

    def items(self, topic):
        return changes.latest(topic)

    def item_title(self, change):
        what, title = change.describe()
        return f"{what}: {title}" if title else what

    def item_description(self, change):
        return format_html(
            "<p>Change {} of the public change log, {}.</p>", change.entry.pk, change.action
        )

    def item_link(self, change):
        return change.path

    def item_guid(self, change):
        return f"change-{change.entry.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, change):
        return change.entry.time

    def item_updateddate(self, change):
        return change.entry.time
