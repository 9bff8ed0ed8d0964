"""
What a URL is, declared where the URL is: each URL pattern of the public site is put on a
surface (``on``) in the urls module that declares it, and everything that treats surfaces
differently reads them from the URLconf (``walk``), never from a list kept elsewhere.

* ``API`` (``/api/``), ``FEED`` and ``BADGE``: read-only, throttled and cached by
  releases.web.middleware; their errors are JSON (releases.web.errors).
* ``ADMIN``: the editors' admin and its sign-in links: none of the public rules (Django's
  own, signed-in and never cached).
* ``PLAIN``: served by Django alone, outside every rule on purpose: the benchmark's baselines
  (bench/urls.py), which measure what the rules cost.
* ``FORM``: the pages that take a person's form (``/subscribe/``, a confirmation or unsubscribe
  link): none of the public pages' caching (each answer is that person's), Django's CSRF check;
  a form declared ``throttled`` limits each client's POSTs; their errors are pages.
* ``PAGE``: the pages for people, the sitemap, the calendar and the constraints files: the same
  middleware (ETag and 304, throttle, strict parameters, only GET, HEAD and OPTIONS); their
  errors are pages. A page at a path without arguments that ends in ``/`` is listed in the
  sitemap.

A surface covers the first path segment of each of its patterns (``/releases/`` of
``releases/<version>/``; the home page its path alone): a path under it belongs to it even when
it names nothing there (``/api/nothing-here/`` is a JSON 404), which resolving could not tell.
A public pattern put on no surface is an error at start-up (``check_every_url_is_declared``),
so a new page cannot be added outside the rules.
"""

import functools
import re
from dataclasses import dataclass

from django.conf import settings
from django.core import checks
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, get_urlconf, resolve

API, PAGE, FEED, BADGE, FORM, ADMIN, PLAIN = (
    "api",
    "page",
    "feed",
    "badge",
    "form",
    "admin",
    "plain",
)
SURFACES = (API, PAGE, FEED, BADGE, FORM, ADMIN, PLAIN)
JSON_ERRORS = (API, FEED, BADGE)  # the surfaces whose errors are JSON
ATTRIBUTE = "catalog_surface"  # where ``on`` puts a pattern's surface


def on(surface, patterns):
    """Put each of ``patterns`` (URL patterns, or an include's resolver) on ``surface``."""
    if surface not in SURFACES:
        raise ValueError(f"No surface {surface!r}: one of {', '.join(SURFACES)}.")
    several = isinstance(patterns, list | tuple)
    for pattern in patterns if several else [patterns]:
        setattr(pattern, ATTRIBUTE, surface)
    return list(patterns) if several else patterns


MENU = "catalog_menu"  # where ``in_menu`` puts a page's label in the site's menu
RATE = "catalog_post_rate"  # where ``throttled`` puts the setting that limits a form's POSTs


def throttled(setting, pattern):
    """``pattern``, a form, whose POSTs a client may make at the rate ``settings.<setting>``."""
    setattr(pattern, RATE, setting)
    return pattern


def in_menu(label, pattern):
    """``pattern``, a page, listed in the site's menu as ``label`` (in declaration order)."""
    setattr(pattern, MENU, label)
    return pattern


@dataclass(frozen=True)
class Route:
    """One URL pattern of the URLconf, with the surface it was put on (None: on none)."""

    route: str  # the whole route, includes' prefixes joined: "api/releases/<str:version>/"
    name: str | None
    surface: str | None
    pattern: URLPattern

    @property
    def takes_arguments(self):
        return "<" in self.route or bool(self.pattern.pattern.regex.groups)

    @property
    def first_segment(self):
        """``/releases/`` of ``releases/<version>/``; ``/calendar.ics`` of itself; ``/``."""
        head, slash, _ = self.route.partition("/")
        return f"/{head}{slash}"

    @property
    def menu_label(self):
        return getattr(self.pattern, MENU, None)

    @property
    def in_sitemap(self):
        listed = self.route == "" or self.route.endswith("/")
        return self.surface == PAGE and listed and not self.takes_arguments


