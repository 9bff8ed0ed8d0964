"""
HTTP caching for the public API and the feeds.

For every request under /api/, /feeds/ and /badges/ (and the public pages), in this order:

1. refuse any method but GET, HEAD and OPTIONS (405), and a path holding a control character
   (404: it names nothing);
2. throttle clients by address in fixed windows, counted with one operation a request in a
   store every process shares (releases.web.throttle), OPTIONS and HEAD like GET;
3. refuse a query that breaks the rule every endpoint follows (releases.queries.params): a 400 that
   names each parameter;
4. answer OPTIONS without rendering a page;
5. answer a conditional request whose ETag or Last-Modified still holds with a 304;
6. serve the rendered page from the page cache, or render it and keep it there, with the
   headers the view gave it.

Both validators and the page cache are keyed by the catalog revision (releases.revision),
which every committed write replaces: no page outlives a change, and the check costs no SQL.

Which paths are public, and which of them answer as the API (errors as JSON) rather than as
pages, is read from the URLconf (releases.surfaces).

This middleware runs before sessions, CSRF, users, messages, the history's and the lockout's
(config/settings.py): a public answer needs none of them, so a page-cache hit skips them.
Whatever it answers — a fresh page, a cached one, a 304 or a 429 — passes out through the
middleware that sets the security headers (and X-Frame-Options), and carries the same
``Allow`` and ``Vary`` as a freshly rendered page.
"""

import functools
import hashlib
import time

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date

from releases import memory, revision
from releases.queries import params
from releases.queries.reading import MULTI_VALUED
from releases.surfaces import answers_as_api, is_page, post_rate
from releases.web.throttle import Throttle, counters

PUBLIC_METHODS = "GET, HEAD, OPTIONS"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
# Set here on every answer, not taken from the page cache.
OWN_HEADERS = {"etag", "last-modified", "cache-control", "x-cache", "allow", "vary"}


# Headers that make a request conditional: without them, there is nothing to compare.
CONDITIONAL_HEADERS = {
    "HTTP_IF_MATCH",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
}


@functools.lru_cache(maxsize=256)
def accept_variant(accept):
    """A short name for an Accept header: the part of the ETag that says which one it was."""
    return hashlib.blake2b(accept.encode(), digest_size=4).hexdigest()


@functools.lru_cache(maxsize=16)
def formatted_date(timestamp):
    """Last-Modified's form of a revision's time (one a revision, so formatted once)."""
    return http_date(timestamp)


def client_address(request):
    """The client's address: where the proxy in front puts it (DJANGO_CLIENT_IP_HEADER)."""
    return request.META.get(settings.CLIENT_IP_META_KEY) or request.META.get("REMOTE_ADDR", "")


class CatalogCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.page_seconds = settings.API_PAGE_CACHE_SECONDS
        self.max_age = settings.API_MAX_AGE_SECONDS
        self.shared_cache = {
            "s_maxage": settings.API_SHARED_MAX_AGE_SECONDS,
            "stale_while_revalidate": settings.API_STALE_WHILE_REVALIDATE_SECONDS,
        }
        rate = settings.API_ANON_RATE
        store = counters(caches["shared"], getattr(settings, "CACHE_DIR", None))
        self.throttle = Throttle(rate, store) if rate else None
        self.post_throttles = {}  # {rate: Throttle} of the throttled forms

    def __call__(self, request):
        page = is_page(request.path)
        if not (page or answers_as_api(request.path)):
            if request.method == "POST":
                wait = self.posts_wait(request)
                if wait:
                    response = render(request, "429.html", {"wait": wait}, status=429)
                    response["Retry-After"] = str(wait)
                    return response
            return self.get_response(request)
        if request.method not in SAFE_METHODS:
            detail = f'Method "{request.method}" not allowed: the public API only reads.'
            return self.public(JsonResponse({"detail": detail}, status=405))
        if params.CONTROL.search(request.path):
            if page:  # a page's 404 is a page, as the surface's other errors
                return self.public(render(request, "404.html", status=404))
            return self.public(JsonResponse({"detail": "Not found."}, status=404))
        if self.throttle:
            wait = self.throttle.wait(client_address(request))
            if wait:
                return self.public(self.throttled(wait))
        query = params.without_empty(request.GET) if page else request.GET
        problems = params.problems(query, MULTI_VALUED)
        if problems:
            if page:
                page = render(request, "400.html", {"problems": problems}, status=400)
                return self.public(page)
            return self.public(JsonResponse(problems, status=400))
        if request.method == "OPTIONS":
            return self.public(HttpResponse(status=200))

        current = revision.recent()
        token = current.token
        request.catalog_revision = token  # what lists key their cached counts by
        variant = accept_variant(request.META.get("HTTP_ACCEPT", ""))
        etag = f'"{token}-{variant}"'
        # Whole seconds, as HTTP dates have them. Shown never later than this process's
        # clock, so never later than the Date the server adds (a writer on another host
        # may run ahead); judged by the revision's own time (compared_time).
        changed = int(current.changed_at.timestamp())
        last_modified = min(changed, int(time.time()))
        if CONDITIONAL_HEADERS.intersection(request.META):
            not_modified = get_conditional_response(
                request, etag=etag, last_modified=self.compared_time(request, current, changed)
            )
            if not_modified is not None:
                return self.public(self.with_validators(not_modified, etag, last_modified))

        key = self.page_key(request, token, variant) if self.page_seconds else None
        cached = caches["default"].get(key) if key else None
        if cached is not None:
            content, headers = cached
            response = HttpResponse(content)
            for name, value in headers:
                response[name] = value
            response["X-Cache"] = "hit"
        else:
            response = self.get_response(request)
            memory.let_go(response)
            if response.status_code != 200 or response.streaming:
                return self.public(response)
            if key:
                headers = [(k, v) for k, v in response.items() if k.lower() not in OWN_HEADERS]
                caches["default"].set(key, (response.content, headers), self.page_seconds)
            response["X-Cache"] = "miss"
        return self.public(self.with_validators(response, etag, last_modified))

    def posts_wait(self, request):
        """The seconds a client waits before another POST to a ``throttled`` form; 0: none."""
        setting = post_rate(request.path_info)
        rate = getattr(settings, setting, "") if setting else ""
        if not rate:
            return 0
        if rate not in self.post_throttles:
            store = counters(caches["shared"], getattr(settings, "CACHE_DIR", None))
            self.post_throttles[rate] = Throttle(rate, store)
        return self.post_throttles[rate].wait(f"{setting} {client_address(request)}")

    @staticmethod
    def compared_time(request, current, changed):
        """
        The modification time conditional requests are judged by. Django prefers the ETag
        when both validators come (RFC 9110, 13.2.2), and the ETag tells every revision apart.
        A client that sends If-Modified-Since alone holds a whole second: when another revision
        started in that same second, "not modified since" is not known, so the change counts
        as one second later, and that client gets the page, never a wrong 304.
        """
        if "HTTP_IF_NONE_MATCH" in request.META or "HTTP_IF_MODIFIED_SINCE" not in request.META:
            return changed
        return changed + 1 if revision.shares_second(current) else changed

    def with_validators(self, response, etag, last_modified):
        response["ETag"] = etag
        response["Last-Modified"] = formatted_date(last_modified)
        patch_cache_control(response, public=True, max_age=self.max_age, **self.shared_cache)
        return response

    @staticmethod
    def public(response):
        """What every answer under the public prefixes says, however it was made."""
        response["Allow"] = PUBLIC_METHODS
        if response.get("Vary") != "Accept":
            patch_vary_headers(response, ["Accept"])
        return response

    @staticmethod
    def page_key(request, token, variant):
        # Pages hold absolute links (next, previous, url), so scheme and host matter too.
        query = "&".join(sorted(request.META.get("QUERY_STRING", "").split("&")))
        raw = f"{request.scheme}://{request.get_host()}{request.path}?{query}"
        digest = hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()
        return f"page:{token}:{variant}:{digest}"

    @staticmethod
    def throttled(wait):
        seconds = int(wait or 1)
        response = JsonResponse(
            {"detail": f"Request was throttled. Expected available in {seconds} seconds."},
            status=429,
        )
        response["Retry-After"] = str(seconds)
        return response
