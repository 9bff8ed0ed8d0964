"""The pages for people, the feeds, the status badges and the sitemap: URLs outside /api/."""

from django.urls import path

from releases.pages import compat, subscriptions, tracks, upgrades, views
from releases.pages.feeds import ChangeFeed, ReleaseFeed, ScheduleFeed, TrackFeed, UpgradeFeed
from releases.pages.sitemaps import SITEMAPS
from releases.surfaces import BADGE, FEED, FORM, PAGE, in_menu, on, throttled

# Each URL on its surface (releases.surfaces): what it is decides its caching, ETag,
# throttle, parameters, methods, error format and sitemap entry; in_menu puts a page in the
# site's menu (a page the sitemap lists must be: check releases.E011).
pages = on(
    PAGE,
    [
        path("", views.home, name="page-home"),
        in_menu("Releases", path("releases/", views.release_list, name="page-releases")),
        path("releases/<str:version>/", views.release_detail, name="page-release"),
        path("releases/<str:version>/state/", views.state, name="page-state"),
        in_menu("Tracks", path("tracks/", tracks.track_list, name="page-tracks")),
        path("tracks/<slug:slug>/", tracks.track_detail, name="page-track"),
        in_menu("Matrix", path("matrix/", tracks.matrix, name="page-matrix")),
        in_menu("Compare", path("compare/", views.compare_page, name="page-compare")),
        in_menu("Features", path("features/", views.feature_list, name="page-features")),
        in_menu("Graduation", path("graduation/", tracks.graduation, name="page-graduation")),
        in_menu("Stages", path("stages/", views.stages, name="page-stages")),
        in_menu("Sources", path("sources/", views.sources, name="page-sources")),
        in_menu(
            "Compatibility", path("compatibility/", compat.compatibility, name="page-compatibility")
        ),
        in_menu("Upgrade", path("upgrade/", upgrades.upgrade, name="page-upgrade")),
        in_menu(
            "Deprecations", path("deprecations/", upgrades.deprecations, name="page-deprecations")
        ),
        path("calendar.ics", compat.calendar, name="calendar"),
        path("constraints/<str:version>.txt", compat.constraints, name="page-constraints"),
        path("sitemap.xml", views.sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    ],
)
badges = on(
    BADGE,
    [
        path(
            "badges/releases/<str:version>/python.svg",
            compat.python_badge,
            {"kind": "svg"},
            name="badge-python-svg",
        ),
        path(
            "badges/releases/<str:version>/python.json",
            compat.python_badge,
            {"kind": "json"},
            name="badge-python-json",
        ),
        path(
            # Any name, not only a slug: a track nobody knows gets the grey "unknown" badge.
            "badges/tracks/<str:slug>.svg",
            tracks.track_badge,
            {"kind": "svg"},
            name="badge-track-svg",
        ),
        path(
            "badges/tracks/<str:slug>.json",
            tracks.track_badge,
            {"kind": "json"},
            name="badge-track-json",
        ),
    ],
)
feeds = on(
    FEED,
    [
        path("feeds/releases/", ReleaseFeed(), name="feed-releases"),
        path("feeds/schedule/", ScheduleFeed(), name="feed-schedule"),
        path("feeds/releases/<str:version>/upgrade/", UpgradeFeed(), name="feed-upgrade"),
        path("feeds/tracks/<slug:slug>/", TrackFeed(), name="feed-track"),
        # A topic's changes (releases.topics): feeds/changes/releases:2.x/, .../track:SLUG/
        path("feeds/changes/<str:topic>/", ChangeFeed(), name="feed-changes"),
    ],
)
forms = on(
    FORM,
    [
        throttled("SUBSCRIBE_RATE", path("subscribe/", subscriptions.subscribe, name="subscribe")),
        path("subscribe/confirm/<str:token>/", subscriptions.confirm, name="subscribe-confirm"),
        path("unsubscribe/<str:token>/", subscriptions.unsubscribe, name="unsubscribe"),
    ],
)
urlpatterns = [*pages, *badges, *feeds, *forms]
