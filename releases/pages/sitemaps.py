"""django.contrib.sitemaps: every public page, drafts never."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from releases import surfaces
from releases.models import Release, Track


class PageSitemap(Sitemap):
    def items(self):
        return surfaces.sitemap_pages()  # every page without arguments (releases.surfaces)

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
