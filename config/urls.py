"""
Root URLs: the public API under /api/, feeds under /feeds/, status badges under /badges/, the
editors' admin under /admin/.
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path, reverse_lazy

from releases.api.views import track_badge
from releases.pages import views
from releases.pages.feeds import ReleaseFeed, TrackFeed
from releases.pages.sitemaps import SITEMAPS

urlpatterns = [
    # First: the API is what most requests ask for, and URLs are tried in order.
    path("api/", include("releases.api.urls")),
    path("", views.home, name="page-home"),
    path("releases/", views.release_list, name="page-releases"),
    path("releases/<str:version>/", views.release_detail, name="page-release"),
    path("releases/<str:version>/state/", views.state, name="page-state"),
    path("tracks/", views.track_list, name="page-tracks"),
    path("tracks/<slug:slug>/", views.track_detail, name="page-track"),
    path("matrix/", views.matrix, name="page-matrix"),
    path("compare/", views.compare_page, name="page-compare"),
    path("features/", views.feature_list, name="page-features"),
    path("graduation/", views.graduation, name="page-graduation"),
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
handler400 = "releases.api.views.bad_request"
handler404 = "releases.api.views.not_found"
