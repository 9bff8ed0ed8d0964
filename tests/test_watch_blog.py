"""
watch_blog against a stand-in for the blog: an HTTP server the tests start on 127.0.0.1
(threads), never the internet. It serves an RSS or Atom feed and the posts it links, written
here in our own words, answers conditional requests as a real server does (ETag,
Last-Modified, 304), and can fail the ways a site does — 500s, a 404, an answer slower than the
timeout, a page that is not a feed. It notes every request, so tests read what the watch sent.
"""

import datetime as dt
import gzip
import http.server
import io
import threading
import time
from dataclasses import dataclass, field

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections
from django.urls import reverse
from django.utils import timezone

from releases.importing import feed, lease, watch
from releases.models import BlogAnnouncement, BlogFeed, Feature, Release

pytestmark = pytest.mark.django_db

TIMEOUT = 0.5
BACKOFF = 0.05
SLOW = 1.5  # how long a slow answer takes: past the timeout

POST_7_3 = """\
---
layout: blog_detail
title: 'PyTorch 7.3 Release Blog'
date: 2031-05-14
---

PyTorch 7.3 is out. What follows is a short tour of what it brings.

# Frontend APIs

## [Beta] Tensor lenses

A lens shows a tensor through a named transform without copying it. The
[lens documentation](https://example.org/docs/lenses) walks through one.

## [Prototype] Quiet compilation

Compiling a model now logs only what went wrong.
"""

# The new blog serves its posts as HTML articles.
POST_7_6_ARTICLE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>PyTorch 7.6 Release Blog | A stand-in blog</title>
<meta property="og:title" content="PyTorch 7.6 Release Blog">
<link rel="canonical" href="https://blog.example.org/blog/pytorch-7-6-release-blog/">
<meta property="article:published_time" content="2031-11-03T16:00:00+00:00">
</head>
<body>
<nav><a href="/blog/">Blog</a></nav>
<main><article>
<h1>PyTorch 7.6 Release Blog</h1>
<div class="entry-content">
<p>PyTorch 7.6 is here, with two things worth a look.</p>
<h2>Frontend APIs</h2>
<h3>[Stable] Tensor lenses</h3>
<p>Lenses, new in 7.3, are stable now. The
<a href="https://example.org/docs/lenses">documentation</a> is up to date.</p>
<h3>[Beta] Folded optimizers</h3>
<p>An optimizer can fold its state into fewer buffers.</p>
</div>
</article></main>
<footer>A stand-in blog for the tests.</footer>
</body>
</html>
"""

# A post the importer cannot use: it announces a release but names no feature.
POST_7_4_WITHOUT_FEATURES = """\
---
title: 'PyTorch 7.4 Release Blog'
date: 2031-08-02
---

