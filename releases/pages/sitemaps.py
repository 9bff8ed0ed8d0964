"""django.contrib.sitemaps: every public page, drafts never."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from releases.models import Release, Track


class PageSitemap(Sitemap):
    def items(self):
        return ["page-home", "page-releases", "page-tracks", "page-matrix", "page-compare",
                "page-features", "page-graduation", "page-stages", "page-sources"]  # fmt: skip

    def location(self, item):
        return reverse(item)


class ReleaseSitemap(Sitemap):
    def items(self):
        return Release.objects.published().order_by("-version_key")

    def lastmod(self, release):
        return release.updated_at


class StateSitemap(Sitemap):
    """Each published release's state: every track's stage as of it."""

    def items(self):
        return Release.objects.published().order_by("-version_key")

    def location(self, release):
        return reverse("page-state", kwargs={"version": release.version})

    def lastmod(self, release):
        return release.updated_at


class TrackSitemap(Sitemap):
    def items(self):
        return Track.objects.with_stage().order_by("slug")

    def lastmod(self, track):
        return track.updated_at


SITEMAPS = {
    "pages": PageSitemap,
    "releases": ReleaseSitemap,
    "state": StateSitemap,
    "tracks": TrackSitemap,
}
