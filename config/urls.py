"""
Root URLs: the public API under /api/, feeds under /feeds/, status badges under /badges/, the
editors' admin under /admin/.
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path, reverse_lazy

from releases import pages
from releases.feeds import ReleaseFeed, TrackFeed
from releases.sitemaps import SITEMAPS
from releases.views import track_badge

urlpatterns = [
    # First: the API is what most requests ask for, and URLs are tried in order.
    path("api/", include("releases.urls")),
    path("", pages.home, name="page-home"),
    path("releases/", pages.release_list, name="page-releases"),
    path("releases/<str:version>/", pages.release_detail, name="page-release"),
    path("releases/<str:version>/state/", pages.state, name="page-state"),
    path("tracks/", pages.track_list, name="page-tracks"),
    path("tracks/<slug:slug>/", pages.track_detail, name="page-track"),
    path("matrix/", pages.matrix, name="page-matrix"),
    path("compare/", pages.compare_page, name="page-compare"),
    path("features/", pages.feature_list, name="page-features"),
    path("graduation/", pages.graduation, name="page-graduation"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    # The one-time link `create_editor NAME --no-input` prints: set a password, then sign in.
    path(
        "admin/password-set/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            success_url=reverse_lazy("password-set-done"),
            extra_context={"site_header": "PyTorch Release Catalog"},
        ),
        name="password-set",
    ),
    path(
        "admin/password-set/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password-set-done",
    ),
    path("admin/", admin.site.urls),
    path("feeds/releases/", ReleaseFeed(), name="feed-releases"),
    path("feeds/tracks/<slug:slug>/", TrackFeed(), name="feed-track"),
    path("badges/tracks/<slug:slug>.svg", track_badge, {"kind": "svg"}, name="badge-track-svg"),
    path("badges/tracks/<slug:slug>.json", track_badge, {"kind": "json"}, name="badge-track-json"),
]

# JSON errors under /api/ and /feeds/, like the API's own; Django's pages elsewhere.
handler400 = "releases.views.bad_request"
handler404 = "releases.views.not_found"
