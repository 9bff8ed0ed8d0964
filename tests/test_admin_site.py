"""The admin site: one catalog site, on which every model admin of releases.admin is registered."""

from django.contrib import admin

from releases.admin.sites import CatalogAdminSite
from releases.models import Area, AreaAlias, Feature, Link, Release, StageClaim, Track


def test_every_model_admin_is_registered_on_the_catalog_site():
    # The site is built while releases.admin is being imported: a second build would lose these.
    assert isinstance(admin.site, CatalogAdminSite)
    models = [Release, Feature, Link, Area, AreaAlias, Track, StageClaim]
    assert [model.__name__ for model in models if not admin.site.is_registered(model)] == []
