"""
Root URLs: the public API under /api/ (releases.api.urls), the pages, feeds, status badges and
sitemap (releases.pages.urls), the editors' admin under /admin/.
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, reverse_lazy

from releases.surfaces import ADMIN, API, on

urlpatterns = [
    # First: the API is what most requests ask for, and URLs are tried in order.
    on(API, path("api/", include("releases.api.urls"))),
    path("", include("releases.pages.urls")),
    # The one-time link `create_editor NAME --no-input` prints: set a password, then sign in.
    *on(
        ADMIN,
        [
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
        ],
    ),
]

# JSON errors under /api/ and /feeds/, like the API's own; Django's pages elsewhere.
handler400 = "releases.web.errors.bad_request"
handler404 = "releases.web.errors.not_found"
# A database that cannot be reached is a 503 with Retry-After, not a bare 500.
handler500 = "releases.web.unavailable.server_error"