def walk(urlconf=None):
    """Every URL pattern of ``urlconf`` (the site's by default), in order, as Routes."""
    return tuple(_walk(get_resolver(urlconf).url_patterns, "", None))


def _walk(patterns, prefix, surface):
    for pattern in patterns:
        route = prefix + route_of(pattern)
        declared = getattr(pattern, ATTRIBUTE, surface)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, route, declared)
        else:
            yield Route(route, pattern.name, declared, pattern)


def route_of(pattern):
    """A pattern's route as written ("releases/<str:version>/"), a regex's without anchors."""
    text = str(pattern.pattern)
    return re.sub(r"^\^|\$$|\\Z$", "", text) if hasattr(pattern.pattern, "regex") else text


@functools.cache
def surfaces(urlconf):
    """(the JSON surfaces' path prefixes, the pages', the home page's path) in ``urlconf``."""
    routes = [route for route in walk(urlconf) if route.surface]
    json = tuple(dict.fromkeys(r.first_segment for r in routes if r.surface in JSON_ERRORS))
    pages = tuple(dict.fromkeys(r.first_segment for r in routes if r.surface == PAGE and r.route))
    home = next((f"/{r.route}" for r in routes if r.surface == PAGE and r.route == ""), None)
    return json, pages, home


def current():
    return surfaces(get_urlconf(settings.ROOT_URLCONF))


def answers_as_api(path):
    """Whether ``path`` is the API's, the feeds' or a badge's: its errors are JSON."""
    return path.startswith(current()[0])


def is_page(path):
    """Whether ``path`` is a public page's."""
    _, pages, home = current()
    return path == home or path.startswith(pages)


def post_rate(path):
    """The setting that limits POSTs to ``path`` (``throttled``), or None."""
    rates = post_rates(get_urlconf(settings.ROOT_URLCONF))
    if not rates:
        return None
    try:
        name = resolve(path).url_name
    except Resolver404:
        return None
    return rates.get(name)


@functools.cache
def post_rates(urlconf):
    return {
        route.name: getattr(route.pattern, RATE)
        for route in walk(urlconf)
        if getattr(route.pattern, RATE, None)
    }


def sitemap_pages():
    """The names of the pages the sitemap lists: every page without arguments, ending in /."""
    return listed_pages(get_urlconf(settings.ROOT_URLCONF))


@functools.cache
def listed_pages(urlconf):
    return [route.name for route in walk(urlconf) if route.in_sitemap and route.name]


def menu():
    """[(label, URL name)]: the site's menu, every page declared ``in_menu``, in order."""
    return menu_of(get_urlconf(settings.ROOT_URLCONF))


@functools.cache
def menu_of(urlconf):
    return [(route.menu_label, route.name) for route in walk(urlconf) if route.menu_label]


@checks.register(checks.Tags.urls)
def check_every_page_is_in_the_menu(app_configs, **kwargs):
    """A page the sitemap lists (but the home page) that the menu forgets is found by search
    engines and by nobody else: an error."""
    return [
        checks.Error(
            f"The page {route.route!r} ({route.name}) is in the sitemap but not in the menu.",
            hint="Declare it with releases.surfaces.in_menu(LABEL, path(...)) where it is "
            "declared.",
            id="releases.E011",
        )
        for route in walk()
        if route.in_sitemap and route.route and not route.menu_label
    ]


@checks.register(checks.Tags.urls)
def check_every_url_is_declared(app_configs, **kwargs):
    """A URL pattern on no surface would be served outside every rule: an error."""
    errors = []
    for route in walk():
        if route.surface is None:
            errors.append(
                checks.Error(
                    f"The URL pattern {route.route!r} ({route.name}) is on no surface.",
                    hint="Declare it with releases.surfaces.on(SURFACE, [...]) where it "
                    "is declared (an API, page, feed, badge or admin URL).",
                    id="releases.E010",
                )
            )
    return errors
