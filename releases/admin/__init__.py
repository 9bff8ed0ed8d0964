"""
The editors' workspace: curate releases, features, links, areas and tracks, alone or in bulk.

Every model's history is kept (django-simple-history): an editor sees who changed what and
when, field by field, compares two versions, reverts to one, and recovers deleted features
with their links. Bulk actions, merges and splits are recorded under the editor's name.

Where things are:

- ``releases``, ``features``, ``links``, ``areas`` (with aliases), ``tracks``, ``claims``,
  ``compat`` (what a release runs on and pairs with), ``upgrades`` (upgrade notes):
  one model's admin each, with its list filters, inlines, actions and extra views.
- ``history``: ``CatalogAdmin``, their base: history, compare two versions, revert.
- ``forms``: the forms that carry the version they were read at, the merge form and the
  post import form.
- ``sites``: the admin site, whose front page is the editors' desk (``desk``); ``linkdesk``:
  the broken-links queue; ``signin``: the sign-in lockout (django-axes); ``watching``: what
  ``watch_blog`` found in the blog's feed, read-only; ``notifications``: webhooks, their
  deliveries, email subscriptions and digests.

Model admins import ``forms`` and ``history``, never the reverse.
"""

# Django's autodiscovery imports this package: importing each model's admin registers it.
from releases.admin import (  # noqa: F401
    areas,
    claims,
    compat,
    features,
    links,
    notifications,
    releases,
    tracks,
    upgrades,
    watching,
)
