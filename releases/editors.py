"""The "Editors" group: staff who curate the catalog without being superusers."""

from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Group, Permission

EDITORS_GROUP = "Editors"
EDITED_MODELS = ["release", "feature", "link", "area", "areaalias", "track", "stageclaim"]
# What a release runs on and pairs with: editors keep or delete what an import brought.
EDITED_MODELS += ["support", "companion", "patchrelease", "scheduledate"]
# Upgrade notes and the APIs each names: editors curate what import_release_notes brought.
EDITED_MODELS += ["upgradenote", "upgradeapi"]
ACTIONS = ["view", "add", "change"]
# Merging and splitting delete the tracks they empty (a track with features cannot be
# deleted: features protect it). Editors delete links, aliases and features (a published
# feature is retired, with a confirmation); each comes back from Deleted features, links and
# aliases (the history keeps all). Releases, areas and claims they do not delete.
EXTRA = ["delete_track", "delete_link", "delete_areaalias", "delete_feature"]
EXTRA += ["delete_support", "delete_companion", "delete_patchrelease", "delete_scheduledate"]
EXTRA += ["delete_upgradenote", "delete_upgradeapi"]
# What watch_blog found in the blog's feed: editors read it (the desk links it); only the
# command writes it.
WATCHED = ["view_blogannouncement", "view_blogfeed"]
# Notifications: editors register, pause and resume webhooks, resend a delivery, and tend the
# email subscriptions (people sign up themselves); digests are the worker's record.
NOTIFYING = [f"{action}_webhook" for action in ("view", "add", "change", "delete")]
NOTIFYING += ["view_webhookdelivery", "change_webhookdelivery", "view_emaildigest"]
NOTIFYING += [f"{action}_emailsubscription" for action in ("view", "change", "delete")]


def ensure_editors_group(sender=None, using="default", **kwargs):
    """Create the group if needed, and give it its permissions (a post_migrate receiver)."""
    if sender is not None:
        # This app comes before django.contrib.auth in INSTALLED_APPS, so this receiver may
        # run before auth's: make sure the app's permissions exist first (idempotent).
        create_permissions(sender, verbosity=0, using=using)
    codenames = [f"{action}_{model}" for model in EDITED_MODELS for action in ACTIONS]
    codenames += EXTRA + WATCHED + NOTIFYING
    permissions = Permission.objects.using(using).filter(
        content_type__app_label="releases", codename__in=codenames
    )
    group, _ = Group.objects.using(using).get_or_create(name=EDITORS_GROUP)
    group.permissions.add(*permissions)
    return group
