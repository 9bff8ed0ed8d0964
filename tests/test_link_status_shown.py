"""Readers see what the link checks found: pages mark a broken link and offer its archived
copy; a track's feed gives each appearance's links with their status."""

import feedparser
import pytest
from django.utils import timezone

from releases.models import Link, LinkStatus

pytestmark = pytest.mark.django_db


def find_link(url):
    return Link.objects.get(url=url, feature__release__version="1.8")


FFT_DOCS = "https://pytorch.org/docs/1.8.0/fft.html"


def test_a_broken_link_is_marked_on_its_release_page_with_an_archived_copy(
    client, catalog, uncached
):
    link = find_link(FFT_DOCS)
    Link._base_manager.filter(pk=link.pk).update(
        status=LinkStatus.BROKEN, http_status=404, checked_at=timezone.now()
    )
    page = client.get("/releases/1.8/").content.decode()
    assert "broken when last checked" in page
    assert f'href="https://web.archive.org/web/20210304/{FFT_DOCS}"' in page


def test_a_link_that_works_is_not_marked(client, catalog, uncached):
    Link._base_manager.filter(url=FFT_DOCS).update(status=LinkStatus.OK)
    page = client.get("/releases/1.8/").content.decode()
    assert "broken when last checked" not in page and "web.archive.org" not in page


def test_a_tracks_feed_carries_its_links_status(client, catalog, uncached):
    Link._base_manager.filter(url=FFT_DOCS).update(status=LinkStatus.BROKEN)
    feed = feedparser.parse(client.get("/feeds/tracks/torch-fft/").content)
    described = " ".join(entry.summary for entry in feed.entries)
    assert f'<a href="{FFT_DOCS}">' in described and "(broken)" in described