PyTorch 7.4 is out. Details follow in a later post.
"""


def rss(*items):
    """An RSS 2.0 feed of ``items``: (title, link, day)."""
    entries = "".join(
        f"<item><title>{title}</title><link>{link}</link>"
        f"<pubDate>{day:%a, %d %b %Y} 09:00:00 +0000</pubDate></item>"
        for title, link, day in items
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
        "<title>A stand-in blog</title><link>http://127.0.0.1/</link>"
        f"<description>Posts for the tests</description>{entries}</channel></rss>"
    ).encode()


def atom(*items):
    entries = "".join(
        f'<entry><title>{title}</title><link href="{link}"/><id>{link}</id>'
        f"<updated>{day:%Y-%m-%d}T09:00:00Z</updated></entry>"
        for title, link, day in items
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        "<title>A stand-in blog</title><id>urn:stand-in</id><updated>2031-05-14T09:00:00Z</updated>"
        f"{entries}</feed>"
    ).encode()


# The feed's posts: a release announcement the catalog lacks, one it holds (1.9, of the seed
# catalog), a post about a feature and a companion post, neither of which announces a release.
FEED_ITEMS = (
    ("PyTorch 7.3 Release Blog", "/blog/pytorch-7-3-release-blog/", dt.date(2031, 5, 14)),
    ("Faster lenses with PyTorch 7.3", "/blog/faster-lenses/", dt.date(2031, 5, 20)),
    ("New Library Updates in PyTorch 7.3", "/blog/library-updates-7-3/", dt.date(2031, 5, 14)),
    (
        "PyTorch 1.9 Release, including new APIs",
        "/blog/pytorch-1-9-released/",
        dt.date(2021, 6, 15),
    ),
)


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    # Answer 304 to a request that sends these back (If-None-Match / If-Modified-Since).
    etag: str = ""
    last_modified: str = ""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        server = self.server
        with server.lock:
            count = server.counts[self.path] = server.counts.get(self.path, 0) + 1
            server.requests.append({"path": self.path, "headers": dict(self.headers.items())})
            replies = server.routes.get(self.path, Reply(404, b"no such page"))
        if isinstance(replies, list):  # one reply per request, the last one from then on
            reply = replies[min(count, len(replies)) - 1]
        else:
            reply = replies
        if reply.delay:
            time.sleep(reply.delay)
        status, body = reply.status, reply.body
        if (reply.etag and self.headers.get("If-None-Match") == reply.etag) or (
            reply.last_modified and self.headers.get("If-Modified-Since") == reply.last_modified
        ):
            status, body = 304, b""
        try:
            self.send_response(status)
            self.send_header("Content-Type", reply.content_type)
            for name, value in {
                **reply.headers,
                **({"ETag": reply.etag} if reply.etag else {}),
                **({"Last-Modified": reply.last_modified} if reply.last_modified else {}),
            }.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting: as it should, past its timeout

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.routes, self.requests, self.counts = {}, [], {}

    def url(self, path):
        return f"http://127.0.0.1:{self.server_port}{path}"

    def requests_for(self, path):
        return [request for request in self.requests if request["path"] == path]

    def serve_blog(self, feed=None, **feed_reply):
        """The feed at /feed/ with the 7.3 post; ``feed`` replaces the feed's items."""
        self.routes["/feed/"] = Reply(
            body=rss(*(FEED_ITEMS if feed is None else feed)),
            content_type="application/rss+xml; charset=UTF-8",
            **feed_reply,
        )
        self.routes["/blog/pytorch-7-3-release-blog/"] = Reply(
            body=POST_7_3.encode(), content_type="text/markdown; charset=utf-8"
        )


@pytest.fixture
def stand_in(settings, catalog):
    """The stand-in blog, BLOG_FEED_URL pointing at its feed, and the seed catalog (1.6-1.9)."""
    server = Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.BLOG_FEED_URL = server.url("/feed/")
    settings.CATALOG_URL = "https://catalog.example.org/"
    yield server
    server.shutdown()
    server.server_close()


def watch_blog(*args):
    """Run the command as cron would; its output."""
    out = io.StringIO()
    call_command(
        "watch_blog", "--timeout", str(TIMEOUT), "--backoff", str(BACKOFF), *args, stdout=out
    )
    return out.getvalue()


def failing_watch_blog(*args):
    """Run the command expecting it to fail (exit status 1): its message."""
    with pytest.raises(CommandError) as failure:
        watch_blog(*args)
    return str(failure.value)


def catalog_state():
    """What a run must leave alone when it fails: releases, features, their history, the
    announcements and the feed's validators."""
    return (
        list(Release.objects.values_list("version", "is_published", "row_version")),
        Feature.objects.count(),
        Release.history.count(),
        list(BlogAnnouncement.objects.values_list("url", "release_id", "problem")),
        list(
            BlogFeed.objects.exclude(etag="", last_modified="").values_list("etag", "last_modified")
        ),
    )


# --- a new release ---------------------------------------------------------------------------


