"""
Issue 42: only http and https URLs are stored, whoever writes them: the rule sits in the one
write path (releases.writes.prepare), so a save, an update, a bulk write, a fixture and the
shell all obey it, and nothing of a refused write is kept.
"""

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from releases.models import Feature, Link, Release

HOSTILE = ["javascript:alert(1)", "data:text/html,<b>x</b>", "ftp://example.org/x", " JavaScript:x"]


@pytest.mark.parametrize("url", HOSTILE)
def test_a_save_refuses_a_url_that_is_not_http(catalog, url):
    feature = Feature.objects.filter(release__version="1.8").first()
    with pytest.raises(ValidationError, match="Only http and https"):
        Link.objects.create(feature=feature, label="Docs", url=url)
    assert not Link.objects.filter(url=url).exists()


def test_an_update_and_a_bulk_write_refuse_it_and_keep_nothing(catalog):
    links = Link.objects.filter(feature__release__version="1.8").exclude(url="")
    before = list(links.values_list("pk", "url"))
    link = links.first()
    with pytest.raises(ValidationError), transaction.atomic():  # as a request's transaction
        Link.objects.filter(pk=link.pk).update(url="javascript:alert(1)")
    assert list(links.values_list("pk", "url")) == before
    link.url = "data:text/html,x"
    with pytest.raises(ValidationError), transaction.atomic():
        Link.objects.bulk_update([link], ["url"])
    with pytest.raises(ValidationError), transaction.atomic():
        Link.objects.bulk_create([Link(feature=link.feature, label="x", url="ftp://x.org/")])
    assert list(links.values_list("pk", "url")) == before


def test_every_url_field_obeys_and_http_still_passes(catalog):
    release = Release.objects.get(version="1.8")
    release.announcement_url = "javascript:alert(1)"
    with pytest.raises(ValidationError, match="announcement_url"):
        release.save()
    release.refresh_from_db()
    release.announcement_url = "https://pytorch.org/blog/pytorch-1.8-released/"
    release.save()
    link = Link.objects.exclude(url="").first()
    link.url = "http://example.org/page"
    link.save()
    assert Link.objects.get(pk=link.pk).url == "http://example.org/page"


def test_a_line_break_in_a_title_and_a_nul_in_text_are_refused(catalog):
    """Issue 42: CR LF typed into a title, a NUL in a summary: refused by the write path."""
    feature = Feature.objects.filter(release__version="1.8").first()
    title = feature.title
    feature.title = "Two\r\nlines"
    with pytest.raises(ValidationError, match="write it on one line"):
        feature.save()
    feature.title, feature.summary = title, "A summary with a \x00 in it."
    with pytest.raises(ValidationError, match="U\\+0000"):
        feature.save()
    feature.summary = "Paragraphs\n\nare fine in text."
    feature.save()
    assert Feature.objects.get(pk=feature.pk).title == title


def test_a_row_stored_before_the_rule_renders_as_text_not_a_link(catalog, client, uncached):
    """Issue 42: a javascript: URL written before the rule (straight in SQL here, as an old
    row would be) is shown on the release page and in the track's feed, never as an href."""
    from django.db import connection

    release = Release.objects.get(version="1.8")
    link = Link.objects.filter(feature__release=release).exclude(url="").first()
    with connection.cursor() as cursor:
        table = connection.ops.quote_name(Link._meta.db_table)
        cursor.execute(
            f"UPDATE {table} SET url = %s WHERE id = %s", ["javascript:alert(1)", link.pk]
        )  # noqa: S608
        table = connection.ops.quote_name(Release._meta.db_table)
        cursor.execute(
            f"UPDATE {table} SET announcement_url = %s WHERE id = %s",
            ["data:text/html,x", release.pk],
        )  # noqa: S608
    page = client.get(f"/releases/{release.version}/")
    feed = client.get(f"/feeds/tracks/{link.feature.track.slug}/")

    assert page.status_code == 200 and feed.status_code == 200
    for answer in (page, feed):
        body = answer.content.decode()
        assert 'href="javascript:' not in body and "href=&quot;javascript:" not in body
        assert 'href="data:' not in body
    assert link.feature.title in page.content.decode()  # the feature and its link's label stay
