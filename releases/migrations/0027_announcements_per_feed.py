"""
An announcement belongs to the feed that listed it, so that a run reads and imports its own
feed's only. Announcements recorded before are given the feed on their own site (scheme, host
and port), or the only feed there is; any other is dropped: it is an observation, not an
editor's, and the next run of its feed records it again.
"""

from urllib.parse import urlsplit

import django.db.models.deletion
from django.db import migrations, models


def give_each_announcement_its_feed(apps, schema_editor):
    BlogFeed = apps.get_model("releases", "BlogFeed")
    BlogAnnouncement = apps.get_model("releases", "BlogAnnouncement")
    feeds = list(BlogFeed.objects.all())
    for announcement in BlogAnnouncement.objects.filter(feed__isnull=True):
        site = urlsplit(announcement.url)[:2]
        mine = [feed for feed in feeds if urlsplit(feed.url)[:2] == site]
        if len(mine) != 1 and len(feeds) == 1:
            mine = feeds
        if len(mine) == 1:
            announcement.feed = mine[0]
            announcement.save(update_fields=["feed"])
        else:
            announcement.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0026_dependency_versions"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="blogannouncement",
            name="blogannouncement_unique_url",
        ),
        migrations.RemoveIndex(
            model_name="blogannouncement",
            name="blogannouncement_pending_idx",
        ),
        migrations.AddField(
            model_name="blogannouncement",
            name="feed",
            field=models.ForeignKey(
                help_text="The feed that lists it: a run reads and imports its own feed's only.",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="announcements",
                to="releases.blogfeed",
            ),
        ),
        migrations.RunPython(give_each_announcement_its_feed, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="blogannouncement",
            name="feed",
            field=models.ForeignKey(
                help_text="The feed that lists it: a run reads and imports its own feed's only.",
                on_delete=django.db.models.deletion.CASCADE,
                related_name="announcements",
                to="releases.blogfeed",
            ),
        ),
        migrations.AddIndex(
            model_name="blogannouncement",
            index=models.Index(
                condition=models.Q(("release__isnull", True)),
                fields=["feed", "version_key"],
                name="blogannouncement_pending_idx",
            ),
        ),
        migrations.AddConstraint(
            model_name="blogannouncement",
            constraint=models.UniqueConstraint(
                fields=("feed", "url"), name="blogannouncement_unique_feed_url"
            ),
        ),
    ]