def test_a_release_post_in_the_feed_becomes_a_draft_on_the_editors_desk(stand_in, editor_client):
    stand_in.serve_blog(etag='"feed-1"')
    output = watch_blog()

    assert output.count("\n") == 1, output  # one summary line
    assert "4 posts, 2 release announcements (2 new)" in output
    assert "imported 7.3 as a draft" in output
    release = Release.objects.get(version="7.3")
    assert not release.is_published and release.release_date == dt.date(2031, 5, 14)
    assert list(release.features.values_list("slug", "stability")) == [
        ("tensor-lenses", "beta"),
        ("quiet-compilation", "prototype"),
    ]
    # Every announcement is recorded; 1.9, which the catalog holds, is tied to it, unread.
    found = {a.version: a for a in BlogAnnouncement.objects.all()}
    assert set(found) == {"7.3", "1.9"}
    assert found["7.3"].release == release and found["7.3"].problem == ""
    assert found["7.3"].published_date == dt.date(2031, 5, 14)
    assert found["1.9"].release == Release.objects.get(version="1.9")
    # Only the feed and the one post were asked for, each saying who asks.
    assert [r["path"] for r in stand_in.requests] == ["/feed/", "/blog/pytorch-7-3-release-blog/"]
    for request in stand_in.requests:
        assert request["headers"]["User-Agent"] == (
            "PyTorchReleaseCatalog-watch/1.0 "
            "(PyTorch Release Catalog; +https://catalog.example.org/)"
        )
    # The history says the draft is import_post's, from the post's URL; so does its provenance.
    post_url = stand_in.url("/blog/pytorch-7-3-release-blog/")
    assert release.history.earliest().history_change_reason == f"import_post {post_url}"
    assert {feature.source_url for feature in release.features.all()} == {post_url}

    page = editor_client.get(reverse("admin:index"))
    desk = page.content.decode()
    assert "PyTorch 7.3</a> (draft)" in desk  # the newest release held
    assert [release.version for release, _ in page.context["drafts"]] == ["7.3"]
    assert reverse("admin:releases_release_publish", args=[release.pk]) in desk
    assert "Announced on the blog, not imported" not in desk  # nothing left behind


def test_an_atom_feed_is_read_as_well(stand_in):
    stand_in.serve_blog()
    stand_in.routes["/feed/"] = Reply(
        body=atom(*FEED_ITEMS[:1]), content_type="application/atom+xml"
    )
    assert "imported 7.3 as a draft" in watch_blog()
    assert Release.objects.filter(version="7.3", is_published=False).exists()


def test_an_html_article_of_the_new_blog_becomes_a_draft_too(stand_in):
    post = ("PyTorch 7.6 Release Blog", "/blog/pytorch-7-6-release-blog/", dt.date(2031, 11, 3))
    stand_in.serve_blog(feed=[post])
    stand_in.routes[post[1]] = Reply(body=POST_7_6_ARTICLE.encode())

    assert "imported 7.6 as a draft" in watch_blog()

    release = Release.objects.get(version="7.6")
    assert not release.is_published and release.release_date == dt.date(2031, 11, 3)
    assert release.announcement_url == "https://blog.example.org/blog/pytorch-7-6-release-blog/"
    assert list(release.features.values_list("slug", "stability")) == [
        ("tensor-lenses", "stable"),
        ("folded-optimizers", "beta"),
    ]


def test_titles_that_announce_a_release():
    assert feed.release_version("PyTorch 2.15 Release Blog") == "2.15"
    assert feed.release_version("PyTorch 2.15 Release") == "2.15"
    assert feed.release_version("PyTorch 2.1.2 released, with fixes") == "2.1.2"
    assert feed.release_version("New Library Updates in PyTorch 2.15") is None
    assert feed.release_version("Accelerating lenses with PyTorch 2.15") is None
    assert feed.release_version("PyTorch 2.15 now includes lenses") is None


# --- idempotent and conditional ------------------------------------------------------------------


def test_a_second_run_asks_conditionally_and_changes_nothing(stand_in):
    stamp = "Wed, 14 May 2031 09:00:00 GMT"
    stand_in.serve_blog(etag='"feed-1"', last_modified=stamp)
    watch_blog()
    before = catalog_state()
    stand_in.requests.clear()

    output = watch_blog()

    feed_url = stand_in.url("/feed/")
    assert output == (
        f"watch_blog: {feed_url} unchanged since the last run (304); nothing to import.\n"
    )
    [request] = stand_in.requests  # the feed only, no post
    assert request["headers"]["If-None-Match"] == '"feed-1"'
    assert request["headers"]["If-Modified-Since"] == stamp
    assert catalog_state() == before


