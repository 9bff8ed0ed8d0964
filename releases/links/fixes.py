"""
What to put in place of a link that ``check_links`` found broken, unreachable or moved for
good: the suggestions the editors' "Broken links" queue offers, one click each.

- **The redirect's target**, for a link permanently redirected (301/308): where it now lives.
- **The release's versioned documentation**, for a link to PyTorch's moving documentation
  (``/docs/stable/``, ``/docs/master/``, ``/docs/main/``): the same page as it was documented
  for the link's release. pytorch.org names those docs by the full version up to 1.10
  (``/docs/1.8.0/``, ``/docs/1.10.0/``) and by the minor version from 1.11 on (``/docs/1.11/``,
  ``/docs/2.1/``), as the release posts' own links do.
- **An archived copy** near the release date: a Wayback Machine address built from the date
  (``https://web.archive.org/web/20210304/<url>``), which the archive answers with its nearest
  snapshot. Built, not fetched: nothing here touches the network.

Plain Python, no Django: the admin (``releases.admin.linkdesk``) gives it a link's values.
"""

import datetime as dt
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from releases import versions

# The statuses a link needs an editor for (releases.models.LinkStatus values).
BROKEN, UNREACHABLE, REDIRECTED = "broken", "unreachable", "redirected"
NEEDS_FIX = (BROKEN, UNREACHABLE, REDIRECTED)

# Kinds of suggestion, in the order the queue offers them.
REDIRECT_TARGET, VERSIONED_DOCS, ARCHIVED_COPY = "redirect", "versioned_docs", "archived"
DESCRIPTIONS = {
    REDIRECT_TARGET: "the redirect's target",
    VERSIONED_DOCS: "the release's versioned docs",
    ARCHIVED_COPY: "an archived copy",
}

DOCS_HOSTS = frozenset({"pytorch.org", "www.pytorch.org", "docs.pytorch.org"})
MOVING_DOCS = frozenset({"stable", "master", "main"})
# From 1.11 on, pytorch.org keeps one documentation per minor version: /docs/1.11/, /docs/2.0/.
MINOR_DOCS_SINCE = versions.Version(1, 11)
WAYBACK = "https://web.archive.org/web/"


@dataclass(frozen=True)
class Suggestion:
    kind: str
    url: str

    @property
    def description(self):
        return DESCRIPTIONS[self.kind]


def redirect_target(url, status, final_url):
    """Where a permanently redirected link now lives, or None."""
    if status != REDIRECTED or not final_url or final_url == url:
        return None
    return final_url


def docs_version(version):
    """
    The version as pytorch.org's documentation names it ("1.8" -> "1.8.0", "1.9.1" -> "1.9.1",
    "1.11" -> "1.11", "2.1.2" -> "2.1"), or None for a pre-release or a text that is no version.
    """
    try:
        parsed = versions.Version.parse(version)
    except versions.InvalidVersion:
        return None
    if parsed.pre_rank != versions.PRE_RELEASE_RANKS[""]:
        return None  # no documentation is published for a release candidate
    if (parsed.major, parsed.minor) >= (MINOR_DOCS_SINCE.major, MINOR_DOCS_SINCE.minor):
        return f"{parsed.major}.{parsed.minor}"
    return f"{parsed.major}.{parsed.minor}.{parsed.micro}"


def versioned_docs_url(url, version):
    """
    The same page of PyTorch's documentation under ``version``'s own docs, for a link to the
    moving ones (stable, master, main), with its query and fragment; None for any other link.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in {"http", "https"} or (parts.hostname or "") not in DOCS_HOSTS:
        return None
    segments = parts.path.split("/")  # "/docs/stable/fft.html" -> ["", "docs", "stable", …]
    if len(segments) < 3 or segments[1] != "docs" or segments[2] not in MOVING_DOCS:
        return None
    named = docs_version(version)
    if named is None:
        return None
    path = "/".join(["", "docs", named, *segments[3:]])
    if len(segments) == 3:
        path += "/"  # /docs/stable -> /docs/1.8.0/
    host = "pytorch.org" if parts.hostname == "www.pytorch.org" else parts.hostname
    return urlunsplit(("https", host, path, parts.query, parts.fragment))


def archived_url(url, date):
    """The Wayback Machine's copy of ``url`` nearest to ``date``; None without a date, or for
    an address that is already an archived copy."""
    if date is None or not url or url.startswith(WAYBACK):
        return None
    if isinstance(date, dt.datetime):
        date = date.date()
    return f"{WAYBACK}{date:%Y%m%d}/{url}"


def suggestions(
    url, *, status, final_url="", version="", release_date=None, taken=(), max_length=None
):
    """
    What to replace a link with, best first: one Suggestion per kind that applies to a link of
    ``status`` (none unless the link needs fixing). A suggestion that is the link's own URL,
    one of ``taken`` (the URLs its feature already links to) or longer than ``max_length`` (the
    URL field's) is left out: applying it would fail.
    """
    if status not in NEEDS_FIX or not url:
        return []
    candidates = [
        (REDIRECT_TARGET, redirect_target(url, status, final_url)),
        (VERSIONED_DOCS, versioned_docs_url(url, version)),
        (ARCHIVED_COPY, archived_url(url, release_date)),
    ]
    found, seen = [], {url, *taken}
    for kind, candidate in candidates:
        if candidate is None or candidate in seen:
            continue
        if max_length is not None and len(candidate) > max_length:
            continue
        seen.add(candidate)
        found.append(Suggestion(kind, candidate))
    return found
