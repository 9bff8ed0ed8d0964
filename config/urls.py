"""Root URLs: the public API under /api/, feeds under /feeds/, the editors' admin under /admin/."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from releases.feeds import ReleaseFeed, TrackFeed

urlpatterns = [
    path("", RedirectView.as_view(url="/api/", permanent=False)),
    path("admin/", admin.site.urls),
    path("api/", include("releases.urls")),
    path("feeds/releases/", ReleaseFeed(), name="feed-releases"),
    path("feeds/tracks/<slug:slug>/", TrackFeed(), name="feed-track"),
]

# JSON errors under /api/ and /feeds/, like the API's own; Django's pages elsewhere.
handler400 = "releases.views.bad_request"
handler404 = "releases.views.not_found"