def test_a_feed_without_validators_read_again_imports_nothing_again(stand_in):
    stand_in.serve_blog()  # no ETag, no Last-Modified: every run reads it whole
    watch_blog()
    before = catalog_state()
    stand_in.requests.clear()

    output = watch_blog()

    assert "(0 new); nothing to import." in output
    assert [r["path"] for r in stand_in.requests] == ["/feed/"]
    assert "If-None-Match" not in stand_in.requests[0]["headers"]
    assert catalog_state() == before


# --- failures leave the catalog as it was --------------------------------------------------------


def test_a_feed_that_keeps_failing_is_tried_three_times_and_changes_nothing(stand_in, catalog):
    stand_in.serve_blog(etag='"feed-1"')
    watch_blog()
    before = catalog_state()
    stand_in.routes["/feed/"] = Reply(500, b"the blog is down")

    message = failing_watch_blog()

    assert message == (
        f"watch_blog: {stand_in.url('/feed/')}: unreachable: HTTP 500 Internal Server Error "
        "(3 attempts); the catalog is unchanged."
    )
    assert len(stand_in.requests_for("/feed/")) == 1 + 3
    assert catalog_state() == before  # the validators of the last good answer stay
    feed = BlogFeed.objects.get()
    assert feed.is_failing and feed.outcome == message and feed.lease_holder == ""


def test_a_feed_that_fails_once_is_read_on_the_next_attempt(stand_in):
    stand_in.serve_blog()
    good = stand_in.routes["/feed/"]
    stand_in.routes["/feed/"] = [Reply(503, b"busy"), good]

    assert "imported 7.3 as a draft" in watch_blog()
    assert len(stand_in.requests_for("/feed/")) == 2


def test_a_server_that_asks_to_come_back_later_is_left_for_the_next_run(stand_in):
    stand_in.routes["/feed/"] = Reply(503, b"maintenance", headers={"Retry-After": "3600"})

    message = failing_watch_blog()

    assert "HTTP 503 Service Unavailable, asking to come back in 3600 s;" in message
    assert len(stand_in.requests_for("/feed/")) == 1


def test_a_feed_larger_than_the_limit_is_refused(stand_in, monkeypatch):
    monkeypatch.setattr(watch, "MAX_FEED_BYTES", 300)
    stand_in.serve_blog()
    before = catalog_state()

    assert "larger than 300 bytes" in failing_watch_blog()
    assert catalog_state() == before


@pytest.mark.parametrize(
    "encoding, body, says",
    [
        ("gzip", gzip.compress(b"<rss>" + b" " * (64 * 1024 * 1024), mtime=0), "larger than 5 MiB"),
        (
            "gzip, gzip",
            gzip.compress(gzip.compress(b"<rss/>", mtime=0), mtime=0),
            "encoded 2 times over",
        ),
        ("compress", b"\x1f\x9d", "encoded as 'compress', which is not understood"),
    ],
    # Named by encoding: every xdist worker must collect the same test ids.
    ids=["gzip", "gzip-twice", "compress"],
)
def test_a_compressed_feed_is_bounded_while_it_inflates(stand_in, encoding, body, says):
    stand_in.serve_blog()
    stand_in.routes["/feed/"] = Reply(body=body, headers={"Content-Encoding": encoding})
    before = catalog_state()

    message = failing_watch_blog()

    assert says in message and "\n" not in message
    assert message.endswith("the catalog is unchanged.")
    assert catalog_state() == before
    assert len(stand_in.requests_for("/feed/")) == 1  # refused for good, not tried again


