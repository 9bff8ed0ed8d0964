"""Give every existing feature a track of its own, and let Editors curate tracks."""

from django.db import migrations


def assign_tracks(apps, schema_editor):
    Feature = apps.get_model("releases", "Feature")
    Track = apps.get_model("releases", "Track")
    taken = set(Track.objects.values_list("slug", flat=True))
    for feature in Feature.objects.filter(track__isnull=True).select_related("release"):
        slug = feature.slug[:100]
        if slug in taken:
            slug = f"{slug}-{feature.release.version.replace('.', '-')}"
        taken.add(slug)
        feature.track = Track.objects.create(name=feature.title, slug=slug, area_id=feature.area_id)
        feature.save(update_fields=["track"])


def grant_editors(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="Editors")
    group.permissions.add(
        *Permission.objects.filter(
            content_type__app_label="releases",
            codename__in=["view_track", "add_track", "change_track"],
        )
    )


class Migration(migrations.Migration):
    dependencies = [("releases", "0003_tracks")]

    operations = [
        migrations.RunPython(assign_tracks, migrations.RunPython.noop),
        migrations.RunPython(grant_editors, migrations.RunPython.noop),
    ]
