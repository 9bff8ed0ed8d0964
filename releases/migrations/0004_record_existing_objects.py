"""
A first history record ("created") for every object a catalog held before history began, so
that each has a past to compare, revert to and replay from /api/changes/.
"""

from django.db import migrations
from django.utils import timezone


def keys(model_name, obj):
    """The natural key and references of ``obj`` (historical models have no natural_key())."""
    if model_name == "Release":
        return [obj.version], {}
    if model_name in ("Area", "Track"):
        refs = {"area": [obj.area.slug]} if model_name == "Track" else {}
        return [obj.slug], refs
    if model_name == "AreaAlias":
        return [obj.name], {"area": [obj.area.slug]}
    if model_name == "Feature":
        refs = {
            "release": [obj.release.version],
            "area": [obj.area.slug],
            "track": [obj.track.slug],
        }
        return [obj.release.version, obj.slug], refs
    feature = obj.feature
    return (
        [feature.release.version, feature.slug, obj.label, obj.url],
        {"feature": [feature.release.version, feature.slug]},
    )


RELATED = {
    "Track": ["area"],
    "AreaAlias": ["area"],
    "Feature": ["release", "area", "track"],
    "Link": ["feature__release"],
}


def record_existing(apps, schema_editor):
    now = timezone.now()
    for name in ["Area", "AreaAlias", "Track", "Release", "Feature", "Link"]:
        model = apps.get_model("releases", name)
        history = apps.get_model("releases", f"Historical{name}")
        recorded = set(history.objects.values_list("id", flat=True))
        fields = [
            field.attname
            for field in history._meta.concrete_fields
            if not field.name.startswith("history_")
        ]
        rows = []
        for obj in model.objects.select_related(*RELATED.get(name, [])).iterator():
            if obj.pk in recorded:
                continue
            key, refs = keys(name, obj)
            rows.append(
                history(
                    history_date=now,
                    history_type="+",
                    history_change_reason="in the catalog before history began",
                    history_key=key,
                    history_refs=refs,
                    **{attname: getattr(obj, attname) for attname in fields},
                )
            )
        history.objects.bulk_create(rows, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("releases", "0003_history_and_approval")]

    operations = [migrations.RunPython(record_existing, migrations.RunPython.noop)]