def test_a_4xx_is_never_asked_again(stand_in):
    stand_in.routes["/feed/"] = Reply(404, b"no feed here")
    before = catalog_state()

    message = failing_watch_blog()

    assert "unreachable: HTTP 404 Not Found;" in message
    assert len(stand_in.requests_for("/feed/")) == 1
    assert catalog_state() == before


def test_a_feed_slower_than_the_timeout_changes_nothing(stand_in):
    stand_in.serve_blog()
    stand_in.routes["/feed/"].delay = SLOW
    before = catalog_state()

    message = failing_watch_blog("--attempts", "2")

    assert (
        f"unreachable: no answer within {TIMEOUT:g} s (2 attempts); the catalog is unchanged"
        in message
    )
    assert catalog_state() == before


HTML_PAGE = b"<!doctype html><html><body><p>The blog has moved.</p></body></html>"


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        (HTML_PAGE, "text/html", "not RSS or Atom (text/html)"),
        (b'{"posts": []}', "application/json", "not RSS or Atom (application/json)"),
        (rss(*FEED_ITEMS)[:180], "application/rss+xml", "not well-formed XML: unclosed token"),
        (b"", "application/rss+xml", "the answer is empty"),
    ],
)
def test_garbage_instead_of_a_feed_changes_nothing(stand_in, body, content_type, says):
    stand_in.serve_blog()
    stand_in.routes["/feed/"] = Reply(body=body, content_type=content_type, etag='"garbage"')
    before = catalog_state()

    message = failing_watch_blog()

    feed_url = stand_in.url("/feed/")
    assert message.startswith(f"watch_blog: {feed_url}: not a usable feed: {says}"), message
    assert message.endswith("; the catalog is unchanged.")
    assert catalog_state() == before
    assert len(stand_in.requests_for("/feed/")) == 1  # garbage is not asked for again
    assert stand_in.requests_for("/blog/pytorch-7-3-release-blog/") == []


# --- posts the watch cannot import ---------------------------------------------------------------


def test_a_post_the_importer_refuses_waits_on_the_desk_with_the_reason(stand_in, editor_client):
    items = (*FEED_ITEMS, ("PyTorch 7.4 Release Blog", "/blog/pytorch-7-4/", dt.date(2031, 8, 2)))
    stand_in.serve_blog(feed=items)
    stand_in.routes["/blog/pytorch-7-4/"] = Reply(
        body=POST_7_4_WITHOUT_FEATURES.encode(), content_type="text/markdown"
    )

    output = watch_blog()  # not the watch's failure: exit status 0

    assert "imported 7.3 as a draft" in output
    assert (
        "not imported (see the editors' desk): 7.4: import_post refused it: "
        f"{stand_in.url('/blog/pytorch-7-4/')}:" in output
    )
    assert output.count("\n") == 1
    assert not Release.objects.filter(version="7.4").exists()
    announcement = BlogAnnouncement.objects.get(version="7.4")
    assert announcement.release is None and "announces no features" in announcement.problem

    desk = editor_client.get(reverse("admin:index")).content.decode()
    assert "Announced on the blog, not imported" in desk
    assert "PyTorch 7.4 Release Blog" in desk and "announces no features" in desk


def test_a_post_out_of_reach_fails_the_run_and_is_tried_next_time(stand_in):
    stand_in.serve_blog()
    stand_in.routes["/blog/pytorch-7-3-release-blog/"] = Reply(502, b"bad gateway")

    message = failing_watch_blog()

    post_url = stand_in.url("/blog/pytorch-7-3-release-blog/")
    assert f"failed: 7.3: download failed: {post_url}: HTTP 502 Bad Gateway (3 attempts)" in message
    assert not Release.objects.filter(version="7.3").exists()
    assert "download failed" in BlogAnnouncement.objects.get(version="7.3").problem

    stand_in.serve_blog()  # the blog is back
    assert "imported 7.3 as a draft" in watch_blog()
    assert BlogAnnouncement.objects.get(version="7.3").release.version == "7.3"


