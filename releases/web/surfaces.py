"""
The public surfaces, read from the URLconf: the API (with the feeds and the status badges),
whose errors are JSON, and the pages. releases.web.middleware serves both as read-only,
throttled and cached; the error handlers answer the first in JSON.

Each surface is named by its URLs' names (and a URL's arguments): a surface is the first path
segment of each, wherever config/urls.py puts them (the home page, its path alone). A path
under a surface belongs to it even when it names nothing there (``/api/nothing-here/`` is a
JSON 404), which resolving it could not tell.
"""

import functools

from django.conf import settings
from django.urls import get_urlconf, reverse

API_URLS = [("releases:api-root", {}), ("feed-releases", {}), ("badge-track-svg", {"slug": "x"})]
HOME_URL = "page-home"
PAGE_URLS = ["page-releases", "page-tracks", "page-matrix", "page-compare", "page-features",
             "page-graduation", "page-stages", "page-sources", "sitemap"]  # fmt: skip
# The pages whose URL takes an argument: (name, an argument to reverse it with).
PAGE_URLS_WITH_ARGUMENTS = [("page-constraints", {"version": "2.5"})]


def first_segment(path):
    """``/api/`` of ``/api/releases/``; ``/sitemap.xml`` of itself."""
    head, slash, _ = path[1:].partition("/")
    return f"/{head}{slash}"


@functools.cache
def surfaces(urlconf):
    """(the API's path prefixes, the pages', the home page's path) in the URLconf ``urlconf``."""
    api = tuple(first_segment(reverse(name, urlconf, kwargs=kwargs)) for name, kwargs in API_URLS)
    pages = tuple(first_segment(reverse(name, urlconf)) for name in PAGE_URLS)
    pages += tuple(
        first_segment(reverse(name, urlconf, kwargs=kwargs))
        for name, kwargs in PAGE_URLS_WITH_ARGUMENTS
    )
    return api, pages, reverse(HOME_URL, urlconf)


def current():
    return surfaces(get_urlconf(settings.ROOT_URLCONF))


def answers_as_api(path):
    """Whether ``path`` is the API's, the feeds' or a badge's: its errors are JSON."""
    return path.startswith(current()[0])


def is_page(path):
    """Whether ``path`` is a public page's."""
    _, pages, home = current()
    return path == home or path.startswith(pages)
