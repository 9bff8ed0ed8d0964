"""
Reading the blog's feed: its entries, which of them announce a release, and whether a link
stays on the blog's own site.
"""

import datetime as dt
import io
import urllib.parse
from dataclasses import dataclass

import feedparser

from releases import versions
from releases.importing.folder import announces_release
from releases.importing.parse.reading import version_from_title
from releases.models import BlogAnnouncement


class FeedError(Exception):
    """The feed answered with something that is not an RSS or Atom feed."""


@dataclass(frozen=True)
class Entry:
    """A post the feed lists. ``version`` is set when its title announces a release."""

    url: str
    title: str
    version: str | None
    published_date: dt.date | None


def read_feed(body, *, url, content_type=""):
    """
    The feed's posts, from an RSS or Atom document; FeedError for anything else (an HTML page,
    a truncated or malformed document, an empty answer). Relative links resolve against ``url``.
    """
    if not body.strip():
        raise FeedError("the answer is empty")
    # A stream, never bytes or text: feedparser takes a string for a file name or a URL to open.
    parsed = feedparser.parse(
        io.BytesIO(body),
        response_headers={"content-location": url, "content-type": content_type or "text/xml"},
        sanitize_html=False,
    )
    if not parsed.get("version"):
        raise FeedError(f"not RSS or Atom ({content_type})" if content_type else "not RSS or Atom")
    problem = parsed.get("bozo_exception")
    if problem is not None and not is_harmless(problem):
        # A truncated or broken document: what feedparser still makes of it may lack posts.
        line = problem.getLineNumber() if hasattr(problem, "getLineNumber") else None
        message = problem.getMessage() if hasattr(problem, "getMessage") else str(problem)
        where = f" (line {line})" if line else ""
        raise FeedError(f"not well-formed XML: {message}{where}")
    entries = []
    for item in parsed.entries:
        link = urllib.parse.urljoin(url, str(item.get("link") or "").strip())
        title = " ".join(str(item.get("title") or "").split())
        # Posts the watch could neither download nor store (an address of over 500 characters).
        if not title or urllib.parse.urlsplit(link).scheme not in ("http", "https"):
            continue
        if len(link) > BlogAnnouncement._meta.get_field("url").max_length:
            continue
        entries.append(Entry(link, title, release_version(title), published_date(item)))
    return entries


def is_harmless(problem):
    """feedparser's notes about a document it read all the same (a charset it corrected)."""
    return isinstance(problem, feedparser.ThingsNobodyCaresAboutButMe) and not isinstance(
        problem, feedparser.CharacterEncodingUnknown
    )


def release_version(title):
    """The version a post's title announces ("PyTorch 2.15 Release Blog"), else None."""
    if not announces_release(title):
        return None
    try:
        return version_from_title(title)
    except versions.InvalidVersion:
        return None


def published_date(item):
    stamp = item.get("published_parsed") or item.get("updated_parsed")
    return dt.date(*stamp[:3]) if stamp else None


DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url):
    """(scheme, host, port) of ``url``, the port filled in where the URL leaves it out."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # a port that is no number, or out of range: no origin at all
        return None
    scheme = parts.scheme.lower()
    return scheme, parts.hostname, port or DEFAULT_PORTS.get(scheme)


def same_site(url, feed_url):
    """Whether ``url`` is on the feed's own site: the same scheme, host and port (the only
    origin posts are downloaded from)."""
    mine = origin(url)
    return mine is not None and mine == origin(feed_url)