def test_a_post_on_another_site_is_not_downloaded(stand_in):
    elsewhere = "http://localhost:9/blog/pytorch-7-5/"  # another host than the feed's
    stand_in.serve_blog(feed=[("PyTorch 7.5 Release Blog", elsewhere, dt.date(2031, 9, 1))])

    output = watch_blog()

    assert "7.5: the post is not on the feed's site (127.0.0.1): not downloaded" in output
    assert not Release.objects.filter(version="7.5").exists()


def test_a_release_an_editor_deleted_is_not_imported_again(stand_in):
    stand_in.serve_blog()
    watch_blog()
    Release.objects.get(version="7.3").delete()
    stand_in.requests.clear()

    output = watch_blog()

    assert "nothing to import" in output
    assert stand_in.requests_for("/blog/pytorch-7-3-release-blog/") == []
    assert "deleted: not imported again" in BlogAnnouncement.objects.get(version="7.3").problem


# --- one run at a time ---------------------------------------------------------------------------


def test_a_run_while_another_holds_the_watch_does_nothing_and_says_so(stand_in):
    stand_in.serve_blog()
    feed_url = stand_in.url("/feed/")
    assert lease.take(BlogFeed, "cron.example pid 41", watch.LEASE, url=feed_url) is not None

    output = watch_blog()  # exit status 0: not a failure

    assert output.startswith("watch_blog: another run is active (cron.example pid 41, lease until")
    assert output.endswith("this one did nothing.\n")
    assert stand_in.requests == []
    assert not Release.objects.filter(version="7.3").exists()


def test_a_lease_left_by_a_run_that_died_lapses(stand_in):
    stand_in.serve_blog()
    feed_url = stand_in.url("/feed/")
    lease.take(BlogFeed, "crashed pid 7", watch.LEASE, url=feed_url)
    BlogFeed.objects.filter(url=feed_url).update(lease_expires_at=timezone.now())

    assert "imported 7.3 as a draft" in watch_blog()
    assert BlogFeed.objects.get(url=feed_url).lease_holder == ""


def test_two_runs_at_once_import_once(stand_in, transactional_db):
    stand_in.serve_blog()
    stand_in.routes["/feed/"].delay = 0.3  # the first run is still reading when the second starts
    outputs = []

    def run():
        try:
            outputs.append(watch_blog())
        finally:
            connections.close_all()

    first = threading.Thread(target=run)
    first.start()
    deadline = time.monotonic() + 10
    while not stand_in.requests_for("/feed/") and time.monotonic() < deadline:
        time.sleep(0.01)  # until the first run, holding the watch, is reading the feed
    second = watch_blog()
    first.join()

    assert "another run is active" in second
    assert "imported 7.3 as a draft" in outputs[0]
    assert len(stand_in.requests_for("/feed/")) == 1
    assert Release.objects.filter(version="7.3").count() == 1


# --- the desk ------------------------------------------------------------------------------------


def test_the_desk_says_how_current_the_catalog_is(stand_in, editor_client):
    desk = editor_client.get(reverse("admin:index")).content.decode()
    assert "How current the catalog is" in desk
    assert "Never: <code>manage.py watch_blog</code>" in desk
    assert "PyTorch 1.9</a>, released 15 June 2021" in desk  # the seed catalog's newest

    stand_in.serve_blog()
    stand_in.routes["/blog/pytorch-7-3-release-blog/"] = Reply(404, b"not yet")
    failing_watch_blog()
    watched = BlogFeed.objects.get().checked_at

    page = editor_client.get(reverse("admin:index"))
    desk = page.content.decode()
    assert f'<time datetime="{watched.isoformat()}">' in desk
    assert "the run failed" in desk and "failed: 7.3: download failed" in desk
    assert "Announced on the blog, not imported" in desk
    assert f'<a href="{stand_in.url("/blog/pytorch-7-3-release-blog/")}"' in desk
    assert "download failed" in desk
    currency = page.context["currency"]
    assert [a.version for a in currency.announced] == ["7.3"]
    assert (currency.newest.version, currency.newest_published.version) == ("1.9", "1.9")


