"""
Each public model declares itself once (releases.declarations.Public), and what reads the
declarations — the write path, the public change log, the history, the keys — finds every one.
"""

import pytest
from django.apps import apps

from releases import public_log
from releases.declarations import Public, declared, public_models, type_of
from releases.models import PublicChange, PublicObject


def catalog_models():
    return list(apps.get_app_config("releases").get_models())


def test_a_model_the_public_sees_declares_itself_and_only_such_a_model():
    readable = {m.__name__ for m in catalog_models() if hasattr(m._default_manager, "published")}
    declaring = {m.__name__ for m in catalog_models() if declared(m)}
    assert readable == declaring
    assert {"Release", "Feature", "Link", "Track", "Area", "AreaAlias", "StageClaim"} <= declaring


def test_the_declarations_are_whole_and_name_real_foreign_keys():
    models = public_models()
    assert len({m.public.order for m in models.values()}) == len(models)
    for name, model in models.items():
        assert model.public.type == name and type_of(model) == name
        for field in (*model.public.references, *model.public.key_path):
            assert model._meta.get_field(field).many_to_one, (name, field)


def test_every_public_type_name_fits_the_public_logs_tables():
    # "upgrade_api" once outgrew a ten-character column: SQLite stored it, PostgreSQL refused it.
    for model in (PublicObject, PublicChange):
        length = model._meta.get_field("type").max_length
        assert all(len(name) <= length for name in public_models()), model
        Public(type="x" * length, order=99, topics=())
        with pytest.raises(ValueError, match="1 to 20 characters"):
            Public(type="x" * (length + 1), order=99, topics=())


def test_a_mirror_creates_what_others_refer_to_first():
    order = public_log.types()
    for name, model in public_models().items():
        for field in model.public.references:
            target = type_of(model._meta.get_field(field).related_model)
            assert order.index(target) <= order.index(name), (name, field)


def test_what_a_model_reaches_names_public_types_real_paths_and_its_own_fields():
    """Each Reaches resolves: a typo in a lookup would silently reach nothing."""
    models = public_models()
    for name, model in models.items():
        own = {field.attname for field in model._meta.concrete_fields} | {"id"}
        for reach in (*model.public.shown_in, *model.public.reaches):
            assert reach.type in models, (name, reach)
            assert reach.through in own, (name, reach)
            assert set(reach.when) <= own, (name, reach)
            reached = models[reach.type]._base_manager.filter(**{f"{reach.lookup}__in": [0]})
            str(reached.query)  # builds the SQL: a lookup that names nothing raises here
        for field in model.public.public_with:
            assert type_of(model._meta.get_field(field).related_model) in models, (name, field)


def test_a_write_reaches_what_depends_on_it(db):
    """Publishing a release reaches its features, their links, claims, tracks and areas."""
    from releases.models import Area, Feature, Link, Release

    area = Area.objects.create(name="Vision", slug="vision")
    release = Release.objects.create(version="9.1")
    feature = Feature.objects.create(release=release, area=area, title="A thing", slug="a-thing")
    link = Link.objects.create(feature=feature, kind="documentation", url="https://example.org/")
    reached = {kind: set() for kind in public_models()}
    before = {release.pk: {"is_published": True, "version": "9.1"}}
    release.is_published = False
    public_log.reach("release", [release], before, reached, "default")
    assert reached["release"] == {release.pk}
    assert reached["feature"] == {feature.pk} and reached["link"] == {link.pk}
    assert reached["track"] == {feature.track_id} and reached["area"] == {area.pk}
    untouched = {kind: set() for kind in public_models()}
    public_log.reach(
        "release", [release], {release.pk: {"is_published": False}}, untouched, "default"
    )
    assert untouched["feature"] == set()
