"""The admin site of the catalog: its name, and the editors' desk as its front page."""

import functools

from django.contrib import admin

from releases.admin import desk


class CatalogAdminSite(admin.AdminSite):
    site_header = "PyTorch Release Catalog"
    site_title = "PyTorch Release Catalog"
    index_title = "Editors' desk"
    index_template = "admin/catalog_index.html"
    # The desk links every queue and list; the sidebar would take a third of a 1280 px window.
    enable_nav_sidebar = False

    def index(self, request, extra_context=None):
        context = {}
        if request.user.has_perm("releases.view_feature"):
            context = {
                "queues": desk.queues(),
                "drafts": desk.drafts(),
                "currency": desk.currency(),
                "recent_changes": desk.recent_changes(),
            }
        return super().index(request, {**context, **(extra_context or {})})


@functools.cache
def catalog_admin_site():
    """
    The default admin site (``CatalogAdminConfig.default_site``), one instance however often
    it is asked for. Django's lazy ``admin.site`` builds it by importing this module, which
    imports the ``releases.admin`` package first; its model admins register on ``admin.site``
    and so ask for the site again before that first build returns. Named as a class, the
    default site would be built twice and the second would lack every registration.
    """
    return CatalogAdminSite()