def test_administrators_read_what_the_watch_found_and_change_none_of_it(stand_in, admin_client):
    stand_in.serve_blog()
    stand_in.routes["/blog/pytorch-7-3-release-blog/"] = Reply(404, b"not yet")
    failing_watch_blog()
    announcement = BlogAnnouncement.objects.get(version="7.3")

    listed = admin_client.get(
        reverse("admin:releases_blogannouncement_changelist"), {"is_imported": "no"}
    )
    assert [a.version for a in listed.context["cl"].result_list] == ["7.3"]
    assert "HTTP 404 Not Found" in listed.content.decode()
    shown = admin_client.get(
        reverse("admin:releases_blogannouncement_change", args=[announcement.pk])
    )
    assert shown.status_code == 200 and 'name="_save"' not in shown.content.decode()
    assert admin_client.get(reverse("admin:releases_blogannouncement_add")).status_code == 403
    feeds = admin_client.get(reverse("admin:releases_blogfeed_changelist"))
    assert stand_in.url("/feed/") in feeds.content.decode()


@pytest.mark.parametrize(
    "url, same",
    [
        ("https://pytorch.org/blog/x/", True),
        ("https://pytorch.org:443/blog/x/", True),
        ("https://PYTORCH.org/blog/x/", True),
        ("https://pytorch.org:8443/blog/x/", False),  # another port of the same host
        ("http://pytorch.org/blog/x/", False),  # another scheme
        ("https://pytorch.org:99999/blog/x/", False),  # no port at all
        ("https://evil.example/blog/x/", False),
    ],
)
def test_same_site_compares_scheme_host_and_port(url, same):
    """Issue 42: an entry on another port of the feed's host is not downloaded."""
    from releases.importing.feed import same_site

    assert same_site(url, "https://pytorch.org/feed.xml") is same


def test_a_run_records_the_newest_announcements_up_to_its_cap(stand_in, monkeypatch):
    """Issue 42: a feed of 72,000 entries was one long transaction. A run records the newest
    MAX_ANNOUNCEMENTS (here 5 of 8) in one short one and says how many it left."""
    monkeypatch.setattr(watch, "MAX_ANNOUNCEMENTS", 5)
    items = [
        (f"PyTorch 7.{n} Release Blog", f"/blog/pytorch-7-{n}/", dt.date(2031, 1, 1 + n))
        for n in range(8)
    ]
    stand_in.serve_blog(feed=items)
    said = failing_watch_blog("--limit", "1", "--attempts", "1")  # 7.7's post is not served
    recorded = sorted(BlogAnnouncement.objects.values_list("version", flat=True))
    assert recorded == ["7.3", "7.4", "7.5", "7.6", "7.7"]
    assert "the oldest 3 announcements past 5 not recorded" in said


def test_a_feed_imports_only_its_own_announcements(stand_in, settings):
    """Issue 42: announcements were not tied to their feed, so every later run, against any
    feed, tried (and failed on) the leftovers of another."""
    items = [
        (f"PyTorch 7.{n} Release Blog", f"/elsewhere/7-{n}/", dt.date(2031, 9, n)) for n in (4, 5)
    ]
    stand_in.routes["/other-feed/"] = Reply(body=rss(*items), content_type="application/rss+xml")
    settings.BLOG_FEED_URL = stand_in.url("/other-feed/")
    failing_watch_blog("--attempts", "1")  # neither post is served: both are left pending
    assert BlogAnnouncement.objects.filter(release__isnull=True).count() == 2

    settings.BLOG_FEED_URL = stand_in.url("/feed/")
    stand_in.serve_blog()
    stand_in.requests.clear()
    said = watch_blog("--attempts", "1")

    assert "imported 7.3 as a draft" in said and "7.4" not in said
    assert [r["path"] for r in stand_in.requests] == ["/feed/", "/blog/pytorch-7-3-release-blog/"]
    other = BlogFeed.objects.get(url=stand_in.url("/other-feed/"))
    assert sorted(other.announcements.values_list("version", flat=True)) == ["7.4", "7.5"]
