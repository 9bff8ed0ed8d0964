"""
PyTorch's new classification (API-Unstable), the label each post wrote, deprecations as entries
of their own, successor tracks and a release's note on its sources.

Features that already have a stage get the label of the scheme their posts used ("Stable",
"Beta", "Prototype"): the field is new, so no editor's value is replaced.
"""

import django.db.models.deletion
from django.db import migrations, models

from releases import versions

LABELS = {"stable": "Stable", "beta": "Beta", "prototype": "Prototype"}


def label_existing_stages(apps, schema_editor):
    Feature = apps.get_model("releases", "Feature")
    # Before 1.6 the posts called Beta "Experimental".
    classified = versions.Version.parse("1.6").key
    Feature.objects.filter(
        stability="beta", stage_label="", release_version_key__lt=classified
    ).update(stage_label="Experimental")
    for stability, label in LABELS.items():
        Feature.objects.filter(stability=stability, stage_label="").update(stage_label=label)


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0015_provenance_fields_shared"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="feature",
            name="feature_stability_valid",
        ),
        migrations.RemoveConstraint(
            model_name="stageclaim",
            name="stageclaim_stability_valid",
        ),
        migrations.AddField(
            model_name="feature",
            name="demotion_reason",
            field=models.TextField(
                blank=True,
                help_text="Why the capability is less stable here than at its previous appearance: an editor's reason, required for every demotion.",
            ),
        ),
        migrations.AddField(
            model_name="feature",
            name="kind",
            field=models.CharField(
                choices=[("feature", "Feature"), ("deprecation", "Deprecation")],
                default="feature",
                help_text="A feature, or the announcement that a capability is deprecated or removed.",
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="feature",
            name="stage_label",
            field=models.CharField(
                blank=True,
                help_text='The stage exactly as the post wrote it ("Beta", "API-Unstable"); empty when the post states none.',
                max_length=40,
            ),
        ),
        migrations.AddField(
            model_name="historicalfeature",
            name="demotion_reason",
            field=models.TextField(
                blank=True,
                help_text="Why the capability is less stable here than at its previous appearance: an editor's reason, required for every demotion.",
            ),
        ),
        migrations.AddField(
            model_name="historicalfeature",
            name="kind",
            field=models.CharField(
                choices=[("feature", "Feature"), ("deprecation", "Deprecation")],
                default="feature",
                help_text="A feature, or the announcement that a capability is deprecated or removed.",
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="historicalfeature",
            name="stage_label",
            field=models.CharField(
                blank=True,
                help_text='The stage exactly as the post wrote it ("Beta", "API-Unstable"); empty when the post states none.',
                max_length=40,
            ),
        ),
        migrations.AddField(
            model_name="historicalrelease",
            name="sources_note",
            field=models.TextField(
                blank=True,
                help_text="What the sources of this release leave unstated (no full post at hand, stages not given), in our own words: shown on the release page.",
            ),
        ),
        migrations.AddField(
            model_name="historicaltrack",
            name="succeeds",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                help_text="The capability this one is the next API generation of (FSDP2 succeeds FSDP): a successor is a track of its own, not a demotion of its predecessor.",
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="releases.track",
            ),
        ),
        migrations.AddField(
            model_name="release",
            name="sources_note",
            field=models.TextField(
                blank=True,
                help_text="What the sources of this release leave unstated (no full post at hand, stages not given), in our own words: shown on the release page.",
            ),
        ),
        migrations.AddField(
            model_name="track",
            name="succeeds",
            field=models.ForeignKey(
                blank=True,
                help_text="The capability this one is the next API generation of (FSDP2 succeeds FSDP): a successor is a track of its own, not a demotion of its predecessor.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="successors",
                to="releases.track",
            ),
        ),
        migrations.AlterField(
            model_name="feature",
            name="stability",
            field=models.CharField(
                blank=True,
                choices=[
                    ("stable", "Stable"),
                    ("beta", "Beta"),
                    ("prototype", "Prototype"),
                    ("unstable", "Unstable"),
                ],
                help_text="Empty when the post gives no stability (e.g. a domain library's release).",
                max_length=10,
            ),
        ),
        # A generated column cannot be altered: it is dropped and added with API-Unstable.
        migrations.RemoveField(model_name="feature", name="stability_rank"),
        migrations.AddField(
            model_name="feature",
            name="stability_rank",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Case(
                    models.When(stability="prototype", then=models.Value(1)),
                    models.When(stability="beta", then=models.Value(2)),
                    models.When(stability="unstable", then=models.Value(2)),
                    models.When(stability="stable", then=models.Value(3)),
                    default=None,
                    output_field=models.PositiveSmallIntegerField(),
                ),
                help_text="1 prototype, 2 beta or unstable, 3 stable; empty without stability.",
                output_field=models.PositiveSmallIntegerField(null=True),
            ),
        ),
        migrations.AlterField(
            model_name="historicalfeature",
            name="stability",
            field=models.CharField(
                blank=True,
                choices=[
                    ("stable", "Stable"),
                    ("beta", "Beta"),
                    ("prototype", "Prototype"),
                    ("unstable", "Unstable"),
                ],
                help_text="Empty when the post gives no stability (e.g. a domain library's release).",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="historicalstageclaim",
            name="stability",
            field=models.CharField(
                choices=[
                    ("stable", "Stable"),
                    ("beta", "Beta"),
                    ("prototype", "Prototype"),
                    ("unstable", "Unstable"),
                ],
                help_text="The stage the sentence states.",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="stageclaim",
            name="stability",
            field=models.CharField(
                choices=[
                    ("stable", "Stable"),
                    ("beta", "Beta"),
                    ("prototype", "Prototype"),
                    ("unstable", "Unstable"),
                ],
                help_text="The stage the sentence states.",
                max_length=10,
            ),
        ),
        migrations.AddIndex(
            model_name="feature",
            index=models.Index(
                fields=["kind", "-release_version_key", "position"], name="feature_kind_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="feature",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("stability__in", ["stable", "beta", "prototype", "unstable", ""])
                ),
                name="feature_stability_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="feature",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", ["feature", "deprecation"])),
                name="feature_kind_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="stageclaim",
            constraint=models.CheckConstraint(
                condition=models.Q(("stability__in", ["stable", "beta", "prototype", "unstable"])),
                name="stageclaim_stability_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="track",
            constraint=models.CheckConstraint(
                condition=models.Q(("succeeds", models.F("pk")), _negated=True),
                name="track_succeeds_not_itself",
            ),
        ),
        migrations.RunPython(label_existing_stages, migrations.RunPython.noop),
    ]
